#!/bin/sh
# make check: the unit tests, then the CLI tests, then one summary line
# ("N passed, N failed, N skipped") that counts both.  With UNIT_BUILD (a
# command that builds the unit binary: the package build's, which has
# only sdb so far) the unit tests are built and run beside the CLI tests,
# their output after the CLI's.
# usage: tests/check.sh UNIT-TEST-BINARY SDB-BINARY MAN-PAGE VERSION
unit=$1 sdb=$2 man=$3 version=$4
log=$(mktemp) && ulog=$(mktemp) || exit 1
trap 'rm -f "$log" "$ulog"' EXIT

if [ -n "${UNIT_BUILD:-}" ]; then
	(sh -c "$UNIT_BUILD" && "$unit") >"$ulog" 2>&1 &
	beside=$!
else
	"$unit" 2>&1 | tee "$ulog"
fi

bash tests/cli/run.sh "$sdb" "$man" "$version" "$log"
cli=$(tail -n 1 "$log")
case $cli in
cli:*) set -- $cli; cpass=$2 cfail=$3 cskip=$4 ;;
*)     cpass=0 cfail=1 cskip=0 ;;
esac

if [ -n "${beside:-}" ]; then
	wait "$beside"
	cat "$ulog"
fi
counts=$(sed -n 's/^\[doctest\] test cases: *\([0-9]*\) | *\([0-9]*\) passed | *\([0-9]*\) failed | *\([0-9]*\) skipped.*/\2 \3 \4/p' "$ulog")
[ -n "$counts" ] || counts="0 1 0"	# no summary: the unit binary crashed, or did not build
set -- $counts
upass=$1 ufail=$2 uskip=$3

pass=$((upass + cpass)) fail=$((ufail + cfail)) skip=$((uskip + cskip))
echo "unit: $upass passed, $ufail failed; cli: $cpass passed, $cfail failed, $cskip skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
