#!/bin/bash
# ------------------------------------------------------------ checks-truthful-numbers
. "$(dirname "$0")/../lib.sh"
run -T --json
check "-T: memory ceiling in JSON" true "$(jq '.memory.memset > 0 and .memory.memcpy > 0 and .memory.memmove > 0' <<<"$out")"
run -T -w -f /dev/null -s 1m
matches "-T: memory line before the results" "$out" '*Memory (*memset*memcpy*memmove*'

# tmpfs: a file on /dev/shm (outside the scratch directory).
if system; then
	shm=/dev/shm/sdb-cli-$$
	start=$(date +%s.%N)
	run -w -f "$shm" -s 256m -t 3 -T --json
	end=$(date +%s.%N)
	check "tmpfs -t 3: exit 0" 0 "$rc"
	check "tmpfs: warning" 1 "$(jq '.warnings | map(select(test("tmpfs"))) | length' <<<"$out")"
	check "tmpfs -t 3: >= 2 timeline samples" true "$(jq '.timeline | length >= 2' <<<"$out")"
	check "tmpfs -t 3: memory section" true "$(jq '.memory.memcpy > 0' <<<"$out")"
	check "tmpfs -t 3: total.seconds within the wall time" true \
		"$(jq --argjson wall "$(echo "$end - $start" | bc -l)" '.total.seconds >= 2.5 and .total.seconds <= $wall' <<<"$out")"
	run -w -f "$shm" -s 64m -t 2.2
	matches "runs of 2 s show a timeline" "$out" '*Timeline:*min*max*'
	run -r -f "$shm" -s 64m --json
	check "tmpfs read: cannot-evict warning" 1 "$(jq '.warnings | map(select(test("cannot be evicted"))) | length' <<<"$out")"
	rm -f "$shm"
else
	skipped "tmpfs: the warnings, the timeline, the memory section" "needs /dev/shm (not in a hermetic run)"
fi

run -v -w -f v -s 1m
matches "-v describes the environment" "$out" '*Host: *Target: v on *Buffer: *'
run -v -w -f v -s 1m --json
check "-v: environment in JSON" true "$(jq '.environment.kernel | length > 0' <<<"$out")"
rm -f v
# -v -D with 1 MiB blocks: where the device takes fewer segments than a
# 1 MiB request from 4 KiB pages has (256), the Huge pages line says why
# sdb's O_DIRECT beats fio's and dd's; max_segments is the kernel's.
run -v -w -f v -s 8m -D --json
dev=$(jq -r .environment.device <<<"$out")
segs=$(cat "/sys/block/$dev/queue/max_segments" 2>/dev/null || echo null)
check "-v --json: environment.max_segments is the device's queue/max_segments" "$segs" "$(jq .environment.max_segments <<<"$out")"
huge=$(jq .environment.buffer_huge_page_bytes <<<"$out")
run -v -w -f v -s 8m -D
if [ "$segs" != null ] && [ "$segs" -lt 256 ] && [ "$huge" -gt 0 ]; then
	contains "-v -D, 1 MiB blocks on a device of $segs segments: the Huge pages line" "$out" \
		"Huge pages: a 1 MiB request from 4 KiB pages (fio's and dd's buffers) has 256 segments, more than $dev takes ($segs), and is split"
else
	lacks "-v -D, 1 MiB blocks, a device of $segs segments (huge $huge): no Huge pages line" "$out" "Huge pages:"
fi
run -v -w -f v -s 8m -b 4k -D
lacks "-v -D, 4 KiB blocks: no Huge pages line" "$out" "Huge pages:"
maxkb=$(cat "/sys/block/$dev/queue/max_sectors_kb" 2>/dev/null || echo 0)
if [ "$maxkb" -gt 0 ] && [ "$maxkb" -lt 65536 ]; then
	run -v -w -f v -s 64m -b 64m -D
	lacks "-v -D, 64 MiB blocks, more than one request of $dev ($maxkb KiB): split either way, no Huge pages line" "$out" "Huge pages:"
else
	skipped "-v -D, a block larger than one request: no Huge pages line" "$dev takes requests of ${maxkb} KiB"
fi
rm -f v

# Eviction: a default read right after a write must not run at page-cache
# speed; a --cached read of the same warm file must.  Random 4 KiB reads
# separate the two by far more than sequential ones (readahead), so the
# check holds on a busy machine too.
"$sdb" -w -f evict -s 64m -R >/dev/null 2>&1
fs=$(stat -f -c %T .)
if [ "$fs" = tmpfs ] || [ "$fs" = ramfs ]; then
	skipped "eviction" "$fs cannot evict"
else
	"$sdb" -r -f evict --cached >/dev/null 2>&1	# warm
	cached=$("$sdb" -r -f evict --cached -m rand --json 2>/dev/null | jq .total.iops)
	plain=$("$sdb" -r -f evict -m rand --json 2>/dev/null | jq .total.iops)
	check "eviction: default read <= half a cached read ($plain vs $cached IOPS)" 1 \
		"$(echo "$plain * 2 <= $cached" | bc -l)"
fi
rm -f evict
