#!/bin/bash
# ------------------------------------------------------------ stack-down-to-the-metal
. "$(dirname "$0")/../lib.sh"
# The verdict down to the metal: it follows a buffered loop
# device to its backing file's disk, tells sdb's own I/O from another
# process's, trusts no residency the kernel will not tell, names a CPU
# quota, reports the write cache, and counts overlayfs on its upper
# directory's device.  Each case is built for real and checked against
# the kernel's own view: /sys/block/X/stat, cpu.stat, fincore as root.
# disk_of PATH: the block device under PATH's file system ("" for none).
disk_of() { local d; d=$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' "$1")") && [ -f "$d/stat" ] && basename "$d"; }
metal_keys='["busy","bytes","delivered","evidence","fua","limit","link","name","other_bytes","path","reason","stack","verified","write_cache"]'
run -r -f /dev/zero -s 16m --json
check "device JSON: the round-3 keys, null where there is no device" "$metal_keys [] null null null" \
	"$(jq -c '.device | "\(keys) \(.stack) \(.other_bytes) \(.write_cache) \(.fua)"' -r <<<"$out")"
if ! system || ! command -v mkfs.ext4 >/dev/null; then
	for t in "buffered loop over a cached backing file" "another process on the disk" "residency for an unprivileged user" \
		"a CPU quota" "write cache and FUA" "overlayfs" "a paravirtual disk"; do
		skipped "$t" "needs root and mkfs.ext4"
	done
else
	metal=$work/metal
	mkdir -p "$metal"
	truncate -s 600m metal.img
	bdev=$(disk_of metal.img)
	if [ -z "$bdev" ]; then
		skipped "the verdict down to the metal" "the work directory is on no block device"
	elif loop=$(losetup -f --show metal.img) && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" &&
		mount "$loop" "$metal"; then	# no lazy init writing behind the tests' backs
		mnt=$metal	# for cleanup()
		name=${loop#/dev/}
		chmod o+x "$work"	# as_nobody reaches its files through it
		if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
			as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
		else
			as_nobody() { su nobody -s /bin/sh -c '"$0" "$@"' "$@"; }
		fi
		"$sdb" -w -f "$metal/f" -s 256m -R >/dev/null 2>&1
		# 1. A buffered loop device (loop/dio 0) over a cached backing file.
		# As root sdb evicts the backing file's pages too: the disk below
		# sees the bytes.  As a user who may read the file but not the image,
		# it cannot: the loop device sees every byte, the disk below none,
		# and both warnings say why.
		if [ "$(cat "/sys/block/$name/loop/dio")" = 0 ]; then
			dd if=metal.img of=/dev/null bs=1M status=none	# the backing file, cached
			b0=$(sectors "$bdev" 3)
			run -r -f "$metal/f" --json
			b1=$(sectors "$bdev" 3)
			check "buffered loop, as root: the backing file evicted, $bdev saw the claim (kernel), verified" "true true" \
				"$(jq --argjson b $((b1 - b0)) -r '"\($b >= 0.9 * .total.bytes) \(.device.verified)"' <<<"$out")"
			chmod o+r "$metal/f" && chmod o+x "$metal"
			chmod 600 metal.img
			dd if=metal.img of=/dev/null bs=1M status=none
			l0=$(sectors "$name" 3) b0=$(sectors "$bdev" 3)
			out=$(as_nobody "$sdb" -r -f "$metal/f" --json 2>"$work/.err"); rc=$?
			err=$(cat "$work/.err")
			l1=$(sectors "$name" 3) b1=$(sectors "$bdev" 3)
			check "buffered loop, as nobody: the kernel's counters, loop saw the claim, $bdev below under 90%" "0 true true" \
				"$rc $(jq --argjson l $((l1 - l0)) --argjson b $((b1 - b0)) -r '"\($l >= 0.9 * .total.bytes) \($b < 0.9 * .total.bytes)"' <<<"$out")"
			check "buffered loop, as nobody: not verified, the stack is $name then $bdev, each within the kernel's delta" \
				"false $name $bdev true true" \
				"$(jq --argjson l $((l1 - l0)) --argjson b $((b1 - b0)) -r '.device | "\(.verified) \(.stack[0].name) \(.stack[1].name) \(.stack[0].bytes <= $l) \(.stack[1].bytes <= $b)"' <<<"$out")"
			check "buffered loop, as nobody: a warning names the backing file's page cache, one says it cannot be evicted" "true true" \
				"$(jq -r '"\(.warnings | any(test("page cache of '"$name"'.s backing file .*buffered loop device, loop/dio 0"))) \(.warnings | any(test("backing file .*metal.img of /dev/'"$name"': Permission denied: its page cache cannot be evicted")))"' <<<"$out")"
			out=$(as_nobody "$sdb" -r -f "$metal/f" 2>/dev/null)
			contains "buffered loop, as nobody: the Device line says what the disk below saw" "$out" ", below it $bdev saw "
			chmod 644 metal.img
		else
			skipped "buffered loop over a cached backing file" "losetup made a direct-I/O loop device"
		fi
		# The same loop device with direct I/O: the disk below sees the bytes.
		if losetup --direct-io=on "$loop" 2>/dev/null && [ "$(cat "/sys/block/$name/loop/dio")" = 1 ]; then
			b0=$(sectors "$bdev" 3)
			run -r -f "$metal/f" --json
			b1=$(sectors "$bdev" 3)
			check "direct-I/O loop: $bdev saw the claim (kernel), verified, sdb's share within it" "true true true" \
				"$(jq --argjson b $((b1 - b0)) -r '"\($b >= 0.9 * .total.bytes) \(.device.verified) \(.device.stack[1].bytes <= $b)"' <<<"$out")"
		else
			skipped "direct-I/O loop" "losetup --direct-io=on failed"
		fi

		# 2. Another process reading the disk while sdb's reads come from
		# the page cache: a holder keeps the file mapped (eviction cannot
		# drop mapped pages), dd reads the loop device meanwhile.
		rm -f metal.held metal.stop
		python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "rb"); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096)); open(sys.argv[2], "w").write("held\n"); time.sleep(120)' "$metal/f" metal.held &
		holder=$!
		(while [ ! -e metal.stop ]; do dd if="$loop" of=/dev/null bs=1M count=256 iflag=direct status=none; done) &
		reader=$!
		l0=$(sectors "$name" 3)
		grows() { [ "$(sectors "$name" 3)" -ge $((l0 + 64 * 1048576)) ]; }
		if wait_for "$holder" test -s metal.held && wait_for "$reader" grows; then
			res=$(fincore -b -n -o RES "$metal/f" | tr -d " ")
			l0=$(sectors "$name" 3)
			run -r -f "$metal/f" -t 1 --json
			l1=$(sectors "$name" 3)
			check "others' reads: the kernel holds the file in memory and the device was read meanwhile" "true true" \
				"$([ "$res" = $((256 * 1048576)) ] && echo true || echo "RES $res") $([ $((l1 - l0)) -gt 0 ] && echo true || echo false)"
			check "others' reads: not verified, the device's bytes within the kernel's, almost all another's" "false true true" \
				"$(jq --argjson l $((l1 - l0)) -r '.device | "\(.verified) \(.bytes <= $l) \(.other_bytes >= 0.9 * .bytes)"' <<<"$out")"
			check "others' reads: a warning when they moved over 10% of the claim" true \
				"$(jq '(.device.other_bytes * 10 > .total.bytes) == (.warnings | any(test("not sdb.s \\(.*metadata or other processes\\): the device was shared")))' <<<"$out")"
		else
			bad "others' reads: the holder or the reader did not start"
		fi
		touch metal.stop
		kill "$holder" 2>/dev/null
		wait "$holder" "$reader" 2>/dev/null
		rm -f metal.held metal.stop
		# On a quiet device sdb's own share is the device's: nothing else moved.
		l0=$(sectors "$name" 3)
		run -r -f "$metal/f" -D --json
		l1=$(sectors "$name" 3)
		check "quiet device: verified, delivered is the kernel's share, other_bytes under 1%" "true true true" \
			"$(jq --argjson l $((l1 - l0)) -r '"\(.device.verified) \((.device.delivered - $l / .total.bytes | fabs) < 0.01) \(.device.other_bytes < 0.01 * .total.bytes)"' <<<"$out")"

		# 3. An unprivileged user reading root's file: mincore (and, on
		# newer kernels, cachestat) will not tell; fincore as root does.
		mkdir -p "$metal/pub"
		chmod 755 "$metal" "$metal/pub"
		"$sdb" -w -f "$metal/pub/rootfile" -s 64m -R >/dev/null 2>&1
		chmod 644 "$metal/pub/rootfile"
		dd if="$metal/pub/rootfile" iflag=nocache count=0 status=none
		res=$(fincore -b -n -o RES "$metal/pub/rootfile" | tr -d " ")
		out=$(as_nobody "$sdb" -r -f "$metal/pub/rootfile" --cached --json 2>/dev/null)
		check "nobody --cached: cached_before is null or the kernel's share ($res bytes resident), no warning on it" "true false" \
			"$(jq --argjson res "$res" -r '"\(.threads[0].cached_before as $c | $c == null or (($c - $res / 67108864) | fabs) < 0.05) \(.warnings | any(test("in the page cache before")))"' <<<"$out")"
		dd if="$metal/pub/rootfile" iflag=nocache count=0 status=none
		l0=$(sectors "$name" 3)
		out=$(as_nobody "$sdb" -r -f "$metal/pub/rootfile" --json 2>/dev/null)
		l1=$(sectors "$name" 3)
		check "nobody -r: the device served it (kernel), no 'stayed in the page cache' warning, verified" "true false true" \
			"$(jq --argjson l $((l1 - l0)) -r '"\($l >= 0.9 * .total.bytes) \(.warnings | any(test("stayed in the page cache"))) \(.device.verified)"' <<<"$out")"
		rm -rf "$metal/pub"
		chmod o-x "$work"

		# 4. A CPU quota (cgroup v1 cpu.cfs_quota_us, or v2 cpu.max): the
		# kernel's throttling counters say it held sdb back; so must the verdict.
		cg=
		if [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
			cg=/sys/fs/cgroup/cpu/sdb-cli-$$ quota=cpu.cfs_quota_us value=5000 procs=tasks
		elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
			cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/sdb-cli-$$ quota=cpu.max value="5000 100000" procs=cgroup.procs
		fi
		if [ -n "$cg" ] && mkdir "$cg" 2>/dev/null && echo "$value" >"$cg/$quota"; then
			t0=$(sed -n 's/^nr_throttled //p' "$cg/cpu.stat")
			out=$(sh -c 'echo $$ >"$1/$2" && exec "$3" -r -f "$4" -b 4k -t 1 --json' sh "$cg" "$procs" "$sdb" "$metal/f" 2>/dev/null)
			t1=$(sed -n 's/^nr_throttled //p' "$cg/cpu.stat")
			check "CPU quota: the kernel throttled the run" true "$([ "$t1" -gt "$t0" ] && echo true || echo "$t0 -> $t1")"
			check "CPU quota: limit cpu, the reason names the quota and its throttling, within the kernel's count" "cpu true true" \
				"$(jq --argjson n $((t1 - t0)) -r '.device | "\(.limit) \(.reason | test("CPU quota of cgroup .*'"${quota}"' 5000")) \(.reason | capture("throttled sdb (?<n>[0-9]+) times").n | tonumber <= $n)"' <<<"$out")"
			out=$(sh -c 'echo $$ >"$1/$2" && exec "$3" -r -f "$4" -b 4k -t 1' sh "$cg" "$procs" "$sdb" "$metal/f" 2>&1)
			lacks "CPU quota: no -q/-j advice" "$out" "-q or -j may go faster"
			contains "CPU quota: the Device line says so" "$out" "limited by the CPU (the CPU quota of cgroup $cg"
			rmdir "$cg"
		else
			skipped "a CPU quota" "cannot make a CPU cgroup here"
		fi

		# 5. The write cache and FUA, as the queue says; with --fsync, syncs
		# faster than the disk below can make data stable are flagged.
		run -w -f "$metal/w" -s 16m -R --json -v
		check "write cache and FUA: as /sys/block/$name/queue says" \
			"$(cat "/sys/block/$name/queue/write_cache") $([ "$(cat "/sys/block/$name/queue/fua")" = 1 ] && echo true || echo false)" \
			"$(jq -r '"\(.device.write_cache) \(.device.fua)"' <<<"$out")"
		run -w -f "$metal/w" -s 16m -R -v
		contains "-v: the write cache and FUA" "$out" "write cache $(cat "/sys/block/$name/queue/write_cache"), FUA "
		run -w -f "$metal/w" -s 4m -b 4k -R --fsync 1 --json
		rot=$(cat "/sys/class/block/$bdev/queue/rotational" 2>/dev/null || cat "/sys/class/block/$bdev/../queue/rotational")
		check "--fsync: warned exactly when $bdev (rotational $rot) synced under 1 ms or no slower than a write" true \
			"$(jq --argjson rot "$rot" '.threads[0] as $t | (($rot == 1 and $t.sync.latency_ns.p50 < 1000000) or
				$t.sync.latency_ns.p50 <= $t.latency_ns.p50) == (.warnings | any(test("the flush may stop in a volatile cache")))' <<<"$out")"
		run -w -f "$metal/w" -s 4m -b 4k -R --json
		check "no --fsync, no -S: no word on syncs" false "$(jq '.warnings | any(test("volatile cache"))' <<<"$out")"
		rm -f "$metal/w"

		# 6. overlayfs: counted on its upper directory's device.
		mkdir -p "$metal/lower" "$metal/upper" "$metal/ovwork" "$work/ovl"
		if mount -t overlay overlay -o "lowerdir=$metal/lower,upperdir=$metal/upper,workdir=$metal/ovwork" "$work/ovl" 2>/dev/null; then
			w0=$(sectors "$name" 7)
			run -w -f "$work/ovl/o" -s 64m -R --json
			w1=$(sectors "$name" 7)
			check "overlayfs -w: counted on $name, verified, within the kernel's writes" "$name true true" \
				"$(jq --argjson w $((w1 - w0)) -r '.device | "\(.name) \(.verified) \(.bytes <= $w and $w >= 0.9 * 67108864)"' <<<"$out")"
			l0=$(sectors "$name" 3)
			run -r -f "$work/ovl/o" --json
			l1=$(sectors "$name" 3)
			check "overlayfs -r: counted on $name, verified, within the kernel's reads" "$name true true" \
				"$(jq --argjson l $((l1 - l0)) -r '.device | "\(.name) \(.verified) \(.bytes <= $l and $l >= 0.9 * 67108864)"' <<<"$out")"
			run -r -f "$work/ovl/o" -v
			contains "overlayfs -v: names the upper layer" "$out" "overlayfs upper layer $metal/upper"
			unmount "$work/ovl"
		else
			skipped "overlayfs" "mount -t overlay failed"
		fi
		unmount "$metal"
	else
		skipped "the verdict down to the metal" "loop device, mkfs.ext4 or mount failed"
	fi
	release_image metal.img
	mnt=
	# A FUSE daemon over a block device (ntfs-3g) reads the device for sdb:
	# its I/O counts as sdb's own, not another process's.
	truncate -s 320m metal-ntfs.img
	mkdir -p "$work/ntfs"
	if ! command -v mkfs.ntfs >/dev/null || ! command -v ntfs-3g >/dev/null; then
		skipped "a FUSE daemon's bytes are sdb's" "mkfs.ntfs or ntfs-3g not installed"
	elif loop=$(losetup -f --show --direct-io=on metal-ntfs.img 2>/dev/null) && mkfs.ntfs -Q -F -q "$loop" >/dev/null 2>&1 &&
		ntfs-3g "$loop" "$work/ntfs" 2>/dev/null; then
		mnt=$work/ntfs name=${loop#/dev/}
		"$sdb" -w -f "$mnt/n" -s 64m -R >/dev/null 2>&1
		l0=$(sectors "$name" 3)
		run -r -f "$mnt/n" --json
		l1=$(sectors "$name" 3)
		check "ntfs-3g: the daemon's reads are sdb's: the kernel saw the claim, verified, other_bytes under 10%" "true true true" \
			"$(jq --argjson l $((l1 - l0)) -r '.total.bytes as $t | "\($l >= 0.9 * $t) \(.device.verified) \(.device.other_bytes | type == "number" and . < 0.1 * $t)"' <<<"$out")"
		unmount "$mnt"
		mnt=
	else
		skipped "a FUSE daemon's bytes are sdb's" "loop device, mkfs.ntfs or ntfs-3g failed"
	fi
	release_image metal-ntfs.img
	# A paravirtual disk says the host's cache may sit below it (-v).
	wdisk=$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' "$work")")
	[ -f "$wdisk/partition" ] && wdisk=$(dirname "$wdisk")
	driver=$(basename "$(readlink -f "$wdisk/device/driver")" 2>/dev/null)
	run -w -f "$work/pv" -s 4m -R -v
	if [ "$driver" = virtio_blk ]; then
		contains "-v on a virtio disk: the host's cache may sit below it" "$out" "paravirtual (virtio_blk): the host's cache may sit below it"
	else
		lacks "-v on a disk that is not paravirtual ($driver): no such word" "$out" "paravirtual"
	fi
	rm -f "$work/pv"
fi
