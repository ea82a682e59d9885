#!/bin/bash
# Black-box tests: run the real sdb in a scratch directory the way a user
# does and check exit codes, files, JSON values and messages.  Tests that
# need root (loop devices, tmpfs mounts) report themselves as skipped
# without it.  Nothing here asserts a speed, only ratios where the point of
# a feature is a difference in speed (cache eviction), nor how long anything
# took; a run is signalled once it shows that it reached the state under
# test (wait_for), not after a guessed sleep.
# Each section makes the files it uses and runs alone: CLI_SECTIONS=NAME
# (see section()) and tests/sections.sh, which runs every one by itself.
# usage: tests/cli.sh SDB MAN-PAGE VERSION [COUNTS-FILE]
set -u
sdb=$(realpath "$1") man=$(realpath "$2") version=$3 counts=${4:-/dev/null}
pass=0 fail=0 skip=0
work=$(mktemp -d "${TMPDIR:-/tmp}/sdb-cli.XXXXXX") || exit 1
# unmount DIR: a FUSE daemon (ntfs-3g) can keep its mount busy for a moment
# after the last file closes; retry, and detach it lazily in the end.
unmount() {
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		umount "$1" 2>/dev/null && return 0
		mountpoint -q "$1" || return 0
		sleep 0.3
	done
	umount -l "$1"
}
cleanup() {
	[ -n "${mnt:-}" ] && unmount "$mnt" 2>/dev/null
	[ -n "${loop:-}" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$work" /dev/shm/sdb-cli-$$*
}
trap cleanup EXIT
cd "$work" || exit 1
command -v jq >/dev/null || { echo "cli.sh: jq is needed (apt-get install jq)"; echo "cli: 0 1 0" >>"$counts"; exit 1; }

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
skipped() { skip=$((skip + 1)); echo "skip $1 ($2)"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi; }
contains() { if [[ $2 == *"$3"* ]]; then ok "$1"; else bad "$1" "'$3' not in '$2'"; fi; }
lacks() { if [[ $2 != *"$3"* ]]; then ok "$1"; else bad "$1" "'$3' in '$2'"; fi; }
matches() { if [[ $2 == $3 ]]; then ok "$1"; else bad "$1" "'$2' does not match $3"; fi; }	# $3: a glob

# run ARGS...: sets $rc, $out, $err
run() {
	out=$("$sdb" "$@" 2>"$work/.err"); rc=$?
	err=$(cat "$work/.err")
}
size_of() { stat -c %s "$1" 2>/dev/null || echo missing; }
# wait_for PID SIGN...: before a run PID is signalled or changed under it,
# wait for a sign that it has reached the state under test: the command
# SIGN... succeeding, polled every 0.05 s.  It gives up when PID has ended
# or after 20 s, and the checks that follow say what went wrong; how long
# the wait took is never checked.
wait_for() {
	local pid=$1 try
	shift
	for ((try = 0; try < 400; try++)); do
		"$@" && return 0
		running "$pid" || return 1
		sleep 0.05
	done
	return 1
}
# The signs.  running PID: PID exists and has not exited (a zombie has).
running() { local s; s=$(sed -n 's/^State:\s*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }
# wrote PID BYTES: PID has written at least BYTES (wchar of /proc/PID/io).
wrote() { local n; n=$(sed -n 's/^wchar: //p' "/proc/$1/io" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# end_held PID HOW: end PID, whose stdout is a FIFO this shell holds open
# as fd 3 and never reads: SIGHOW to it, or for PIPE the reader closed;
# then wait until it ends (or 20 s, then KILL).  Sets rc, and want to the
# exit HOW should give (130, 143, 141).
end_held() {
	if [ "$2" = PIPE ]; then exec 3<&-; else kill -"$2" "$1"; fi
	wait_for "$1" false	# until it ends (or 20 s)
	running "$1" && kill -KILL "$1"
	wait "$1"; rc=$?
	exec 3<&-
	case $2 in
	INT) want=130 ;; TERM) want=143 ;; PIPE) want=141 ;;
	esac
}
# has_read PID BYTES: PID has read at least BYTES (rchar of /proc/PID/io,
# which counts pread; sdb reads only a few KiB before its timed loop).
has_read() { local n; n=$(sed -n 's/^rchar: //p' "/proc/$1/io" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# resident PID KIB: PID has at least KIB of memory resident (VmRSS).
resident() { local n; n=$(sed -n 's/^VmRSS:\s*\([0-9]*\) kB$/\1/p' "/proc/$1/status" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# has_open PID PATH: PID has PATH open.
has_open() { local fd; for fd in /proc/"$1"/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0; done; return 1; }
# at_least FILE BYTES: FILE exists and holds at least BYTES.
at_least() { [ "$(stat -c %s "$1" 2>/dev/null || echo -1)" -ge "$2" ]; }
# quick_file DIR BYTES: the quick suite's test file in DIR holds at least BYTES.
quick_file() { local f; for f in "$1"/sdb-quick.*; do at_least "$f" "$2" && return 0; done; return 1; }
# quick_running PID DIR BYTES: the quick suite PID has laid out its test
# file of BYTES in DIR and the first row's run is under way: its io_uring
# is open (SEQ1M Q8T1), or the 8 threads that stand in for one.
quick_running() {
	quick_file "$2" "$3" || return 1
	has_open "$1" "anon_inode:[io_uring]" || [ "$(sed -n 's/^Threads:\s*//p' "/proc/$1/status" 2>/dev/null)" -ge 9 ] 2>/dev/null
}
# taken PID SIG: SIG is no longer pending for PID (sdb has read it from its
# signalfd: ShdPnd of /proc/PID/status), or PID has ended.
taken() {
	local pending
	pending=$(sed -n 's/^ShdPnd:\s*//p' "/proc/$1/status" 2>/dev/null)
	[ -z "$pending" ] || (((0x$pending >> ($(kill -l "$2") - 1) & 1) == 0))
}
# release_image IMG: detach the loop device $loop (if any), remove IMG.
release_image() { [ -n "${loop:-}" ] && losetup -d "$loop"; loop=; rm -f "$1"; }
# bad_input RC TEXT ARGS...: exit RC, exactly one line "sdb: ...TEXT...", no stdout.
bad_input() {	# expected-rc expected-text args...
	local want=$1 text=$2
	shift 2
	run "$@"
	local lines
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && [[ $err == "sdb: "*"$text"* ]] && [ -z "$out" ]; then
		ok "bad input ($*): exit $want"
	else
		bad "bad input ($*)" "rc=$rc stderr=$err"
	fi
}

# CLI_SECTIONS="quick-suite run-signals" runs only those sections.  Each is
# named by the room of src/ whose behaviour it mainly tests (and by what it
# tests there, where the room has several); each makes the files it uses.
section() { [ -z "${CLI_SECTIONS:-}" ] || [[ " $CLI_SECTIONS " == *" $1 "* ]]; }

# ------------------------------------------------------------ options-and-help
if section options-and-help; then
run -V
check "-V prints the version" "sdb $version" "$out"
run --help
check "--help exits 0" 0 "$rc"
matches "--help prints usage on stdout" "$out" 'usage:*'

# Every option in --help is in the man page, and every option the man
# page documents is in --help.
help_opts=$(printf '%s\n' "$out" | grep -o -- ' -[a-zA-Z],\| --[a-z][a-z-]*' | tr -d ' ,' | sort -u)
man_opts=$(sed 's/\\-/-/g' "$man" | sed -n '/^\.SH OPTIONS/,/^\.SH /p' |
	sed -n 's/^\.BR\{0,1\} \(-[a-zA-Z]\) ", " \(--[a-z][a-z-]*\).*/\1\n\2/p; s/^\.B \(--[a-z][a-z-]*\)$/\1/p
		s/^\.BR \(--[a-z][a-z-]*\) "[^"]*"$/\1/p' | sort -u)
missing=$(comm -23 <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')
check "every --help option is in sdb.1" "" "$missing"
extra=$(comm -13 <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')
check "every sdb.1 option is in --help" "" "$extra"
check "--help and sdb.1 list 38 options" 38 "$(echo "$help_opts" | grep -c -- '^--')"
fi

# ------------------------------------------------------------ worker-quick-check
if section worker-quick-check; then
run -w -f test -b 64m -s 256m -D -S
check "quick check: exit 0" 0 "$rc"
check "quick check: writes 256 MiB" 268435456 "$(size_of test)"
matches "quick check: per-thread line" "$out" '*Thread  0 (CPU:*seconds -> *iB/s*IOPS in 4 loops*'
run -r -f test -b 64m -s 256m -D --json
check "read back: exit 0" 0 "$rc"
check "read back: total.bytes" 268435456 "$(jq .total.bytes <<<"$out")"
check "read back: total.ops" 4 "$(jq .total.ops <<<"$out")"
check "read back: JSON only on stdout" 1 "$(jq -s length <<<"$out")"
check "read back: not interrupted" false "$(jq .interrupted <<<"$out")"
run -r -f test -D --json
check "read size defaults to the file's size" 268435456 "$(jq .options.size <<<"$out")"
rm -f test
fi

# ------------------------------------------------------------ worker-threads-and-files
if section worker-threads-and-files; then
run -w -f t -j 3 -b 1m -s 8m
check "-j 3: exit 0" 0 "$rc"
check "-j 3: t.0 t.1 t.2 of 8 MiB" "8388608 8388608 8388608" "$(size_of t.0) $(size_of t.1) $(size_of t.2)"
check "-j 3: no bare t" missing "$(size_of t)"
matches "-j 3: Total line" "$out" '*Total (3 threads)*'
run -r -f t -j 3 -m rand -b 4k -s 8m --json
check "rand read: exit 0" 0 "$rc"
check "rand read: 2048 ops per thread" "2048 2048 2048" "$(jq -r '[.threads[].ops] | join(" ")' <<<"$out")"
check "rand read: thread files" "t.0 t.1 t.2" "$(jq -r '[.threads[].file] | join(" ")' <<<"$out")"
check "rand read: percentiles ordered" true \
	"$(jq '[.threads[].latency_ns | .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .p999 and .p999 <= .max and .min > 0] | all' <<<"$out")"
check "rand read: total is bytes over wall time" true \
	"$(jq '(.total.bytes / .total.seconds - .total.bytes_per_second | fabs) < 0.01 * .total.bytes_per_second' <<<"$out")"
check "rand read: wall time >= slowest thread" true "$(jq '.total.seconds >= ([.threads[].seconds] | max)' <<<"$out")"
run -r -f t -j 3 -m rand -b 4k -s 8m
matches "rand read: latency line" "$out" '*latency min*avg*p99*max*'
rm -f t.*

run -w -f r -m rand -b 4k -s 4m -R
matches "rand write: lays out the file first" "$out" '*Laid out r to 4 MiB before the random writes*'
rm -f r
run -w -f r -m rand -b 4k -s 4m --json -R
check "rand write: file size" 4194304 "$(size_of r)"
check "-R: every 4 KiB block written differs (no dedup)" 1024 "$(split -b 4096 --filter=md5sum r | sort -u | wc -l)"
check "-R: the data does not compress" true "$(echo "$(gzip -1 -c r | wc -c) > 0.99 * 4194304" | bc -l | sed 's/1/true/;s/0/false/')"
check "rand write: 1024 ops" 1024 "$(jq .total.ops <<<"$out")"
check "rand write with -R: no zero-buffer warning" 0 "$(jq '.warnings | map(select(test("zeros"))) | length' <<<"$out")"

run -w -f grow -b 1m -s 2m
run -w -f grow -b 1m -s 1m
check "writing never truncates an existing file" 2097152 "$(size_of grow)"

run -r -f r -b 1m -s 8m --json
check "read past end of file: exit 0" 0 "$rc"
check "read past end of file: bytes actually read" 4194304 "$(jq .total.bytes <<<"$out")"
check "read past end of file: warning in JSON" 1 "$(jq '.warnings | map(select(test("end of file"))) | length' <<<"$out")"
matches "read past end of file: warning on stderr" "$err" '*sdb: warning: *end of file*'

run -w -f z -s 1m --cached --json
check "--cached write: no fdatasync" 0 "$(jq .threads[0].sync_seconds <<<"$out")"
run -w -f z -s 1m --json
check "zero buffer: warning" 1 "$(jq '.warnings | map(select(test("zeros"))) | length' <<<"$out")"
check "buffered write: the timed fdatasync is reported" true \
	"$(jq '.threads[0] | .sync_seconds > 0 and .sync_seconds < .seconds' <<<"$out")"
check "the timeline stops before the fdatasync" true "$(jq '(.timeline | last | .t) <= .total.seconds - .threads[0].sync_seconds + 0.00001' <<<"$out")"

run -r -f r -m rand -b 4k -t 1 --cached --json	# the cache: more passes than a slow disk gives
check "-t 1: repeats passes" true "$(jq '.total.ops > 1024 and .threads[0].passes > 1' <<<"$out")"
check "-t 1: runs for the time asked" true "$(jq '.total.seconds >= 0.95' <<<"$out")"
check "-t 1: time_limit in JSON" 1 "$(jq .options.time_limit <<<"$out")"
rm -f r z grow
fi

# ------------------------------------------------------------ uring-queue-depth
if section uring-queue-depth; then
"$sdb" -w -f q -s 8m -R >/dev/null 2>&1
"$sdb" -w -f q -j 2 -s 8m -R >/dev/null 2>&1
run -r -f q -j 2 -m rand -q 8 --json
check "-q 8 rand read: 2048 ops per thread" "2048 2048" "$(jq -r '[.threads[].ops] | join(" ")' <<<"$out")"
check "-q 8 rand read: latency recorded" true "$(jq '[.threads[].latency_ns | .min > 0 and .p50 <= .p99 and .p99 <= .max] | all' <<<"$out")"
check "-q 8: queue_depth in JSON" 8 "$(jq .options.queue_depth <<<"$out")"
run -r -f q -q 4 -D -b 64k --json
check "-q 4 -D seq read: whole file" "8388608 128" "$(jq -r '"\(.total.bytes) \(.total.ops)"' <<<"$out")"
run -w -f qw -q 4 -b 1m -s 6m -R --json
check "-q 4 write: exit 0" 0 "$rc"
check "-q 4 write: file size" 6291456 "$(size_of qw)"
check "-q 4 write: 6 ops" 6 "$(jq .total.ops <<<"$out")"
for batch in 0 1 3; do
	out=$(SDB_SUBMIT_BATCH=$batch "$sdb" -r -f q -q 16 -m rand --json 2>/dev/null)
	check "-q 16, at most $batch I/Os per io_uring_enter: every block once" 2048 "$(jq .total.ops <<<"$out")"
done
run -r -f q -q 16 -m rand -b 4k -t 1 --json
check "-q 16 -t 1: time-based" true "$(jq '.total.seconds >= 0.95 and .total.ops > 2048' <<<"$out")"
run -r -f q -s 16m -q 4 --json
check "-q 4 read past end of file: bytes actually read" 8388608 "$(jq .total.bytes <<<"$out")"
check "-q 4 read past end of file: warning" 1 "$(jq '.warnings | map(select(test("end of file"))) | length' <<<"$out")"
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/io_uring_disabled ]; then
	saved=$(cat /proc/sys/kernel/io_uring_disabled)
	echo 2 >/proc/sys/kernel/io_uring_disabled
	run -r -f q -q 4
	echo "$saved" >/proc/sys/kernel/io_uring_disabled
	check "io_uring disabled: -q 4 is a runtime error" 1 "$rc"
	matches "io_uring disabled: says why" "$err" 'sdb: -q 4: io_uring is not available: *'
else
	skipped "io_uring disabled" "needs root and kernel.io_uring_disabled"
fi
rm -f q q.0 q.1 qw
fi

# ------------------------------------------------------------ plan-devices
if section plan-devices; then
run -w -f /dev/null -s 64m -j 2
check "/dev/null write: exit 0" 0 "$rc"
run -r -f /dev/zero -s 16m -b 1m --json
check "/dev/zero read: 16 ops" 16 "$(jq .total.ops <<<"$out")"
check "/dev/zero: shared by threads" "/dev/zero" "$(jq -r .threads[0].file <<<"$out")"
fi

# ------------------------------------------------------------ checks-truthful-numbers
if section checks-truthful-numbers; then
run -T --json
check "-T: memory ceiling in JSON" true "$(jq '.memory.memset > 0 and .memory.memcpy > 0 and .memory.memmove > 0' <<<"$out")"
run -T -w -f /dev/null -s 1m
matches "-T: memory line before the results" "$out" '*Memory (*memset*memcpy*memmove*'

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

run -v -w -f v -s 1m
matches "-v describes the environment" "$out" '*Host: *Target: v on *Buffer: *'
run -v -w -f v -s 1m --json
check "-v: environment in JSON" true "$(jq '.environment.kernel | length > 0' <<<"$out")"
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
fi

# ------------------------------------------------------------ checks-memory-not-a-device
if section checks-memory-not-a-device; then
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
if [ "$(id -u)" = 0 ] && [ -w /sys/block/zram0/reset ]; then
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
fi

# ------------------------------------------------------------ options-bad-input
if section options-bad-input; then
# Every one exits with the documented code, prints exactly one line that
# starts with "sdb: " and names the culprit, and leaves no file behind.
mkdir -p bad && cd bad || exit 1
echo data >small
bad_input 2 "one of -w"
bad_input 2 "-f FILE is required"	-w
bad_input 2 "choose one"		-w -r -f x
bad_input 2 "-b 12x: invalid size"	-w -f x -b 12x
bad_input 2 "-s 0: invalid size"	-w -f x -s 0
bad_input 2 "-s -1: invalid size"	-w -f x -s -1
bad_input 2 "-s 4kk: invalid size"	-w -f x -s 4kk
bad_input 2 "-s : invalid size"		-w -f x -s ''
bad_input 2 "invalid size"		-w -f x -s 18446744073709551616
bad_input 2 "invalid size"		-w -f x -s 17179869184G
bad_input 2 "-j 0: threads"		-w -f x -j 0
bad_input 2 "-j 4097: threads"		-w -f x -j 4097
bad_input 2 "-j two: threads"		-w -f x -j two
bad_input 2 "-m zig: mode"		-w -f x -m zig
bad_input 2 "-t 0: time"		-w -f x -t 0
bad_input 2 "-t 1x: time"		-w -f x -t 1x
bad_input 2 "-x: unknown option"	-w -f x -x
bad_input 2 "--frobnicate: unknown"	-w -f x --frobnicate
bad_input 2 "-b: missing argument"	-w -f x -b
bad_input 2 "unexpected argument"	-w -f x y
bad_input 2 "--cached and -D"		-w -f x -D --cached
bad_input 2 "needs multiples of"	-w -f x -D -b 1000
bad_input 2 "needs a size that is a multiple" -w -f x -D -b 4k -s 5000
bad_input 2 "-s SIZE is required"	-r -f /dev/zero
bad_input 2 "character device that may be hardware" -w -f /dev/urandom -s 1m
bad_input 2 "smaller than one"		-w -f x -m rand -b 1m -s 4k
bad_input 2 "of memory"			-r -f small -s 1t -b 1t
for dev in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0 ""; do [ -b "$dev" ] && break; done
if [ -n "$dev" ]; then bad_input 2 "add --force" -w -f "$dev"; else skipped "block device without --force" "no block device"; fi
bad_input 1 "x: No such file or directory" -r -f x
bad_input 1 "x.0: No such file or directory" -r -f x -j 2
bad_input 1 "nodir/x: No such file or directory" -w -f nodir/x
bad_input 1 "Is a directory"		-w -f .
bad_input 1 "Not a directory"		-r -f /dev/null/x
bad_input 1 "O_DIRECT (-D) is not supported here" -r -f /dev/zero -s 1m -D
: >empty
bad_input 1 "empty: file is empty"	-r -f empty
rm -f small empty
check "usage errors leave no file behind" "" "$(ls)"
cd .. && rmdir bad
fi

# ------------------------------------------------------------ plan-safe-targets
if section plan-safe-targets; then
# sdb overwrites only what it wrote (issue 11): each case checks the
# precious file's checksum, not just the exit code.
mkdir -p safe && cd safe || exit 1
head -c 100000 /dev/urandom >precious
sum=$(md5sum <precious)
run -w -f precious -s 64k
check "existing file not made by sdb: usage error" 2 "$rc"
contains "existing file not made by sdb: says how" "$err" "precious exists and sdb did not create it: add --force"
check "existing file not made by sdb: untouched" "$sum" "$(md5sum <precious)"
run -w -f mine -s 64k
run -w -f mine -s 128k
check "a file sdb made is rewritten without --force" "0 131072" "$rc $(size_of mine)"
: >empty
run -w -f empty -s 64k
check "an empty file is written without --force" "0 65536" "$rc $(size_of empty)"
ln mine other
run -w -f mine -s 64k
check "a file with two links: usage error" 2 "$rc"
contains "a file with two links: says so" "$err" "has 2 links"
rm -f other mine empty
cp precious copy
run -w -f copy -s 64k --force
check "--force overwrites a file sdb did not make" "0 ff" "$rc $(od -An -tx1 -N1 -j 70000 copy | tr -d ' ' | sed 's/^..$/ff/')"
rm -f copy
ln -s precious link
run -w -f link -s 4k
check "a symlink as target: usage error" 2 "$rc"
contains "a symlink as target: says so" "$err" "link is a symbolic link"
check "a symlink as target: what it points to is untouched" "$sum" "$(md5sum <precious)"
# Another user's planted link in a sticky world-writable directory is never
# followed, even with --force (the attack of issue 11, case 1).
mkdir -m 1777 pub
ln -s ../precious pub/bench.0
ln -s ../nothing-here pub/dangling
for force in "" --force; do
	run -w -f pub/bench -j 2 -s 4k $force
	check "planted link in a sticky directory ${force:-without --force}: refused" true "$([ "$rc" != 0 ] && echo true)"
	check "planted link in a sticky directory ${force:-without --force}: target untouched" "$sum" "$(md5sum <precious)"
	check "planted link ${force:-without --force}: no pub/bench.1 left behind" missing "$(size_of pub/bench.1)"
done
contains "planted link with --force: says why" "$err" "sticky world-writable directory: refusing to follow it, even with --force"
run -w -f pub/dangling -s 4k --force
check "dangling link: refused, nothing created where it points" "1 missing" "$rc $(size_of nothing-here)"
rm -rf pub link
mkfifo fifo
run -r -f fifo -s 4k
check "a FIFO: refused at once, not opened and waited on" 1 "$rc"
contains "a FIFO: says what it is" "$err" "not a regular file or a device (a FIFO)"
rm -f fifo
run -w -f /dev/sdb-cli-typo-$$ -s 1m --force
check "a missing path under /dev: an error, not a new file" "1 missing" "$rc $(size_of /dev/sdb-cli-typo-$$)"
contains "a missing path under /dev: says so" "$err" "no such device, and sdb creates no files in /dev"
check "safe targets: nothing left but the precious file" "precious" "$(ls)"
cd .. && rm -rf safe

# Sizes whose derived quantities overflow are usage errors, not crashes or
# process memory written to the file (issue 11, case 3).
max=18446744073709551615
bad_input 2 "larger than the largest possible file offset" -r -f /dev/zero -b $max -s $max -q 2
bad_input 2 "larger than the largest possible file offset" -w -f huge -b $max -s $max -R
bad_input 2 "larger than the largest possible file offset" -w -f huge -b $max -s $max -q 2
bad_input 2 "need 8192.00 PiB of memory"   -w -f huge -b 9223372036854775807 -s 9223372036854775807 -q 2
check "absurd sizes: no file made" missing "$(size_of huge)"
run --quick -f . -s 17361641481138401521
check "--quick with an absurd -s: refused before any file is made" "2 " "$rc $(ls sdb-quick.* 2>/dev/null)"

# A run that cannot start leaves none of the files it made, and warns about
# nothing it did not run (issue 11, case 8).
out=$( (ulimit -n 20; "$sdb" -w -f nofd -j 64 -s 4k) 2>"$work/.err"); rc=$?; err=$(cat "$work/.err")
check "failed start (open files): exit 1" 1 "$rc"
check "failed start: no FILE.N left" 0 "$(ls nofd.* 2>/dev/null | wc -l)"
check "failed start: one line, no warnings" 1 "$(grep -c . <<<"$err")"
rm -f nofd.*
if [ -n "${ASAN_OPTIONS:-}" ]; then
	skipped "-j 4096 under ulimit -v" "AddressSanitizer needs more address space than any such limit"
else
	out=$( (ulimit -v 400000; "$sdb" -r -f /dev/zero -s 4k -b 4k -j 4096) 2>&1); rc=$?
	check "-j 4096 under ulimit -v: exit 1 with one sdb: line" "1 1" "$rc $(grep -c '^sdb: ' <<<"$out")"
fi

# Errors reach the user with their real cause.
"$sdb" -w -f /dev/null -s 1m >/dev/full 2>"$work/.err"; rc=$?; out=$(tail -n 1 "$work/.err")
check "stdout on /dev/full: exit 1, the real errno" "1 sdb: write: standard output: No space left on device" "$rc $out"
for opt in --help --version; do
	"$sdb" $opt >/dev/full 2>/dev/null
	check "$opt to a full stdout: exit 1" 1 "$?"
done
if ! compgen -G '/sys/devices/system/cpu/cpu0/cache/index*' >/dev/null; then
	skipped "-T under ulimit -v: flagged as cache-sized" "this machine's sysfs names no CPU cache, so no copy is known to be cache-sized"
elif [ -z "${ASAN_OPTIONS:-}" ]; then
	out=$( (ulimit -v 250000; "$sdb" -T --json) 2>/dev/null); rc=$?
	check "-T under ulimit -v: the copy it could make, flagged as cache-sized" "0 true true" \
		"$rc $(jq '.memory.bytes > 0 and .memory.memcpy > 0' <<<"$out") $(jq '.warnings | any(test("cache rates"))' <<<"$out")"
fi
"$sdb" -w -f shrink -s 64m -R >/dev/null 2>&1
"$sdb" -r -f shrink -t 4 --json >shrink.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((68 << 20))	# in its second pass: the file was whole once
truncate -s 10m shrink
wait $pid
check "a file that shrinks during -t: end of file, and why" true \
	"$(jq '.warnings | any(test("shrink: end of file at offset [0-9]+, before the 64 MiB asked for \\(the file shrank"))' shrink.json)"
rm -f shrink shrink.json
esc=$'esc\033[2Jname'
run -w -f "$esc" -s 4k
contains "human report escapes control bytes in names" "$out" 'esc\x1b[2Jname'
check "human report prints no raw escape" 0 "$(grep -c $'\033' <<<"$out")"
rm -f "$esc"

# A file name that needs escaping comes back intact from the JSON.
name=$'we"ird\\name\nx'
run -w -f "$name" -s 64k --json
check "JSON escapes file names" "$name" "$(jq -j .options.file <<<"$out")"
rm -f "$name"

# Edge cases found in review.
: >dev.0; ln -s /dev/null dev.1
run -w -f dev -j 2 -s 1m --force	# --force: FILE.1 is a symlink, to a device
check "-j 2 where FILE.1 is a device: refused" 1 "$rc"
matches "-j 2 where FILE.1 is a device: says so" "$err" '*dev.1 is a device*'
check "-j 2 where FILE.1 is a device: FILE.0 untouched" 0 "$(size_of dev.0)"
rm -f dev.0 dev.1
run -w -f n1 -m rand -D -b 4k -s 10000 -R --json
check "-D random write, SIZE not a block multiple: whole blocks only" "0 2 8192" "$rc $(jq .total.ops <<<"$out") $(size_of n1)"
head -c 10000 /dev/urandom >odd
for q in 1 2; do
	out=$("$sdb" -r -f odd -b 4k -q $q --json 2>/dev/null)
	check "-q $q read of a 10000-byte file: 3 I/Os, 10000 bytes" "3 10000" "$(jq -r '"\(.total.ops) \(.total.bytes)"' <<<"$out")"
done
rm -f n1 odd
out=$( (ulimit -Sn 256; "$sdb" -r -f /dev/zero -s 4k -b 4k -j 600 -q 2 --json) 2>"$work/.err"); rc=$?
check "-j 600 -q 2 with 256 open files allowed: raises its limit" "0 600" "$rc $(jq .total.ops <<<"$out" 2>/dev/null)"

# A file size limit: EFBIG, reported with the file and offset, not a kill.
out=$( (ulimit -f 2048; "$sdb" -w -f fbig -s 8m -b 1m -R) 2>"$work/.err"); rc=$?; err=$(cat "$work/.err")
check "file size limit: exit 1" 1 "$rc"
check "file size limit: names file, offset, EFBIG" "sdb: write: fbig at offset 2097152: File too large" "$(tail -n 1 <<<"$err")"
rm -f fbig

# The live progress line: on a terminal only, erased before the report.
if command -v script >/dev/null; then
	tty_out=$(script -qec "$sdb -r -f /dev/zero -s 1t -b 1m -t 1.6" /dev/null | tr '\r' '\n')
	matches "progress line on a terminal" "$tty_out" '*ETA *'
	run -r -f /dev/zero -s 1t -b 1m -t 1.6
	lacks "no progress line when stderr is not a terminal" "$err" "ETA"
	tty_out=$(script -qec "$sdb -r -f /dev/zero -s 1t -b 1m -t 1.6 --json" /dev/null)
	lacks "no progress line with --json" "$tty_out" "ETA"
else
	skipped "progress line" "no script(1)"
fi
fi

# ------------------------------------------------------------ quick-suite
if section quick-suite; then
mkdir -p qs
run --quick -f qs -t 0.2 -s 32m --json
check "--quick: exit 0" 0 "$rc"
check "--quick: eight rows of three runs" "8 3 3 3 3 3 3 3 3" "$(jq -r '[(.suite | length), (.suite[].runs | length)] | join(" ")' <<<"$out")"
check "--quick: CrystalDiskMark's default rows, each test written then read" \
	"SEQ1M Q8T1 write,SEQ1M Q8T1 read,SEQ1M Q1T1 write,SEQ1M Q1T1 read,RND4K Q32T1 write,RND4K Q32T1 read,RND4K Q1T1 write,RND4K Q1T1 read" \
	"$(jq -r '[.suite[].name] | join(",")' <<<"$out")"
check "--quick: each row's profile, op, block size, depth and threads" \
	"default write 1048576 8 1|default read 4096 32 1" \
	"$(jq -r '[.suite[0, 5] | "\(.profile) \(.op) \(.block_size) \(.queue_depth) \(.threads)"] | join("|")' <<<"$out")"
check "--quick: every run has its rate, IOPS, p99 and delivered share" true \
	"$(jq '[.suite[].runs[] | has("bytes_per_second") and has("iops") and has("p99_ns") and has("delivered")] | all' <<<"$out")"
check "--quick: the profile and runs up front" "default 3" "$(jq -r '"\(.quick.profile) \(.quick.runs)"' <<<"$out")"
check "--quick: medians within the ranges" true \
	"$(jq '[.suite[] | .min.bytes_per_second <= .median.bytes_per_second and .median.bytes_per_second <= .max.bytes_per_second and .median.iops > 0] | all' <<<"$out")"
check "--quick: random rows have p99 latency" true "$(jq '[.suite[] | select(.mode == "rand") | .median.p99_ns > 0] | all' <<<"$out")"
check "--quick: test file removed" "" "$(ls qs)"
run --quick -f qs/kept -t 0.2 -s 16m --keep
check "--quick --keep: exit 0" 0 "$rc"
check "--quick --keep: file kept" 16777216 "$(size_of qs/kept)"
check "--quick: table has eight rows" 8 "$(grep -c '^\(SEQ1M\|RND4K\) ' <<<"$out")"
matches "--quick: says what it runs up front" "$out" \
	"*quick suite: qs/kept*Profile default (CrystalDiskMark's default): SEQ1M Q8T1, *Test file: set by -s*About *8 rows x 3 runs*"
before=$(md5sum <qs/kept)
run --quick -f qs/kept -t 0.2
check "--quick on an existing file: usage error" 2 "$rc"
check "--quick on an existing file: untouched" "$before" "$(md5sum <qs/kept)"
rm -f qs/kept
run --quick -f qs -w
check "--quick with -w: usage error" 2 "$rc"
"$sdb" --quick -f qs -t 1 -s 32m >quick.out 2>/dev/null &
pid=$!
wait_for $pid quick_running $pid qs $((32 << 20))
kill -INT $pid
wait $pid; rc=$?
check "--quick interrupted: exit 130" 130 "$rc"
check "--quick interrupted: test file removed" "" "$(ls qs)"
contains "--quick interrupted: prints the table of what finished" "$(cat quick.out)" "Interrupted: the rows above are what finished"
run --quick -f qs -s 5m
check "--quick -s below 8 MiB: usage error" 2 "$rc"
# Out of descriptors at each open of the suite's set-up (the test file's
# creation, its O_DIRECT probe, the checks after): whichever open fails,
# the test file sdb created is gone when it exits.
for n in 5 6 7; do
	(ulimit -n $n; "$sdb" --quick -f qs -s 16m -t 0.2 --runs 1 >/dev/null 2>&1)
	check "--quick with $n descriptors: no test file left behind" "" "$(ls qs)"
done
run --quick=nvme -f qs -t 0.2 -s 32m --runs 1 --json
check "--quick=nvme: its rows, one run each" \
	"SEQ1M Q8T1 write,SEQ1M Q8T1 read,SEQ128K Q32T1 write,SEQ128K Q32T1 read,RND4K Q32T16 write,RND4K Q32T16 read,RND4K Q1T1 write,RND4K Q1T1 read 1" \
	"$(jq -r '"\([.suite[].name] | join(",")) \([.suite[].runs | length] | unique | join(","))"' <<<"$out")"
run --quick=real -f qs -t 0.2 -s 16m --runs 2
check "--quick=real --runs 2: four rows, medians of 2" "4 1" \
	"$(grep -c '^\(SEQ1M\|RND4K\) Q1T1 ' <<<"$out") $(grep -c '^Median of 2 runs' <<<"$out")"
for bad in --quick=fast "--quick --runs 0" "--quick --runs 101"; do
	# shellcheck disable=SC2086	# the words of $bad are meant to split
	run $bad -f qs -t 0.2 -s 16m
	check "$bad: usage error, one line, no file" "2 1 " "$rc $(grep -c '^sdb: ' <<<"$err") $(ls qs)"
done
run -w -f qs/x --runs 2
check "--runs without --quick: usage error" 2 "$rc"

# --explain prints fio's command lines and touches nothing.
run --quick --explain -f qs
check "--quick --explain: exit 0, no file" "0 " "$rc $(ls qs)"
check "--quick --explain: 8 fio lines" 8 "$(grep -c '^fio ' <<<"$out")"
check "--quick --explain: in the suite's order" \
	"SEQ1M-Q8T1-write SEQ1M-Q8T1-read SEQ1M-Q1T1-write SEQ1M-Q1T1-read RND4K-Q32T1-write RND4K-Q32T1-read RND4K-Q1T1-write RND4K-Q1T1-read" \
	"$(grep -o '^fio --name=[^ ]*' <<<"$out" | cut -d= -f2 | tr '\n' ' ' | sed 's/ $//')"
run -w -f qs/plain -j 2 -s 8m -D --explain
check "-w --explain: one fio line, no file" "0 1 " "$rc $(grep -c '^fio ' <<<"$out") $(ls qs)"
contains "-w -j 2 --explain: sdb's FILE.0 and FILE.1" "$out" "'--filename_format=qs/plain.\$jobnum' --rw=write --bs=1m --size=8m --numjobs=2"
# fio runs two explained rows unchanged on a small file, and measures the
# same kind of I/O: the direction, the block size and the depth (the
# iodepth_level bucket most I/Os were submitted at).
if command -v fio >/dev/null; then
	# Both explained before fio makes qs/f: --quick refuses an existing file.
	explained=$("$sdb" --quick --explain -f qs/f -s 16m -t 0.3; "$sdb" --quick=nvme --explain -f qs/f -s 16m -t 0.3)
	fio_row() {	# fio_row ROW: fio's JSON for that explained row
		local line
		line=$(grep -m 1 -- "^fio --name=$1 " <<<"$explained")
		eval "$line --output-format=json" 2>"$work/.fioerr"
	}
	out=$(fio_row SEQ1M-Q8T1-write); rc=$?
	check "fio runs SEQ1M Q8T1 write as explained: writes 1 MiB blocks at depth 8" "0 0 1048576 8" \
		"$rc $(jq -r '.jobs[0] | "\(.read.io_bytes) \(.write.io_bytes / .write.total_ios) \(.iodepth_level | to_entries | max_by(.value) | .key)"' <<<"$out" 2>&1)"
	out=$(fio_row RND4K-Q32T16-read); rc=$?
	check "fio runs RND4K Q32T16 read as explained: reads 4 KiB blocks at depth 32 in 16 jobs" "0 0 4096 32 16" \
		"$rc $(jq -r '.jobs[0] | "\(.write.io_bytes) \(.read.io_bytes / .read.total_ios) \(.iodepth_level | to_entries | max_by(.value) | .key) \(."job options".numjobs)"' <<<"$out" 2>&1)"
	rm -f qs/f
else
	skipped "fio runs the explained lines" "fio is not installed"
fi
"$sdb" --quick -f qs -t 2 -s 32m >/dev/null 2>&1 &
pid=$!
wait_for $pid quick_running $pid qs $((32 << 20))
kill -INT $pid
wait_for $pid taken $pid INT	# the second comes after sdb took the first
kill -INT $pid 2>/dev/null	# the first may have ended it already
wait $pid; rc=$?
check "--quick, Ctrl-C twice: exit 130" 130 "$rc"
check "--quick, Ctrl-C twice: test file removed" "" "$(ls qs)"
rm -rf qs quick.out
fi

# ------------------------------------------------------------ run-signals
if section run-signals; then
"$sdb" -r -f /dev/zero -s 1g -b 64k -t 60 --json >sig.json 2>sig.err &
pid=$!
wait_for $pid has_read $pid $((1 << 20))	# in its timed loop
kill -INT $pid
wait $pid; rc=$?
check "SIGINT: exit 130" 130 "$rc"
check "SIGINT: valid JSON, interrupted, the run cut short" true \
	"$(jq '.interrupted and .total.bytes > 0 and .total.seconds < 60' sig.json 2>&1)"
rm -f sig.json sig.err

"$sdb" -r -f /dev/zero -s 1g -b 64k -t 60 --json >sig.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((1 << 20))
kill -TERM $pid
wait $pid; rc=$?
check "SIGTERM: exit 143 (128 + 15) with results" "143 true" "$rc $(jq .interrupted sig.json 2>&1)"
rm -f sig.json

# Every signal that ends sdb ends it cleanly: exit 128 + n and the quick
# suite's test file removed (issue 11, case 7); the -R fill stops at once.
mkdir -p sigq
for sig in HUP QUIT USR1 ALRM; do
	"$sdb" --quick -f sigq -t 1 -s 32m >/dev/null 2>&1 &
	pid=$!
	wait_for $pid quick_file sigq 0	# the test file is there to be removed
	kill -$sig $pid
	wait $pid; rc=$?
	check "--quick ended by SIG$sig: exit 128 + n, test file removed" "$((128 + $(kill -l $sig))) " "$rc $(ls sigq)"
done
"$sdb" --quick -f sigq -t 1 -s 32m 2>/dev/null | true
check "--quick into a closed pipe: exit 141 (SIGPIPE), test file removed" "141 " "${PIPESTATUS[0]} $(ls sigq)"
rmdir sigq
"$sdb" -w -f fillint -b 4g -s 4g -R >/dev/null 2>"$work/.err" &
pid=$!
wait_for $pid resident $pid $((4000 << 10))	# the 4 GiB buffer is in memory: the fill comes next
kill -INT $pid
wait $pid; rc=$?
check "SIGINT during the -R fill: exit 130 before any file is made" "130 missing" "$rc $(size_of fillint)"
contains "SIGINT during the -R fill: stopped the fill itself" "$(cat "$work/.err")" "interrupted by SIGINT while filling the buffer"
rm -f fillint
fi

# ------------------------------------------------------------ worker-every-pass-reaches-the-device
if section worker-every-pass-reaches-the-device; then
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
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null; then
	mnt=$work/passes
	mkdir -p "$mnt"
	truncate -s 320m passes.img
	if loop=$(losetup -f --show passes.img 2>/dev/null) && mkfs.ext4 -q -F "$loop" && mount "$loop" "$mnt"; then
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
fi

# ------------------------------------------------------------ device-sdb-checks-itself
if section device-sdb-checks-itself; then
# Every run but --cached is checked against the kernel's counters of the
# device under the target (issue 12): the Device line, the JSON device
# object, what cannot be checked and why.
device_keys='["busy","bytes","delivered","fua","limit","link","name","other_bytes","path","reason","stack","verified","write_cache"]'
run -w -f /dev/null -s 64m --json
check "/dev/null: unverifiable, a character device, no name" "false true null" \
	"$(jq -r '"\(.device.verified) \(.device.reason | test("character device")) \(.device.name)"' <<<"$out")"
run -w -f /dev/null -s 64m
contains "/dev/null: the Device line says why not" "$out" "Device: unverifiable: /dev/null is a character device"
if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
	skipped "sdb checks itself" "needs root and mkfs.ext4"
else
	mnt=$work/verify
	mkdir -p "$mnt"
	if mount -t tmpfs -o size=32m tmpfs "$mnt" 2>/dev/null; then
		run -w -f "$mnt/t" -s 16m --json
		check "tmpfs: unverifiable, limited by memory" "false memory true" \
			"$(jq -r '"\(.device.verified) \(.device.limit) \(.device.reason | test("tmpfs: files in memory"))"' <<<"$out")"
		unmount "$mnt"
	else
		skipped "tmpfs unverifiable" "mount failed"
	fi
	# A direct-I/O loop device: a buffered one (loop/dio 0) serves reads
	# from its backing file's page cache, which the verdict now follows
	# to the disk below (section stack-down-to-the-metal).
	truncate -s 1600m verify.img
	if loop=$(losetup -f --show --direct-io=on verify.img 2>/dev/null) && mkfs.ext4 -q -F "$loop" && mount "$loop" "$mnt"; then
		name=${loop#/dev/}
		"$sdb" -w -f "$mnt/f" -s 256m -R >/dev/null 2>&1
		run -r -f "$mnt/f"
		line=$(grep '^Device: ' <<<"$out")
		if [[ $line =~ ^Device:\ $name,\ .*\ read\ of\ 256\ MiB\ claimed\ \(([0-9]+)%\),\ busy\ [0-9]+%:\ limited\ by\ [a-zA-Z] ]] &&
			[ "${BASH_REMATCH[1]}" -ge 90 ]; then
			ok "ext4 on loop, default read: the Device line, >= 90% delivered, a limit"
		else
			bad "ext4 on loop, default read: the Device line, >= 90% delivered, a limit" "$out"
		fi
		run -r -f "$mnt/f" --json
		check "--json: the device object has the SPEC's keys" "$device_keys" "$(jq -c '.device | keys' <<<"$out")"
		check "--json: the loop device, verified, >= 90% delivered, a limit" "$name /dev/$name true true null true" \
			"$(jq -r '.device | "\(.name) \(.path) \(.verified) \(.delivered >= 0.9) \(.reason) \(.limit | IN("device","link","cpu","latency"))"' <<<"$out")"
		check "--json: device bytes and busy are numbers" true \
			"$(jq '.device | (.bytes | type) == "number" and .busy >= 0 and .busy <= 1' <<<"$out")"
		run -r -f "$mnt/f" -v
		contains "-v: the loop device names its backing file" "$out" "Device detail: /dev/$name, backing file $work/verify.img"
		run -w -f "$mnt/w" -s 256m -R --json
		check "-w -R (timed fdatasync): >= 90% written, verified" "true true" \
			"$(jq -r '"\(.device.delivered >= 0.9) \(.device.verified)"' <<<"$out")"
		"$sdb" -r -f "$mnt/f" --cached >/dev/null 2>&1
		run -r -f "$mnt/f" --cached --json
		check "--cached: not claimed as the device's" "false memory null true" \
			"$(jq -r '.device | "\(.verified) \(.limit) \(.bytes) \(.reason | test("page cache by request"))"' <<<"$out")"
		rm -f "$mnt/w"
		truncate -s 1g "$mnt/sparse"
		fallocate -l 1g "$mnt/falloc"
		for f in sparse falloc; do
			run -r -f "$mnt/$f" --json
			check "$f 1 GiB: flagged before the run (holes) and after (delivered < 90%)" "true true false" \
				"$(jq -r '"\(.warnings | any(test("100% of what this read covers is holes or unwritten"))) \(.device.delivered < 0.9) \(.device.verified)"' <<<"$out")"
			check "$f: the warning before the run comes first on stderr" "holes saw" \
				"$(grep -o 'is holes\|saw' <<<"$err" | sed 's/is holes/holes/' | head -2 | tr '\n' ' ' | sed 's/ $//')"
		done
		rm -f "$mnt/sparse" "$mnt/falloc" "$mnt/f"
		run --quick -f "$mnt" -t 0.2 -s 16m --json
		check "--quick: every run's delivered share recorded, >= 90% on ext4" true \
			"$(jq '[.suite[].runs[].delivered] | length == 24 and all(. >= 0.9)' <<<"$out")"
		check "--quick: each row's median share" true "$(jq '[.suite[].median.delivered >= 0.9] | all' <<<"$out")"
		run --quick -f "$mnt" -t 0.2 -s 16m
		check "--quick: the table's Device column" "Device 8" \
			"$(grep -o 'Device$' <<<"$out") $(grep -c '^\(SEQ1M\|RND4K\) .* [0-9]*%$' <<<"$out")"
		unmount "$mnt"
	else
		skipped "sdb checks itself on ext4" "loop device, mkfs.ext4 or mount failed"
	fi
	release_image verify.img

	# btrfs with compress-force: zeros shrink to almost nothing on the
	# device, so a zero-buffer write is caught; -R data is not.
	truncate -s 1g verify.img
	if ! command -v mkfs.btrfs >/dev/null; then
		skipped "btrfs compression caught" "no mkfs.btrfs"
	elif loop=$(losetup -f --show verify.img 2>/dev/null) && mkfs.btrfs -q -f "$loop" >/dev/null 2>&1 &&
		mount -o compress-force=zstd "$loop" "$mnt" 2>/dev/null; then
		name=${loop#/dev/}
		run -w -f "$mnt/z" -s 256m --json
		check "btrfs compress, zero buffer: caught (the device is its loop, found through the fsid)" "$name false true" \
			"$(jq -r '"\(.device.name) \(.device.verified) \(.warnings | any(test("compression or deduplication of the all-zero buffer")))"' <<<"$out")"
		run -w -f "$mnt/r" -s 256m -R --json
		check "btrfs compress, -R: >= 90% written" "true" "$(jq -r '.device.verified' <<<"$out")"
		unmount "$mnt"
	else
		skipped "btrfs compression caught" "loop device, mkfs.btrfs or mount failed"
	fi
	[ -n "$loop" ] && losetup -d "$loop"
	loop= mnt=
	rm -f verify.img
fi
fi

# ------------------------------------------------------------ hosts-local
if section hosts-local; then
host=$(hostname -s)
SLURM_PROCID=3 run -w -f "mh.%h.%r" -s 1m -b 64k --json
check "-f mh.%h.%r with SLURM_PROCID=3: the file is mh.HOST.3" 1048576 "$(size_of "mh.$host.3")"
check "-f mh.%h.%r: options.file and the thread's file are the expanded name" "mh.$host.3 mh.$host.3" \
	"$(jq -r '"\(.options.file) \(.threads[0].file)"' <<<"$out")"
rm -f "mh.$host.3"
SLURM_PROCID='' OMPI_COMM_WORLD_RANK=7 run -w -f "mh.%r" -j 2 -s 1m
check "-f mh.%r -j 2 with OMPI_COMM_WORLD_RANK=7: mh.7.0 and mh.7.1" "1048576 1048576" "$(size_of mh.7.0) $(size_of mh.7.1)"
rm -f mh.7.*
SLURM_PROCID='' OMPI_COMM_WORLD_RANK='' PMIX_RANK='' PMI_RANK='' run -w -f "mh.%r.100%%" -s 1m
check "-f mh.%r.100%%: no launcher is rank 0, %% is a %" 1048576 "$(size_of mh.0.100%)"
rm -f mh.0.100%
bad_input 2 "-f mh.%q: %q is not a pattern" -w -f "mh.%q" -s 1m
bad_input 2 "a lone % at the end" -w -f "mh.%" -s 1m
check "-f mh.%q: no file made" "missing missing" "$(size_of mh.%q) $(size_of mh.)"
bad_input 2 "--start-at soon: a time is Unix seconds" -w -f mh -s 1m --start-at soon
bad_input 2 "--start-at +90000: more than a day ahead" -w -f mh -s 1m --start-at +90000
bad_input 2 "--start-at and --quick" --quick -f . --start-at +1

# One start time, two runs, the second launched while the first waits for
# it: both start, neither before the time, neither late enough to warn.
# (How close together they start is a time, and is not checked.)
at=$(date -d '3 seconds' +%s.%N)
"$sdb" -r -f /dev/zero -s 16m --start-at "$at" --json >mh-a.json 2>/dev/null &
pid=$!
wait_for $pid has_open $pid /dev/zero	# the first is ready, waiting for the time
launched=$(date +%s.%N)
"$sdb" -r -f /dev/zero -s 16m --start-at "$at" --json >mh-b.json 2>/dev/null
wait $pid
check "--start-at: two runs both ran, the first still waiting when the second was launched" "16777216 16777216 true" \
	"$(jq -s -r --argjson launched "$launched" '"\(map(.total.bytes) | join(" ")) \(.[0].start_unix >= $launched)"' \
		mh-a.json mh-b.json 2>&1)"
check "--start-at: neither started before the time, nor warned about it" "true true" \
	"$(for f in mh-a.json mh-b.json; do
		jq --argjson at "$at" '.start_unix >= $at - 0.000001 and all(.warnings[]; startswith("--start-at") | not)' "$f"
	done | xargs)"
rm -f mh-a.json mh-b.json

t0=$(date +%s.%N)
run -w -f mh -s 1m --start-at +1 -R
check "--start-at +1: exit 0" 0 "$rc"
matches "--start-at +1: says when it started and how late" "$out" "*Started at *Unix *s after --start-at's *"
rm -f mh
run -r -f /dev/zero -s 64m -b 64k -m rand --json --start-at "$(date -d '5 seconds ago' +%s.%N)"
check "--start-at 5 s ago: exit 0, runs at once" "0 true" "$rc $(jq '.start_late >= 5 and .start_late < 60' <<<"$out")"
contains "--start-at 5 s ago: a warning" "$err" "sdb: warning: --start-at: the time was"
check "--start-at 5 s ago: the warning is in the JSON" 1 "$(jq '[.warnings[] | select(startswith("--start-at"))] | length' <<<"$out")"
check "JSON: host is hostname -s" "$host" "$(jq -r .host <<<"$out")"
check "JSON: start_unix <= end_unix, both after the run was launched" true \
	"$(jq --argjson t0 "$t0" '.start_unix <= .end_unix and .start_unix > $t0' <<<"$out")"
check "JSON: threads[0].histogram is non-empty and counts every I/O" true \
	"$(jq '.threads[0] | (.histogram | length) > 0 and ([.histogram[][2]] | add) == .ops and .ops == 1024' <<<"$out")"
check "JSON: histogram buckets are [low, high, count], ordered, with the latencies inside" true \
	"$(jq '.threads[0] | (.histogram | all(.[0] <= .[1] and .[2] > 0)) and .histogram[0][1] >= .latency_ns.min
		and .histogram[-1][0] <= .latency_ns.max' <<<"$out")"
check "JSON: every timeline entry has its Unix time, inside the run" true \
	"$(jq '. as $d | (.timeline | length) > 0 and (.timeline | all(.unix >= $d.start_unix and .unix <= $d.end_unix + 0.000002))' <<<"$out")"
run -v -r -f /dev/zero -s 1m
matches "-v: says when the run started" "$out" "*Host: *Started at *Unix *"

"$sdb" -w -f mh -s 1m --start-at +60 --json >mh.json 2>/dev/null &
pid=$!
wait_for $pid at_least mh 0	# its new file made, it waits for the time
kill -INT $pid
wait $pid; rc=$?
check "SIGINT while waiting for --start-at: exit 130, no I/O, the new file removed" "130 true 0 missing" \
	"$rc $(jq -r '"\(.interrupted) \(.total.ops)"' mh.json 2>&1) $(size_of mh)"
rm -f mh.json
fi

# ------------------------------------------------------------ plan-root-only
if section plan-root-only; then
if [ "$(id -u)" != 0 ]; then
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
		if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F "$loop" 2>/dev/null && mount "$loop" "$mnt"; then
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
	# byte for byte what they were (issue 11, cases 2 and 4).
	"$sdb" -w -f image -s 32m -R >/dev/null 2>&1
	if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F image && loop=$(losetup -f --show image) && mount "$loop" "$mnt"; then
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
	# The memory check honours the memory cgroup's limit (issue 11, case 6).
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
fi

# ------------------------------------------------------------ worker-workloads
if section worker-workloads; then
# --fsync N: an fdatasync after every N writes, each timed apart; 2300-byte
# blocks (etcd's check) without -D.  1 MiB / 2300 bytes: 456 writes.
run -w -f etcd -b 2300 -s 1m --fsync 1 --json
check "--fsync 1 -b 2300: exit 0" 0 "$rc"
check "--fsync 1: 456 writes, 1 MiB, options.fsync 1" "456 1048576 1" \
	"$(jq -r '"\(.threads[0].ops) \(.threads[0].bytes) \(.options.fsync)"' <<<"$out")"
check "--fsync 1: sync.ops = writes" 456 "$(jq '.threads[0].sync.ops' <<<"$out")"
check "--fsync 1: the sync's latencies, ordered" true \
	"$(jq '.threads[0].sync.latency_ns | .min <= .p50 and .p50 <= .p99 and .p99 <= .p999 and .p999 <= .max and .mean > 0' <<<"$out")"
run -w -f etcd -b 2300 -s 1m --fsync 4 --json
check "--fsync 4: a sync per 4 writes" 114 "$(jq '.threads[0].sync.ops' <<<"$out")"
run -w -f etcd -b 2300 -s 64k --json
check "without --fsync: sync, read and write are null" "null null null null null" \
	"$(jq -r '"\(.threads[0].sync) \(.threads[0].read) \(.threads[0].write) \(.total.read) \(.options.fsync)"' <<<"$out")"
run -w -f etcd -b 2300 -s 1m --fsync 1
matches "--fsync: a Sync: line with count, mean, p99, p99.9, max" "$out" \
	"*Sync: 456 fdatasync, mean *, p99 *, p99.9 *, max *"
run -M 50 -f etcd -b 2300 -s 1m --fsync 2 --json
check "-M --fsync 2: a sync per two of the mix's writes" "$(jq '.threads[0].write.ops / 2 | floor' <<<"$out")" \
	"$(jq '.threads[0].sync.ops' <<<"$out")"
bad_input 2 "--fsync 0: writes per fdatasync" -w -f etcd --fsync 0
bad_input 2 "--fsync 1x: writes per fdatasync" -w -f etcd --fsync 1x
bad_input 2 "--fsync and -r" -r -f etcd --fsync 1
bad_input 2 "--fsync and -q 4" -w -f etcd --fsync 1 -q 4
bad_input 2 "--fsync: needs a test" -T --fsync 1
rm -f etcd

# -M PCT: seeded reads and writes over one target, reported apart.
run -w -f mixf -s 48m -b 1m -D -R
run -M 70 -f mixf -m rand -b 4k -s 48m -D --json
check "-M 70: exit 0, op mix, mix 70" "0 mix 70" "$rc $(jq -r '"\(.options.op) \(.options.mix)"' <<<"$out")"
check "-M 70: 12288 I/Os, reads + writes" "12288 12288" \
	"$(jq -r '.threads[0] | "\(.ops) \(.read.ops + .write.ops)"' <<<"$out")"
check "-M 70: reads are 68-72% of 12288 I/Os" true \
	"$(jq '.threads[0].read.ops / .threads[0].ops | . >= 0.68 and . <= 0.72' <<<"$out")"
check "-M 70: each side's bytes are its ops x 4 KiB, and add up" true \
	"$(jq '.threads[0] | .read.bytes == .read.ops * 4096 and .write.bytes == .write.ops * 4096 and .bytes == .read.bytes + .write.bytes' <<<"$out")"
check "-M 70: the total's sides are the thread's" true \
	"$(jq '.total.read.ops == .threads[0].read.ops and .total.write.bytes == .threads[0].write.bytes and .total.read.latency_ns.p99 > 0' <<<"$out")"
check "-M 70: each side has its own histogram, of its own I/Os, in the thread and the total" true \
	"$(jq '[.threads[0], .total] | map(.read.ops == ([.read.histogram[][2]] | add) and .write.ops == ([.write.histogram[][2]] | add)) | all' <<<"$out")"
reads=$(jq '.threads[0].read.ops' <<<"$out")
run -M 70 -f mixf -m rand -b 4k -s 48m -D --json
check "-M 70: the same reads again (seeded)" "$reads" "$(jq '.threads[0].read.ops' <<<"$out")"
run -M 70 -f mixf -m rand -b 4k -s 4m -D
matches "-M: read and write lines with their latencies" "$out" \
	"*read   *%: *IOPS, latency min *, p99 *write  *%: *IOPS, latency min *"
run -M 0 -f mixf -s 4m -b 64k --json
check "-M 0: writes only" "0 64" "$(jq -r '"\(.threads[0].read.ops) \(.threads[0].write.ops)"' <<<"$out")"
run -M 100 -f mixf -s 4m -b 64k --json
check "-M 100: reads only" "64 0" "$(jq -r '"\(.threads[0].read.ops) \(.threads[0].write.ops)"' <<<"$out")"
run -M 50 -f mixn -j 2 -q 4 -s 2m -b 16k --json
check "-M -j 2 -q 4: new files laid out to SIZE, every I/O counted" "0 2097152 2097152 256" \
	"$rc $(size_of mixn.0) $(size_of mixn.1) $(jq '.total.read.ops + .total.write.ops' <<<"$out")"
run -M 50 -f mixn -j 2 -s 1m -b 16k
matches "-M -j 2: the Total has the two sides" "$out" "*Total (2 threads)*read  *write  *"
bad_input 2 "-M 101: the share of reads" -M 101 -f mixf
bad_input 2 "--mix -1: the share of reads" --mix -1 -f mixf
bad_input 2 "-M and -w or -r" -M 70 -w -f mixf
bad_input 2 "-M and -w or -r" -r -M 70 -f mixf
echo "not sdb's" >foreign
bad_input 2 "add --force" -M 50 -f foreign -s 4k
# -R with a mix: its writes (and its layout) send random bytes, as -w -R
# does; gzip, not sdb, says whether the file holds them.
run -M 0 -R -f mixr -s 4m -b 64k
check "-M -R: the file is random bytes (gzip cannot shrink it)" "0 true" \
	"$rc $([ "$(gzip -c mixr | wc -c)" -gt 4100000 ] && echo true || echo false)"
contains "-M -R: the header says random buffer" "$out" ", random buffer"
rm -f mixf mixn.* foreign mixr

# --ramp SEC: run first, count nothing of it.  Without -t the window is one
# pass, so exactly the pass's I/Os are counted however long the ramp ran.
run -w -f rampf -s 4m -b 64k -D -R
run -r -f rampf -s 4m -b 64k --ramp 0.3 --json
check "--ramp without -t: one pass counted, options.ramp" "0 64 4194304 0.3" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes) \(.options.ramp)"' <<<"$out")"
run -r -f rampf -s 1m -b 4k -m rand --ramp 0.2 --json
check "--ramp -m rand: one pass, every block once" 256 "$(jq '.threads[0].ops' <<<"$out")"
run -w -f rampf -s 4m -b 64k -D -R --ramp 0.3 -t 0.5 --json
check "--ramp -t: bytes are the window's I/Os" true "$(jq '.total.bytes == .total.ops * 65536 and .threads[0].ops > 0' <<<"$out")"
check "--ramp -t: the timeline starts after the ramp" true "$(jq '.timeline[0].t > 0 and .timeline[0].t <= .total.seconds + 0.2' <<<"$out")"
run -M 50 -f rampf -s 4m -b 64k -q 4 --ramp 0.2 -t 0.3 --json
check "--ramp -M -q 4: sides add up" true "$(jq '.total.ops == .total.read.ops + .total.write.ops and .total.ops > 0' <<<"$out")"
run -w -f rampf -s 4m -b 64k -D --ramp 0.2 -t 0.3
contains "--ramp: the header says it" "$out" "0.2 s ramp first (not counted)"
bad_input 2 "--ramp -1: ramp must be" -w -f rampf --ramp -1
bad_input 2 "--ramp 0: ramp must be" -w -f rampf --ramp 0
bad_input 2 "--ramp x: ramp must be" -w -f rampf --ramp x
bad_input 2 "--quick and --ramp" --quick -f . --ramp 1
rm -f rampf

# --explain in fio's words; the quick suite's mix row.
run -M 70 -f f -m rand -b 4k -D -t 5 --ramp 2 --explain
contains "--explain -M 70: randrw, rwmixread" "$out" "--rw=randrw --rwmixread=70"
contains "--explain --ramp 2: ramp_time" "$out" "--ramp_time=2"
run -w -f f -b 2300 -s 22m --fsync 1 --explain
contains "--explain --fsync 1: fdatasync=1" "$out" "--bs=2300 --size=22m"
contains "--explain --fsync 1: fdatasync=1" "$out" "--fdatasync=1"
run -M 30 -f f -s 1m --explain
contains "--explain -M seq: rw" "$out" "--rw=rw --rwmixread=30"
mkdir -p qm
run --quick=mix --explain -f qm -s 64m
contains "--quick=mix --explain: the mix row in fio's words" "$out" "--name=RND4K-Q1T1-mix-70/30 --filename="
contains "--quick=mix --explain: randrw 70" "$out" "--rw=randrw --rwmixread=70"
run --quick=mix -f qm -t 0.2 -s 16m --runs 1 --json
check "--quick=mix: 9 rows, the last a mix" "0 9 RND4K Q1T1 mix 70/30 mix" \
	"$rc $(jq -r '"\(.suite | length) \(.suite[-1].name) \(.suite[-1].op)"' <<<"$out")"
rm -rf qm f

# Against the kernel's own counters of a loop device (/sys/block/X/stat:
# 3rd field sectors read, 7th sectors written, 16th flushes completed):
# what a mix claims for each side, and --fsync's flushes.
if [ "$(id -u)" != 0 ]; then
	skipped "-M and --fsync against the device's counters" "needs root (a loop device)"
else
	truncate -s 32m workloads-loop.img
	if loop=$(losetup -f --show workloads-loop.img 2>/dev/null); then
		ldev=${loop#/dev/}
		"$sdb" -w -f "$loop" --force -s 32m -D -R >/dev/null 2>&1
		read -ra before <"/sys/block/$ldev/stat"
		run -M 50 -f "$loop" --force -m rand -b 4k -D -s 16m --json
		read -ra after <"/sys/block/$ldev/stat"
		check "-M 50 -D on a loop device: exit 0" 0 "$rc"
		check "-M 50 -D: the device read what sdb claims for reads (to 1 MiB: a udev probe may add some)" true \
			"$(jq --argjson dev $(((after[2] - before[2]) * 512)) '$dev >= .total.read.bytes and $dev <= .total.read.bytes + 1048576' <<<"$out")"
		check "-M 50 -D: the device wrote what sdb claims for writes" "$(jq .total.write.bytes <<<"$out")" \
			"$(((after[6] - before[6]) * 512))"
		if [ "${#after[@]}" -ge 16 ]; then
			read -ra before <"/sys/block/$ldev/stat"
			run -w -f "$loop" --force -b 4k -s 1m --fsync 1 --json
			read -ra after <"/sys/block/$ldev/stat"
			check "--fsync 1: the device completed a flush for every sync sdb counts" true \
				"$(jq --argjson flushes $((after[15] - before[15])) '.threads[0].sync.ops == 256 and $flushes >= 256' <<<"$out")"
		else
			skipped "--fsync against the device's flush count" "this kernel's stat has no flush fields"
		fi
		release_image workloads-loop.img
	else
		skipped "-M and --fsync against the device's counters" "no loop device"
		rm -f workloads-loop.img
	fi
fi
fi

# ------------------------------------------------------------ verify
if section verify; then
# --verify (issue 16, item 4): every 4 KiB unit written is checkable; a
# write is read back after the run, a read checks as it reads; bad units
# are named by offset and kind, counted, and make the exit status 1.
run -w -f vf -s 8m -b 64k --verify --json
check "-w --verify on a file: exit 0, all 2048 units read back clean" "0 2048 0 true null" \
	"$rc $(jq -r '"\(.verify.units) \(.verify.bad) \(.verify.read_back) \(.verify.first_bad)"' <<<"$out")"
check "-w --verify: the read-back has its own rate" true "$(jq '.verify.bytes_per_second > 0 and .verify.seconds > 0' <<<"$out")"
check "-w --verify: -R implied, no urandom fill needed" "true true" "$(jq -r '"\(.options.verify) \(.options.random_buffer)"' <<<"$out")"
check "-w --verify: the data does not compress" true "$(echo "$(gzip -1 -c vf | wc -c) > 0.98 * 8388608" | bc -l | sed 's/1/true/;s/0/false/')"
run -r -f vf --verify
check "-r --verify: exit 0" 0 "$rc"
contains "-r --verify: the header says the check is timed" "$out" "each 4 KiB checked as read (timed)"
contains "-r --verify: the Verify line" "$out" "Verify: 2048 units of 4 KiB checked as read: all as written"
run -w -f vf -s 8m --verify
contains "-w --verify: the header says the pattern is made per I/O, timed" "$out" "--verify pattern made per I/O (timed)"
matches "-w --verify: the Verify line gives the read-back's rate" "$out" "*Verify: 2048 units of 4 KiB read back in * s (*iB/s, untimed): all as written*"
# the byte is inverted, not overwritten with a constant: the pattern holds
# any given value at a given place once in 256 runs
byte=$(dd if=vf bs=1 skip=$((3 * 1048576 + 5000)) count=1 status=none | od -An -tu1 | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 255)))" | dd of=vf bs=1 seek=$((3 * 1048576 + 5000)) conv=notrunc status=none
run -r -f vf --verify -m rand -b 16k -q 4 --json
check "a flipped byte: exit 1, corrupt, at its unit, counted once" "1 corrupt $((3 * 1048576 + 4096)) null 1" \
	"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.bad)"' <<<"$out")"
check "a flipped byte: the report carries the error" true "$(jq '.error | test("^--verify: 1 of 2048 units")' <<<"$out")"
matches "a flipped byte: one sdb: line names the offset and the kind" "$err" "sdb: --verify: 1 of 2048 units of 4 KiB bad; the first at offset 3149824 of vf: corrupt"
rm -f vf
run -w -f vj -j 2 -s 4m -m rand -b 8k -q 4 --verify --json
check "-j 2 -q 4 random: each thread's file read back clean" "0 2048 0" "$rc $(jq -r '"\(.verify.units) \(.verify.bad)"' <<<"$out")"
run -w -f vt -s 1m -b 64k -t 0.3 --verify --json
check "-t: passes rewrite the units, the last state checks clean" "0 true 256 0" \
	"$rc $(jq -r '"\(.threads[0].passes > 1) \(.verify.units) \(.verify.bad)"' <<<"$out")"
rm -f vj.* vt
# Interrupted while checking as it reads: the units so far are good, and
# the report says the rest went unchecked rather than "all as written".
"$sdb" -w -f vi -s 16m --verify >/dev/null 2>&1
"$sdb" -r -f vi --verify -b 4k -t 60 --json >vi.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((4 << 20))	# checking as it reads
kill -INT $pid
wait $pid; rc=$?
check "-r --verify interrupted: exit 130, verify.complete false, none bad" "130 false 0" \
	"$rc $(jq -r '"\(.verify.complete) \(.verify.bad)"' vi.json)"
"$sdb" -r -f vi --verify -b 4k -t 60 >vi.out 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((4 << 20))
kill -INT $pid
wait $pid
contains "-r --verify interrupted: says the rest is unchecked" "$(cat vi.out)" "none bad before the interruption, the rest unchecked"
rm -f vi vi.json vi.out
bad_input 2 "--verify and --cached" -w -f vc --verify --cached
bad_input 2 "--verify and -M: a mix reads what it may be rewriting" -M 50 -f vc --verify
bad_input 2 "--verify and --ramp" -w -f vc --verify --ramp 1
bad_input 2 "--verify needs -b a multiple of 4k" -w -f vc --verify -b 2k
bad_input 2 "/dev/null is a character device: what is written there cannot be read back" -w -f /dev/null --verify -s 1m
check "usage errors create nothing" missing "$(size_of vc)"
run -w -f ve -s 1m --verify --explain
contains "--explain: fio's own verify" "$out" "--verify=crc32c"
if [ "$(id -u)" != 0 ]; then
	skipped "--verify on a loop device" "needs root"
else
	truncate -s 64m verify-loop.img
	if loop=$(losetup -f --show verify-loop.img 2>/dev/null); then
		run -w -f "$loop" --force -s 64m --verify --json
		check "loop device, -w --verify: exit 0, 16384 units, none bad" "0 16384 0" \
			"$rc $(jq -r '"\(.verify.units) \(.verify.bad)"' <<<"$out")"
		# (a) a lost write: 64 KiB of zeros at 1 MiB
		dd if=/dev/zero of="$loop" bs=64k seek=16 count=1 conv=notrunc,fsync status=none
		run -r -f "$loop" --verify --json
		check "zeros: exit 1, kind zeros at 1 MiB, 16 units" "1 zeros 1048576 null 16" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.kinds.zeros)"' <<<"$out")"
		contains "zeros: named on stderr" "$err" "the first at offset 1048576 of $loop: zeros (a lost write)"
		# (b) wrap-around: 32 KiB of 32 MiB's units copied to 4 MiB (as a fake-capacity device returns them)
		"$sdb" -w -f "$loop" --force -s 64m --verify >/dev/null 2>&1
		dd if="$loop" of="$loop" bs=4k skip=8192 seek=1024 count=8 conv=notrunc,fsync status=none
		run -r -f "$loop" --verify -j 2 --json
		check "misplaced: exit 1, at 4 MiB, found 32 MiB's data, 8 units" "1 misplaced 4194304 33554432 8" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.bad)"' <<<"$out")"
		run -r -f "$loop" --verify -j 2
		matches "misplaced: the Verify line" "$out" "*Verify: 16384 units of 4 KiB checked as read: 8 bad (8 misplaced), the first at offset 4194304 of $loop: misplaced (the data written for offset 33554432*"
		# (c) one flipped byte
		"$sdb" -w -f "$loop" --force -s 64m --verify -q 8 -m rand -b 16k >/dev/null 2>&1
		at=$((50 * 1048576 + 12345))
		byte=$(dd if="$loop" bs=1 skip=$at count=1 status=none | od -An -tu1 | tr -d ' ')
		printf "\\x$(printf %02x $((byte ^ 1)))" | dd of="$loop" bs=1 seek=$at conv=notrunc,fsync status=none
		run -r -f "$loop" --verify -D --json
		check "flipped byte: exit 1, corrupt, its unit's offset, 1 bad" "1 corrupt $((at / 4096 * 4096)) 1" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.bad)"' <<<"$out")"
		release_image verify-loop.img
	else
		skipped "--verify on a loop device" "no loop device"
		rm -f verify-loop.img
	fi
fi
fi

# ------------------------------------------------------------ merge
# jq's copy of Histogram::percentile over [[low, high, count], ...]: the
# bucket midpoint, clamped to the lowest and highest bounds; the top rank
# is the highest bound.  And the union of several histograms.
jq_hist='def union: [.[][]] | group_by(.[0]) | map([.[0][0], .[0][1], (map(.[2]) | add)]);
def pct($q): (map(.[2]) | add) as $n | sort_by(.[0]) as $s | ($q * $n | ceil) as $r0
	| if $r0 >= $n then $s[-1][1] else ([$r0, 1] | max) as $r
	| first(foreach $s[] as $b (0; . + $b[2]; if . >= $r then $b[0] + (($b[1] - $b[0] + 1) / 2 | floor) else empty end))
	| [[., $s[0][0]] | max, $s[-1][1]] | min end;
def pcts: {p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), p999: pct(0.999)};'
if section merge; then
run -w -f mt -j 3 -m rand -b 4k -s 4m -t 1 --json
check "merge: the -j 3 run" 0 "$rc"
printf '%s\n' "$out" >j3.json
# Each thread of the -j 3 run as a document of its own, all started at the
# run's start (an sdb without histograms yet: one made up per thread).
for i in 0 1 2; do
	jq --argjson i "$i" '(.start_unix // 1000) as $s | .threads[$i] as $t
		| .host = "host\($i)" | .start_unix = $s | .end_unix = $s + $t.seconds
		| .threads = [$t | .histogram //= [[$i + 1, $i + 1, 5], [256, 257, $i + 2]]]
		| .total = {bytes: $t.bytes, ops: $t.ops, seconds: $t.seconds, bytes_per_second: $t.bytes_per_second,
			    iops: $t.iops}
		| .options.threads = 1 | .timeline = []' j3.json >"m$i.json"
done
run --merge m0.json m1.json m2.json --json
check "merge: three documents, exit 0" 0 "$rc"
check "merge: total bytes and ops of the -j 3 run" "$(jq -c '[.total.bytes, .total.ops]' j3.json)" \
	"$(jq -c '[.total.bytes, .total.ops]' <<<"$out")"
check "merge: 3 hosts, 3 threads" "3 3" "$(jq -r '"\(.total.hosts) \(.total.threads)"' <<<"$out")"
check "merge: the rate of the -j 3 run (within 5%)" true \
	"$(jq --slurpfile j j3.json '(.total.bytes_per_second / $j[0].total.bytes_per_second - 1 | fabs) < 0.05' <<<"$out")"
check "merge: seconds are the union of the windows" true \
	"$(jq --slurpfile j j3.json '(.total.seconds - ([$j[0].threads[].seconds] | max) | fabs) < 0.000002' <<<"$out")"
check "merge: percentiles from the union of the histograms" \
	"$(jq -c "$jq_hist [inputs.threads[0].histogram] | union | pcts" -n m0.json m1.json m2.json)" \
	"$(jq -c '.total.latency_ns | {p50, p90, p99, p999}' <<<"$out")"
check "merge: the merged histogram is the union" \
	"$(jq -c "$jq_hist [inputs.threads[0].histogram] | union" -n m0.json m1.json m2.json)" "$(jq -c .total.histogram <<<"$out")"
check "merge: each input's host, total and window" "host0 host1 host2" "$(jq -r '[.hosts[].host] | join(" ")' <<<"$out")"
check "merge: windows" true "$(jq '[.hosts[] | .end_unix > .start_unix and .total.bytes > 0] | all' <<<"$out")"
run --merge m0.json m1.json m2.json
matches "merge: a line per document" "$out" '*Host host0 (m0.json): 1 thread, * seconds -> *, * IOPS, p99 *Host host2 (m2.json)*'
matches "merge: the Total line" "$out" '*Total (3 results, 3 threads): * seconds -> *, * IOPS in * loops, *'
contains "merge: merged latency" "$out" "Latency (merged histograms"
"$sdb" --merge m0.json - m2.json --json <m1.json >merged.json 2>/dev/null
check "merge: - reads standard input" "m0.json standard input m2.json" "$(jq -r '[.hosts[].source] | join(" ")' merged.json)"
cat m0.json m1.json | "$sdb" --merge - m2.json --json >both.json 2>/dev/null
check "merge: documents one after another (srun's output)" "standard input#1 standard input#2 m2.json" \
	"$(jq -r '[.hosts[].source] | join(" ")' both.json)"
check "merge: the same total either way" "$(jq .total.bytes merged.json)" "$(jq .total.bytes both.json)"
check "merge: a merged document merges again" "$(jq .total.bytes merged.json)" \
	"$("$sdb" --merge merged.json --json 2>/dev/null | jq .total.bytes)"
# What is flagged: differing options, starts apart, interrupted, warned.
jq '.options.block_size = 8192 | .options.direct = true' m1.json >odd.json
jq '.start_unix += 0.5 | .end_unix += 0.5 | .interrupted = true | .warnings = ["something odd"]' m2.json >late.json
run --merge m0.json odd.json late.json --json
check "merge: flagged inputs still merge, exit 0" 0 "$rc"
contains "merge: options differ, named" "$err" "sdb: warning: options differ: block_size is 4096, 8192, 4096"
contains "merge: options differ, each" "$err" "options differ: direct is false, true, false"
contains "merge: starts apart" "$err" "starts 0.5"
contains "merge: interrupted" "$err" "late.json: interrupted"
contains "merge: warned" "$err" "late.json warned: something odd"
check "merge: warnings in the JSON too" true "$(jq '[.warnings[] | select(startswith("options differ"))] | length == 2' <<<"$out")"
# A document that failed after it started: merged, named, and exit 1.
jq '.error = "--verify: 1 of 2048 units of 4 KiB bad"' m2.json >failed.json
run --merge m0.json m1.json failed.json --json
check "merge: a failed run still merges, and makes the exit status 1" "1 3" "$rc $(jq '.hosts | length' <<<"$out")"
contains "merge: the failed run named" "$err" "failed.json: failed after it started: --verify: 1 of 2048"
# Bad and foreign JSON: one line naming the file, exit 1.
printf '{"version": "0.1.0", "total": {"bytes": 1,}\n' >bad.json
echo '{"name": "not sdb"}' >foreign.json
bad_input 1 "bad.json: not valid JSON (byte 42: expected a string" --merge bad.json
bad_input 1 'foreign.json: not an sdb result (no "version")' --merge foreign.json
bad_input 1 "missing.json: No such file or directory" --merge missing.json
: >empty.json
bad_input 1 "empty.json: empty: no sdb result in it" --merge empty.json
run --merge m0.json bad.json m2.json
check "merge: one bad input: exit 1" 1 "$rc"
contains "merge: the bad one named" "$err" "sdb: bad.json: not valid JSON"
contains "merge: the others still merged" "$out" "Total (2 results, 2 threads)"
bad_input 2 "--merge: needs FILE" --merge
bad_input 2 "--merge and --write" --merge m0.json -w
bad_input 2 "--merge and --hosts" --merge m0.json --hosts h
rm -f mt.* j3.json m?.json merged.json both.json empty.json odd.json late.json failed.json bad.json foreign.json
fi

# ------------------------------------------------------------ hosts-ssh
# --hosts end to end over a throwaway sshd on 127.0.0.1 (root: it logs in
# as root with a key made here); the remote sdb is this one (SDB_REMOTE).
if section hosts-ssh; then
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null; then
	skipped "many hosts over ssh" "needs root, sshd and ssh-keygen (openssh-server)"
elif ! "$sdb" --help | grep -q -- --start-at; then
	skipped "many hosts over ssh" "this sdb has no --start-at yet"
else
	ssh_dir=$work/ssh
	mkdir -p "$ssh_dir" /run/sshd && chmod 700 "$ssh_dir"
	ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$ssh_dir/key"
	cp "$ssh_dir/key.pub" "$ssh_dir/authorized_keys"
	port=
	for p in $(seq 2222 2299); do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
	done
	cat >"$ssh_dir/sshd_config" <<-CONF
		Port $port
		ListenAddress 127.0.0.1
		HostKey $ssh_dir/host_key
		AuthorizedKeysFile $ssh_dir/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		PidFile $ssh_dir/sshd.pid
	CONF
	/usr/sbin/sshd -f "$ssh_dir/sshd_config" -E "$ssh_dir/sshd.log"
	for try in $(seq 50); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.1
	done
	stop_sshd() { [ -f "$ssh_dir/sshd.pid" ] && kill "$(cat "$ssh_dir/sshd.pid")" 2>/dev/null; }
	trap 'stop_sshd; cleanup' EXIT
	export SDB_SSH="ssh -p $port -i $ssh_dir/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	export SDB_REMOTE=$sdb
	mkdir -p h1 h2
	t0=$(date +%s.%N)
	run --hosts "localhost:$work/h1/t,127.0.0.1:$work/h2/t" -w -s 64m -D --json
	check "--hosts: exit 0" 0 "$rc"
	check "--hosts: both hosts' files written" "67108864 67108864" "$(size_of h1/t) $(size_of h2/t)"
	check "--hosts: merged total" "2 134217728" "$(jq -r '"\(.total.hosts) \(.total.bytes)"' <<<"$out")"
	check "--hosts: each host named" "localhost:$work/h1/t 127.0.0.1:$work/h2/t" \
		"$(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
	# The common --start-at is 3 s after the launch (sdb.1), given to the ms.
	check "--hosts: every host waited for the common start" true \
		"$(jq --argjson t0 "$t0" '[.hosts[].start_unix] | length == 2 and min >= $t0 + 2.999' <<<"$out")"
	check "--hosts: merged percentiles from the union of the histograms" \
		"$(jq -c "$jq_hist [.hosts[].histogram] | union | pcts" <<<"$out")" \
		"$(jq -c '.total.latency_ns | {p50, p90, p99, p999}' <<<"$out")"
	run --hosts "localhost:$work/h1/t,127.0.0.1:$work/h2/t" -r -s 64m -D
	check "--hosts: read back, exit 0" 0 "$rc"
	matches "--hosts: a line per host and a Total" "$out" "*Host localhost:$work/h1/t: 1 thread*Total (2 hosts, 2 threads)*"
	# 127.0.0.2 is loopback too, but nothing listens there.
	run --hosts "127.0.0.2:$work/h3/t,127.0.0.1:$work/h2/t" -r -s 64m -D --json
	check "--hosts: an unreachable host: exit 1" 1 "$rc"
	contains "--hosts: the unreachable host named" "$err" "sdb: 127.0.0.2:$work/h3/t: ssh: connect to host 127.0.0.2"
	check "--hosts: the other host's result still prints" "1 67108864" "$(jq -r '"\(.total.hosts) \(.total.bytes)"' <<<"$out")"
	SDB_REMOTE=/nonexistent/sdb run --hosts "127.0.0.1:$work/h2/t" -r -s 64m
	check "--hosts: no sdb there: exit 1" 1 "$rc"
	contains "--hosts: no sdb there, said so" "$err" "exit 127"
	run --hosts "127.0.0.1:$work/nowhere/t" -r -s 64m
	contains "--hosts: the remote sdb's own error" "$err" "sdb: 127.0.0.1:$work/nowhere/t: $work/nowhere/t: No such file or directory"
	# Ctrl-C: every remote run stopped, exit 130.
	"$sdb" --hosts "localhost:$work/h1/s,127.0.0.1:$work/h2/s" -w -s 8m -t 60 >/dev/null 2>"$work/.err" &
	pid=$!
	both_writing() { at_least h1/s $((8 << 20)) && at_least h2/s $((8 << 20)); }
	wait_for "$pid" both_writing	# both remote runs in their timed loops
	kill -INT "$pid"
	wait "$pid"; rc=$?
	check "--hosts: Ctrl-C: exit 130" 130 "$rc"
	contains "--hosts: Ctrl-C: the hosts named" "$(cat "$work/.err")" "localhost:$work/h1/s: interrupted"
	for try in $(seq 50); do pgrep -f -- "--file=$work/h./s" >/dev/null || break; sleep 0.1; done
	check "--hosts: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "--file=$work/h./s")"
	unset SDB_SSH SDB_REMOTE
	stop_sshd
	trap cleanup EXIT
	rm -rf h1 h2 "$ssh_dir"
fi
fi

# ------------------------------------------------------------ merge-interactions
# The features of issues 16 and 17 together (--ramp, -M, --fsync, --verify,
# --start-at, --merge, --hosts).
if section merge-interactions; then
# Ctrl-C in a long --ramp: nothing counted, and the empty window is dated
# when the run stopped, not at the end of a ramp that never came.
"$sdb" -w -f rampint -s 8m --ramp 60 -t 1 --json >rampint.json 2>/dev/null &
pid=$!
wait_for $pid at_least rampint $((1 << 20))	# the ramp's first write landed
kill -INT $pid
wait $pid; rc=$?
now=$(date +%s.%N)
check "SIGINT in --ramp: exit 130, interrupted, nothing counted" "130 true 0" \
	"$rc $(jq -r '"\(.interrupted) \(.total.bytes)"' rampint.json 2>&1)"
check "SIGINT in --ramp: start_unix and end_unix not after the run ended" true \
	"$(jq --argjson now "$now" '.start_unix <= $now and .end_unix <= $now' rampint.json 2>&1)"
rm -f rampint rampint.json
# -v with --ramp and --start-at: the start shown is the ramp's end, and the
# lateness is the barrier's (the ramp began then), not a second late.
run -v -w -f rampv -s 8m --ramp 0.2 -t 0.2 --start-at +0.3
matches "-v --ramp --start-at: the window opens at the ramp's end, which began at --start-at" "$out" \
	"*Started at *, the end of the 0.2 s ramp begun * after --start-at's *"
rm -f rampv
# --merge of -M, --fsync and --ramp runs: the header says what they ran.
run -M 70 -f mixm -s 1m -b 4k --fsync 2 --ramp 0.1 -t 0.2 --json
printf '%s\n' "$out" >mixm.json
jq '.host = "other"' mixm.json >mixm2.json	# the same document twice is an error now (issue 22)
run --merge mixm.json mixm2.json
matches "--merge of -M runs: the header has the mix, --fsync and --ramp" "$out" \
	"sdb *: 2 results merged: mix 70% read seq, 4 KiB blocks, *, fdatasync every 2 writes, 0.1 s ramp first (not counted)*"
matches "--merge of -M runs: the Total's reads and writes apart" "$out" "*Total (2 results*read  *%: *IOPS*write  *%: *IOPS*"
run --merge mixm.json mixm2.json --json
check "--merge --json of -M runs: total.read and total.write add up" \
	"$(jq '[.total.read.ops * 2, .total.write.ops * 2, .total.read.bytes * 2] | join(" ")' mixm.json)" \
	"$(jq '[.total.read.ops, .total.write.ops, .total.read.bytes] | join(" ")' <<<"$out")"
check "--merge --json of -M runs: reads and writes make the total" true \
	"$(jq '.total.read.ops + .total.write.ops == .total.ops and .total.read.bytes + .total.write.bytes == .total.bytes' <<<"$out")"
check "--merge --json of -M runs: each side's percentiles are the input's (the same histogram twice)" \
	"$(jq -c '[.total.read.latency_ns.p99, .total.write.latency_ns.p99, .total.write.latency_ns.p50]' mixm.json)" \
	"$(jq -c '[.total.read.latency_ns.p99, .total.write.latency_ns.p99, .total.write.latency_ns.p50]' <<<"$out")"
run --merge mixm.json mixm2.json
matches "--merge of -M runs: each side's line has its latency" "$out" "*Total (2 results*read  *%: *IOPS, latency min *p99 *write  *%: *IOPS, latency min *p99 *"
jq 'del(.total.read.histogram)' mixm2.json >mixm3.json
run --merge mixm.json mixm3.json --json
check "--merge of -M runs, one without the sides' histograms: null, and a warning names it" "null 1" \
	"$(jq -r '"\(.total.read.latency_ns) \(.warnings | map(select(test("^mixm3.json: no histograms of its reads and writes apart"))) | length)"' <<<"$out")"
rm -f mixm mixm.json mixm2.json mixm3.json
# --hosts (here a stand-in for ssh, not named ssh, that logs the remote command and runs it
# here): -f's %h and %r go to each host as given, for it to expand, and
# the new options reach it.
mkdir -p hostsx
printf '#!/bin/sh\nshift\nprintf "%%s\\n" "$*" >>"%s/hostsx/ssh.log"\nexec sh -c "$*"\n' "$work" >hostsx/fakessh
chmod +x hostsx/fakessh
SDB_SSH=$work/hostsx/fakessh SDB_REMOTE=$sdb run --hosts localhost -M 70 -s 1m -b 4k --fsync 1 --ramp 0.1 -t 0.2 \
	-f "$work/hostsx/t.%h.%r" --json
check "--hosts -M --fsync --ramp: exit 0, one host merged" "0 1" "$rc $(jq '.total.hosts' <<<"$out")"
remote=$(eval "set -- $(cat hostsx/ssh.log)"; printf '%s' "$3")	# the sdb command inside "sh -c '...'"
contains "--hosts: -f's pattern goes to the host unexpanded" "$remote" "'--file=$work/hostsx/t.%h.%r'"
contains "--hosts: -M, --fsync and --ramp go to the host" "$remote" "'--mix=70' '--size=1m' '--block-size=4k' '--fsync=1' '--ramp=0.1' '--time=0.2'"
rm -rf hostsx
# --merge of a damaged document: sizes past 64 bits are an error naming
# the file and the field (issue 22: they were read as a silent 0), never
# converted out of range (undefined behaviour; 8 EiB on x86).
run -w -f dmg -s 64k -b 16k --json
jq '.total.bytes = 1e300 | .options.block_size = 1e300' <<<"$out" >dmg.json
run --merge dmg.json --json
check "--merge: a total of 1e300 bytes is an error naming the field, and the JSON still one document" "1 0 0" \
	"$rc $(jq '.total.bytes, .total.hosts' <<<"$out" | xargs)"
contains "--merge: 1e300 bytes: the field named" "$err" "sdb: dmg.json: options.block_size: 1.0000000000000001e+300 is not a count"
rm -f dmg dmg.json
fi

# ------------------------------------------------------------ probe
# --probe against fake flash made for real: tests/fakeflash.py, a FUSE
# file that claims 256 MiB and keeps less (wrapping around, or losing
# writes), as a file and, behind a loop device, as a block device.  The
# data it overwrote is checked with md5sum, not with sdb's word.
if section probe; then
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
dd if=/dev/urandom of=genuine bs=1M count=256 status=none
before=$(md5sum <genuine)
bad_input 2 "add --force" --probe -f genuine
run --probe -f genuine --force --json
check "--probe a genuine file: exit 0, ok, all of it real" "0 ok 268435456 268435456" \
	"$rc $(jq -r '"\(.probe.kind) \(.probe.claimed_bytes) \(.probe.real_bytes)"' <<<"$out")"
check "--probe a genuine file: at most 0.1% written, and restored" "true true" \
	"$(jq -r '"\(.probe.bytes_written <= 268435) \(.probe.restored)"' <<<"$out")"
check "--probe a genuine file: its data unchanged (md5sum)" "$before" "$(md5sum <genuine)"
run --probe -f genuine --force
contains "--probe: the human report" "$out" "Capacity: all 256 MiB keep their data"
rm -f genuine
bad_input 2 "--probe and --threads" --probe -f x -j 2
bad_input 2 "--destructive: only meaningful with --probe" -w -f x --destructive
bad_input 2 "--probe needs -f" --probe
bad_input 2 "block device" --probe -f "$(df --output=source / | tail -n 1)"
if [ "$(id -u)" != 0 ] || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "--probe on fake flash" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	# fake MODE REAL: mount the fake drive (256 MiB claimed), wait for it.
	fake() {
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((256 << 20)) "$2" "$1" 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && return 0; sleep 0.05; done
		return 1
	}
	unfake() { unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null; }
	fake wrap $((32 << 20))
	dd if=/dev/urandom of=ffmnt/disk bs=1M count=32 conv=notrunc status=none
	before=$(dd if=ffmnt/disk bs=1M count=32 status=none | md5sum)
	run --probe -f ffmnt/disk --force --json
	check "--probe, a drive that wraps at 32 MiB: exit 1, misplaced, real 32 MiB, period 32 MiB" \
		"1 misplaced 33554432 33554432 0" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.period) \(.probe.resolution_bytes)"' <<<"$out")"
	check "--probe, wrapping: what it held is back (md5sum of the real 32 MiB)" "$before" \
		"$(dd if=ffmnt/disk bs=1M count=32 status=none | md5sum)"
	run --probe -f ffmnt/disk --force
	contains "--probe, wrapping: FAKE said in words" "$out" "FAKE: 32 MiB of the 256 MiB claimed keep their data"
	loop=$(losetup -f --show ffmnt/disk)
	run --probe -f "$loop" --force --json
	check "--probe, the wrapping drive as a block device (loop): real 32 MiB" "1 misplaced 33554432" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes)"' <<<"$out")"
	losetup -d "$loop"; loop=
	unfake
	fake zeros $((100 << 20))
	run --probe -f ffmnt/disk --force --json
	check "--probe, a drive that loses writes past 100 MiB: zeros, real 100 MiB to the unit" "1 zeros 104857600 0" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.resolution_bytes)"' <<<"$out")"
	run --probe -f ffmnt/disk --force --destructive --json
	check "--probe --destructive: nothing restored, the same finding" "1 zeros 104857600 false" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.restored)"' <<<"$out")"
	unfake
	fake good 0
	run --probe -f ffmnt/disk --force --json
	check "--probe, a genuine drive: exit 0, ok" "0 ok" "$rc $(jq -r '.probe.kind' <<<"$out")"
	unfake
	rmdir ffmnt
