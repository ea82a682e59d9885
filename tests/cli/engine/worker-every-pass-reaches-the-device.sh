#!/bin/bash
# ------------------------------------------------------------ worker-every-pass-reaches-the-device
. "$(dirname "$0")/../lib.sh"
# An O_DIRECT read that ends in an unaligned tail is end of file at every
# queue depth.  (ext4 answers the rest with 0; where a file system answers
# EINVAL instead, the unit test of settle() covers it.)
"$sdb" -w -f tail -s 8m -R >/dev/null 2>&1
head -c 100 /dev/urandom >>tail
for q in 1 4; do
	run -r -f tail -D -b 64k -s 16m -q $q --json
	check "-D -q $q read into an unaligned tail: end of file, not an error" "0 8388708 1" \
		"$rc $(jq -r '"\(.total.bytes) \(.warnings | map(select(test("end of file"))) | length)"' <<<"$out")"
done
rm -f tail

# The kernel's own counters of the device under the file system
# (/sys/block/X/stat: 1st field reads completed, 3rd sectors read, 7th
# sectors written, 512 bytes each) against what sdb claims.
# device_run ARGS...: run sdb and set $reads, $read_bytes and $written_bytes
# to what the device $pdev saw meanwhile.
device_run() {
	local before after
	read -ra before <"/sys/block/$pdev/stat"
	run "$@"
	read -ra after <"/sys/block/$pdev/stat"
	reads=$((after[0] - before[0]))
	read_bytes=$(((after[2] - before[2]) * 512))
	written_bytes=$(((after[6] - before[6]) * 512))
}
# reached NAME DEVICE-BYTES: at least 90% of the bytes sdb claims in $out.
reached() {
	check "$1: the device saw >= 90% of the bytes claimed" true \
		"$(jq --argjson dev "$2" 'if $dev >= 0.9 * .total.bytes then true else "\($dev) of \(.total.bytes)" end' <<<"$out")"
}
if system && command -v mkfs.ext4 >/dev/null; then
	mnt=$work/passes
	mkdir -p "$mnt"
	truncate -s 320m passes.img
	if loop=$(losetup -f --show passes.img 2>/dev/null) && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" && mount "$loop" "$mnt"; then
		pdev=${loop#/dev/}
		"$sdb" -w -f "$mnt/f" -s 256m -R >/dev/null 2>&1
		sync; echo 3 >/proc/sys/vm/drop_caches
		device_run -r -f "$mnt/f" -t 3 --json
		reached "ext4 on loop, -r -t 3" "$read_bytes"
		check "-r -t 3: more than one pass" true "$(jq '.threads[0].passes > 1' <<<"$out")"
		device_run -r -f "$mnt/f" -m rand -t 3 --json
		reached "ext4 on loop, -r -m rand -t 3" "$read_bytes"
		check "-r -m rand -t 3: device reads within 10% of the ops claimed" true \
			"$(jq --argjson n "$reads" 'if ($n - .total.ops | fabs) <= 0.1 * .total.ops then true else "\($n) of \(.total.ops)" end' <<<"$out")"
		device_run -r -f "$mnt/f" -m rand -q 8 -t 2 --json	# io_uring: drained and refilled at each pass end
		check "-r -m rand -q 8 -t 2: device reads within 10% of the ops claimed" true \
			"$(jq --argjson n "$reads" 'if ($n - .total.ops | fabs) <= 0.1 * .total.ops then true else "\($n) of \(.total.ops)" end' <<<"$out")"
		device_run -w -f "$mnt/f" -s 256m -R -t 3 --json
		reached "ext4 on loop, -w -R -t 3" "$written_bytes"
		check "-w -R -t 3: more than one pass" true "$(jq '.threads[0].passes > 1' <<<"$out")"
		rm -f "$mnt/f"
		unmount "$mnt"

		# ext4 data=journal cannot do direct I/O and quietly buffers -D:
		# said up front, and the read is evicted all the same.
		if mount -o data=journal "$loop" "$mnt" 2>/dev/null; then
			"$sdb" -w -f "$mnt/j" -s 64m -R >/dev/null 2>&1	# cached after the write
			device_run -r -f "$mnt/j" -D --json
			reached "ext4 data=journal, -r -D" "$read_bytes"
			check "ext4 data=journal, -r -D: warns that -D may be buffered" 1 \
				"$(jq '.warnings | map(select(test("-D may be buffered"))) | length' <<<"$out")"
			rm -f "$mnt/j"
			run --quick -f "$mnt" -t 0.2 -s 16m --json
			check "--quick on ext4 data=journal: buffered, flagged" "false 1" \
				"$(jq -r '"\(.quick.direct) \(.warnings | map(select(test("O_DIRECT is not supported.*statx"))) | length)"' <<<"$out")"
			unmount "$mnt"
		else
			skipped "ext4 data=journal" "mount failed"
		fi
	else
		skipped "every pass reaches the device" "no loop device or mkfs.ext4"
	fi
	release_image passes.img

	# ntfs-3g (FUSE over a block device): reads either reach the device
	# (sdb flushes its cache, as root) or carry a warning that they may not.
	truncate -s 320m ntfs.img
	if ! command -v mkfs.ntfs >/dev/null || ! command -v ntfs-3g >/dev/null; then
		skipped "ntfs-3g" "mkfs.ntfs or ntfs-3g not installed"
	elif loop=$(losetup -f --show ntfs.img 2>/dev/null) && mkfs.ntfs -Q -F -q "$loop" >/dev/null 2>&1 &&
		ntfs-3g "$loop" "$mnt" 2>/dev/null; then
		pdev=${loop#/dev/}
		"$sdb" -w -f "$mnt/n" -s 64m -R >/dev/null 2>&1
		for flags in "" "-D" "-t 2"; do
			# shellcheck disable=SC2086
			device_run -r -f "$mnt/n" $flags --json
			check "ntfs-3g -r $flags: the device saw the bytes, or a warning says it may not" true \
				"$(jq --argjson dev "$read_bytes" '$dev >= 0.9 * .total.bytes or
					(.warnings | map(select(test("FUSE.*may come from"))) | length == 1)' <<<"$out")"
		done
		check "ntfs-3g: the FUSE warning" 1 "$(jq '.warnings | map(select(test("is on FUSE"))) | length' <<<"$out")"
		rm -f "$mnt/n"
		run --quick -f "$mnt" -t 0.2 -s 16m --json
		check "--quick on ntfs-3g: buffered, flagged" "false 1" \
			"$(jq -r '"\(.quick.direct) \(.warnings | map(select(test("O_DIRECT is not supported.*FUSE"))) | length)"' <<<"$out")"
		unmount "$mnt"
	else
		skipped "ntfs-3g" "loop device, mkfs.ntfs or mount failed"
	fi
	[ -n "$loop" ] && losetup -d "$loop"
	loop= mnt=
	rm -f ntfs.img
else
	skipped "every pass reaches the device" "needs root and mkfs.ext4"
fi
