#!/bin/bash
# ------------------------------------------------------------ verify-reference
# -r --verify's reference: the seed is voted by units
# spread over the region, so one stale unit at the start is one bad unit
# there; and a unit names its thread's file, so swapped files fail.
. "$(dirname "$0")/../lib.sh"
"$sdb" -w -f vref -s 8m --verify >/dev/null 2>&1
"$sdb" -w -f vother -s 1m --verify >/dev/null 2>&1
dd if=vother of=vref bs=4k count=1 conv=notrunc status=none	# another run's unit at offset 0
check "the file's first unit is now another run's (cmp)" 0 "$(cmp -s -n 4096 vref vother; echo $?)"
run -r -f vref --verify --json
check "one stale unit at the start: exit 1, 1 bad of 2048, at offset 0, corrupt" "1 2048 1 0 corrupt" \
	"$rc $(jq -r '.verify | "\(.units) \(.bad) \(.first_bad.offset) \(.first_bad.kind)"' <<<"$out")"
run -r -f vref --verify -q 4 -m rand -b 16k
contains "one stale unit, -q 4 -m rand: one sdb: line, 1 bad, at offset 0" "$err" "1 of 2048 units of 4 KiB bad; the first at offset 0 of vref: corrupt"
dd if=vother of=vref bs=4k count=1 seek=1000 conv=notrunc status=none	# and one in the middle
run -r -f vref --verify --json
check "two stale units: 2 bad" "1 2" "$rc $(jq '.verify.bad' <<<"$out")"
rm -f vref vother
"$sdb" -w -f vswap -j 2 -s 4m --verify >/dev/null 2>&1
run -r -f vswap -j 2 --verify --json
check "-j 2 files as written: clean" "0 0" "$rc $(jq '.verify.bad' <<<"$out")"
mv vswap.0 vswap.t && mv vswap.1 vswap.0 && mv vswap.t vswap.1
run -r -f vswap -j 2 --verify --json
check "-j 2 files swapped: exit 1, every unit misplaced" "1 2048 2048" \
	"$rc $(jq -r '.verify | "\(.bad) \(.kinds.misplaced)"' <<<"$out")"
contains "-j 2 files swapped: the line says whose data it is" "$err" "misplaced (the data thread 1 wrote into its own file"
rm -f vswap.0 vswap.1