fi
fi

# ------------------------------------------------------------ cliff
# A sequential write's cliff: tests/fakeflash.py in cliff mode writes the
# first 64 MiB at 80 MiB/s and the rest at 16 MiB/s, as a drive whose
# write cache filled; sdb must place the fall within 5% of 64 MiB.
if section cliff; then
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
run -w -f flat -s 256m -b 1m --json
check "a steady write has no cliff (null)" "0 null" "$rc $(jq -c '.cliff' <<<"$out")"
rm -f flat
if [ "$(id -u)" != 0 ] || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "the cliff of a drive whose cache fills" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	for form in json human; do
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((256 << 20)) $((64 << 20)) cliff 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && break; sleep 0.05; done
		if [ $form = json ]; then
			run -w -f ffmnt/disk -s 96m -b 1m -R --force --json
			check "a write cache of 64 MiB: the cliff's offset within 5% of 64 MiB, the rate after below" "0 true true" \
				"$rc $(jq '.cliff.offset > 0.95 * 67108864 and .cliff.offset < 1.05 * 67108864' <<<"$out") $(jq '.cliff.after_bytes_per_second < 0.5 * .cliff.before_bytes_per_second' <<<"$out")"
		else
			run -w -f ffmnt/disk -s 96m -b 1m -R --force
			matches "the cliff in words: a write cache of about 6x MiB" "$out" "*Write cache: the rate fell after *: a write cache of about 6[1-7] MiB*"
		fi
		unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null
	done
	rmdir ffmnt
