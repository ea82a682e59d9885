#!/bin/bash
# ------------------------------------------------------------ guard-never-touch
# What sdb may touch, at every moment (src/guard.h): a path is removed only
# while it names the file sdb made; kernel pseudo-file systems are never
# written; a mounted image is refused however it is mounted; a file another
# process writes needs --force; two runs on one target, either writing, are
# one too many.  Each check is against the kernel's view: the other file's
# checksum, the /proc file's contents, the second run's exit status.
. "$(dirname "$0")/../lib.sh"
mkdir -p gd
# A file renamed onto the quick suite's test file while the suite runs is
# somebody else's: the suite ends (its next test finds a stranger there),
# and leaves it where it is.
head -c 1m /dev/urandom >gd/precious
sum=$(md5sum <gd/precious)
"$sdb" --quick -f gd -t 0.5 -s 16m --runs 1 >/dev/null 2>gd/quick.err &
pid=$!
wait_for $pid quick_running $pid gd $((16 << 20))
mv gd/precious "gd/sdb-quick.$pid"
wait $pid; rc=$?
check "--quick, a file renamed onto its test file: that file is still there, unchanged" "$sum" \
	"$(md5sum <"gd/sdb-quick.$pid" 2>&1)"
contains "--quick, a file renamed onto its test file: says it left it in place" "$(cat gd/quick.err)" \
	"sdb: warning: gd/sdb-quick.$pid is no longer the test file sdb made (something was renamed onto it): left in place"
check "--quick, a file renamed onto its test file: the next test refuses the stranger (exit 2)" 2 "$rc"
rm -f gd/sdb-quick.* gd/quick.err
# With --keep: a file renamed onto the kept name is not what sdb kept, and
# the report does not say "Kept" of it.
head -c 1m /dev/urandom >gd/precious
sum=$(md5sum <gd/precious)
"$sdb" --quick -f gd/kept -t 0.5 -s 16m --runs 1 --keep >gd/keep.out 2>gd/keep.err &
pid=$!
kept_running() { at_least gd/kept $((16 << 20)) && quick_row_running "$1"; }
wait_for $pid kept_running $pid
mv gd/precious gd/kept
wait $pid
check "--quick --keep, a file renamed onto the kept name: that file unchanged, no 'Kept' line" "$sum 0" \
	"$(md5sum <gd/kept 2>&1) $(grep -c '^Kept ' gd/keep.out)"
contains "--quick --keep, a file renamed onto the kept name: says nothing was kept" "$(cat gd/keep.err)" \
	"sdb: warning: gd/kept is no longer the test file sdb made (something was renamed onto it or removed it): nothing kept"
rm -f gd/kept gd/keep.out gd/keep.err
# The same after a second Ctrl-C, which exits at once.
head -c 1m /dev/urandom >gd/precious
sum=$(md5sum <gd/precious)
"$sdb" --quick -f gd -t 2 -s 16m --runs 1 >/dev/null 2>&1 &
pid=$!
wait_for $pid quick_running $pid gd $((16 << 20))
mv gd/precious "gd/sdb-quick.$pid"
kill -INT $pid
wait_for $pid taken $pid INT
kill -INT $pid 2>/dev/null	# the first may have ended it already
wait $pid; rc=$?
check "--quick, Ctrl-C twice after a rename onto its test file: exit 130, that file unchanged" "130 $sum" \
	"$rc $(md5sum <"gd/sdb-quick.$pid" 2>&1)"
rm -f gd/sdb-quick.*

# Kernel pseudo-file systems: a zero-length file in /proc is not empty.
sleep 600 &
victim=$!
run -w -f "/proc/$victim/comm" -s 4k
check "-w on a /proc file: refused (exit 1), the file unchanged" "1 sleep" "$rc $(cat "/proc/$victim/comm")"
contains "-w on a /proc file: says procfs is never written" "$err" "is on procfs, a kernel pseudo-file system"
run -w --force -f "/proc/$victim/comm" -s 4k -R
check "-w --force on a /proc file: refused too, the file unchanged" "1 sleep" "$rc $(cat "/proc/$victim/comm")"
run -M 50 --force -f "/proc/$victim/comm" -s 4k -b 4k
check "-M --force on a /proc file: refused, the file unchanged" "1 sleep" "$rc $(cat "/proc/$victim/comm")"
run -w -f /sys/sdb-cli-new -s 4k
contains "-w of a new file in /sys: refused as sysfs" "$rc $err" "1 sdb: /sys/sdb-cli-new is on sysfs"
kill $victim
wait $victim 2>/dev/null
if system && cg=$(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2; exit }' /proc/self/mounts) &&
	[ -n "$cg" ] && mkdir "$cg/sdb-cli-$$" 2>/dev/null; then
	f=$(find "$cg/sdb-cli-$$" -maxdepth 1 -type f -perm -u+w -size 0 | sort | head -n 1)
	before=$(cat "$f")
	run -w --force -f "$f" -s 4k
	check "-w --force on a cgroupfs file ($(basename "$f")): refused, the file unchanged" "1 $before" "$rc $(cat "$f")"
	contains "-w --force on a cgroupfs file: says cgroupfs" "$err" "is on cgroupfs"
	rmdir "$cg/sdb-cli-$$"
