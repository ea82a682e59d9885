#!/bin/bash
# ------------------------------------------------------------ plan-root-only
. "$(dirname "$0")/../lib.sh"
if ! system; then
	for t in "tmpfs full" "block device without --force" "mounted block device" "idle block device"; do
		skipped "$t" "needs root"
	done
else
	mnt=$work/mnt
	mkdir -p "$mnt"
	if mount -t tmpfs -o size=16m tmpfs "$mnt" 2>/dev/null; then
		run -w -f "$mnt/full" -s 64m
		check "tmpfs full: exit 1" 1 "$rc"
		matches "tmpfs full: names file and ENOSPC" "$err" "*$mnt/full*No space left on device*"
		matches "tmpfs full: partial results printed" "$out" '*Thread  0*'
		rm -f "$mnt/full"*
		run -w -f "$mnt/full" -s 8m -b 1m -j 4 -R --json
		check "tmpfs full, -j 4 --json: the error is in the JSON" true "$(jq '.error | test("No space left on device")' <<<"$out")"
		failed_at=$(sed -n 's/.*sdb: write: \(.*\) at offset \([0-9]*\): No space.*/\1 \2/p' <<<"$err")
		check "tmpfs full: the offset named is where the write failed (the file's size)" \
			"$(size_of "${failed_at% *}")" "${failed_at#* }"
		unmount "$mnt"
	else
		skipped "tmpfs full" "mount failed"
	fi
	if mount -t ramfs ramfs "$mnt" 2>/dev/null; then
		run --quick -f "$mnt" -t 0.2 -s 16m --json
		check "--quick without O_DIRECT (ramfs): exit 0" 0 "$rc"
		check "--quick without O_DIRECT: buffered, flagged" "false 1" \
			"$(jq -r '"\(.quick.direct) \(.warnings | map(select(test("O_DIRECT is not supported"))) | length)"' <<<"$out")"
		check "--quick without O_DIRECT: test file removed" "" "$(ls "$mnt")"
		unmount "$mnt"
	else
		skipped "--quick without O_DIRECT" "ramfs mount failed"
	fi

	"$sdb" -w -f disk.img -s 64m -R >/dev/null 2>&1	# random content to checksum
	if loop=$(losetup -f --show disk.img 2>/dev/null); then
		before=$(md5sum <"$loop")
		run -w -f "$loop" -s 1m
		check "block device without --force: exit 2" 2 "$rc"
		check "block device without --force: unchanged" "$before" "$(md5sum <"$loop")"
		if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" 2>/dev/null && mount "$loop" "$mnt"; then
			run -w -f "$loop" -s 1m --force
			check "mounted block device + --force: exit 1" 1 "$rc"
			matches "mounted block device: names the mount" "$err" "*mounted on $mnt*"
			unmount "$mnt"
		else
			skipped "mounted block device" "mkfs.ext4 or mount unavailable"
		fi
		dd if=/dev/urandom of="$loop" bs=1M count=64 status=none conv=fsync
		tail_before=$(dd if="$loop" bs=1M skip=8 status=none | md5sum)
		run -w -f "$loop" -s 4m -j 2 -b 1m --force -R --json
		check "idle block device + --force: exit 0" 0 "$rc"
		check "idle block device: both regions written" 8388608 "$(jq .total.bytes <<<"$out")"
		check "idle block device: nothing written past the regions" "$tail_before" \
			"$(dd if="$loop" bs=1M skip=8 status=none | md5sum)"
		# -R stamps each 4 KiB with its offset: thread 1's region starts at 4 MiB.
		check "idle block device: blocks land at their offsets" "1048576 4194304 4198400" \
			"$(for at in 1048576 4194304 4198400; do od -An -t u8 -N 8 -j $at "$loop" | tr -d ' '; done | tr '\n' ' ' | sed 's/ $//')"
		run -r -f "$loop" -j 2 --json
		check "block device read: regions split the device" "33554432 33554432" \
			"$(jq -r '[.threads[].bytes] | join(" ")' <<<"$out")"
		losetup -d "$loop"; loop=
	else
		for t in "block device without --force" "mounted block device" "idle block device"; do
			skipped "$t" "no loop device"
		done
	fi
	rm -f disk.img

	# Targets that are in use are refused even with --force, and stay
	# byte for byte what they were.
	"$sdb" -w -f image -s 32m -R >/dev/null 2>&1
	if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 image && loop=$(losetup -f --show image) && mount "$loop" "$mnt"; then
		before=$(md5sum <image)
		run -w -f image -s 4m --force
		check "image behind a mounted loop device + --force: refused" 1 "$rc"
		contains "image behind a mounted loop device: names the loop and the mount" "$err" "backs the loop device $loop, which is mounted on $mnt"
		check "image behind a mounted loop device: untouched" "$before" "$(md5sum <image)"
		if loop2=$(losetup -f --show "$loop"); then
			run -w -f "$loop2" -s 4m --force
			check "loop device over a mounted loop device + --force: refused" 1 "$rc"
			check "loop device over a mounted loop device: untouched" "$before" "$(md5sum <image)"
			losetup -d "$loop2"
		fi
		unmount "$mnt"; losetup -d "$loop"; loop=
	else
		skipped "image behind a mounted loop device" "mkfs.ext4, losetup or mount failed"
	fi
	rm -f image
	"$sdb" -w -f swapfile -s 16m -R >/dev/null 2>&1
	chmod 600 swapfile
	if mkswap swapfile >/dev/null 2>&1 && swapon swapfile 2>/dev/null; then
		run -w -f swapfile -s 4m --force
		swapoff swapfile
		check "active swap file + --force: refused" 1 "$rc"
		contains "active swap file: says so" "$err" "active swap area"
	else
		skipped "active swap file" "swapon failed"
	fi
	rm -f swapfile
	if command -v chattr >/dev/null && : >immut.1 && chattr +i immut.1 2>/dev/null; then
		run -w -f immut -j 2 -s 1m
		chattr -i immut.1
		check "failed start (immutable FILE.1): exit 1, FILE.0 removed" "1 missing" "$rc $(size_of immut.0)"
		check "failed start: no warning about a run that never ran" 0 "$(grep -c warning <<<"$err")"
	else
		skipped "failed start with an immutable FILE.1" "chattr +i failed"
	fi
	rm -f immut.*
	# The memory check honours the memory cgroup's limit.
	cg=
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/sdb-cli-$$ limit=memory.max
	elif [ -d /sys/fs/cgroup/memory ]; then
		cg=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}://p' /proc/self/cgroup)/sdb-cli-$$ limit=memory.limit_in_bytes
	fi
	if [ -n "$cg" ] && mkdir "${cg% *}" 2>/dev/null && echo 512M >"${cg% *}/${limit#*=}"; then
		dir=${cg% *}
		out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -w -f /dev/null -b 1g -s 1g' sh "$dir" "$sdb" 2>&1); rc=$?
		check "1 GiB buffer in a 512 MiB memory cgroup: usage error, not an OOM kill" 2 "$rc"
		contains "memory cgroup: names what is available" "$out" "need 1.00 GiB of memory, but only 5"
		# 4096 threads' latency histograms (about 58 KiB each: 232 MiB) count too.
		echo 200M >"$dir/${limit#*=}"
		out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -r -f /dev/zero -s 4k -b 4k -j 4096' sh "$dir" "$sdb" 2>&1); rc=$?
		check "-j 4096 in a 200 MiB cgroup: the histograms are counted, usage error" 2 "$rc"
		contains "-j 4096 in a 200 MiB cgroup: says how much" "$out" "of memory, but only"
		rmdir "$dir"
	else
		skipped "memory cgroup limit" "cannot make a memory cgroup here"
	fi
fi
