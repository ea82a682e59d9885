#!/bin/bash
# ------------------------------------------------------------ stack-follows-the-bytes
. "$(dirname "$0")/../lib.sh"
# The stack follows the bytes wherever they go: every device of a btrfs
# RAID1 (a mirror's second copy is sdb's own write, and a throttle on one
# leg is named), a loop device over a file on btrfs, over zram and over a
# file on tmpfs (memory, warned), squashfs's and erofs's compression named as the
# cause of a short count, and overlayfs's layers: a lower-layer file read
# from its layer's device, an upper layer on tmpfs called memory; fuse2fs
# over a loop device counted on that device.  Each stack is built for real and held against
# the kernel's counters of every level (/sys/block/X/stat).
if ! system || ! command -v losetup >/dev/null; then
	skipped "the stack follows the bytes" "needs root and losetup"
	exit
fi
loops=()
# new_loop FILE [OPTIONS...]: a loop device over FILE, remembered for the end (sets $new).
new_loop() { new=$(losetup -f --show "$@") && loops+=("$new"); }
end_loops() { local i; for ((i = ${#loops[@]} - 1; i >= 0; i--)); do losetup -d "${loops[i]}" 2>/dev/null; done; loops=(); }

# 1. btrfs RAID1 over two loop devices.
mnt=$work/raid
mkdir -p "$mnt"
truncate -s 400m leg1.img leg2.img
if ! command -v mkfs.btrfs >/dev/null; then
	skipped "btrfs RAID1 over two loop devices" "no mkfs.btrfs (btrfs-progs)"
elif new_loop leg1.img && a=$new && new_loop leg2.img && b=$new &&
	mkfs.btrfs -q -f -d raid1 -m raid1 "$a" "$b" >/dev/null 2>&1 && mount "$a" "$mnt"; then
	an=${a#/dev/} bn=${b#/dev/}
	a0=$(sectors "$an" 7) b0=$(sectors "$bn" 7)
	run -w -f "$mnt/f" -s 64m -R -D --json
	a1=$(sectors "$an" 7) b1=$(sectors "$bn" 7)
	check "btrfs RAID1: each leg wrote the claim (kernel), and sdb's JSON names both legs" "0 true true true" \
		"$rc $(jq -r --argjson a $((a1 - a0)) --argjson b $((b1 - b0)) '"\($a >= .total.bytes) \($b >= .total.bytes) \(.device.name | split("+") | length == 2)"' <<<"$out")"
	check "btrfs RAID1: the second copy is sdb's, not another's (under 10% of the claim not sdb's, no shared warning)" "true false" \
		"$(jq -r '"\(.device.other_bytes < 0.1 * .total.bytes) \(.warnings | any(test("not sdb.s")))"' <<<"$out")"
	# One leg throttled: the limit names that leg.
	cg=/sys/fs/cgroup/blkio/sdb-cli-raid-$$
	if [ -w /sys/fs/cgroup/blkio/cgroup.procs ] && mkdir "$cg"; then
		echo "$(cat "/sys/block/$bn/dev") $((8 << 20))" >"$cg/blkio.throttle.write_bps_device"
		out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" -w -f "$mnt/g" -s 64m -R -D -q 4 -t 2 --json) 2>/dev/null); rc=$?
		check "btrfs RAID1, one leg throttled: limited by throttle, on that leg ($bn)" "0 throttle true" \
			"$rc $(jq -r --arg b "$bn" --arg d "$(cat "/sys/block/$bn/dev")" '.device | "\(.limit) \(.reason | contains("\($b) did") and contains("write limit on \($d)"))"' <<<"$out")"
		rmdir "$cg"
	else
		skipped "btrfs RAID1, one leg throttled" "no cgroup v1 blkio"
	fi
	# 2. A loop device over a file on that btrfs: the level below is both legs.
	"$sdb" -w -f "$mnt/img" -s 64m -R >/dev/null 2>&1
	if new_loop "$mnt/img" --direct-io=on; then
		c=$new
		a0=$(sectors "$an" 3) b0=$(sectors "$bn" 3)
		run -r -f "$c" -b 1m -D --json
		a1=$(sectors "$an" 3) b1=$(sectors "$bn" 3)
		check "loop over a file on btrfs: the level below is the btrfs's two devices, counted within the kernel's reads" \
			"0 true true true" "$rc $(jq -r --argjson k $((a1 - a0 + b1 - b0)) --arg a "$an" --arg b "$bn" '.device.stack[1] |
				"\(.name | split("+") | sort == ([$a, $b] | sort)) \(.bytes <= $k) \(.bytes >= 0.9 * $k)"' <<<"$out")"
		lacks "loop over a file on btrfs: not called memory or a network" "$(jq -r '[.device.evidence[].figure] | join(" ")' <<<"$out")" "memory, or a network"
		losetup -d "$c"
		unset 'loops[-1]'
	fi
	unmount "$mnt"
else
	skipped "btrfs RAID1 over two loop devices" "mkfs.btrfs or mount failed"
	mountpoint -q "$mnt" && unmount "$mnt"
fi
end_loops
rm -f leg1.img leg2.img
mnt=

# 3. A loop device over zram: memory, and said so.
if [ -w /sys/class/zram-control/hot_add ] && z=$(cat /sys/class/zram-control/hot_add 2>/dev/null); then
	zn=zram$z
	if echo 64M >"/sys/block/$zn/disksize" && dd if=/dev/urandom of="/dev/$zn" bs=1M count=64 status=none &&
		new_loop "/dev/$zn" --direct-io=on; then
		run -r -f "$new" -b 1m -D --json
		check "loop over zram: the level below is $zn, limited by memory, the warning names it" "0 $zn memory true" \
			"$rc $(jq -r --arg z "$zn" '"\(.device.stack[1].name) \(.device.limit) \(.warnings | any(contains("backed by memory: \($z) (zram")))"' <<<"$out")"
	else
		skipped "loop over zram" "zram or losetup failed"
	fi
	end_loops
	echo "$z" >/sys/class/zram-control/hot_remove 2>/dev/null
else
	skipped "loop over zram" "no zram-control"
fi

# 4. A loop device over a file on tmpfs: the level is named, memory.
shm=/dev/shm/sdb-cli-$$-loop.img
if truncate -s 32m "$shm" && new_loop "$shm"; then
	dd if=/dev/urandom of="$new" bs=1M count=32 oflag=direct status=none
	run -r -f "$new" -b 1m -D --json
	check "loop over a file on tmpfs: the level below named tmpfs, uncounted, limited by memory, warned" "0 tmpfs null memory true" \
		"$rc $(jq -r '"\(.device.stack[1].name) \(.device.stack[1].bytes) \(.device.limit) \(.warnings | any(contains("backed by memory: tmpfs")))"' <<<"$out")"
	lacks "loop over tmpfs: no warning without a name" "$err" "warning:  "
	flush=
	for i in 1 2 3; do	# round 3's flush warning came and went between runs here
		run -w -f "$new" --force -b 4k -s 4m --fsync 1 --json
		flush+="$rc $(jq '[.warnings[] | select(contains("flush may stop"))] | length' <<<"$out") "
	done
	check "loop over tmpfs, --fsync 1, three runs: no flush warning (memory is said instead)" "0 0 0 0 0 0 " "$flush"
	end_loops
fi
rm -f "$shm"

# 5. squashfs and erofs (made with -z): the device reads less than sdb
# does, by compression.
mkdir -p sqsrc
yes "sdb squashfs compresses this line" | head -c $((48 << 20)) >sqsrc/f
for fs in squashfs erofs; do
	mnt=$work/$fs
	mkdir -p "$mnt"
	case $fs in
	squashfs) make_image() { mksquashfs sqsrc "$1" -quiet -noappend >/dev/null 2>&1; }; tool=mksquashfs pkg=squashfs-tools ;;
	erofs) make_image() { mkfs.erofs -zlz4 "$1" sqsrc >/dev/null 2>&1; }; tool=mkfs.erofs pkg=erofs-utils ;;
	esac
	if ! command -v $tool >/dev/null; then
		skipped "$fs: compression named" "no $tool ($pkg)"
	elif ! grep -qw "$fs" /proc/filesystems; then
		skipped "$fs: compression named" "the kernel has no $fs"
	elif make_image $fs.img && new_loop $fs.img --direct-io=on && mount -t $fs -o ro "$new" "$mnt"; then
		sn=${new#/dev/}
		r0=$(sectors "$sn" 3)
		run -r -f "$mnt/f" -b 1m --json
		r1=$(sectors "$sn" 3)
		check "$fs: the loop device read under half the claim (kernel), not verified" "0 true false" \
			"$rc $(jq -r --argjson r $((r1 - r0)) '"\($r < 0.5 * .total.bytes) \(.device.verified)"' <<<"$out")"
		check "$fs: compression named as the cause, not the page cache" "true false true" \
			"$(jq -r --arg fs "$fs" '"\(.warnings | any(test("likely causes: compression: " + $fs))) \(.warnings | any(test("pages it kept"))) \(any(.device.evidence[]; .check == "compression" and .found))"' <<<"$out")"
		unmount "$mnt"
	else
		skipped "$fs: compression named" "$tool, losetup or mount failed"
		mountpoint -q "$mnt" && unmount "$mnt"
	fi
	end_loops
	rm -f $fs.img
done
mnt=
rm -rf sqsrc

# 6. overlayfs: a file in the lower layer (ext4 on a loop device) is read
# from that layer's device; the upper layer on tmpfs is memory.
low=$work/low up=$work/up ov=$work/ov
mkdir -p "$low" "$up" "$ov"
truncate -s 200m low.img
if new_loop low.img --direct-io=on && lo=$new && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$lo" && mount "$lo" "$low" &&
	mount -t tmpfs -o size=128m tmpfs "$up" && mkdir -p "$up/u" "$up/w" &&
	"$sdb" -w -f "$low/f" -s 64m -R >/dev/null 2>&1 &&
	mount -t overlay overlay -o "lowerdir=$low,upperdir=$up/u,workdir=$up/w" "$ov"; then
	ln=${lo#/dev/}
	r0=$(sectors "$ln" 3)
	run -r -f "$ov/f" -b 1m --json
	r1=$(sectors "$ln" 3)
	check "overlayfs, a lower-layer file: counted on the lower layer's $ln, verified, within the kernel's reads" "0 $ln true true" \
		"$rc $(jq --argjson r $((r1 - r0)) -r '.device | "\(.name) \(.verified) \(.bytes <= $r and $r >= 0.9 * 67108864)"' <<<"$out")"
	run -r -f "$ov/f" -b 1m -v
	contains "overlayfs, a lower-layer file, -v: names the lower layer" "$out" "overlayfs lower layer $low"
	run -w -f "$ov/new" -s 16m -R --json
	check "overlayfs, upper layer on tmpfs: a write is memory, unverifiable, warned" "0 memory false true" \
		"$rc $(jq -r '"\(.device.limit) \(.device.verified) \(.warnings | any(contains("overlayfs'"'"'s upper layer '"$up"'/u is on tmpfs: this measures memory")))"' <<<"$out")"
	unmount "$ov"
else
	skipped "overlayfs layers" "mkfs.ext4, a tmpfs or the overlay mount failed"
fi
mountpoint -q "$ov" && unmount "$ov"
mountpoint -q "$up" && unmount "$up"
mountpoint -q "$low" && unmount "$low"
end_loops
rm -f low.img

# 7. fuse2fs over a loop device: the FUSE file system has no block device
# of its own, but its mount names the one its daemon reads and writes.
f2=$work/f2
mkdir -p "$f2"
truncate -s 128m f2.img
if ! command -v fuse2fs >/dev/null; then
	skipped "fuse2fs over a loop device" "no fuse2fs"
elif new_loop f2.img --direct-io=on && fl=$new && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$fl" && fuse2fs "$fl" "$f2" -o fakeroot >/dev/null 2>&1; then
	fn=${fl#/dev/}
	w0=$(sectors "$fn" 7)
	run -w -f "$f2/f" -s 32m -R --json
	w1=$(sectors "$fn" 7)
	check "fuse2fs over $fn: a write counted on $fn (kernel: at least the claim), verified, the daemon's bytes sdb's" \
		"0 $fn true true true" "$rc $(jq -r --argjson w $((w1 - w0)) '.device | "\(.name) \(.verified) \($w >= 0.9 * 33554432) \(.other_bytes < 0.1 * 33554432)"' <<<"$out")"
	r0=$(sectors "$fn" 3)
	run -r -f "$f2/f" --json
	r1=$(sectors "$fn" 3)
	check "fuse2fs over $fn: a read after the flush reaches $fn (kernel), verified" "0 $fn true true" \
		"$rc $(jq -r --argjson r $((r1 - r0)) '.device | "\(.name) \(.verified) \($r >= 0.9 * 33554432)"' <<<"$out")"
	lacks "fuse2fs: not called a FUSE file system without a block device" "$err" "without a block device"
	unmount "$f2"
else
	skipped "fuse2fs over a loop device" "losetup, mkfs.ext4 or fuse2fs failed"
	mountpoint -q "$f2" && unmount "$f2"
fi
end_loops
rm -f f2.img
