#!/bin/bash
# ------------------------------------------------------------ cliff-page-cache
. "$(dirname "$0")/../lib.sh"
# A buffered write under a memory cgroup limit runs at memory speed until
# the cgroup's page cache is full of dirty pages, then at the device's:
# that fall is the page cache's, named with the limit, not "a write cache".
# Built for real: a file system on a loop device whose writes the root
# blkio cgroup holds to 48 MiB/s (the flusher's writeback is the root's),
# sdb in a memory cgroup of 96 MiB; with -D the same write shows no
# page-cache fall.  The throttle is cleared on any exit of this section.
blkio=/sys/fs/cgroup/blkio memcg=/sys/fs/cgroup/memory
if ! system || [ ! -w "$blkio/blkio.throttle.write_bps_device" ] || [ ! -w "$memcg/cgroup.procs" ] ||
	! command -v mkfs.ext4 >/dev/null; then
	skipped "a memory cgroup's page cache is not a write cache" "needs root, cgroup v1 blkio and memory, mkfs.ext4"
	exit
fi
if ldd "$sdb" 2>/dev/null | grep -q libasan; then	# make check-sanitize
	skipped "a memory cgroup's page cache is not a write cache" \
		"a sanitizer build: its shadow memory fills the 96 MiB cgroup itself (killed, or no room left for pages)"
	exit
fi
truncate -s 700m pc.img
majmin= mc=
# shellcheck disable=SC2317  # called by the EXIT trap
unthrottle() {
	[ -n "$majmin" ] && echo "$majmin 0" >"$blkio/blkio.throttle.write_bps_device"
	[ -n "$mc" ] && rmdir "$mc" 2>/dev/null
	majmin= mc=
}
trap 'unthrottle; cleanup' EXIT
mnt=$work/pc
mkdir -p "$mnt"
if loop=$(losetup -f --show pc.img) && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" && mount "$loop" "$mnt"; then
	majmin=$(cat "/sys/block/${loop#/dev/}/dev")
	echo "$majmin $((48 << 20))" >"$blkio/blkio.throttle.write_bps_device"
	mc=$memcg/sdb-cli-pc-$$
	mkdir "$mc"
	echo $((96 << 20)) >"$mc/memory.limit_in_bytes"
	out=$( (echo "$BASHPID" >"$mc/cgroup.procs" && exec "$sdb" -w -f "$mnt/f" -s 512m -b 1m -R --json) 2>/dev/null); rc=$?
	check "buffered write in a 96 MiB memory cgroup: a fall, named the page cache with the cgroup's limit" "0 true true" \
		"$rc $(jq -r --arg mc "$mc" '.cliff | "\(. != null and .offset < 96 * 1.5 * 1048576) \(.page_cache // "" | contains("memory.limit_in_bytes 96 MiB in \($mc)"))"' <<<"$out")"
	out=$( (echo "$BASHPID" >"$mc/cgroup.procs" && exec "$sdb" -w -f "$mnt/f" -s 512m -b 1m -R) 2>/dev/null)
	contains "buffered write in a memory cgroup: the Page cache line" "$out" "Page cache: the rate fell after "
	lacks "buffered write in a memory cgroup: no write cache named" "$out" "a write cache of about"
	out=$( (echo "$BASHPID" >"$mc/cgroup.procs" && exec "$sdb" -w -f "$mnt/f" -s 128m -b 1m -R -D --json) 2>/dev/null); rc=$?
	check "-D in the same cgroup: no page-cache fall" "0 true" "$rc $(jq '.cliff == null or .cliff.page_cache == null' <<<"$out")"
	unthrottle
	unmount "$mnt"
else
	skipped "a memory cgroup's page cache is not a write cache" "losetup, mkfs.ext4 or mount failed"
fi
mnt=
release_image pc.img