fi
fi

# ------------------------------------------------------------ compare
# --compare OLD NEW: a real difference (a loop device read with and
# without a 40 MiB/s blkio throttle) is significant; two throttled runs of
# one configuration are not; a quick suite compares test by test.
if section compare; then
run -w -f cmp -s 64m -R
run -r -f cmp -s 64m -b 1m --json; echo "$out" >cmp-a.json
run -r -f cmp -s 64m -b 4k --json; echo "$out" >cmp-b.json
run --compare cmp-a.json cmp-b.json
check "--compare: exit 0, a line per figure" "0 3" "$rc $(grep -c '^  \(rate\|IOPS\|p99\) ' <<<"$out")"
contains "--compare: different options are a warning" "$err" "sdb: warning: the options differ"
contains "--compare: two runs compare their Totals, named both ways" "$out" "read seq 1 MiB Q1T1 -> read seq 4 KiB Q1T1"
run -r -f cmp -s 64m -b 1m -t 2 --json; echo "$out" >cmp-a.json
run --compare cmp-a.json cmp-a.json --json
check "--compare --json: the same document, no change, intervals" "0 0 true" \
	"$rc $(jq '.compare[0].change' <<<"$out") $(jq '.compare[0].low <= 0 and .compare[0].high >= 0 and .compare[0].significant == false' <<<"$out")"