else
	skipped "-w --force on a cgroupfs file" "needs root and a cgroup file system"
fi

# A file another process holds open for writing: --force, and its name.
head -c 1m /dev/urandom >gd/held
sum=$(md5sum <gd/held)
sleep 600 3>>gd/held &
writer=$!
run -w -f gd/held -s 1m
check "-w on a file another process writes: usage error, unchanged" "2 $sum" "$rc $(md5sum <gd/held)"
contains "-w on a file another process writes: names it" "$err" "open for writing by PID $writer (sleep)"
kill $writer
wait $writer 2>/dev/null
: >gd/empty	# empty, which sdb writes without --force: not while another writes it
sleep 600 3>>gd/empty &
writer=$!
run -w -f gd/empty -s 1m
check "-w on an empty file another process writes: usage error, still empty" "2 0" "$rc $(size_of gd/empty)"
run -w --force -f gd/empty -s 1m
check "-w --force on it: written" "0 1048576" "$rc $(size_of gd/empty)"
kill $writer
wait $writer 2>/dev/null
rm -f gd/held gd/empty

# Two runs on one target: a second run is refused while either writes,
# naming the first; readers share.  has_lock PID MODE: PID holds a flock
# of MODE (READ, WRITE), as /proc/locks shows.
has_lock() { grep -q "FLOCK  *ADVISORY  *$2 $1 " /proc/locks; }
"$sdb" -w -f gd/lk -s 16m -t 60 >/dev/null 2>&1 &
pid=$!
wait_for $pid has_lock $pid WRITE
run -r -f gd/lk -s 1m
check "a read while another run writes the file: exit 1" 1 "$rc"
contains "a read while another run writes the file: names that run" "$err" "another run that writes it (PID $pid,"
run -w -f gd/lk -s 1m
check "a write while another run writes the file: exit 1, one line" "1 1" "$rc $(grep -c . <<<"$err")"
run -w -f gd/lk -s 1m --force
contains "--force does not help" "$rc $err" "1 sdb: gd/lk is in use by another run that writes it (PID $pid,"
kill -INT $pid
wait $pid
"$sdb" -r -f gd/lk -t 60 >/dev/null 2>&1 &
pid=$!
wait_for $pid has_lock $pid READ
run -r -f gd/lk -s 1m
check "a read while another run reads the file: they share" 0 "$rc"
run -w -f gd/lk -s 1m
contains "a write while another run reads the file: exit 1, names it" "$rc $err" "1 sdb: gd/lk is in use by another run that reads it (PID $pid,"
kill -INT $pid
wait $pid
# -j 2: each of FILE.0 and FILE.1 locked; a new file, locked by the
# thread that creates it.
"$sdb" -w -f gd/new -s 16m -t 60 >/dev/null 2>&1 &
pid=$!
wait_for $pid has_lock $pid WRITE
run -M 50 -f gd/new -s 1m
contains "a mix on a new file another run is writing: exit 1, names it" "$rc $err" "1 sdb: gd/new is in use by another run that writes it (PID $pid,"
kill -INT $pid
wait $pid
rm -f gd/lk gd/new
# --hosts h1,h1 runs two sdb on one host and path: the second is refused.
printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >gd/fakessh
chmod +x gd/fakessh
"$sdb" -w -f gd/twice -s 1m >/dev/null 2>&1	# an sdb file: both may rewrite it, but not at once
SDB_SSH=$work/gd/fakessh SDB_REMOTE=$sdb run --hosts localhost,localhost -w -f "$work/gd/twice" -s 16m -t 1 --json
check "--hosts h,h on one path: exit 1, one host ran, the other refused" "1 1 1" \
	"$rc $(jq -r '"\(.total.hosts) \(.errors | length)"' <<<"$out" 2>&1)"
contains "--hosts h,h on one path: the refusal names the other run" "$(jq -r '.errors[0]' <<<"$out" 2>&1)" \
	"localhost: $work/gd/twice is in use by another run that writes it (PID"
# On a new path, the second finds the file the first created (or its lock).
SDB_SSH=$work/gd/fakessh SDB_REMOTE=$sdb run --hosts localhost,localhost -w -f "$work/gd/fresh" -s 16m -t 1 --json
check "--hosts h,h on a new path: exit 1, one host ran, the other refused" "1 1 1" \
	"$rc $(jq -r '"\(.total.hosts) \(.errors | length)"' <<<"$out" 2>&1)"
