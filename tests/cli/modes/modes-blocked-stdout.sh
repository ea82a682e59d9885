#!/bin/bash
# ------------------------------------------------------------ modes-blocked-stdout
# Every mode's report held by a full stdout pipe, as report-blocked-stdout
# holds a run's: --merge, --compare and the quick suite deliver their text
# while the signals are still watched, so INT or TERM ends sdb (128 + n,
# one line on stderr says the report is cut short) and a reader that goes
# away is exit 141.  The pipe is a FIFO whose reader never reads.  --merge
# and --compare print more than the pipe takes; the sign that they have
# reached their report is 64 KiB written (wchar of /proc/PID/io, which
# counts their stderr too: a signal a little before the pipe is full is
# still one while the report is written).  The quick suite's document is
# smaller than the pipe, so the test fills the pipe first; the sign is that
# its test file is gone, which the suite does just before its report.
# Each check wants the sign seen, the exit status and (but for PIPE) the
# line that says the report is cut short, once.
. "$(dirname "$0")/../lib.sh"
no_quick_file() { ! compgen -G "$1/sdb-quick.*" >/dev/null; }
mb_dir=$work/modes-blocked
mkdir -p "$mb_dir/q"
"$sdb" -r -f /dev/zero -s 4m -b 4k -m rand -t 0.2 --json >"$mb_dir/a.json" 2>/dev/null
# 20 documents of 20 hosts (JSON: about 160 KB merged), 400 for the human
# report (about 80 KB); two quick-suite documents of 2000 tests each.
jq -c '. as $d | range(20) | . as $i | $d | .host = "host\($i)"' "$mb_dir/a.json" >"$mb_dir/m20.json"
jq -c '. as $d | range(400) | . as $i | $d | .host = "host\($i)"' "$mb_dir/a.json" >"$mb_dir/m400.json"
for v in old:1 new:2; do
	jq -n --argjson k "${v#*:}" '{version: "0.1.0", host: "h", suite: [range(2000) | {name: "test \(.)",
		runs: [{bytes_per_second: (1e6 * $k), iops: (100 * $k), p99_ns: 1000}, {bytes_per_second: (1.1e6 * $k),
		iops: (110 * $k), p99_ns: 1100}]}]}' >"$mb_dir/${v%:*}.json"
done
if [ ! -r /proc/self/io ]; then
	skipped "every mode's report held by a full pipe" "no /proc/PID/io"
else
	for mode in merge merge-human compare; do
		case $mode in
		merge) args=(--merge "$mb_dir/m20.json" --json) ;;
		merge-human) args=(--merge "$mb_dir/m400.json") ;;
		compare) args=(--compare "$mb_dir/old.json" "$mb_dir/new.json") ;;
		esac
		for how in INT TERM PIPE; do
			rm -f held.fifo && mkfifo held.fifo
			"$sdb" "${args[@]}" >held.fifo 2>held.err &
			pid=$!
			exec 3<held.fifo	# the reader: it never reads
			if wait_for $pid wrote $pid 65536; then state=held; else state="not held"; fi
			end_held $pid $how
			said=$(grep -c "^sdb: interrupted by SIG$how while standard output took the report: it is cut short$" held.err)
			[ $how = PIPE ] && want="$want 0" || want="$want 1"	# the line that says so, but for PIPE
			check "$mode: a report held by a full pipe (64 KiB taken), then $how: sdb ends, exit ${want% *}" \
				"held $want" "$state $rc $said"
		done
	done
	for how in INT TERM PIPE; do
		rm -f held.fifo && mkfifo held.fifo
		exec 3<>held.fifo	# the reader that never reads, and the pipe filled to the brim
		dd if=/dev/zero of=held.fifo bs=4096 count=1024 oflag=nonblock 2>/dev/null
		"$sdb" --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1 --json >held.fifo 2>held.err 3<&- &
		pid=$!
		if wait_for $pid quick_file "$mb_dir/q" 1 && wait_for $pid no_quick_file "$mb_dir/q"; then
			state=held
		else
			state="not held"
		fi
		end_held $pid $how
		said=$(grep -c "^sdb: interrupted by SIG$how while standard output took the report: it is cut short$" held.err)
		[ $how = PIPE ] && want="$want 0" || want="$want 1"
		check "quick suite: its document held by a full pipe, then $how: sdb ends, exit ${want% *}, no test file" \
			"held $want " "$state $rc $said $(ls "$mb_dir/q")"
	done
	rm -f held.fifo held.err
fi
# A reader that reads gets the whole, valid output, exit 0.
run --merge "$mb_dir/m20.json" --json
check "merge --json to a reader that reads: whole, valid JSON, exit 0" "0 20" "$rc $(jq '.hosts | length' <<<"$out")"
run --merge "$mb_dir/m400.json"
check "merge to a reader that reads: every host's line and the Fleet line, exit 0" "0 400 1" \
	"$rc $(grep -c '^Host host' <<<"$out") $(grep -c '^Fleet: ' <<<"$out")"
run --compare "$mb_dir/old.json" "$mb_dir/new.json" --json
check "compare --json to a reader that reads: whole, valid JSON, exit 0" "0 6000" "$rc $(jq '.compare | length' <<<"$out")"
run --compare "$mb_dir/old.json" "$mb_dir/new.json"
check "compare to a reader that reads: every test's three lines, exit 0" "0 6000 test 1999" \
	"$rc $(grep -c '^  \(rate\|IOPS\|p99\) ' <<<"$out") $(grep '^test' <<<"$out" | tail -1)"
run --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1 --json
check "quick suite --json to a reader that reads: whole, valid JSON, exit 0" "0 4" "$rc $(jq '.suite | length' <<<"$out")"
run --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1
check "quick suite to a reader that reads: the header, four rows, the footer, exit 0" "0 1 4 1" \
	"$rc $(grep -c '^sdb .* quick suite: ' <<<"$out") $(grep -c '^SEQ\|^RND' <<<"$out") $(grep -c '^One run per test' <<<"$out")"
rm -rf "$mb_dir"