bad_input 2 "--compare: needs OLD NEW" --compare cmp-a.json
bad_input 2 "--compare and --block-size" --compare cmp-a.json cmp-b.json -b 4k
echo '{"version": "0.1.0"}' >cmp-c.json
bad_input 1 "cmp-c.json: not an sdb run, quick suite or merge" --compare cmp-a.json cmp-c.json
echo 'not json' >cmp-d.json
bad_input 1 "cmp-d.json: not valid JSON" --compare cmp-d.json cmp-a.json
rm -f cmp cmp-?.json
if [ "$(id -u)" != 0 ] || [ ! -w /sys/fs/cgroup/blkio ]; then
	skipped "--compare of a throttled and a free device" "needs root and cgroup v1 blkio"
else
	truncate -s 256m cmp.img
	loop=$(losetup -f --show --direct-io=on cmp.img)
	"$sdb" -w -f "$loop" -s 256m -D -R --force >/dev/null 2>&1
	cg=/sys/fs/cgroup/blkio/sdb-cli-compare-$$
	mkdir "$cg"
	echo "$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ') $((40 << 20))" >"$cg/blkio.throttle.read_bps_device"
	for x in a b; do
		sh -c "echo \$\$ >$cg/tasks; exec $sdb -r -f $loop -s 256m -b 1m -D -t 3 --json" >cmp-$x.json 2>/dev/null
	done
	"$sdb" -r -f "$loop" -s 256m -b 1m -D -t 3 --json >cmp-c.json 2>/dev/null
	rmdir "$cg"
	run --compare cmp-a.json cmp-b.json --json
	check "--compare, two throttled runs: no significant difference in the rate" "0 false" \
		"$rc $(jq '.compare[] | select(.metric == "bytes_per_second") | .significant' <<<"$out")"
	run --compare cmp-a.json cmp-c.json --json
	check "--compare, throttled against free: the rate up, significantly" "0 true true" \
		"$rc $(jq -r '[.compare[] | select(.metric == "bytes_per_second") | .significant, .low > 1] | map(tostring) | join(" ")' <<<"$out")"
	run --compare cmp-a.json cmp-c.json
	contains "--compare: significant in words" "$out" ": significant"
	losetup -d "$loop"; loop=
	rm -f cmp.img cmp-?.json
