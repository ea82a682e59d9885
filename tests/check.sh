#!/bin/sh
# make check: the unit tests, then the CLI tests, then one summary line
# ("N passed, N failed, N skipped") that counts both.
# usage: tests/check.sh UNIT-TEST-BINARY SDB-BINARY MAN-PAGE VERSION
unit=$1 sdb=$2 man=$3 version=$4
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

"$unit" 2>&1 | tee "$log"
counts=$(sed -n 's/^\[doctest\] test cases: *\([0-9]*\) | *\([0-9]*\) passed | *\([0-9]*\) failed | *\([0-9]*\) skipped.*/\2 \3 \4/p' "$log")
[ -n "$counts" ] || counts="0 1 0"	# no summary: the unit binary crashed
set -- $counts
upass=$1 ufail=$2 uskip=$3

bash tests/cli/run.sh "$sdb" "$man" "$version" "$log"
cli=$(tail -n 1 "$log")
case $cli in
cli:*) set -- $cli; cpass=$2 cfail=$3 cskip=$4 ;;
*)     cpass=0 cfail=1 cskip=0 ;;
esac

pass=$((upass + cpass)) fail=$((ufail + cfail)) skip=$((uskip + cskip))
echo "unit: $upass passed, $ufail failed; cli: $cpass passed, $cfail failed, $cskip skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
