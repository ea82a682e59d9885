#!/bin/bash
# ------------------------------------------------------------ options-and-help
. "$(dirname "$0")/../lib.sh"
run -V
check "-V prints the version" "sdb $version" "$out"
run --help
check "--help exits 0" 0 "$rc"
matches "--help prints usage on stdout" "$out" 'usage:*'

# Every option in --help is in the man page, and every option the man
# page documents is in --help.
help_opts=$(printf '%s\n' "$out" | grep -o -- ' -[a-zA-Z],\| --[a-z][a-z-]*' | tr -d ' ,' | sort -u)
man_opts=$(sed 's/\\-/-/g' "$man" | sed -n '/^\.SH OPTIONS/,/^\.SH /p' |
	sed -n 's/^\.BR\{0,1\} \(-[a-zA-Z]\) ", " \(--[a-z][a-z-]*\).*/\1\n\2/p; s/^\.B \(--[a-z][a-z-]*\)$/\1/p
		s/^\.BR \(--[a-z][a-z-]*\) "[^"]*"$/\1/p' | sort -u)
missing=$(comm -23 <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')
check "every --help option is in sdb.1" "" "$missing"
extra=$(comm -13 <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')
check "every sdb.1 option is in --help" "" "$extra"
check "--help and sdb.1 list 46 options" 46 "$(echo "$help_opts" | grep -c -- '^--')"