fi
fi

# ------------------------------------------------------------ html
# --html FILE: one page, nothing outside it: the document it embeds is
# the --json one of the same run, its SVG parses as XML, and headless
# Chromium (where installed) loads it with no error and no request.
if section html; then
run -r -f /dev/zero -s 1g -b 4k -m rand -t 2.5 --json --html page.html
check "--html with --json: exit 0, the page written" "0 true" "$rc $([ -s page.html ] && echo true)"
check "--html: under 300 KB" true "$([ "$(size_of page.html)" -lt 300000 ] && echo true)"
embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' page.html | sed '1d;$d' | sed 's|<\\/|</|g')
check "--html: the embedded document is the --json one of the same run" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
lacks "--html: no external reference" "$(sed 's|xmlns="http://www.w3.org/2000/svg"||g' page.html)" "http"
lacks "--html: no src or href" "$(cat page.html)" "src="
check "--html: throughput, IOPS, percentiles over time and latency drawn" 4 "$(grep -c '^<svg ' page.html)"
if command -v xmllint >/dev/null; then
	bad_svg=0
	while read -r n; do
		awk -v n="$n" '/^<svg /{k++} k==n{print} /^<\/svg>/{if (k==n) exit}' page.html >one.svg
		xmllint --noout one.svg 2>/dev/null || bad_svg=$((bad_svg + 1))
	done < <(seq 1 4)
	check "--html: each SVG parses as XML (xmllint)" 0 "$bad_svg"
	rm -f one.svg
else
	skipped "--html SVG as XML" "needs xmllint (libxml2-utils)"
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --window-size=800,1100 \
		--screenshot="$work/page.png" "file://$work/page.html" >/dev/null 2>"$work/chromium.err"
	check "--html in headless Chromium: a screenshot that is not blank" true \
		"$([ "$(size_of page.png)" -gt 20000 ] 2>/dev/null && echo true || echo false)"
	rm -f page.png
else
	skipped "--html in a browser" "needs chromium"
fi
run -r -f /dev/zero -s 64m --html page.html
contains "--html: the human report is unchanged beside it" "$out" "sdb 0.1.0: read seq"
mkdir -p adir
run -r -f /dev/zero -s 64m --html adir
check "--html into a directory: exit 1, the report still printed" "1 true" "$rc $([[ $out == *"Thread  0"* ]] && echo true)"
contains "--html into a directory: says why" "$err" "sdb: --html adir: not a regular file"
bad_input 2 "--html: draws a -w, -r or -M run, a quick suite, --merge, --hosts, --compare or --sweep" --explain -r -f adir --html page.html
rm -rf adir page.html
fi

# ------------------------------------------------------------ worker-ramp-window
# --ramp at any depth (issue 22, item 5): the window counts only the I/O it
# issued.  At the ramp's end the slots drain, the device's counters are
# read, and only then does the window issue: a pass is exactly SIZE/bs
# I/Os, and the device read exactly the window's bytes (a loop device
# that nothing else reads).
if section worker-ramp-window; then
run -w -f rampw.img -s 8m -b 64k -R
run -r -f rampw.img -s 4m -b 4k -q 8 --ramp 0.3 --json
check "-r -q 8 --ramp without -t: exactly SIZE/bs ops and bytes" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -r -f rampw.img -s 4m -b 4k -q 8 -m rand --ramp 0.3 --json
check "-r -q 8 -m rand --ramp: every block once, nothing of the ramp" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -w -f rampw.img -s 4m -b 4k -q 8 -D --ramp 0.3 --json
check "-w -q 8 --ramp without -t: exactly SIZE/bs writes" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -M 50 -f rampw.img -s 4m -b 4k -q 8 --ramp 0.3 --json
check "-M 50 -q 8 --ramp without -t: the sides add up to SIZE/bs" "0 1024" \
	"$rc $(jq -r '.total.read.ops + .total.write.ops' <<<"$out")"
rm -f rampw.img
if [ "$(id -u)" != 0 ]; then
	skipped "--ramp window against a loop device's counters" "needs root (a loop device)"
else
	truncate -s 16m rampw-loop.img
	if loop=$(losetup -f --show rampw-loop.img 2>/dev/null); then
		"$sdb" -w -f "$loop" --force -s 16m -D -R >/dev/null 2>&1
		for q in 1 8; do
			read -ra before <"/sys/block/${loop#/dev/}/stat"
			run -r -f "$loop" -s 8m -b 4k -q $q -D --ramp 0.3 --json
			read -ra after <"/sys/block/${loop#/dev/}/stat"
			check "loop device -q $q --ramp: 2048 ops, and the device read the window's bytes, no more" \
				"0 2048 true ${loop#/dev/} 8388608" \
				"$rc $(jq -r --argjson all $(((after[2] - before[2]) * 512)) \
					'"\(.threads[0].ops) \($all > .total.bytes) \(.device.name) \(.device.bytes)"' <<<"$out")"
			run -r -f "$loop" -s 8m -b 4k -q $q -D --ramp 0.2 -t 0.3 --json
			check "loop device -q $q --ramp -t: the device read the window's bytes, no more" \
				"0 true" "$rc $(jq -r '.device.bytes == .total.bytes and .total.ops > 0' <<<"$out")"
		done
		release_image rampw-loop.img
	else
		skipped "--ramp window against a loop device's counters" "no loop device"
		rm -f rampw-loop.img
	fi
fi
fi

# ------------------------------------------------------------ verify-reference
# -r --verify's reference (issue 22, item 6): the seed is voted by units
# spread over the region, so one stale unit at the start is one bad unit
# there; and a unit names its thread's file, so swapped files fail.
if section verify-reference; then
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
fi

# ------------------------------------------------------------ plan-less-than-a-block
# A size smaller than one block (issue 22, item 7): with -b given (or
# random mode's 4k) a usage error; without -b the block is the size, and
# the header and JSON say so, not a 100-byte "1 MiB block" run.
if section plan-less-than-a-block; then
bad_input 2 "-s 100 B is smaller than one 4 KiB block: less than one I/O to time" -w -f lessb -s 100 -b 4k
bad_input 2 "-s 512 KiB is smaller than one 1 MiB block" -M 50 -f lessb -s 512k -b 1m
bad_input 2 "-s 2 KiB is smaller than one 4 KiB block (the default -b): random mode" -w -f lessb -s 2k -m rand
check "-s under -b: nothing created" missing "$(size_of lessb)"
run -w -f lessb -s 100 --json
check "-s 100 without -b: one I/O of 100 bytes, block_size 100, the file 100 bytes" "0 100 1 100 100" \
	"$rc $(jq -r '"\(.options.block_size) \(.total.ops) \(.total.bytes)"' <<<"$out") $(size_of lessb)"
run -w -f lessb -s 100
matches "-s 100 without -b: the header says 100 B blocks" "$out" "sdb *: write seq, 100 B blocks, 100 B per thread,*"
head -c 100 /dev/urandom >lessb.small
sum=$(md5sum <lessb.small)
bad_input 2 "lessb.small: 100 B is smaller than one 4 KiB block (-b)" -r -f lessb.small -b 4k -q 2
check "a read of a file under -b: the file unchanged" "$sum" "$(md5sum <lessb.small)"
run -r -f lessb.small --json
check "a read of a 100-byte file without -b: one 100-byte I/O, said so" "0 100 1 100" \
	"$rc $(jq -r '"\(.options.block_size) \(.total.ops) \(.total.bytes)"' <<<"$out")"
run -w -f lessb -s 64k -b 64k --json
check "-s equal to -b: one I/O of one block" "0 1 65536" "$rc $(jq -r '"\(.total.ops) \(.total.bytes)"' <<<"$out")"
rm -f lessb lessb.small
fi

# ------------------------------------------------------------ report-blocked-stdout
# A report held by a full stdout pipe (issue 22, item 10): INT or TERM
# still ends sdb (128 + n), and a reader that goes away is exit 141, as for
# SIGPIPE.  The pipe is a FIFO whose reader never reads; the sign that sdb
# is held is 64 KiB written (wchar of /proc/PID/io: a run that reads
# /dev/zero writes nothing else of that size), the capacity of the pipe.
if section report-blocked-stdout; then
if [ ! -r /proc/self/io ]; then
	skipped "a report held by a full pipe" "no /proc/PID/io"
else
	for how in INT TERM PIPE; do
		rm -f held.fifo && mkfifo held.fifo
		"$sdb" -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json >held.fifo 2>held.err &
		pid=$!
		exec 3<held.fifo	# the reader: it never reads
		wait_for $pid wrote $pid 65536
		end_held $pid $how
		check "a report held by a full pipe, then $how: sdb ends, exit $want" $want "$rc"
		[ $how != PIPE ] && contains "held, then $how: one line says the report is cut short" "$(cat held.err)" \
			"sdb: interrupted by SIG$how while standard output took the report"
	done
	rm -f held.fifo held.err
fi
run -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json
check "the same report to a reader that reads: whole, valid JSON, exit 0" "0 128" "$rc $(jq '.threads | length' <<<"$out")"
"$sdb" -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json 2>early.err | head -c 10 >/dev/null	# over 64 KiB more than head reads
check "a report to a reader that leaves early (head -c 10): exit 141, no write error" "141 " \
	"${PIPESTATUS[0]} $(grep -c 'write: standard output' early.err | sed 's/^0$//')"
rm -f early.err
fi

# ------------------------------------------------------------ run-dumb-terminal
# TERM=dumb, or no TERM (issue 22, item 12): no progress line and no escape
# sequence on a terminal (script(1) gives the run a pty); a terminal that
# takes them still gets the progress line.
if section run-dumb-terminal; then
if ! command -v script >/dev/null; then
	skipped "the progress line and TERM" "no script(1)"
else
	for term in xterm dumb unset; do
		if [ $term = unset ]; then
			env -u TERM script -qec "'$sdb' -w -f dumbt -s 64m -b 4k -t 1.5" /dev/null >dumb.out 2>&1
		else
			TERM=$term script -qec "'$sdb' -w -f dumbt -s 64m -b 4k -t 1.5" /dev/null >dumb.out 2>&1
		fi
		escapes=$(grep -c $'\033' dumb.out)
		if [ $term = xterm ]; then
			check "TERM=xterm on a tty: the progress line is drawn (an escape to clear it)" true "$([ "$escapes" -gt 0 ] && echo true)"
		else
			check "TERM=$term on a tty: no escape sequence at all" 0 "$escapes"
		fi
		contains "TERM=$term: the report is there" "$(cat dumb.out)" "Thread  0 (CPU:"
	done
	rm -f dumbt dumb.out
fi
fi

# ------------------------------------------------------------ options-hints
# For a new user (issue 22, the smaller ones): -t and --ramp take units, an
# ambiguous or mistyped long option says what it may have meant, range
# errors name their limits, and every option of sdb.1 is an entry of its own.
if section options-hints; then
run -w -f hint -s 1m -b 64k -t 0.2s --json
check "-t 0.2s: a time with its unit" "0 0.2" "$rc $(jq '.options.time_limit' <<<"$out")"
bad_input 2 "-t 2x: time must be a positive number of seconds, at most a year (366 days): 5, 2.5, 5s, 2m or 1h" -w -f hint -t 2x
bad_input 2 "--fsync 0: writes per fdatasync must be a whole number from 1 to 999999999" -w -f hint --fsync 0
bad_input 2 "--q: ambiguous: --queue-depth or --quick?" -w -f hint --q 4
bad_input 2 "--queue-dpeth: unknown option; did you mean --queue-depth?" -w -f hint --queue-dpeth 4
bad_input 2 "---: unknown option; see sdb --help" -w -f hint ---
bad_input 2 "----x: unknown option; see sdb --help" -w -f hint ----x
run --quick=mix --explain -f "$PWD"
check "--quick=mix is a profile, not a usage error" "0 9" "$rc $(grep -c '^fio ' <<<"$out")"
lacks "sdb.1 no longer says --quick=mix is a usage error" "$(sed -n '/^\.BR \\-\\-quick "/,/^\.TP/p' "$man")" "has mixed I/O"
# Each option's entry in OPTIONS that takes a value starts with .TP (else man
# shows it inside the one before).
untagged=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | awk '
	/^\.BR \\-[a-zA-Z] ", " \\-\\-[a-z]/ || /^\.BR \\-\\-[a-z][a-z\\-]* " \\fI[A-Z]/ {
		if (prev != ".TP") print $0 }
	{ prev = $0 }' | tr '\n' ' ')
check "sdb.1: every option entry begins with .TP (--start-at no longer inside --hosts)" "" "$untagged"
rm -f hint
fi