matches "--hosts h,h on a new path: the refusal names the other run" "$(jq -r '.errors[0]' <<<"$out" 2>&1)" \
	"localhost: $work/gd/fresh *another run*writes it*PID [0-9]*"
rm -f gd/twice gd/fresh gd/fakessh

# A symbolic link in a sticky world-writable directory: refused even with
# --force, and the message does not suggest it.
mkdir -p gd/sticky && chmod 1777 gd/sticky && ln -s ../target gd/sticky/link
run -w -f gd/sticky/link -s 1m
check "a planted link, without --force: refused, exit 1, nothing written" "1 missing" "$rc $(size_of gd/target)"
lacks "a planted link: no hint to add --force" "$err" "only with --force"
contains "a planted link: says --force will not do" "$err" "refusing to follow it, even with --force"
rm -rf gd/sticky

# Mounted images, however mounted (root): a loop device set up in another
# mount namespace, under a path that does not exist in this one, an
# ntfs-3g daemon serving the image there, and one here whose mount names a
# path that is gone.
if ! system || ! command -v unshare >/dev/null; then
	skipped "loop device from another mount namespace" "needs root and unshare"
	skipped "FUSE image mounted in another mount namespace" "needs root and unshare"
	skipped "FUSE image whose mount names a path now gone" "needs root"
else
	mkdir -p gd/real gd/view
	head -c 16m /dev/urandom >gd/real/img
	sum=$(md5sum <gd/real/img)
	if loop=$(unshare -m --propagation private sh -c "mount --bind gd/real gd/view && losetup -f --show gd/view/img"); then
		run -w --force -f gd/real/img -s 1m
		check "an image behind a loop device set up in another namespace, --force: refused, unchanged" "1 $sum" \
			"$rc $(md5sum <gd/real/img)"
		contains "... and says which loop device" "$err" "it backs the loop device $loop"
		losetup -d "$loop"
		loop=
	else
		skipped "loop device from another mount namespace" "unshare or losetup failed"
	fi
	rm -f gd/real/img
	truncate -s 64m gd/real/ntfs.img
	if ! command -v mkntfs >/dev/null || ! command -v ntfs-3g >/dev/null; then
		skipped "FUSE image mounted in another mount namespace" "mkntfs or ntfs-3g not installed"
	elif mkntfs -Q -F -q gd/real/ntfs.img >/dev/null 2>&1 &&
		unshare -m --propagation private sh -c "ntfs-3g gd/real/ntfs.img gd/view" 2>/dev/null &&
		daemon=$(pgrep -n -f "ntfs-3g gd/real/ntfs.img"); then
		sum=$(md5sum <gd/real/ntfs.img)
		run -w --force -f gd/real/ntfs.img -s 1m
		check "an ntfs-3g image mounted in another namespace, --force: refused, unchanged" "1 $sum" \
			"$rc $(md5sum <gd/real/ntfs.img)"
		contains "... and says where" "$err" "in another mount namespace (that of PID $daemon, ntfs-3g)"
		nsenter -t "$daemon" -m umount "$work/gd/view" 2>/dev/null || kill "$daemon"
	else
		skipped "FUSE image mounted in another mount namespace" "mkntfs, unshare or ntfs-3g failed"
	fi
	# The daemon's mount names a path that is gone (the directory renamed
	# since): the daemon, which holds the image and /dev/fuse, tells.
	mkdir -p gd/d1
	truncate -s 64m gd/d1/ntfs.img
	if command -v mkntfs >/dev/null && command -v ntfs-3g >/dev/null && mkntfs -Q -F -q gd/d1/ntfs.img >/dev/null 2>&1 &&
		ntfs-3g gd/d1/ntfs.img gd/view 2>/dev/null && mv gd/d1 gd/d2 &&
		daemon=$(pgrep -n -f "ntfs-3g gd/d1/ntfs.img"); then
		mnt=$work/gd/view
		sum=$(md5sum <gd/d2/ntfs.img)
		run -w --force -f gd/d2/ntfs.img -s 1m
		check "an ntfs-3g image whose mount names a path now gone, --force: refused, unchanged" "1 $sum" \
			"$rc $(md5sum <gd/d2/ntfs.img)"
		contains "... and names the daemon" "$err" "it is held open by PID $daemon (ntfs-3g), a FUSE daemon"
		unmount "$mnt"
		mnt=
	else
		skipped "FUSE image whose mount names a path now gone" "mkntfs or ntfs-3g missing or failed"
	fi
	rm -rf gd/real gd/view gd/d1 gd/d2
fi
rm -rf gd
