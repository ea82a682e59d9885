#!/bin/bash
# ------------------------------------------------------------ versions
. "$(dirname "$0")/../lib.sh"
# The version lives in the Makefile (VERSION, given to this section); every
# other place that says it must say the same.
root=$(dirname "$man")
run -V
check "sdb -V is the Makefile's version" "sdb $version" "$out"
check "the JSON version is the Makefile's" "$version" "$("$sdb" -T --json -s 1m 2>/dev/null | jq -r .version)"
check "sdb.1's header is the Makefile's version" "\"sdb $version\"" "$(sed -n 's/^\.TH [^"]*\("sdb [^"]*"\).*/\1/p' "$man")"
check "debian/changelog's newest entry is the Makefile's version" "($version)" \
	"$(sed -n '1s/^simple-disk-benchmark \(([^)]*)\).*/\1/p' "$root/debian/changelog")"
check "NEWS.md's newest entry is the Makefile's version" "## $version" \
	"$(grep -m 1 '^## ' "$root/NEWS.md" | cut -d ' ' -f 1,2)"