# ------------------------------------------------------------ stack-down-to-the-metal
if section stack-down-to-the-metal; then
# The verdict down to the metal (issue 23): it follows a buffered loop
# device to its backing file's disk, tells sdb's own I/O from another
# process's, trusts no residency the kernel will not tell, names a CPU
# quota, reports the write cache, and counts overlayfs on its upper
# directory's device.  Each case is built for real and checked against
# the kernel's own view: /sys/block/X/stat, cpu.stat, fincore as root.
# sectors DEV FIELD: bytes in DEV's stat field (3: sectors read, 7: written).
sectors() { awk -v f="$2" '{printf "%.0f\n", $f * 512}' "/sys/class/block/$1/stat"; }
# disk_of PATH: the block device under PATH's file system ("" for none).
disk_of() { local d; d=$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' "$1")") && [ -f "$d/stat" ] && basename "$d"; }
metal_keys='["busy","bytes","delivered","fua","limit","link","name","other_bytes","path","reason","stack","verified","write_cache"]'
run -r -f /dev/zero -s 16m --json
check "device JSON: the round-3 keys, null where there is no device" "$metal_keys [] null null null" \
	"$(jq -c '.device | "\(keys) \(.stack) \(.other_bytes) \(.write_cache) \(.fua)"' -r <<<"$out")"
if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
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
	elif loop=$(losetup -f --show metal.img) && mkfs.ext4 -q -F "$loop" && mount "$loop" "$metal"; then
		mnt=$metal	# for cleanup()
		name=${loop#/dev/}
		"$sdb" -w -f "$metal/f" -s 256m -R >/dev/null 2>&1
		# 1. A buffered loop device (loop/dio 0) over a cached backing file:
		# the loop device sees every byte, the disk below sees none.
		if [ "$(cat "/sys/block/$name/loop/dio")" = 0 ]; then
			dd if=metal.img of=/dev/null bs=1M status=none	# the backing file, cached
			l0=$(sectors "$name" 3) b0=$(sectors "$bdev" 3)
			run -r -f "$metal/f" --json
			l1=$(sectors "$name" 3) b1=$(sectors "$bdev" 3)
			check "buffered loop: the kernel's counters, loop saw the claim, $bdev below under 90%" "true true" \
				"$(jq --argjson l $((l1 - l0)) --argjson b $((b1 - b0)) -r '"\($l >= 0.9 * .total.bytes) \($b < 0.9 * .total.bytes)"' <<<"$out")"
			check "buffered loop: not verified, the stack is $name then $bdev, each within the kernel's delta" \
				"false $name $bdev true true" \
				"$(jq --argjson l $((l1 - l0)) --argjson b $((b1 - b0)) -r '.device | "\(.verified) \(.stack[0].name) \(.stack[1].name) \(.stack[0].bytes <= $l) \(.stack[1].bytes <= $b)"' <<<"$out")"
			check "buffered loop: the warning names the backing file's page cache" true \
				"$(jq '.warnings | any(test("page cache of '"$name"'.s backing file .*buffered loop device, loop/dio 0"))' <<<"$out")"
			run -r -f "$metal/f"
			contains "buffered loop: the Device line says what the disk below saw" "$out" ", below it $bdev saw "
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
				"$(jq '(.device.other_bytes * 10 > .total.bytes) == (.warnings | any(test("not sdb.s .*metadata or other processes")))' <<<"$out")"
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
		chmod o+x "$work"
		mkdir -p "$metal/pub"
		chmod 755 "$metal" "$metal/pub"
		"$sdb" -w -f "$metal/pub/rootfile" -s 64m -R >/dev/null 2>&1
		chmod 644 "$metal/pub/rootfile"
		dd if="$metal/pub/rootfile" iflag=nocache count=0 status=none
		res=$(fincore -b -n -o RES "$metal/pub/rootfile" | tr -d " ")
		if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
			as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
		else
			as_nobody() { su nobody -s /bin/sh -c '"$0" "$@"' "$@"; }
		fi
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
			contains "overlayfs -v: names the upper directory" "$out" "overlayfs upper directory $metal/upper"
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
fi

# ------------------------------------------------------------ report-total-latency
# -j N: the Total's latency comes from the threads' merged histograms, so
# its min and max are the threads' extremes (a mean of percentiles is not).
if section report-total-latency; then
run -r -f /dev/zero -s 32m -b 4k -m rand -j 3 --json
check "-j 3: total.latency_ns's min and max are the threads' extremes" "0 true true" \
	"$rc $(jq '.total.latency_ns.max == ([.threads[].latency_ns.max] | max)' <<<"$out") $(jq '.total.latency_ns.min == ([.threads[].latency_ns.min] | min)' <<<"$out")"
run -r -f /dev/zero -s 32m -b 4k -m rand -j 3
matches "-j 3: a latency line under the Total" "$out" "*Total (3 threads)*
           latency min *, avg *, p99 *, max *"
fi

# ------------------------------------------------------------ guard-never-touch
# What sdb may touch, at every moment (src/guard.h): a path is removed only
# while it names the file sdb made; kernel pseudo-file systems are never
# written; a mounted image is refused however it is mounted; a file another
# process writes needs --force; two runs on one target, either writing, are
# one too many.  Each check is against the kernel's view: the other file's
# checksum, the /proc file's contents, the second run's exit status.
if section guard-never-touch; then
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
if [ "$(id -u)" = 0 ] && cg=$(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2; exit }' /proc/self/mounts) &&
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
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
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
fi

# ------------------------------------------------------------ merge-fleet
# --merge as a fleet's result (issue 24) and its seams (issue 22): All
# running exact, the inputs pdsh and Ansible leave, duplicates, bad counts,
# one JSON document whatever happened, memory bounded by the input.
if section merge-fleet; then
# A timeline that ends before the window does: sdb leaves out a last step
# under half a step long (here 0.045 s of 1.045), and a write's final
# fdatasync comes after the last sample; the document's last step is
# dropped so that the tail is there every time.  Three hosts in one
# window: All running is the Total's rate (it read 3-23% low).
"$sdb" -w -f fm -s 32m -R >/dev/null 2>&1
run -r -f fm -s 32m -b 64k -D -t 1.045 --json
jq '.timeline |= .[:-1]' <<<"$out" >fa.json
for h in b c; do jq --arg h "$h" '.host = $h' fa.json >"f$h.json"; done
run --merge fa.json fb.json fc.json --json
check "merge-fleet: three hosts in one window, exit 0" 0 "$rc"
check "merge-fleet: All running is the Total's rate within 1% (the partial last step counted)" true \
	"$(jq '(.total.all_running.bytes_per_second / .total.bytes_per_second - 1) | fabs < 0.01' <<<"$out")"
check "merge-fleet: fleet: no skew, full overlap, no straggler, the worst p99" "0 1 0 true" \
	"$(jq -r '"\(.fleet.start_skew) \(.fleet.overlap) \(.fleet.stragglers | length) \(.fleet.worst_p99_ns == .hosts[0].latency_ns.p99)"' <<<"$out")"
check "merge-fleet: hosts[].device is each document's verdict" "$(jq -c .device fa.json)" "$(jq -c '.hosts[2].device' <<<"$out")"
run --merge fa.json fb.json fc.json
matches "merge-fleet: a line per host with its device verdict" "$out" \
	"*Host vm (fa.json): 1 thread, * seconds -> *, * IOPS, p99 *; device *: *% delivered, limit *Host c (fc.json)*"
matches "merge-fleet: the Fleet line" "$out" "*Fleet: start skew 0 ns, windows overlap 100.0%, worst p99 * (fa.json), stragglers: none*"
# A straggler among documents: c at a tenth of the rate (its window 10x longer).
jq '.total.seconds *= 10 | .end_unix = .start_unix + .total.seconds | .timeline = []' fc.json >slow.json
run --merge fa.json fb.json slow.json --json
check "merge-fleet: the slow document is a straggler, a warning, exit 0" "0 slow.json" \
	"$rc $(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
contains "merge-fleet: the straggler's warning" "$err" "sdb: warning: straggler slow.json: "
# The same document twice, a merged document beside its input.
run --merge fa.json fb.json fa.json --json
check "merge-fleet: the same document twice: exit 1, merged once" "1 2" "$rc $(jq '.total.hosts' <<<"$out")"
contains "merge-fleet: the same document twice: both named" "$err" "sdb: fa.json: the same document as fa.json (host vm, start "
cp fa.json copy.json
run --merge fa.json copy.json
contains "merge-fleet: a copy under another name: both named" "$err" "sdb: copy.json: the same document as fa.json"
"$sdb" --merge fa.json fb.json --json >fab.json 2>/dev/null
run --merge fab.json fa.json
check "merge-fleet: a merged document beside its input: exit 1" 1 "$rc"
contains "merge-fleet: a merged document beside its input: both named" "$err" \
	"sdb: fa.json: one of the inputs of fab.json (host -, start "
# Counts that are not counts: the file and the field named, no silent 0.
jq '.total.ops = -3' fa.json >neg.json
bad_input 1 "neg.json: total.ops: -3 is not a count (a whole number from 0 below 2^64)" --merge neg.json
jq '.threads[0].histogram[0][2] = 18446744073709549568 | .threads[0].histogram[1][2] = 18446744073709549568' fa.json >wrap.json
bad_input 1 "wrap.json: threads[0].histogram: the bucket counts add up past 64 bits" --merge wrap.json
# Another sdb's document: flagged.
jq '.version = "0.0.9"' fb.json >old.json
run --merge fa.json old.json
contains "merge-fleet: another version flagged" "$err" "sdb: warning: old.json: written by sdb 0.0.9, this is sdb $version"
# --json with nothing merged: still one valid document.
run --merge neg.json missing.json --json
check "merge-fleet: nothing merged: exit 1, one valid document with the errors" "1 0 2" \
	"$rc $(jq -r '"\(.total.hosts) \(.errors | length)"' <<<"$out" 2>&1)"
# pdsh's output: each line "HOST: ...", the hosts' lines interleaved.
sed 's/^/node1: /' fa.json >p1; sed 's/^/node2: /' fb.json >p2
paste -d '\n' p1 p2 | grep -v '^$' >pdsh.txt
echo "pdsh@head: node3: ssh exited with exit code 255" >>pdsh.txt
run --merge pdsh.txt --json
check "merge-fleet: pdsh's output merged, each host named" "0 pdsh.txt#node1 pdsh.txt#node2" \
	"$rc $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
check "merge-fleet: pdsh's output: the bytes of both" "$(jq -s 'map(.total.bytes) | add' fa.json fb.json)" "$(jq .total.bytes <<<"$out")"
# Ansible --tree: a file per host, the task's result with sdb's output in stdout.
mkdir -p tree
for h in a b; do jq -n --rawfile o "f$h.json" '{changed: true, cmd: "sdb ...", rc: 0, stderr: "", stdout: $o}' >"tree/node-$h"; done
run --merge tree --json
check "merge-fleet: an Ansible --tree directory merged" "0 tree/node-a tree/node-b" "$(jq -r '"\(.total.hosts | . * 0) \([.hosts[].source] | join(" "))"' <<<"$out")"
jq -n '{changed: true, rc: 2, stderr: "sdb: /data/t: No such file or directory", stdout: ""}' >tree/node-c
run --merge tree
contains "merge-fleet: a failed Ansible task named" "$err" "sdb: tree/node-c: the Ansible task failed (rc 2): sdb: /data/t: No such file"
# Memory grows with what is kept: a 20 MB document (512 threads, 2000
# buckets each) within 4 times its size plus the histograms (was 1.6 GB).
awk 'BEGIN { printf "{\"version\": \"%s\", \"host\": \"big\", \"start_unix\": 1000, \"end_unix\": 1002, ", "'"$version"'";
	printf "\"options\": {\"op\": \"read\"}, \"threads\": [";
	for (t = 0; t < 512; t++) { printf "%s{\"id\": %d, \"histogram\": [", t ? ", " : "", t;
		for (i = 256; i < 2256; i++) { w = 2 ^ (int(i / 128) - 1); low = (i % 128 + 128) * w;	# bucket i of sdb
			printf "%s[%d, %d, %d]", (i > 256 ? ", " : ""), low, low + w - 1, 1 + (i + t) % 97 }
		printf "]}" }
	printf "], \"total\": {\"bytes\": 1048576, \"ops\": 1, \"seconds\": 2}, \"warnings\": [], \"interrupted\": false}\n" }' >big.json
kib=$(( $(size_of big.json) / 1024 ))
if [ -n "${ASAN_OPTIONS:-}" ] || [ ! -x /usr/bin/time ]; then
	skipped "merge-fleet: the peak memory of a 20 MB document" "needs GNU time, and no AddressSanitizer (its own memory)"
else
	/usr/bin/time -o big.time -f %M "$sdb" --merge big.json >/dev/null 2>&1
	peak=$(tail -n 1 big.time)
	check "merge-fleet: a ${kib} KiB document merges in under 4x its size plus 8 MiB (peak ${peak} KiB)" true \
		"$([ "${peak:-999999999}" -lt $((4 * kib + 8192)) ] && echo true || echo "false")"
fi
rm -rf fm fa.json fb.json fc.json slow.json copy.json fab.json neg.json wrap.json old.json p1 p2 pdsh.txt tree big.json big.time
fi

# ------------------------------------------------------------ hosts-fleet
# --hosts over a stand-in for ssh (it runs the remote command here): the
# straggler named (one host's loop device throttled by a blkio cgroup),
# Ctrl-C and a lost host giving the merged report of those that answered,
# --host-timeout, --fanout, @FILE and ranges, the status lines.
if section hosts-fleet; then
mkdir -p hf
cat >hf/rsh <<-'SSH'	# not named ssh: no -o BatchMode added
	#!/bin/sh
	host=$1; shift
	case $host in
	hang*) exec sleep 1000 ;;	# a host that never answers, and ignores its stdin
	junk*) echo "Welcome to junk"; exit 0 ;;	# a remote that prints no result
	esac
	exec sh -c "$*"
SSH
chmod +x hf/rsh
export SDB_SSH=$work/hf/rsh SDB_REMOTE=$sdb
cg=/sys/fs/cgroup/blkio/sdb-cli-$$
if [ "$(id -u)" != 0 ] || [ ! -w /sys/fs/cgroup/blkio ] || ! command -v losetup >/dev/null; then
	skipped "hosts-fleet: the throttled straggler" "needs root, losetup and cgroup v1 blkio"
