#!/bin/bash
# ------------------------------------------------------------ checks-memory-not-a-device
. "$(dirname "$0")/../lib.sh"
# The ceiling copies four times the last-level cache: a copy the cache
# holds would measure the cache.
llc=$(for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat "$d/type" 2>/dev/null)" = Instruction ] || echo "$(cat "$d/level" 2>/dev/null) $(cat "$d/size" 2>/dev/null)"
done | sort -n | tail -n 1 | sed -n 's/^[0-9]* \([0-9]*\)K$/\1/p')
avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
if [ -n "$llc" ] && [ "$avail" -gt $((llc * 64)) ]; then
	run -T --json
	check "-T copies at least four times the last-level cache ($llc KiB)" true \
		"$(jq --argjson llc "$llc" '.memory.bytes >= 4 * $llc * 1024' <<<"$out")"
else
	skipped "-T copy size" "last-level cache unknown or little memory"
fi
run -w -f /dev/null -b 64m -s 64m --json
check "/dev/null write: warns that it measures the system call" 1 \
	"$(jq '.warnings | map(select(test("/dev/null has no device behind it: this measures the write system call"))) | length' <<<"$out")"
run -r -f /dev/zero -s 1m --json
check "/dev/zero read: warns that it measures the system call" 1 "$(jq '.warnings | map(select(test("system call"))) | length' <<<"$out")"

# --cached says how much was cached: a file dropped from the page cache
# (dd's nocache) is cold; after one read it is warm.
"$sdb" -w -f warm -s 16m -R >/dev/null 2>&1
dd if=warm iflag=nocache count=0 status=none
fs=$(stat -f -c %T .)
if [ "$fs" = tmpfs ] || [ "$fs" = ramfs ]; then
	skipped "--cached on a cold file" "$fs cannot evict"
else
	run -r -f warm --cached --json
	check "--cached on a cold file: cached_before is low" true "$(jq '.threads[0].cached_before | . != null and . < 0.1' <<<"$out")"
	"$sdb" -r -f warm --cached >/dev/null 2>&1	# warm
	check "--cached on a cold file: warns" 1 "$(jq '.warnings | map(select(test("in the page cache before this --cached run"))) | length' <<<"$out")"
fi
run -r -f warm --cached --json
check "--cached on a warm file: cached_before about 1, no warning" "true 0" \
	"$(jq -r '"\(.threads[0].cached_before >= 0.9) \(.warnings | map(select(test("before this --cached run"))) | length)"' <<<"$out")"
run -r -f warm --cached
matches "--cached: the report says how much was cached" "$out" '*Cached before the run: 100% of warm*'
run -r -f warm --json
check "without --cached: cached_before is null" null "$(jq .threads[0].cached_before <<<"$out")"
rm -f warm

# zram: a memory device, whose file system (devtmpfs for /dev/zram0) says
# nothing; pages of zeros are stored as nothing.
if system && [ -w /sys/block/zram0/reset ]; then
	echo 1 >/sys/block/zram0/reset && echo 512M >/sys/block/zram0/disksize
	run -r -f /dev/zram0 -s 64m --json
	check "zram read of zeros: memory-backed and same-filled warnings" "1 1" \
		"$(jq -r '[(.warnings | map(select(test("zram0 is zram0 .*memory-backed block device"))) | length), (.warnings | map(select(test("same-filled"))) | length)] | join(" ")' <<<"$out")"
	run -r -f /dev/zram0 -s 64m -D -T --json
	rate=$(jq .total.bytes_per_second <<<"$out") mem=$(jq .memory.memcpy <<<"$out")
	check "zram: a rate above the memory ceiling is flagged" \
		"$(echo "$rate > $mem" | bc -l)" "$(jq '.warnings | map(select(test("faster than this machine copies memory"))) | length' <<<"$out")"
	run -w -f /dev/zram0 -s 64m --force --json
	check "zram zero-buffer write: warns that zeros are meaningless" 1 "$(jq '.warnings | map(select(test("zram0 stores pages of zeros"))) | length' <<<"$out")"
	# The memory ceiling after a run over 1 GiB/s copies 2 x 16..64 MiB:
	# its peak memory shows whether it ran.  zram's counters vouch for a
	# read of stored pages, never for one of same-filled pages.
	if [ -n "${ASAN_OPTIONS:-}" ] || [ ! -x /usr/bin/time ]; then
		skipped "zram: the memory ceiling, by peak memory" "needs GNU time, and no AddressSanitizer (its own memory)"
	else
		/usr/bin/time -o zram.time -f %M "$sdb" -r -f /dev/zram0 -s 64m -D --json >zram.json 2>/dev/null
		if [ "$(jq '.total.bytes_per_second > 1073741824' zram.json)" = true ]; then
			check "zram read of same-filled pages: checked against the memory ceiling (peak $(tail -n 1 zram.time) KiB)" true \
				"$([ "$(tail -n 1 zram.time)" -ge 32768 ] && echo true || echo false)"
		else
			skipped "zram read of same-filled pages: checked against the memory ceiling" "read at 1 GiB/s or less"
		fi
	fi
	# A range written with -R and read back is not told to write it first;
	# a read past it is, with the share that cannot be stored data.
	echo 1 >/sys/block/zram0/reset && echo 512M >/sys/block/zram0/disksize
	"$sdb" -w -f /dev/zram0 -s 64m -R --force >/dev/null 2>&1
	run -r -f /dev/zram0 -s 64m --json
	check "zram read of the 64 MiB just written with -R (of 512 MiB): no same-filled warning" 0 \
		"$(jq '.warnings | map(select(test("same-filled"))) | length' <<<"$out")"
	run -r -f /dev/zram0 -s 256m --json
	check "zram read of 256 MiB, 64 MiB of it written: at least 75% of it named" 1 \
		"$(jq '.warnings | map(select(test("at least 75% of the 256 MiB read from zram0 .*same-filled"))) | length' <<<"$out")"
	run -w -f /dev/zram0 -s 512m -R --force --json
	check "zram -R write: no zeros warning, still memory-backed" "0 1" \
		"$(jq -r '[(.warnings | map(select(test("zeros"))) | length), (.warnings | map(select(test("memory-backed"))) | length)] | join(" ")' <<<"$out")"
	run -r -f /dev/zram0 -s 64m --json
	check "zram read after a -R write: no same-filled warning" 0 "$(jq '.warnings | map(select(test("same-filled"))) | length' <<<"$out")"
	if [ -n "${ASAN_OPTIONS:-}" ] || [ ! -x /usr/bin/time ]; then
		skipped "zram read of stored pages: vouched for, no memory ceiling" "needs GNU time, and no AddressSanitizer (its own memory)"
	else
		/usr/bin/time -o zram.time -f %M "$sdb" -r -f /dev/zram0 -s 64m -D --json >zram.json 2>/dev/null
		check "zram read of stored pages: vouched for, no memory ceiling (peak $(tail -n 1 zram.time) KiB, $(jq .total.bytes_per_second zram.json) B/s)" true \
			"$([ "$(tail -n 1 zram.time)" -lt 24576 ] && echo true || echo false)"
	fi
	rm -f zram.time zram.json
	echo 1 >/sys/block/zram0/reset
else
	skipped "zram" "needs root and /dev/zram0"
fi
