#!/bin/bash
# ------------------------------------------------------------ options-hints
# For a new user (the smaller things): -t and --ramp take units, an
# ambiguous or mistyped long option says what it may have meant, range
# errors name their limits, and every option of sdb.1 is an entry of its own.
. "$(dirname "$0")/../lib.sh"
run -w -f hint -s 1m -b 64k -t 0.2s --json
check "-t 0.2s: a time with its unit" "0 0.2" "$rc $(jq '.options.time_limit' <<<"$out")"
bad_input 2 "-t 2x: time must be a positive number of seconds, at most a year (366 days): 5, 2.5, 5s, 2m or 1h" -w -f hint -t 2x
bad_input 2 "--fsync 0: writes per fdatasync must be a whole number from 1 to 999999999" -w -f hint --fsync 0
bad_input 2 "--q: ambiguous: --queue-depth or --quick?" -w -f hint --q 4
bad_input 2 "--queue-dpeth: unknown option; did you mean --queue-depth?" -w -f hint --queue-dpeth 4
bad_input 2 "---: unknown option; see sdb --help" -w -f hint ---
bad_input 2 "----x: unknown option; see sdb --help" -w -f hint ----x
run --quick=mix --explain -f "$PWD"
check "--quick=mix is a profile, not a usage error" "0 9" "$rc $(grep -c '^fio ' <<<"$out")"
lacks "sdb.1 no longer says --quick=mix is a usage error" "$(sed -n '/^\.BR \\-\\-quick "/,/^\.TP/p' "$man")" "has mixed I/O"
# Each option's entry in OPTIONS that takes a value starts with .TP (else man
# shows it inside the one before).
untagged=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | awk '
	/^\.BR \\-[a-zA-Z] ", " \\-\\-[a-z]/ || /^\.BR \\-\\-[a-z][a-z\\-]* " \\fI[A-Z]/ {
		if (prev != ".TP") print $0 }
	{ prev = $0 }' | tr '\n' ' ')
check "sdb.1: every option entry begins with .TP (--start-at no longer inside --hosts)" "" "$untagged"
rm -f hint