else
	for i in 1 2 3; do truncate -s 96m "hf/img$i"; done
	l1=$(losetup -f --show hf/img1) && l2=$(losetup -f --show hf/img2) && l3=$(losetup -f --show hf/img3)
	mkdir -p "$cg"
	echo "$(cat "/sys/block/${l3#/dev/}/dev") $((16 << 20))" >"$cg/blkio.throttle.write_bps_device"	# 16 MiB/s
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs\nexec %s "$@"\n' "$cg" "$sdb" >hf/remote	# every host's sdb in the cgroup
	chmod +x hf/remote
	sectors() { awk '{print $7}' "/sys/block/${1#/dev/}/stat"; }
	before=$(sectors "$l3")
	SDB_REMOTE=$work/hf/remote run --hosts "a:$l1,b:$l2,c:$l3" -w -D -R -s 64m -t 2 --force --json
	after=$(sectors "$l3")
	check "hosts-fleet: three hosts, one throttled: exit 0 (a straggler is a warning)" "0 3" "$rc $(jq .total.hosts <<<"$out")"
	check "hosts-fleet: the throttled host is named in fleet.stragglers" "c:$l3" "$(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
	contains "hosts-fleet: the straggler's warning" "$err" "sdb: warning: straggler c:$l3: "
	check "hosts-fleet: each host's device verdict in hosts[].device" "${l1#/dev/} ${l2#/dev/} ${l3#/dev/}" \
		"$(jq -r '[.hosts[].device.name] | join(" ")' <<<"$out")"
	check "hosts-fleet: the throttled host's device bytes are the kernel's (/sys/block/X/stat)" $(((after - before) * 512)) \
		"$(jq '.hosts[2].device.bytes' <<<"$out")"
	check "hosts-fleet: the worst p99 is the throttled host's" true \
		"$(jq '.fleet.worst_p99_ns == .hosts[2].latency_ns.p99 and .fleet.worst_p99_ns > .total.latency_ns.p99' <<<"$out")"
	SDB_REMOTE=$work/hf/remote run --hosts "a:$l1,b:$l2,c:$l3" -w -D -R -s 64m -t 1 --force
	matches "hosts-fleet: a line per host with its verdict, the straggler marked" "$out" \
		"*Host c:$l3: 1 thread, * p99 *; device ${l3#/dev/}: *% delivered, limit * (straggler)*Fleet: *stragglers: c:$l3*"
	rmdir "$cg"
	losetup -d "$l1" "$l2" "$l3"
	rm -f hf/img?
fi
# Ctrl-C while the hosts run: every remote run stops and reports; the
# merged report of what they did, exit 130.
"$sdb" --hosts "a:$work/hf/s1,b:$work/hf/s2" -w -s 8m -t 60 --json >hf/int.json 2>hf/int.err &
pid=$!
both_writing() { at_least hf/s1 $((8 << 20)) && at_least hf/s2 $((8 << 20)); }
wait_for "$pid" both_writing
kill -INT "$pid"
wait "$pid"; rc=$?
check "hosts-fleet: Ctrl-C: exit 130, both hosts' partial results merged" "130 2 true true" \
	"$rc $(jq -r '"\(.total.hosts) \(.interrupted) \(.total.bytes >= 2 * 8388608)"' hf/int.json 2>&1)"
check "hosts-fleet: Ctrl-C: each host's run says it was interrupted" "true true" "$(jq -r '[.hosts[].interrupted] | join(" ")' hf/int.json)"
check "hosts-fleet: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "--file=$work/hf/s")"
# Ctrl-C before the common start: still one valid document.
"$sdb" --hosts "a:$work/hf/e1,b:$work/hf/e2" -w -s 1m --json >hf/early.json 2>/dev/null &
pid=$!
wait_for "$pid" at_least hf/e2 0	# both remote runs made their files, waiting for the start
wait_for "$pid" at_least hf/e1 0
kill -INT "$pid"
wait "$pid"; rc=$?
check "hosts-fleet: Ctrl-C before the start: exit 130, one valid document, no I/O" "130 true 0" \
	"$rc $(jq -r '"\(.interrupted) \(.total.ops)"' hf/early.json 2>&1)"
# A remote killed mid-run: that host named, the other merged, exit 1.
"$sdb" --hosts "a:$work/hf/k1,b:$work/hf/k2" -w -s 8m -t 4 --json >hf/kill.json 2>hf/kill.err &
pid=$!
k_writing() { at_least hf/k1 $((8 << 20)) && at_least hf/k2 $((8 << 20)); }
wait_for "$pid" k_writing
pkill -KILL -f -- "^$sdb .*--file=$work/hf/k2"	# the remote sdb, not the shells around it
wait "$pid"; rc=$?
check "hosts-fleet: a remote killed: exit 1, the other host merged" "1 1 a:$work/hf/k1" \
	"$rc $(jq -r '"\(.total.hosts) \(.hosts[0].source)"' hf/kill.json 2>&1)"
check "hosts-fleet: the killed host as {host, exit, error}" "b:$work/hf/k2 137" \
	"$(jq -r '.hosts[1] | "\(.host) \(.exit)"' hf/kill.json 2>&1)"
contains "hosts-fleet: the killed host named, how it ended" "$(cat hf/kill.err)" "sdb: b:$work/hf/k2: Killed (exit 137)"
# --host-timeout: a host that never answers is stopped and named.
run --hosts "a:$work/hf/t1,hang:$work/hf/t2" -w -s 1m --host-timeout 5 --json
check "hosts-fleet: --host-timeout: exit 1, the answering host merged" "1 1" "$rc $(jq .total.hosts <<<"$out")"
check "hosts-fleet: --host-timeout: the hung host's entry" "hang:$work/hf/t2 no answer within --host-timeout: stopped" \
	"$(jq -r '.hosts[1] | "\(.host) \(.error)"' <<<"$out")"
# A remote that prints something else: the parse error, not "no result".
run --hosts "junk:$work/hf/j1" -w -s 1m
contains "hosts-fleet: non-JSON output: the parse error" "$err" "sdb: junk:$work/hf/j1: not valid JSON (byte 0: not a JSON value)"
# @FILE, ranges, --fanout.
printf '# readers\nr[1-2]\n\nr3   # the last\n' >hf/hosts.txt
run --hosts @hf/hosts.txt -r -f /dev/zero -s 16m --fanout 2 --json
check "hosts-fleet: @FILE with a range: three hosts" "0 r1 r2 r3" "$rc $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
check "hosts-fleet: --fanout 2: the third host started after the first wave ended" true \
	"$(jq '.hosts[2].start_unix > ([.hosts[0].end_unix, .hosts[1].end_unix] | max)' <<<"$out")"
contains "hosts-fleet: --fanout 2: the waves do not overlap, said so" "$err" "the windows overlap"
# The status lines, on a terminal (script(1) gives one).
if command -v script >/dev/null; then
	TERM=xterm script -qfec "$sdb --hosts 's1:$work/hf/st1,s2:$work/hf/st2' -w -s 4m -t 1" /dev/null >hf/tty.txt 2>&1
	contains "hosts-fleet: on a terminal, a status line per host" "$(cat hf/tty.txt)" "s2:$work/hf/st2: running"
	contains "hosts-fleet: the status line before the start" "$(cat hf/tty.txt)" "s1:$work/hf/st1: started, the run begins in"
	run --hosts "s1:$work/hf/st1" -w -s 4m
	lacks "hosts-fleet: no terminal: no status line" "$err" "running"
else
	skipped "hosts-fleet: status lines" "no script(1)"
fi
# A relative --start-at under a launcher: a warning.
SLURM_PROCID=2 run -r -f /dev/zero -s 1m --start-at +0.2 --json
contains "hosts-fleet: --start-at +SEC under a launcher: a warning" "$err" \
	"sdb: warning: --start-at +0.2 under a launcher (SLURM_PROCID is set)"
check "hosts-fleet: the document carries the rank" 2 "$(jq .rank <<<"$out")"
unset SDB_SSH SDB_REMOTE
rm -rf hf
fi

# ------------------------------------------------------------ hosts-fleet-ssh
# Three hosts over a real OpenSSH sshd on 127.0.0.1 (its own host key and
# client key, made here and removed at the end), as hosts-ssh starts one:
# one host's loop device throttled (blkio) and named a straggler, Ctrl-C's
# partial merged report through real sessions, a remote killed mid-run.
if section hosts-fleet-ssh; then
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null || [ ! -w /sys/fs/cgroup/blkio ]; then
	skipped "hosts-fleet-ssh" "needs root, sshd and ssh-keygen (openssh-server), cgroup v1 blkio"
else
	fs_dir=$work/fssh
	mkdir -p "$fs_dir" /run/sshd && chmod 700 "$fs_dir"
	ssh-keygen -q -t ed25519 -N '' -f "$fs_dir/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$fs_dir/key"
	cp "$fs_dir/key.pub" "$fs_dir/authorized_keys"
	port=
	for p in $(seq 2300 2399); do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
	done
	cat >"$fs_dir/sshd_config" <<-CONF
		Port $port
		ListenAddress 127.0.0.1
		HostKey $fs_dir/host_key
		AuthorizedKeysFile $fs_dir/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		MaxStartups 30
		MaxSessions 30
		PidFile $fs_dir/sshd.pid
	CONF
	/usr/sbin/sshd -f "$fs_dir/sshd_config" -E "$fs_dir/sshd.log"
	for try in $(seq 50); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.1
	done
	fcg=/sys/fs/cgroup/blkio/sdb-cli-ssh-$$
	stop_fleet_sshd() {
		[ -f "$fs_dir/sshd.pid" ] && kill "$(cat "$fs_dir/sshd.pid")" 2>/dev/null
		[ -n "${fl1:-}" ] && losetup -d "$fl1" "$fl2" "$fl3" 2>/dev/null
		rmdir "$fcg" 2>/dev/null
	}
	trap 'stop_fleet_sshd; cleanup' EXIT
	export SDB_SSH="ssh -p $port -i $fs_dir/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	for i in 1 2 3; do truncate -s 96m "$fs_dir/img$i"; done
	fl1=$(losetup -f --show "$fs_dir/img1") && fl2=$(losetup -f --show "$fs_dir/img2") && fl3=$(losetup -f --show "$fs_dir/img3")
	mkdir -p "$fcg"
	echo "$(cat "/sys/block/${fl3#/dev/}/dev") $((16 << 20))" >"$fcg/blkio.throttle.write_bps_device"	# 16 MiB/s
	# The remote sdb, started by sshd, joins the cgroup first (only loop 3 is limited there).
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs\nexec %s "$@"\n' "$fcg" "$sdb" >"$fs_dir/remote"
	chmod +x "$fs_dir/remote"
	export SDB_REMOTE=$fs_dir/remote
	hosts="127.0.0.1:$fl1,localhost:$fl2,root@127.0.0.1:$fl3"
	run --hosts "$hosts" -w -D -R -s 64m -t 2 --force --json
	check "hosts-fleet-ssh: three hosts over sshd, one throttled: exit 0, all merged" "0 3" "$rc $(jq .total.hosts <<<"$out")"
	check "hosts-fleet-ssh: the throttled host named a straggler" "root@127.0.0.1:$fl3" "$(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
	contains "hosts-fleet-ssh: the straggler's warning" "$err" "sdb: warning: straggler root@127.0.0.1:$fl3: "
	check "hosts-fleet-ssh: each host's verdict: its loop device, all bytes delivered" \
		"${fl1#/dev/} true ${fl2#/dev/} true ${fl3#/dev/} true" \
		"$(jq -r '[.hosts[].device | "\(.name) \(.verified)"] | join(" ")' <<<"$out")"
	check "hosts-fleet-ssh: a common start: the skew under a second, the windows overlapping" true \
		"$(jq '.fleet.start_skew < 1 and .fleet.overlap > 0' <<<"$out")"
	# Ctrl-C: the remote runs stop through their sessions and report.
	"$sdb" --hosts "127.0.0.1:$work/fssh/c1,localhost:$work/fssh/c2" -w -s 8m -t 60 --json >"$fs_dir/int.json" 2>/dev/null &
	pid=$!
	c_writing() { at_least "$fs_dir/c1" $((8 << 20)) && at_least "$fs_dir/c2" $((8 << 20)); }
	wait_for "$pid" c_writing
	kill -INT "$pid"
	wait "$pid"; rc=$?
	check "hosts-fleet-ssh: Ctrl-C: exit 130, both hosts' partial results merged" "130 2 true true" \
		"$rc $(jq -r '"\(.total.hosts) \(.interrupted) \(.total.bytes >= 2 * 8388608)"' "$fs_dir/int.json" 2>&1)"
	for try in $(seq 50); do pgrep -f -- "^$sdb .*--file=$fs_dir/c" >/dev/null || break; sleep 0.1; done
	check "hosts-fleet-ssh: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "^$sdb .*--file=$fs_dir/c")"
	# A remote killed mid-run: named, the other merged, exit 1.
	"$sdb" --hosts "127.0.0.1:$fs_dir/k1,localhost:$fs_dir/k2" -w -s 8m -t 4 --json >"$fs_dir/kill.json" 2>"$fs_dir/kill.err" &
	pid=$!
	k_writing() { at_least "$fs_dir/k1" $((8 << 20)) && at_least "$fs_dir/k2" $((8 << 20)); }
	wait_for "$pid" k_writing
	pkill -KILL -f -- "^$sdb .*--file=$fs_dir/k2"
	wait "$pid"; rc=$?
	check "hosts-fleet-ssh: a remote killed: exit 1, the other merged, the killed one listed" "1 1 localhost:$fs_dir/k2" \
		"$rc $(jq -r '"\(.total.hosts) \(.hosts[1].host)"' "$fs_dir/kill.json" 2>&1)"
	contains "hosts-fleet-ssh: the killed host named" "$(cat "$fs_dir/kill.err")" "sdb: localhost:$fs_dir/k2: "
	unset SDB_SSH SDB_REMOTE
	stop_fleet_sshd
	fl1=
	trap cleanup EXIT
	rm -rf "$fs_dir"
fi
fi

# ------------------------------------------------------------ rate
# --rate and --sweep (src/pace.h, src/sweep.h): an open loop offers a fixed
# load, counts each I/O's latency from when it was due, keeps the service
# time apart, and says when the load was not met.  Against a device of
# known speed (a loop device under a cgroup v1 blkio IOPS throttle, as
# root): half the limit is met, twice the limit is not and its latencies
# grow as a queue's, and the sweep's knee sits near the limit.
if section rate; then
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 2000 --json
check "--rate 2000 on /dev/zero: exit 0, offered 2000, options.rate 2000, service_ns beside latency_ns" "0 2000 2000 true true" \
	"$rc $(jq -r '"\(.rate.offered) \(.options.rate) \(.total.service_ns | has("p99")) \(.threads[0].service_ns | has("p999"))"' <<<"$out")"
check "--rate 2000 -t 0.5: no more I/Os than the schedule holds (a closed loop does hundreds of thousands)" true \
	"$(jq '.total.ops <= 1001 and .total.ops > 0' <<<"$out")"
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 2000 -q 4 --json
check "--rate -q 4 (io_uring): offered 2000, no more I/Os than scheduled" "0 2000 true" \
	"$rc $(jq -r '"\(.rate.offered) \(.total.ops <= 1001 and .total.ops > 0)"' <<<"$out")"
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 8m/s -j 2 --json
check "--rate 8m/s -b 4k -j 2: 2048 I/Os per second per thread, 4096 offered" "0 2048 4096" \
	"$rc $(jq -r '"\(.options.rate) \(.rate.offered)"' <<<"$out")"
run -r -f /dev/zero -b 4k -s 4m
check "a closed loop's document has no rate and no service_ns" "false false" \
	"$("$sdb" -r -f /dev/zero -b 4k -s 4m --json | jq -r '"\(has("rate")) \(.total | has("service_ns"))"')"
run -w -f rate.dat -s 4m -b 4k
run -M 50 -f rate.dat -s 4m -b 4k -m rand -t 0.5 --rate 1k
contains "--rate -M 50: the rate line" "$out" "Rate: 1,000 IOPS offered, "
contains "--rate: the service time apart" "$out" "service (issue to completion) min "
contains "--rate: the header names the open loop" "$out" ", open loop at 1,000 IOPS per thread, zero buffer: rate.dat"
run -r -f rate.dat -b 4k -t 2 --rate 5k --explain
contains "--rate --explain: fio's rate_iops" "$out" "--rate_iops=5000"
run -r -f rate.dat -b 4k -m rand -q 4 --sweep --explain
check "--sweep --explain: the maximum and ten steps, each with rate_iops" "11 10" \
	"$(grep -c '^fio ' <<<"$out") $(grep -c -- '--rate_iops=\$((MAX \* [0-9]* / 10))$' <<<"$out")"
run -r -f rate.dat -b 4k -m rand -t 0.2 --sweep --json --html rate.html
check "--sweep --json: ten steps from 10% to 100% of the maximum, a knee or null, the page" "0 10 true true true true" \
	"$rc $(jq -r '"\(.sweep | length) \([.sweep[] | has("p999_ns")] | all) \(.knee == null or (.knee | has("share"))) \((.sweep[9].offered / .total.iops * 100 | round) == 100)"' <<<"$out") $([ -s rate.html ] && echo true)"
bad_input 2 "--rate 0: a rate is a positive number" -r -f rate.dat --rate 0
bad_input 2 "--rate fast: a rate is a positive number" -r -f rate.dat --rate fast
bad_input 2 "--rate 0/s: a rate is a positive number" -r -f rate.dat --rate 0/s
bad_input 2 "--rate: needs a test" -T --rate 5k
bad_input 2 "--sweep and --rate: the sweep sets its own rates" -r -f rate.dat --sweep --rate 5k
bad_input 2 "--sweep: needs a test" -T --sweep
bad_input 2 "--sweep and --verify" -w -f rate.dat --sweep --verify
bad_input 2 "--sweep and --start-at" -r -f rate.dat --sweep --start-at +5
bad_input 2 "--quick and --sweep" --quick -f . --sweep
rm -f rate.dat rate.html

blkio=/sys/fs/cgroup/blkio
if [ "$(id -u)" != 0 ] || [ ! -w "$blkio/cgroup.procs" ] || [ ! -e "$blkio/blkio.throttle.read_iops_device" ]; then
	skipped "rate: --rate and --sweep against a throttled loop device" "needs root and cgroup v1 blkio"
elif ! truncate -s 64m rate.img || ! loop=$(losetup -f --show rate.img 2>/dev/null); then
	skipped "rate: --rate and --sweep against a throttled loop device" "losetup failed"
	rm -f rate.img
else
	limit=1000
	cg=$blkio/sdb-cli-rate-$$
	mkdir "$cg"
	echo "$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ') $limit" >"$cg/blkio.throttle.read_iops_device"
	# throttled ARGS...: run sdb inside the cgroup (sets $rc, $out, $err).
	throttled() {
		out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" "$@") 2>"$work/.err"); rc=$?
		err=$(cat "$work/.err")
	}
	# A loaded machine can stall sdb's thread past a second once (then the
	# load was not met, truly): up to three tries, each shown.
	for try in 1 2 3; do
		throttled -r -f "$loop" -b 4k -m rand -D -t 3 --rate $((limit / 2)) --json
		half=$(jq -r '"\(.rate.met) \(.rate.achieved / .rate.offered | . >= 0.98 and . <= 1.02)"' <<<"$out")
		[ "$half" = "true true" ] && break
		echo "     (try $try at half the throttle: $(jq -c .rate <<<"$out"))"
	done
	check "--rate at half the throttle: met, achieved within 2% of offered" "0 true true" "$rc $half"
	throttled -r -f "$loop" -b 4k -m rand -D -t 3 --rate $((limit * 2)) --json
	check "--rate at twice the throttle: not met, and said so in the warnings" "0 false true" \
		"$rc $(jq -r '"\(.rate.met) \([.warnings[] | contains("the offered load was not met")] | any)"' <<<"$out")"
	check "--rate at twice the throttle: the queue shows (p99 from the due time over 10x the service p99, behind over 0.5 s)" \
		"true true" "$(jq -r '"\(.total.latency_ns.p99 > 10 * .total.service_ns.p99) \(.rate.behind_seconds > 0.5)"' <<<"$out")"
	contains "--rate at twice the throttle: the warning on stderr" "$err" "sdb: warning: --rate: the offered load was not met"
	throttled -r -f "$loop" -b 4k -m rand -D -t 3 -q 4 --rate $((limit * 2)) --json
	check "--rate -q 4 at twice the throttle: not met, latency far above service" "0 false true" \
		"$rc $(jq -r '"\(.rate.met) \(.total.latency_ns.p99 > 10 * .total.service_ns.p99)"' <<<"$out")"
	# The knee: a throttle serves up to its limit and then queues, so p99
	# doubles at the step that offers the limit (the closed loop measures
	# the limit and the throttle's first burst: up to several % over it).
	# What the test cannot control: a loaded machine's stall, or the
	# throttle's own (a bio held to its next 100 ms slice), doubles a
	# lighter step's p99 now and then (against a lightest p99 under 1 ms),
	# and a closed loop that measured less than the limit leaves the 100%
	# step short of it, where a throttle queues nothing.  So: up to three
	# tries, each shown; a knee between 70% and 110% passes; a knee past
	# 110% of the limit (a load the device cannot carry called fine) fails
	# at once; tries that only met the noise say skipped, not passed.
	knee=noise
	for try in 1 2 3; do
		throttled -r -f "$loop" -b 4k -m rand -D -t 3 --sweep --json
		knee=$(jq -r --argjson limit $limit '(.knee.iops // 0) / $limit |
			if . > 1.1 then "past" elif . >= 0.7 then "near" else "noise" end' <<<"$out")
		[ "$knee" = noise ] || break
		echo "     (try $try: maximum $(jq -c .total.iops <<<"$out"), knee $(jq -c .knee <<<"$out"), p99s $(jq -c '[.sweep[].p99_ns / 1e6 | round]' <<<"$out") ms)"
	done
	if [ "$rc" = 0 ] && [ "$knee" = noise ]; then
		skipped "--sweep under the throttle: the knee near the limit" "three tries met only this machine's stalls (shown above)"
	else
		check "--sweep under the throttle: the knee between 70% and 100% of the limit (+10%: its burst)" "0 near" "$rc $knee"
	fi
	rmdir "$cg"
	release_image rate.img
fi
fi

# ------------------------------------------------------------ quick-flash
# --quick=flash: its first row writes until the write cache's cliff or the
# cap, once; the other rows run on what it wrote.  A steady disk under a
# small -s reaches the cap; tests/fakeflash.py in cliff mode (64 MiB at
# 80 MiB/s, then 16 MiB/s, 1 GiB claimed), behind a loop device, must have
# its cliff found within 5% of 64 MiB and the write stopped well before the
# 1 GiB cap (bytes written, from the JSON).
if section quick-flash; then
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
mkdir -p qf
run --quick=flash -f qf -s 64m -t 0.3 --runs 2 --json
check "--quick=flash to a cap of 64 MiB: exit 0, all of it written, no cliff, the rows on those 64 MiB" \
	"0 67108864 67108864 null 67108864" \
	"$rc $(jq -r '"\(.flash.cap_bytes) \(.flash.written_bytes) \(.cliff) \(.quick.size)"' <<<"$out")"
check "--quick=flash: its rows, the write to the cliff once, the others --runs times" \
	"SEQ1M Q1T1 write:1,SEQ1M Q1T1 read:2,RND4K Q1T1 write:2,RND4K Q1T1 read:2,RND4K Q32T1 write:2,RND4K Q32T1 read:2" \
	"$(jq -r '[.suite[] | "\(.name):\(.runs | length)"] | join(",")' <<<"$out")"
check "--quick=flash: the test file removed" "" "$(ls qf)"
run --quick=flash -f qf -s 64m -t 0.3 --runs 1
contains "--quick=flash: no cliff said in words" "$out" "Write to the cliff: 64 MiB of a 64 MiB cap in "
contains "--quick=flash: ... and that none was found" "$out" ": no cliff within 64 MiB ("
run --quick=flash -f qf -s 64m --explain
check "--quick=flash --explain: exit 0, six fio lines, the write to the cap and the rows on it" "0 6 1 5" \
	"$rc $(grep -c '^fio ' <<<"$out") $(grep -c '^fio --name=SEQ1M-Q1T1-write .*--rw=write --bs=1m --size=64m ' <<<"$out") $(grep -c '^fio --name=.*--size=64m .*--runtime=' <<<"$out")"
contains "--quick=flash --explain: says fio does not stop at the cliff" "$out" "fio has no such stop"
bad_input 2 "unknown profile (default, nvme, real, mix or flash)" --quick=flush -f qf
rmdir qf
if [ "$(id -u)" != 0 ] || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "--quick=flash on a drive whose cache fills" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	for form in json human; do
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((1 << 30)) $((64 << 20)) cliff 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && break; sleep 0.05; done
		loop=$(losetup -f --show ffmnt/disk)
		if [ $form = json ]; then
			run --quick=flash -f "$loop" --force -t 0.3 --runs 1 --json
			check "--quick=flash, a 64 MiB write cache: exit 0, the cliff within 5% of 64 MiB, slower after" "0 true true" \
				"$rc $(jq '.cliff.offset > 0.95 * 67108864 and .cliff.offset < 1.05 * 67108864' <<<"$out") $(jq '.cliff.after_bytes_per_second < 0.5 * .cliff.before_bytes_per_second' <<<"$out")"
			check "--quick=flash, a 64 MiB write cache: the cap 1 GiB, the write stopped before a quarter of it" "1073741824 true true" \
				"$(jq -r '"\(.flash.cap_bytes) \(.flash.written_bytes > 67108864) \(.flash.written_bytes < 268435456)"' <<<"$out")"
			check "--quick=flash: the rows ran on what the write wrote" "true" \
				"$(jq '.quick.size <= .flash.written_bytes and .quick.size > 67108864' <<<"$out")"
		else
			run --quick=flash -f "$loop" --force -t 0.3 --runs 1
			matches "--quick=flash: the cliff in words, a write cache of about 6x MiB" "$out" \
				"*Write to the cliff: * of a 1 GiB cap in *: the rate fell after *: a write cache of about 6[1-7] MiB*"
		fi
		losetup -d "$loop"; loop=
		unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null
	done
	rmdir ffmnt
fi
fi

# ------------------------------------------------------------ report-latency-pictures
# Issue 25: percentiles over time (timeline[].p50_ns, p99_ns) and the text
# report's latency distribution, for runs that show latency.
if section report-latency-pictures; then
run -r -f /dev/zero -s 64m -b 4k -m rand -t 2.5 --json
check "timeline: every step has p50_ns <= p99_ns, within the run's min and max" "0 true" \
	"$rc $(jq '.total.latency_ns as $l | [.timeline[] | .p50_ns <= .p99_ns and .p50_ns >= $l.min * 0.9 and .p99_ns <= $l.max * 1.1] | all and length >= 5' <<<"$out")"
check "timeline: the steps' p50 near the run's (the buckets are under 6.3% wide)" true \
	"$(jq '.total.latency_ns.p50 as $p | [.timeline[] | .p50_ns] | sort | .[length / 2 | floor] | . >= $p * 0.5 and . <= $p * 2' <<<"$out")"
run -w -f lat.file -s 16m -b 4k -t 2 --fsync 64 --json
check "timeline: a sequential write with --fsync has percentiles too (null in a step where no write ended)" "0 true" \
	"$rc $(jq '[.timeline[] | select(.p99_ns != null)] | length > 0 and all(.[]; .p99_ns > 0 and .p50_ns <= .p99_ns)' <<<"$out")"
run -r -f /dev/zero -s 64m -b 4k -m rand -t 2.2 -j 2
ios=$(sed -n 's/^Latency distribution (\([0-9]*\) I\/Os):$/\1/p' <<<"$out")
loops=$(sed -n 's/^Total (2 threads): .* in \([0-9]*\) loops.*/\1/p' <<<"$out")
check "distribution: counts every I/O of the Total" "$loops" "$ios"
bars=$(sed -n '/^Latency distribution/,/^[^ ]/p' <<<"$out" | grep '^  ')
check "distribution: 1 to 8 lines, each a range, a bar and a share" true \
	"$(n=$(wc -l <<<"$bars"); [ "$n" -ge 1 ] && [ "$n" -le 8 ] && ! grep -qv '^ *[0-9.]* [nmu]*s - [0-9.]* [nmu]*s  *[#.]* *[0-9.]*%' <<<"$bars" && echo true)"
check "distribution: the shares add up to 100%" true \
	"$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /%$/) s += $i} END {print (s > 99.5 && s < 100.5) ? "true" : s}' <<<"$bars")"
check "distribution: p50, p99 and p99.9 each marked once" "1 1 1" \
	"$(for m in p50 p99 p99.9; do grep -c " $m\( \|$\)" <<<"$bars"; done | tr '\n' ' ' | sed 's/ $//')"
matches "distribution: a p99 line under the Timeline" "$out" "*Timeline: *
p99 latency: * min *, max *"
run -r -f /dev/zero -s 64m -b 1m -t 2.2
lacks "distribution: none for a sequential read, which shows no latency" "$out" "Latency distribution"
lacks "distribution: no p99 line for it either" "$out" "p99 latency"
rm -f lat.file
fi

# ------------------------------------------------------------ html-modes
# Issue 25: --html with --quick, --merge, --hosts and --compare: one page
# each, nothing outside it, the document it embeds the --json one of stdout,
# the bars it promises (a bar per test, per host, old and new).
if section html-modes; then
mkdir -p hm
# page_checks NAME PAGE MAX-BYTES: the page's shape; the embedded document in $embedded.
page_checks() {
	check "$1: the page written, under $3 bytes" true "$([ -s "$2" ] && [ "$(size_of "$2")" -lt "$3" ] && echo true)"
	embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' "$2" | sed '1d;$d' | sed 's|<\\/|</|g')
	check "$1: the embedded JSON parses" true "$(jq -e . <<<"$embedded" >/dev/null && echo true)"
	check "$1: no http:// or https:// src or href" 0 "$(grep -Eci '(src|href)="?https?:' "$2")"
	lacks "$1: no script but the data" "$(grep -v 'id="sdb-result"' "$2")" "<script"
	if command -v xmllint >/dev/null; then
		check "$1: xmllint --html accepts it (but for SVG's tags, HTML4's unknowns)" "0 0" \
			"$(xmllint --html --noout "$2" 2>"$work/hm/lint"; echo "$?") $(grep 'parser error' "$work/hm/lint" | grep -vc 'Tag [a-z]* invalid')"
	else
		skipped "$1: xmllint --html" "needs xmllint (libxml2-utils)"
	fi
}
# The quick suite: a bar per test in each of its two charts.
run --quick=real -f hm -s 64m -t 0.3 --runs 2 --json --html hm/quick.html
check "--quick --html --json: exit 0" 0 "$rc"
page_checks "--quick --html" hm/quick.html 300000
check "--quick --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
tests=$(jq '.suite | length' <<<"$out")
check "--quick --html: a bar per test, for MiB/s and for IOPS" "$((2 * tests))" "$(grep -o 'class="hbar [a-z]*"' hm/quick.html | wc -l)"
check "--quick --html: the writes' bars apart" "$(jq '[.suite[] | select(.op == "write")] | length * 2' <<<"$out")" \
	"$(grep -o 'class="hbar write"' hm/quick.html | wc -l)"
run --quick=real -f hm -s 64m -t 0.3 --runs 1 --html hm/quick2.html
contains "--quick --html: the human table unchanged beside it" "$out" "SEQ1M Q1T1 write"
check "--quick --html without --json: the page still carries the document" true \
	"$(sed -n '/id="sdb-result"/,/<\/script>/p' hm/quick2.html | sed '1d;$d' | jq -e '.suite | length > 0' 2>/dev/null)"
# A merge of three runs: a bar per host.
for h in 1 2 3; do "$sdb" -r -f /dev/zero -s 32m -b 4k -m rand -t 0.5 --json >"hm/h$h.json" 2>/dev/null; done
run --merge hm/h1.json hm/h2.json hm/h3.json --json --html hm/merge.html
check "--merge --html --json: exit 0" 0 "$rc"
page_checks "--merge --html" hm/merge.html 300000
check "--merge --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--merge --html: a bar per host, for rate and for p99" 6 "$(grep -o 'class="hbar [a-z]*"' hm/merge.html | wc -l)"
check "--merge --html: each straggler in red" "$(jq '.fleet.stragglers | length * 2' <<<"$out")" \
	"$(grep -o 'class="hbar slow"' hm/merge.html | wc -l)"
run --merge hm/h1.json hm/h2.json --html hm/merge2.html
contains "--merge --html: the human report unchanged beside it" "$out" "Total"
check "--merge --html: the page written without --json" true "$([ -s hm/merge2.html ] && echo true)"
# --compare: old and new, each change with its interval.
run --compare hm/h1.json hm/h2.json --json --html hm/cmp.html
check "--compare --html --json: exit 0" 0 "$rc"
page_checks "--compare --html" hm/cmp.html 300000
check "--compare --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--compare --html: old and new bars for rate, IOPS and p99" "3 3" \
	"$(grep -o 'class="hbar old"' hm/cmp.html | wc -l) $(grep -o 'class="hbar new"' hm/cmp.html | wc -l)"
check "--compare --html: a whisker for each change with an interval" \
	"$(jq '[.compare[] | select(.low != null)] | length' <<<"$out")" "$(grep -o 'class="whisker"' hm/cmp.html | wc -l)"
# --hosts: the page is this side's; the remote runs are not told of it.
printf '#!/bin/sh\nshift\nprintf "%%s\\n" "$*" >>"%s/hm/ssh.log"\nexec sh -c "$*"\n' "$work" >hm/fakessh
chmod +x hm/fakessh
SDB_SSH=$work/hm/fakessh SDB_REMOTE=$sdb run --hosts "localhost:$work/hm/t1,localhost:$work/hm/t2" -w -s 4m -t 0.5 \
	--json --html hm/hosts.html
check "--hosts --html --json: exit 0, two hosts merged" "0 2" "$rc $(jq .total.hosts <<<"$out")"
page_checks "--hosts --html" hm/hosts.html 300000
check "--hosts --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--hosts --html: a bar per host for the rate" 2 "$(sed -n '/aria-label="MiB\/s per host"/,/<\/svg>/p' hm/hosts.html | grep -o 'class="hbar ' | wc -l)"
lacks "--hosts --html: the remote command has no --html" "$(cat hm/ssh.log)" "--html"
bad_input 2 "--html: draws a -w, -r or -M run" -T --html hm/x.html
bad_input 2 "--html: draws a -w, -r or -M run" --probe -f hm/t1 --html hm/x.html
rm -rf hm
fi

# ------------------------------------------------------------ run-watch
# Issue 25, item 4: on a terminal (script(1) gives one) the header comes
# before the run, a random run's status line has its IOPS, and the quick
# suite's table is printed row by row, each row once.
if section run-watch; then
if command -v script >/dev/null; then
	TERM=xterm script -qec "$sdb -r -f /dev/zero -s 64m -b 4k -m rand -t 1.5" /dev/null </dev/null | tr '\r' '\n' >watch.out
	first_status=$(grep -n 'ETA' watch.out | head -n 1 | cut -d: -f1)
	header=$(grep -n '^sdb 0.1.0: read rand' watch.out | cut -d: -f1)
	check "on a terminal: the header once, before the first status line" true \
		"$([ "$(wc -l <<<"$header")" = 1 ] && [ -n "$first_status" ] && [ "$header" -lt "$first_status" ] && echo true)"
	matches "on a terminal: a random run's status line has its IOPS" "$(grep ETA watch.out | head -n 1)" "*/s  * IOPS  *s  ETA *"
	TERM=xterm script -qec "$sdb -r -f /dev/zero -s 64m -b 1m -t 1.5" /dev/null </dev/null | tr '\r' '\n' >watch.out
	lacks "on a terminal: a sequential run's status line has none" "$(grep ETA watch.out)" "IOPS"
	mkdir -p wq
	TERM=xterm script -qec "$sdb --quick=real -f wq -s 64m -t 0.3 --runs 1" /dev/null </dev/null | tr '\r' '\n' >watch.out
	check "on a terminal: the quick table's heading, each of its 4 rows and the footer once" "1 1 1 1 1 1" \
		"$(for r in '^.*Test  ' '^.*SEQ1M Q1T1 write ' '^.*SEQ1M Q1T1 read ' '^.*RND4K Q1T1 write ' '^.*RND4K Q1T1 read ' '^.*One run per test'; do
			grep -c "$r" watch.out; done | tr '\n' ' ' | sed 's/ $//')"
	rm -rf wq watch.out
else
	skipped "run-watch" "needs script(1)"
fi
fi

# ------------------------------------------------------------ uring-pinned
# Where every I/O of a ring goes to the kernel's io-wq workers (zram has no
# FMODE_NOWAIT) and each wait is for one completion (-q 2 to 7), the thread
# is held to a CPU of its own and its workers to the others; the report
# says so on the thread's line.  Nowhere else: not at -q 8, not with more
# threads than CPUs, not with one CPU, not on a file that can say "would
# block" (the ring does its I/O itself there).
if section uring-pinned; then
	pn_dir=$work/uring-pinned
	mkdir -p "$pn_dir"
	head -c $((8 << 20)) /dev/urandom >"$pn_dir/f"
	run -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f "$pn_dir/f"
	check "uring-pinned: -q 4 on a file the ring reads itself: exit 0, not pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
	cpus=$(nproc)
	if [ "$(id -u)" != 0 ] || [ ! -r /sys/class/zram-control/hot_add ] || [ "$cpus" -lt 2 ]; then
		skipped "uring-pinned: zram" "needs root, zram-control and 2 CPUs"
	else
		pz=$(cat /sys/class/zram-control/hot_add)
		echo 64M >/sys/block/zram$pz/disksize
		dd if="$pn_dir/f" of=/dev/zram$pz bs=1M count=8 oflag=direct status=none
		run -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f /dev/zram$pz
		matches "uring-pinned: zram -q 4: the thread is pinned" "$(grep '^Thread' <<<"$out")" 'Thread  0 (CPU: *, pinned): *'
		run -r -D -m rand -b 4k -q 4 -j 2 -s 4m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 4 -j 2: each thread pinned, to CPUs of their own" "2 2" \
			"$(grep -c '^Thread.*, pinned)' <<<"$out") $(sed -n 's/^Thread .*(CPU: *\([0-9]*\), pinned).*/\1/p' <<<"$out" | sort -u | wc -l)"
		run -r -D -m rand -b 4k -q 8 -s 8m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 8 (a wait for two): exit 0, not pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
		run -r -D -m rand -b 4k -q 4 -j $((cpus + 1)) -s 1m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 4 -j $((cpus + 1)), more threads than CPUs: exit 0, none pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
		out=$(taskset -c 0 "$sdb" -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f /dev/zram$pz 2>/dev/null)
		check "uring-pinned: zram -q 4 on one CPU (taskset): not pinned" "Thread 0" "$(grep -o '^Thread' <<<"$out") $(grep -c ', pinned)' <<<"$out")"
		# While it runs: the I/O thread may run on one CPU, its io-wq
		# workers (iou-wrk-TID) on none of that one's.
		"$sdb" -r -D -m rand -b 4k -q 4 -s 8m -t 3 -f /dev/zram$pz >"$pn_dir/out" 2>/dev/null &
		pid=$!
		io_workers() { grep -qs '^iou-wrk' /proc/"$pid"/task/*/comm; }
		wait_for "$pid" io_workers
		mask() { sed -n 's/^Cpus_allowed:\s*//p' "$1" | tr -d ,; }
		own="" wq=0 nwq=0
		for t in /proc/"$pid"/task/*; do
			m=$(mask "$t/status")
			[ -n "$m" ] || continue
			case $(cat "$t/comm" 2>/dev/null) in
			iou-wrk*) wq=$((wq | 0x$m)) nwq=$((nwq + 1)) ;;
			*) [ $((0x$m & (0x$m - 1))) = 0 ] && own=$((0x$m)) ;;
			esac
		done
		wait "$pid"
		check "uring-pinned: while it runs, the thread on one CPU, its io-wq workers on the others only" "true true" \
			"$([ -n "$own" ] && echo true || echo false) $([ "$nwq" -gt 0 ] && [ "$wq" != 0 ] && [ $((wq & ${own:-0})) = 0 ] && echo true || echo false)"
		echo 1 >/sys/block/zram$pz/reset
		echo "$pz" >/sys/class/zram-control/hot_remove
	fi
	rm -rf "$pn_dir"
fi

# ------------------------------------------------------------ cpu-per-io
# The CPU per I/O: JSON cpu.ns_per_io is the window's user + system time
# over its I/Os; -v prints it in microseconds, with cycles or why not.
if section cpu-per-io; then
	cp_dir=$work/cpu-per-io
	mkdir -p "$cp_dir"
	head -c $((16 << 20)) /dev/urandom >"$cp_dir/f"
	run --json -r -m rand -b 4k -q 4 -s 16m -t 0.5 -f "$cp_dir/f"
	check "cpu-per-io: a -q 4 run: exit 0, ns_per_io a positive number" "0 true" \
		"$rc $(jq '.cpu.ns_per_io | type == "number" and . > 0' <<<"$out")"
	check "cpu-per-io: ns_per_io is (user + system seconds) / total.ops, to the rounding" true \
		"$(jq '((.cpu.user_seconds + .cpu.system_seconds) * 1e9 / .total.ops) as $n |
			(.cpu.ns_per_io - $n) | fabs <= 0.001 * $n + 1' <<<"$out")"
	check "cpu-per-io: cycles_per_io is null or a positive number" true \
		"$(jq '.cpu.cycles_per_io | . == null or (type == "number" and . > 0)' <<<"$out")"
	run -v -r -m rand -b 4k -s 16m -t 0.3 -f "$cp_dir/f"
	matches "cpu-per-io: -v prints the CPU per I/O in us, with cycles or why not" \
		"$(grep '^CPU per I/O: ' <<<"$out")" "CPU per I/O: [0-9]*.[0-9][0-9] us, @(+([0-9]) cycles|cycles unavailable (no readable PMU))"
	run -r -m rand -b 4k -s 16m -t 0.3 -f "$cp_dir/f"
	lacks "cpu-per-io: without -v, no such line" "$out" "CPU per I/O"
	rm -rf "$cp_dir"
fi

# ------------------------------------------------------------ evict-held
# A read evicts its region first and says how much stayed cached: pages
# another process maps cannot be dropped.  The check is bounded (cachestat,
# or mincore sampled over a large region), and still tells half from none.
if section evict-held; then
	eh_dir=$work/evict-held
	mkdir -p "$eh_dir"
	if [[ $(stat -f -c %T "$eh_dir") == tmpfs || $(stat -f -c %T "$eh_dir") == ramfs ]] || ! command -v python3 >/dev/null; then
		skipped "evict-held" "needs python3 and a scratch directory on a disk (not tmpfs)"
	else
		head -c $((64 << 20)) /dev/urandom >"$eh_dir/f"
		sync "$eh_dir/f"
		python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 32 << 20, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))
open(sys.argv[2], "w").close()
time.sleep(60)' "$eh_dir/f" "$eh_dir/held" &
		eh_pid=$!
		for try in $(seq 100); do [ -e "$eh_dir/held" ] && break; sleep 0.1; done
		run --json -r -m rand -b 4k -t 0.3 -f "$eh_dir/f"
		pct=$(jq -r '.warnings[] | select(test("stayed in the page cache after eviction")) | capture(": (?<p>[0-9]+)% of the file").p' <<<"$out")
		check "evict-held: half the file mapped by another process: exit 0, the warning says about 50%" "0 true" \
			"$rc $( [ -n "$pct" ] && [ "$pct" -ge 40 ] && [ "$pct" -le 60 ] && echo true || echo "false ($pct)")"
		kill "$eh_pid"
		wait "$eh_pid" 2>/dev/null
		run --json -r -m rand -b 4k -t 0.3 -f "$eh_dir/f"
		check "evict-held: nobody holds it: exit 0, no such warning" "0 false" \
			"$rc $(jq '.warnings | any(test("stayed in the page cache"))' <<<"$out")"
	fi
	rm -rf "$eh_dir"
fi

# ------------------------------------------------------------ html-mix-ramp
# --html for a -M mix: its reads and writes apart, each side's percentiles
# (the JSON's total.read and total.write), beside the histogram of both
# together.  For a --ramp run, whose timeline starts at the ramp's end,
# the time charts say so under their axis.
if section html-mix-ramp; then
	mr_dir=$work/html-mix-ramp
	mkdir -p "$mr_dir"
	run -M 70 -f "$mr_dir/mixf" -s 16m -b 4k -m rand -t 0.5 --json --html "$mr_dir/mix.html"
	check "html-mix-ramp: a mix with --html: exit 0, the page written" "0 true" "$rc $([ -s "$mr_dir/mix.html" ] && echo true)"
	mr_bars=$(sed -n '/aria-label="Latency percentiles, reads and writes apart"/,/<\/svg>/p' "$mr_dir/mix.html")
	check "html-mix-ramp: a mix: a bar for the reads' and for the writes' p50, p99 and p99.9" "3 3 6" \
		"$(grep -c '>reads p[0-9.]*<' <<<"$mr_bars") $(grep -c '>writes p[0-9.]*<' <<<"$mr_bars") $(grep -o 'class="hbar [a-z]*"' <<<"$mr_bars" | wc -l)"
	# A bar's note ("162.3 us") in ns, within half its last digit (its
	# rounding: "1.23 ms" is 5 us either side) and 0.1% of the JSON's
	# figure, or what it was.
	mr_near() {
		local note ns
		note=$(grep -o ">$1 $2<.*" <<<"$mr_bars" | sed -n 's/.*class="tick">\([^<]*\)<.*/\1/p')
		ns=$(jq -r --arg n "$3" '.total.'"$4"'.latency_ns[$n]' <<<"$out")
		awk -v note="$note" -v ns="$ns" 'BEGIN { split(note, p, " "); m = p[2] == "us" ? 1e3 : p[2] == "ms" ? 1e6 : p[2] == "s" ? 1e9 : 1;
			dot = index(p[1], "."); half = (dot ? 10 ^ -(length(p[1]) - dot) : 1) * m / 2;
			d = p[1] * m - ns; print (note != "" && (d < 0 ? -d : d) <= 0.001 * ns + half) ? "near" : "\"" note "\" for " ns }'
	}
	check "html-mix-ramp: a mix: each side's p50 and p99 are the JSON's total.read and total.write" "near near near near" \
		"$(mr_near reads p50 p50 read) $(mr_near writes p50 p50 write) $(mr_near reads p99 p99 read) $(mr_near writes p99 p99 write)"
	matches "html-mix-ramp: a mix: each side's latency in words" "$(grep -A1 '^<p>Latency, reads: ' "$mr_dir/mix.html")" \
		'<p>Latency, reads: min *, p50 *, max *.<br>*Latency, writes: min *, p50 *, max *.</p>'
	run -r -f "$mr_dir/mixf" -s 16m -b 4k -m rand -t 0.5 --json --html "$mr_dir/read.html"
	check "html-mix-ramp: a read alone: its page has no sides" "0 0" "$rc $(grep -c 'reads and writes' "$mr_dir/read.html")"
	lacks "html-mix-ramp: no --ramp: no caption" "$(cat "$mr_dir/read.html")" 'class="caption"'
	run -r -f "$mr_dir/mixf" -s 16m -b 4k -m rand --ramp 0.5 -t 1 --json --html "$mr_dir/ramp.html"
	# (the last sample can come a tick after the window's end: 1.25 s, not
	# the 1.5 s of a timeline that held the ramp)
	check "html-mix-ramp: --ramp 0.5 -t 1: exit 0, its timeline from the ramp's end (0 to 1 s)" "0 true" \
		"$rc $(jq '.timeline[0].t > 0 and .timeline[0].t <= .timeline[-1].t and .timeline[-1].t <= 1.25' <<<"$out")"
	check "html-mix-ramp: --ramp: throughput, IOPS and percentiles over time each say the ramp is not drawn" 3 \
		"$(grep -c '<text [^>]*class="caption">0 s is the end of the 0.5 s ramp: the ramp is not timed and not drawn</text>' "$mr_dir/ramp.html")"
	check "html-mix-ramp: --ramp: the latency distribution has no caption" 0 \
		"$(sed -n '/aria-label="Latency distribution/,/<\/svg>/p' "$mr_dir/ramp.html" | grep -c 'class="caption"')"
	rm -rf "$mr_dir"
fi

# ------------------------------------------------------------ modes-blocked-stdout
# Every mode's report held by a full stdout pipe, as report-blocked-stdout
# holds a run's: --merge, --compare and the quick suite deliver their text
# while the signals are still watched, so INT or TERM ends sdb (128 + n,
# one line on stderr says the report is cut short) and a reader that goes
# away is exit 141.  The pipe is a FIFO whose reader never reads.  --merge
# and --compare print more than the pipe takes; the sign that they have
# reached their report is 64 KiB written (wchar of /proc/PID/io, which
# counts their stderr too: a signal a little before the pipe is full is
# still one while the report is written).  The quick suite's document is
# smaller than the pipe, so the test fills the pipe first; the sign is that
# its test file is gone, which the suite does just before its report.
# Each check wants the sign seen, the exit status and (but for PIPE) the
# line that says the report is cut short, once.
if section modes-blocked-stdout; then
no_quick_file() { ! compgen -G "$1/sdb-quick.*" >/dev/null; }
mb_dir=$work/modes-blocked
mkdir -p "$mb_dir/q"
"$sdb" -r -f /dev/zero -s 4m -b 4k -m rand -t 0.2 --json >"$mb_dir/a.json" 2>/dev/null
# 20 documents of 20 hosts (JSON: about 160 KB merged), 400 for the human
# report (about 80 KB); two quick-suite documents of 2000 tests each.
jq -c '. as $d | range(20) | . as $i | $d | .host = "host\($i)"' "$mb_dir/a.json" >"$mb_dir/m20.json"
jq -c '. as $d | range(400) | . as $i | $d | .host = "host\($i)"' "$mb_dir/a.json" >"$mb_dir/m400.json"
for v in old:1 new:2; do
	jq -n --argjson k "${v#*:}" '{version: "0.1.0", host: "h", suite: [range(2000) | {name: "test \(.)",
		runs: [{bytes_per_second: (1e6 * $k), iops: (100 * $k), p99_ns: 1000}, {bytes_per_second: (1.1e6 * $k),
		iops: (110 * $k), p99_ns: 1100}]}]}' >"$mb_dir/${v%:*}.json"
done
if [ ! -r /proc/self/io ]; then
	skipped "every mode's report held by a full pipe" "no /proc/PID/io"
else
	for mode in merge merge-human compare; do
		case $mode in
		merge) args=(--merge "$mb_dir/m20.json" --json) ;;
		merge-human) args=(--merge "$mb_dir/m400.json") ;;
		compare) args=(--compare "$mb_dir/old.json" "$mb_dir/new.json") ;;
		esac
		for how in INT TERM PIPE; do
			rm -f held.fifo && mkfifo held.fifo
			"$sdb" "${args[@]}" >held.fifo 2>held.err &
			pid=$!
			exec 3<held.fifo	# the reader: it never reads
			if wait_for $pid wrote $pid 65536; then state=held; else state="not held"; fi
			end_held $pid $how
			said=$(grep -c "^sdb: interrupted by SIG$how while standard output took the report: it is cut short$" held.err)
			[ $how = PIPE ] && want="$want 0" || want="$want 1"	# the line that says so, but for PIPE
			check "$mode: a report held by a full pipe (64 KiB taken), then $how: sdb ends, exit ${want% *}" \
				"held $want" "$state $rc $said"
		done
	done
	for how in INT TERM PIPE; do
		rm -f held.fifo && mkfifo held.fifo
		exec 3<>held.fifo	# the reader that never reads, and the pipe filled to the brim
		dd if=/dev/zero of=held.fifo bs=4096 count=1024 oflag=nonblock 2>/dev/null
		"$sdb" --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1 --json >held.fifo 2>held.err 3<&- &
		pid=$!
		if wait_for $pid quick_file "$mb_dir/q" 1 && wait_for $pid no_quick_file "$mb_dir/q"; then
			state=held
		else
			state="not held"
		fi
		end_held $pid $how
		said=$(grep -c "^sdb: interrupted by SIG$how while standard output took the report: it is cut short$" held.err)
		[ $how = PIPE ] && want="$want 0" || want="$want 1"
		check "quick suite: its document held by a full pipe, then $how: sdb ends, exit ${want% *}, no test file" \
			"held $want " "$state $rc $said $(ls "$mb_dir/q")"
	done
	rm -f held.fifo held.err
fi
# A reader that reads gets the whole, valid output, exit 0.
run --merge "$mb_dir/m20.json" --json
check "merge --json to a reader that reads: whole, valid JSON, exit 0" "0 20" "$rc $(jq '.hosts | length' <<<"$out")"
run --merge "$mb_dir/m400.json"
check "merge to a reader that reads: every host's line and the Fleet line, exit 0" "0 400 1" \
	"$rc $(grep -c '^Host host' <<<"$out") $(grep -c '^Fleet: ' <<<"$out")"
run --compare "$mb_dir/old.json" "$mb_dir/new.json" --json
check "compare --json to a reader that reads: whole, valid JSON, exit 0" "0 6000" "$rc $(jq '.compare | length' <<<"$out")"
run --compare "$mb_dir/old.json" "$mb_dir/new.json"
check "compare to a reader that reads: every test's three lines, exit 0" "0 6000 test 1999" \
	"$rc $(grep -c '^  \(rate\|IOPS\|p99\) ' <<<"$out") $(grep '^test' <<<"$out" | tail -1)"
run --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1 --json
check "quick suite --json to a reader that reads: whole, valid JSON, exit 0" "0 4" "$rc $(jq '.suite | length' <<<"$out")"
run --quick=real -f "$mb_dir/q" -t 0.1 -s 16m --runs 1
check "quick suite to a reader that reads: the header, four rows, the footer, exit 0" "0 1 4 1" \
	"$rc $(grep -c '^sdb .* quick suite: ' <<<"$out") $(grep -c '^SEQ\|^RND' <<<"$out") $(grep -c '^One run per test' <<<"$out")"
rm -rf "$mb_dir"
fi

# A read leaves the file's access time as it was (O_NOATIME), where the
# mount would update it: relatime updates an atime older than a day.
if section read-noatime; then
na_dir=$(mktemp -d "$PWD/noatime.XXXXXX")
"$sdb" -w -f "$na_dir/f" -s 4m -b 1m >/dev/null 2>&1
touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
before=$(stat -c %X "$na_dir/f")
opts=$(findmnt -n -o OPTIONS -T "$na_dir" 2>/dev/null)
if [[ ",$opts," == *,noatime,* ]]; then
	skipped "read-noatime: a read leaves the atime" "mounted noatime: no read changes it"
else
	cat "$na_dir/f" >/dev/null
	if [ "$(stat -c %X "$na_dir/f")" = "$before" ]; then
		skipped "read-noatime: a read leaves the atime" "this mount ($opts) did not update an old atime on cat either"
	else
		touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
		run -r -f "$na_dir/f" -b 1m
		check "read-noatime: sdb -r leaves an old atime as it was (cat changes it), exit 0" "0 $before" "$rc $(stat -c %X "$na_dir/f")"
		touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
		run -M 50 -f "$na_dir/f" -s 4m -b 1m -R
		check "read-noatime: sdb -M 50 leaves it too" "0 $before" "$rc $(stat -c %X "$na_dir/f")"
	fi
fi
rm -rf "$na_dir"
fi

echo "cli: $pass passed, $fail failed, $skip skipped"
echo "cli: $pass $fail $skip" >>"$counts"
[ "$fail" -eq 0 ]
