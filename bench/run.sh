#!/bin/bash
# bench/run.sh - sdb side by side with fio, dd and a minimal loop (issue 6).
#
# A benchmark, not a test: it never fails on a slow result, it prints a table.
# Every case runs each tool on the same file, with the same block size, the
# same duration (or the same bytes) and the same cache state, alternating the
# tools A B C A B C ... BENCH_PAIRS times, and reports the median of each tool,
# the ratio sdb/peer and the ratio sdb/limit, where the limit is the minimal
# loop (bench/loop.c; bench/uring.c for io_uring; /bin/true for start-up):
# what no tool can beat here.  The fast-device cases (fast_*) run on a zram
# device of their own when root, where the tool rather than the device is
# the bottleneck; otherwise they are skipped, and say so.
#
# The map: CASES (the one table: a case is its lines there, nothing else) ->
# tools and scratch files -> one run of one tool (sdb_run, fio_run, ...) ->
# run_case (alternates a case's tools) -> median -> print_table and
# print_runs (both read CASES) -> main.
#
#   make bench            or    bash bench/run.sh      (from the repo root)
#
# Environment:
#   BENCH_PAIRS=3         rounds of alternated runs per case
#   BENCH_SECONDS=4       length of each timed run (whole seconds)
#   BENCH_CACHE_SIZE=1g   working set of the page-cache cases
#   BENCH_DISK_SIZE=4g    test file of the on-disk cases (one pass = one run)
#   BENCH_STARTS=20       runs of the start-up case
#   BENCH_CASES=          the cases to run, e.g. "rand_cached seq_read" (default all)
#   BENCH_FAST_SIZE=1g    bytes of the fast device (a zram device of its own,
#                         made and removed by this script; root only)
#   BENCH_TIO=            a built t/io_uring (fio's raw loop), the fast_u* cases' limit
#   BENCH_FIO_SRC=        or a fio source tree to build it in
#   BENCH_DIR=            scratch parent (default /var/tmp, else the repo's
#                         parent; never a memory-backed file system)
#
# Progress and per-run values go to stderr; the table goes to stdout.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
export LC_ALL=C

PAIRS=${BENCH_PAIRS:-3}
SECS=${BENCH_SECONDS:-4}
CACHE_SIZE=${BENCH_CACHE_SIZE:-1g}
DISK_SIZE=${BENCH_DISK_SIZE:-4g}
STARTS=${BENCH_STARTS:-20}
FAST_SIZE=${BENCH_FAST_SIZE:-1g}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SDB=$ROOT/sdb

say() { printf '%s\n' "$*" >&2; }
die() { say "bench: $*"; exit 1; }

to_bytes() {	# 4g -> 4294967296
	local n=${1%[kKmMgG]}
	case $1 in
	*[kK]) echo $((n << 10)) ;;
	*[mM]) echo $((n << 20)) ;;
	*[gG]) echo $((n << 30)) ;;
	*) echo "$1" ;;
	esac
}

case $PAIRS$SECS$STARTS in *[!0-9]*) die "BENCH_PAIRS, BENCH_SECONDS and BENCH_STARTS are whole numbers" ;; esac
CACHE_BYTES=$(to_bytes "$CACHE_SIZE")
DISK_BYTES=$(to_bytes "$DISK_SIZE")
FAST_BYTES=$(to_bytes "$FAST_SIZE")
FAST_HALF=$((FAST_BYTES / 2))
[ "$CACHE_BYTES" -le "$DISK_BYTES" ] || die "BENCH_CACHE_SIZE must not exceed BENCH_DISK_SIZE"

# ---- the cases ------------------------------------------------------------------
#
# One line per tool of a case, in the order the tools alternate; fields:
#   case   name of the case (results, the raw listing, BENCH_CASES)
#   unit   how its values print: IOPS, GiB/s, s, ms
#   tool   name of the tool's results within the case
#   role   sdb: the one measured (its label names the case's rows);
#          peer: one row of the table, sdb/peer; peer+cpu: that row and one
#          more with the CPU per I/O of the same runs; limit: the sdb/limit column
#   label  the row's label (sdb line) or the peer's name
#   run    a shell command, evaluated at run time, that prints "VALUE CPU" or n/a
#          (CPU: seconds per million I/Os, i.e. microseconds per I/O; OUTSIDE=1
#          measures it around the tool's processes instead of asking the tool)
# The page-cache cases warm the cache before every run (others on the machine
# may evict it), and pass --cached to sdb (which otherwise evicts before a
# read and per pass of -t) and --invalidate=0 to fio (which otherwise drops
# the cache); loop drops nothing.
# The start case runs BENCH_STARTS times, through hyperfine when installed.
# The fast cases read 4k at random, O_DIRECT, from $Z (BENCH_FAST_SIZE of
# random bytes on zram): 1 thread; 2 threads on their own halves (sdb -j 2,
# fio numjobs=2 offset_increment, two loops or uring -j 2); -q 32 against
# fio's io_uring engine and the raw io_uring loop bench/uring.c.  Their CPU
# is measured around the processes for every tool (OUTSIDE=1): io_uring
# hands I/O on zram to the kernel's io-wq worker threads, which fio's own
# accounting (its job thread's rusage) leaves out.
# fast_u* are the queued path at every depth (issue 28): sdb -q N against
# fio's io_uring engine at its best settings ($FIO_BEST: fixed buffers,
# registered files, no polling, no SQ thread) and fio's own raw loop
# t/io_uring (-p0 -O1 -F1 -B1 -R1, a submit and complete batch of a quarter
# of the depth), the limit; its I/Os are the zram device's reads
# completed during its run (it prints no total).  t/io_uring is not in
# Debian's fio: BENCH_TIO names a built one, or BENCH_FIO_SRC a fio source
# tree to build it in (./configure; make t/io_uring); else its column is n/a.
# etcd is etcd's disk check (its documentation's fio job): 2300-byte writes,
# each followed by an fdatasync, into a new file ($E, removed and the file
# system synced before every run); its value is the p99 of the syncs alone
# (sdb --fsync 1: threads[0].sync; fio: sync.lat_ns), not of the writes.
# mix is 70% reads and 30% writes of 4k at random, O_DIRECT, one thread, on
# the laid-out write target $W; its value is reads + writes a second.
CASES=$(cat <<'EOF'
rand_cached | IOPS  | sdb  | sdb      | 4k rand read, page cache, 1 thread     | warm; sdb_run iops -r --cached -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" -f "$F"
rand_cached | IOPS  | fio  | peer     | fio psync                              | warm; fio_run iops read --filename="$F" --rw=randread --bs=4k --ioengine=psync --invalidate=0 --size="$CACHE_BYTES" --time_based --runtime="$SECS"
rand_cached | IOPS  | loop | limit    | loop                                   | warm; loop_run iops -r -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" "$F"
seq_cached  | GiB/s | sdb  | sdb      | 1m seq read, page cache, 1 thread      | warm; sdb_run bps -r --cached -b 1m -s "$CACHE_SIZE" -t "$SECS" -f "$F"
seq_cached  | GiB/s | fio  | peer     | fio psync                              | warm; fio_run bps read --filename="$F" --rw=read --bs=1m --ioengine=psync --invalidate=0 --size="$CACHE_BYTES" --time_based --runtime="$SECS"
seq_cached  | GiB/s | loop | limit    | loop                                   | warm; loop_run bps -r -b 1m -s "$CACHE_SIZE" -t "$SECS" "$F"
scale       | IOPS  | j1   | peer     | sdb -j 1                               | warm; sdb_run iops -r --cached -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" -f "$F"
scale       | IOPS  | j2   | sdb      | 4k rand read, page cache, -j 2 vs -j 1 | warm; sdb_run iops -r --cached -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" -j 2 -f "$F"
seq_read    | GiB/s | sdb  | sdb      | 1m seq read, O_DIRECT, disk            | sdb_run bps -r -D -b 1m -s "$DISK_SIZE" -f "$F"
seq_read    | GiB/s | fio  | peer     | fio psync                              | fio_run bps read --filename="$F" --rw=read --bs=1m --ioengine=psync --direct=1 --size="$DISK_BYTES"
seq_read    | GiB/s | dd   | peer     | dd                                     | dd_run if="$F" of=/dev/null bs=1M count=$((DISK_BYTES >> 20)) iflag=direct
seq_read    | GiB/s | loop | limit    | loop                                   | loop_run bps -r -D -b 1m -s "$DISK_SIZE" "$F"
seq_write   | GiB/s | sdb  | sdb      | 1m seq write, O_DIRECT, disk           | sdb_run bps -w -D -R --force -b 1m -s "$DISK_SIZE" -f "$W"
seq_write   | GiB/s | fio  | peer     | fio psync                              | fio_run bps write --filename="$W" --rw=write --bs=1m --ioengine=psync --direct=1 --size="$DISK_BYTES" --end_fsync=1
seq_write   | GiB/s | dd   | peer     | dd                                     | dd_run if=/dev/zero of="$W" bs=1M count=$((DISK_BYTES >> 20)) oflag=direct conv=notrunc,fdatasync
seq_write   | GiB/s | loop | limit    | loop                                   | loop_run bps -w -D -y -b 1m -s "$DISK_SIZE" "$W"
rand_j32    | IOPS  | sdb  | sdb      | 4k rand read, O_DIRECT, -j 32          | sdb_run iops -r -D -m rand -b 4k -j 32 -t "$SECS" -f "$F"
rand_j32    | IOPS  | fio  | peer+cpu | fio numjobs=32                         | fio_run iops read --filename="$F" --rw=randread --bs=4k --ioengine=psync --direct=1 --numjobs=32 --group_reporting --size="$DISK_BYTES" --time_based --runtime="$SECS"
rand_q32    | IOPS  | sdb  | sdb      | 4k rand read, O_DIRECT, -q 32          | sdb_run iops -r -D -m rand -b 4k -q 32 -t "$SECS" -f "$F"
rand_q32    | IOPS  | fio  | peer+cpu | fio io_uring QD32                      | fio_run iops read --filename="$F" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1 --size="$DISK_BYTES" --time_based --runtime="$SECS"
quick       | s     | sdb  | sdb      | quick check -w -b 64m -s 256m -D -S    | rm -f "$Q"; sync; wall_run "$SDB" -w -f "$Q" -b 64m -s 256m -D -S
quick       | s     | fio  | peer     | fio same job                           | rm -f "$Q"; sync; wall_run fio --name=quick --filename="$Q" --rw=write --bs=64m --size=256m --direct=1 --sync=1 --end_fsync=1
fast_qd1    | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, QD1          | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -t "$SECS" -f "$Z"
fast_qd1    | IOPS  | fio  | peer+cpu | fio psync                              | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=psync --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_qd1    | IOPS  | loop | limit    | loop                                   | OUTSIDE=1 loop_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -t "$SECS" "$Z"
fast_j2     | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -j 2         | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_HALF" -j 2 -t "$SECS" -f "$Z"
fast_j2     | IOPS  | fio  | peer+cpu | fio psync numjobs=2                    | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=psync --direct=1 --numjobs=2 --group_reporting --size="$FAST_HALF" --offset_increment="$FAST_HALF" --time_based --runtime="$SECS"
fast_j2     | IOPS  | loop | limit    | 2 loops                                | OUTSIDE=1 loop_run iops -2 -r -D -m rand -b 4k -s "$FAST_SIZE" -t "$SECS" "$Z"
fast_q32    | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 32        | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 32 -t "$SECS" -f "$Z"
fast_q32    | IOPS  | fio  | peer+cpu | fio io_uring QD32                      | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_q32    | IOPS  | uring| limit    | uring                                  | OUTSIDE=1 uring_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 32 -t "$SECS" "$Z"
fast_q32j2  | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 32 -j 2   | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_HALF" -q 32 -j 2 -t "$SECS" -f "$Z"
fast_q32j2  | IOPS  | fio  | peer+cpu | fio io_uring QD32 numjobs=2            | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --direct=1 --numjobs=2 --group_reporting --size="$FAST_HALF" --offset_increment="$FAST_HALF" --time_based --runtime="$SECS"
fast_q32j2  | IOPS  | uring| limit    | uring -j 2                             | OUTSIDE=1 uring_run iops -r -D -m rand -b 4k -s "$FAST_HALF" -q 32 -j 2 -t "$SECS" "$Z"
fast_u1     | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 1         | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 1 -t "$SECS" -f "$Z"
fast_u1     | IOPS  | fio  | peer+cpu | fio io_uring best, QD1                 | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=1 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u1     | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 1 -s 1 -c 1 -n1
fast_u4     | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 4         | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 4 -t "$SECS" -f "$Z"
fast_u4     | IOPS  | fio  | peer+cpu | fio io_uring best, QD4                 | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=4 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u4     | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 4 -s 1 -c 1 -n1
fast_u16    | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 16        | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 16 -t "$SECS" -f "$Z"
fast_u16    | IOPS  | fio  | peer+cpu | fio io_uring best, QD16                | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=16 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u16    | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 16 -s 4 -c 4 -n1
fast_u32    | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 32        | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 32 -t "$SECS" -f "$Z"
fast_u32    | IOPS  | fio  | peer+cpu | fio io_uring best, QD32                | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u32    | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 32 -s 8 -c 8 -n1
fast_u128   | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 128       | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 128 -t "$SECS" -f "$Z"
fast_u128   | IOPS  | fio  | peer+cpu | fio io_uring best, QD128               | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=128 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u128   | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 128 -s 32 -c 32 -n1
fast_u256   | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 256       | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_SIZE" -q 256 -t "$SECS" -f "$Z"
fast_u256   | IOPS  | fio  | peer+cpu | fio io_uring best, QD256               | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=256 $FIO_BEST --direct=1 --size="$FAST_BYTES" --time_based --runtime="$SECS"
fast_u256   | IOPS  | tio  | limit    | t/io_uring                             | OUTSIDE=1 tio_run -d 256 -s 32 -c 32 -n1
fast_u32j2  | IOPS  | sdb  | sdb      | fast: 4k rand read, zram, -q 32 -j 2   | OUTSIDE=1 sdb_run iops -r -D -m rand -b 4k -s "$FAST_HALF" -q 32 -j 2 -t "$SECS" -f "$Z"
fast_u32j2  | IOPS  | fio  | peer+cpu | fio io_uring best, QD32 numjobs=2      | OUTSIDE=1 fio_run iops read --filename="$Z" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 $FIO_BEST --direct=1 --numjobs=2 --group_reporting --size="$FAST_HALF" --offset_increment="$FAST_HALF" --time_based --runtime="$SECS"
fast_u32j2  | IOPS  | tio  | limit    | t/io_uring -n2                         | OUTSIDE=1 tio_run -d 32 -s 8 -c 8 -n2
etcd        | ms    | sdb  | sdb      | etcd: 2300 B writes + fdatasync, p99   | rm -f "$E"; sync; sdb_run sync_p99 -w -R -b 2300 -s 22m --fsync 1 -f "$E"
etcd        | ms    | fio  | peer     | fio sync fdatasync=1                   | rm -f "$E"; sync; fio_run sync_p99 write --filename="$E" --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300
mix         | IOPS  | sdb  | sdb      | 4k rand 70% read, O_DIRECT, 1 thread   | sdb_run iops -M 70 -m rand -b 4k -D -R --force -s "$DISK_SIZE" -t "$SECS" -f "$W"
mix         | IOPS  | fio  | peer     | fio psync randrw rwmixread=70          | fio_run iops read+write --filename="$W" --rw=randrw --rwmixread=70 --direct=1 --bs=4k --ioengine=psync --size="$DISK_BYTES" --time_based --runtime="$SECS"
start       | ms    | sdb  | sdb      | start-up: sdb -V                       | wall_run "$SDB" -V
start       | ms    | fio  | peer     | fio --version                          | wall_run fio --version
start       | ms    | true | limit    | /bin/true                              | wall_run /bin/true
EOF
)

# The table as parallel arrays, one index per line; CASE_ORDER lists each case once.
T_CASE=() T_UNIT=() T_TOOL=() T_ROLE=() T_LABEL=() T_RUN=() CASE_ORDER=()
trim() { local x=${1#"${1%%[![:space:]]*}"}; printf '%s' "${x%"${x##*[![:space:]]}"}"; }
while IFS='|' read -r c u t r l cmd; do
	c=$(trim "$c")
	case " ${BENCH_CASES:-$c} " in *" $c "*) ;; *) continue ;; esac
	[ "${CASE_ORDER[*]: -1}" = "$c" ] || CASE_ORDER+=("$c")
	T_CASE+=("$c") T_UNIT+=("$(trim "$u")") T_TOOL+=("$(trim "$t")")
	T_ROLE+=("$(trim "$r")") T_LABEL+=("$(trim "$l")") T_RUN+=("$(trim "$cmd")")
done <<<"$CASES"
for c in ${BENCH_CASES:-}; do
	[[ " ${CASE_ORDER[*]} " == *" $c "* ]] || die "BENCH_CASES: no case $c in the table"
done

# lines CASE [ROLE...]: the table's indexes of CASE's lines (with one of the
# roles, if given), in table order.
lines() {
	local c=$1 i r
	shift
	for i in "${!T_CASE[@]}"; do
		[ "${T_CASE[i]}" = "$c" ] || continue
		[ $# = 0 ] && { echo "$i"; continue; }
		for r in "$@"; do [ "${T_ROLE[i]}" = "$r" ] && echo "$i"; done
	done
}

# ---- tools ------------------------------------------------------------------

# need TOOL PACKAGE: a benchmark installs nothing; it says what is missing
# and where it comes from (Debian package names).
need() {
	command -v "$1" >/dev/null && return 0
	say "bench: $1 is missing: install it (Debian: apt-get install $2)"
	return 1
}

need jq jq || die "jq is needed to read the JSON reports"
need dd coreutils || die "dd is needed"
need column bsdextrautils || die "column is needed to print the table"
HAVE_FIO=1
need fio fio || { HAVE_FIO=0; say "bench: without fio its columns will be n/a"; }

make -C "$ROOT" sdb >&2 || { [ -x "$SDB" ] || die "cannot build sdb"; say "bench: build failed, using the existing $SDB"; }

# Scratch directory on a real disk, removed whatever happens.
pick_dir() {
	local base need=$((2 * DISK_BYTES + (512 << 20)))
	for base in ${BENCH_DIR:-} /var/tmp "$ROOT/.."; do
		[ -d "$base" ] && [ -w "$base" ] || continue
		case $(stat -f -c %T "$base") in tmpfs|ramfs) continue ;; esac
		[ "$(df -B1 --output=avail "$base" | tail -1)" -gt "$need" ] || continue
		mktemp -d "$base/sdb-bench.XXXXXX" && return 0
	done
	return 1
}
DIR=$(pick_dir) || die "no disk-backed directory with $((2 * DISK_BYTES >> 20)) MiB free (set BENCH_DIR)"
DIR=$(cd "$DIR" && pwd)
ZRAM=	# the number of the fast cases' zram device, while it exists
cleanup() {
	rm -rf "$DIR"
	if [ -n "$ZRAM" ]; then
		echo 1 >"/sys/block/zram$ZRAM/reset"
		echo "$ZRAM" >/sys/class/zram-control/hot_remove
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Measure one build from start to end: others may rebuild ./sdb meanwhile.
# (A scratch directory mounted noexec keeps the original.)
cp "$SDB" "$DIR/sdb" && "$DIR/sdb" -V >/dev/null 2>&1 && SDB=$DIR/sdb
"$SDB" -V >/dev/null || die "$SDB does not run"
LOOP=$ROOT/bench/loop
[ "$LOOP" -nt "$LOOP.c" ] || cc -O2 -o "$LOOP" "$LOOP.c" || die "cannot build bench/loop.c"
URING=$ROOT/bench/uring
[ "$URING" -nt "$URING.c" ] || cc -O2 -pthread -o "$URING" "$URING.c" || die "cannot build bench/uring.c"
FIO_BEST="--hipri=0 --fixedbufs=1 --registerfiles=1 --sqthread_poll=0"
TIO=${BENCH_TIO:-}
if [ -z "$TIO" ] && [ -n "${BENCH_FIO_SRC:-}" ]; then
	if [ -x "$BENCH_FIO_SRC/t/io_uring" ] ||
	   { (cd "$BENCH_FIO_SRC" && { [ -f config-host.mak ] || ./configure >/dev/null; } && make t/io_uring >/dev/null) >&2; }; then
		TIO=$BENCH_FIO_SRC/t/io_uring
	else
		say "bench: cannot build t/io_uring in $BENCH_FIO_SRC: its column will be n/a"
	fi
fi
F=$DIR/f	# BENCH_DISK_SIZE of pseudo-random bytes; F.0..F.31 are hard links to it
W=$DIR/w	# the write target, laid out before the first timed write
Q=$DIR/q	# the quick check's file, removed before every run
E=$DIR/e	# etcd's file, removed before every run
LOG=$DIR/log

# ---- one run of one tool: prints "VALUE CPU_S_PER_MIO_IO" or "n/a" ------------

# timed CMD...: CMD; with OUTSIDE set, the CPU time of its processes (user +
# system, every thread, the kernel's io-wq workers included, as the shell's
# children) goes to $DIR/cpu.time.
timed() {
	[ -n "${OUTSIDE:-}" ] || { "$@"; return; }
	local TIMEFORMAT='%U %S'
	{ time "$@" 2>&4; } 4>&2 2>"$DIR/cpu.time"
}

# cpu_per_io OPS OWN: microseconds of CPU per I/O, measured outside when
# OUTSIDE is set, else OWN (the tool's own figure, or -).
cpu_per_io() {
	if [ -n "${OUTSIDE:-}" ]; then
		awk -v ops="$1" '{ printf "%.4f\n", ($1 + $2) / ops * 1e6 }' "$DIR/cpu.time"
	else
		echo "$2"
	fi
}

fail() {	# fail TOOL STATUS: log the cause, print n/a
	say "    $1 failed (exit $2): $(tail -1 "$LOG" 2>/dev/null)"
	echo n/a
}

# sdb_run iops|bps|sync_p99 ARGS...: sdb --json, the tool's own totals and
# CPU use; sync_p99: the p99 of --fsync's syncs, in seconds (one thread).
# Its warnings are shown: one says when a --cached read found the file
# less than 90% cached, i.e. a page-cache row partly measured the disk.
sdb_run() {
	local metric=$1 out rc
	shift
	out=$(timed "$SDB" --json "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail sdb $rc; return; }
	grep '^sdb: warning' "$LOG" | grep -v 'memory-backed block device\|above .* memory' | sed 's/^/    /' >&2
	set -- $(jq -r --arg m "$metric" '
		(if $m == "iops" then .total.iops elif $m == "sync_p99" then .threads[0].sync.latency_ns.p99 / 1e9
		 else .total.bytes_per_second end) as $v |
		((.cpu.user_seconds + .cpu.system_seconds) / .total.ops * 1e6) as $c |
		"\($v) \($c) \(.total.ops)"' <<<"$out")
	echo "$1 $(cpu_per_io "$3" "$2")"
}

# fio_run iops|bps|sync_p99 read|write|read+write ARGS...: fio's JSON; with
# group_reporting jobs[0] is the sum; read+write adds the two directions.
# sync_p99: the p99 of its fsync/fdatasync calls, in seconds.  CPU:
# usr_cpu/sys_cpu are percent of job_runtime (ms, summed over jobs), so
# seconds = (usr+sys)/100 * job_runtime/1000.
fio_run() {
	local metric=$1 dir=$2 out rc
	shift 2
	out=$(timed fio --output-format=json --name=bench "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail fio $rc; return; }
	set -- $(sed -n '/^{/,$p' <<<"$out" | jq -r --arg m "$metric" --arg d "$dir" '
		.jobs[0] as $j | [$d | split("+")[] | $j[.]] as $io |
		($io | map(.total_ios) | add) as $ops |
		(if $m == "iops" then $io | map(.iops) | add elif $m == "sync_p99" then $j.sync.lat_ns.percentile["99.000000"] / 1e9
		 else $io | map(.bw_bytes) | add end) as $v |
		(($j.usr_cpu + $j.sys_cpu) / 100 * $j.job_runtime / 1000 / $ops * 1e6) as $c |
		"\($v) \($c) \($ops)"')
	echo "$1 $(cpu_per_io "$3" "$2")"
}

# loop_run iops|bps [-2] ARGS...: bench/loop.c; -2: two of them at once,
# their rates added.
loop_run() {
	local metric=$1 out rc
	shift
	if [ "$1" = -2 ]; then
		shift
		out=$(timed both "$LOOP" "$@" 2>"$LOG")
	else
		out=$(timed "$LOOP" "$@" 2>"$LOG")
	fi
	rc=$?
	[ $rc = 0 ] || { fail loop $rc; return; }
	limit_value "$metric" "$out"
}

# uring_run iops|bps ARGS...: bench/uring.c, which counts its CPU itself.
uring_run() {
	local metric=$1 out rc
	shift
	out=$(timed "$URING" "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail uring $rc; return; }
	limit_value "$metric" "$out"
}

# tio_run ARGS...: t/io_uring on $Z for SECS seconds; IOPS from the
# device's reads completed over the wall time of its process.
tio_run() {
	local r0 r1 t0 t1 rc ops
	[ -n "$TIO" ] || { say "    tio: no t/io_uring (set BENCH_TIO or BENCH_FIO_SRC)"; echo n/a; return; }
	r0=$(awk '{ print $1 }' "/sys/block/zram$ZRAM/stat")
	t0=${EPOCHREALTIME/./}
	timed "$TIO" "$@" -b 4096 -p0 -O1 -F1 -B1 -R1 -r "$SECS" "$Z" >"$LOG" 2>&1
	rc=$?
	t1=${EPOCHREALTIME/./}
	[ $rc = 0 ] || { fail tio $rc; return; }
	r1=$(awk '{ print $1 }' "/sys/block/zram$ZRAM/stat")
	ops=$((r1 - r0))
	echo "$(awk -v o=$ops -v d=$((t1 - t0)) 'BEGIN { printf "%.0f", o / (d / 1e6) }') $(cpu_per_io "$ops" -)"
}

# both CMD...: CMD twice at the same time; fails if either does.
both() {
	local a b
	"$@" & a=$!
	"$@" & b=$!
	wait $a && wait $b
}

# limit_value METRIC LINES: the sum of METRIC= over the lines of the limit
# loops, and their CPU per I/O (cpu_us= where given, else -).
limit_value() {
	local v ops own
	v=$(sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2" | awk '{ s += $1 } END { print s }')
	ops=$(sed -n 's/.*\bops=\([0-9]*\).*/\1/p' <<<"$2" | awk '{ s += $1 } END { print s }')
	own=$(sed -n 's/.*\bcpu_us=\([0-9.]*\).*/\1/p' <<<"$2" | head -1)
	echo "$v $(cpu_per_io "$ops" "${own:--}")"
}

# dd_run ARGS...: bytes/s from dd's own summary line (its clock starts after
# the opens and, with conv=fdatasync, ends after the fdatasync).
dd_run() {
	local out rc
	out=$(dd "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 0 ] || { printf '%s\n' "$out" >"$LOG"; fail dd $rc; return; }
	awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") print $1 / $(i - 1), "-" }' <<<"$out"
}

# wall_run CMD...: whole-process wall time in seconds (bash's EPOCHREALTIME,
# microseconds, read in the shell itself: no extra process inside the interval).
wall_run() {
	local t0 t1 rc
	t0=${EPOCHREALTIME/./}
	"$@" >/dev/null 2>"$LOG"
	rc=$?
	t1=${EPOCHREALTIME/./}
	[ $rc = 0 ] || { fail "$1" $rc; return; }
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f -\n", d / 1e6 }'
}

# warm: read the page-cache cases' working set, so that every one of their runs
# starts from the same cache (read twice: the second pass finds it all).
warm() {
	"$LOOP" -r -b 1m -s "$CACHE_SIZE" "$F" >/dev/null && "$LOOP" -r -b 1m -s "$CACHE_SIZE" "$F" >/dev/null
}

# The fast device: a zram device of its own (never one that exists: tests
# and swap use those), BENCH_FAST_SIZE of random bytes that do not
# compress, removed at exit.  Root only; otherwise FAST_SKIP says why not.
FAST_SKIP= Z=
fast_setup() {
	local n i
	[ "$(id -u)" = 0 ] || { FAST_SKIP="needs root (a zram device of its own)"; return; }
	[ -w /sys/class/zram-control/hot_add ] || { FAST_SKIP="no zram module loaded (modprobe zram)"; return; }
	n=$(cat /sys/class/zram-control/hot_add) || { FAST_SKIP="cannot add a zram device"; return; }
	ZRAM=$n Z=/dev/zram$n
	echo "$FAST_BYTES" >"/sys/block/zram$n/disksize" || { FAST_SKIP="cannot size $Z"; return; }
	for i in $(seq 50); do [ -b "$Z" ] && break; sleep 0.1; done
	"$LOOP" -w -D -F -b 16m -s "$FAST_SIZE" "$Z" >/dev/null || FAST_SKIP="cannot write $Z"
}

# ---- running a case -------------------------------------------------------------

RES=$DIR/results
mkdir -p "$RES"

# run_case CASE ROUNDS: alternate the case's tools ROUNDS times; each run's
# "VALUE CPU" goes to RES/CASE.TOOL.
run_case() {
	local case=$1 rounds=$2 r i v
	if [[ $case == fast_* ]] && [ -n "$FAST_SKIP" ]; then
		say "== $case: skipped: $FAST_SKIP"
		return
	fi
	say "== $case"
	for ((r = 1; r <= rounds; r++)); do
		for i in $(lines "$case"); do
			if [ "${T_TOOL[i]}" = fio ] && [ $HAVE_FIO = 0 ]; then
				v=n/a
			else
				v=$(eval "${T_RUN[i]}")
			fi
			printf '%s\n' "$v" >>"$RES/$case.${T_TOOL[i]}"
			[ "$rounds" -gt 5 ] || say "   ${T_TOOL[i]}: $v"
		done
	done
}

# Start-up: hyperfine -N (spawns the process directly, no shell) when it is
# installed, on the start lines' commands; otherwise run_case, whose
# EPOCHREALTIME also counts a fork of bash (several ms on a small VM:
# /bin/true is the floor).
run_start() {
	local tools=() cmds=() i n
	if ! command -v hyperfine >/dev/null; then
		STARTUP_METHOD="bash EPOCHREALTIME around each process, alternated (includes a fork of bash)"
		run_case start "$STARTS"
		return
	fi
	STARTUP_METHOD="hyperfine -N --warmup 3 --runs $STARTS (no shell; one command after the other)"
	for i in $(lines start); do
		[ "${T_TOOL[i]}" = fio ] && [ $HAVE_FIO = 0 ] && continue
		eval "set -- ${T_RUN[i]#wall_run }"
		tools+=("${T_TOOL[i]}") cmds+=("$(printf '%q ' "$@")")
	done
	say "== start"
	hyperfine -N --warmup 3 --runs "$STARTS" --export-json "$DIR/start.json" "${cmds[@]}" >/dev/null 2>"$LOG" ||
		{ fail hyperfine $?; return; }
	for n in "${!tools[@]}"; do
		jq -r --argjson n "$n" '.results[$n].times[] | "\(.) -"' "$DIR/start.json" >"$RES/start.${tools[n]}"
		say "   ${tools[n]}: median $(median start "${tools[n]}") s"
	done
}

# ---- medians, the table, the raw listing ---------------------------------------------

# median CASE TOOL [COLUMN]: median of the runs that succeeded, or n/a.
median() {
	[ -f "$RES/$1.$2" ] || { echo n/a; return; }
	awk -v c="${3:-1}" '$1 != "n/a" && $c != "-" { print $c }' "$RES/$1.$2" | sort -g |
		awk '{ a[NR] = $1 } END {
			if (!NR) print "n/a"
			else if (NR % 2) print a[(NR + 1) / 2]
			else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

fmt() {	# fmt UNIT VALUE
	case $2 in n/a|-) echo "$2"; return ;; esac
	case $1 in
	IOPS) awk -v v="$2" 'BEGIN { printf "%.1fk", v / 1e3 }' ;;
	GiB/s) awk -v v="$2" 'BEGIN { printf "%.2f", v / 1073741824 }' ;;
	s) awk -v v="$2" 'BEGIN { printf "%.3f", v }' ;;
	ms) awk -v v="$2" 'BEGIN { printf "%.2f", v * 1e3 }' ;;
	*) awk -v v="$2" 'BEGIN { printf "%.2f", v }' ;;
	esac
}

ratio() {	# ratio A B: A/B to two places, n/a if either is missing, - if B is
	case $1$2 in *n/a*) echo n/a; return ;; esac
	[ "$2" = - ] && { echo -; return; }
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# row LABEL UNIT SDB PEER-LABEL PEER LIMIT: one line of the table, '|'-separated.
row() {
	printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$(fmt "$2" "$3")" "$4" "$(fmt "$2" "$5")" \
		"$(ratio "$3" "$5")" "$(fmt "$2" "$6")" "$(ratio "$3" "$6")"
}

# The rows of one case: one per peer (and its CPU row for peer+cpu), each with
# the limit when the case has one.
case_rows() {
	local case=$1 s l i a limit=- label unit tool
	s=$(lines "$case" sdb) l=$(lines "$case" limit)
	[ -n "$s" ] || return
	label=${T_LABEL[s]} unit=${T_UNIT[s]} tool=${T_TOOL[s]} a=$(median "$case" "${T_TOOL[s]}")
	[ -z "$l" ] || limit=$(median "$case" "${T_TOOL[l]}")
	for i in $(lines "$case" peer peer+cpu); do
		row "$label" "$unit" "$a" "${T_LABEL[i]}" "$(median "$case" "${T_TOOL[i]}")" "$limit"
		[ "${T_ROLE[i]}" = peer+cpu ] &&
			row "$label: CPU per I/O" "s/1M I/O" "$(median "$case" "$tool" 2)" \
				"${T_LABEL[i]}" "$(median "$case" "${T_TOOL[i]}" 2)" \
				"$([ -n "$l" ] && median "$case" "${T_TOOL[l]}" 2 || echo -)"
	done
	[ -n "$(lines "$case" peer peer+cpu)" ] || row "$label" "$unit" "$a" - - "$limit"
}

print_table() {
	local case
	# column pads no last column: an empty one after it lets -R align it.
	{
		echo "case|unit|sdb|peer|peer value|sdb/peer|limit|sdb/limit|"
		for case in "${CASE_ORDER[@]}"; do case_rows "$case" | sed 's/$/|/'; done
	} | column -t -s '|' -R 3,5,6,7,8 | sed 's/ *$//'
}

print_runs() {	# every run, in the order it ran, to judge the noise behind a median
	local case i line v
	echo "Every run (in order):"
	for case in "${CASE_ORDER[@]}"; do
		line="  $case (${T_UNIT[$(lines "$case" | head -1)]}):"
		for i in $(lines "$case"); do
			[ -f "$RES/$case.${T_TOOL[i]}" ] || continue
			line="$line ${T_TOOL[i]}"
			while read -r v _; do line="$line $(fmt "${T_UNIT[i]}" "$v")"; done <"$RES/$case.${T_TOOL[i]}"
			line="$line;"
		done
		echo "${line%;}"
	done
}

# ---- main ---------------------------------------------------------------------

START=$SECONDS
STARTUP_METHOD="not run"
{
	echo "sdb bench (bench/run.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
	echo "disk: $(findmnt -n -o SOURCE,FSTYPE -T "$DIR" | tr -s ' ') ($DIR)"
	echo "$("$SDB" -V 2>&1 | head -1) (git $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'))," \
		"$( [ $HAVE_FIO = 1 ] && fio --version || echo 'fio n/a'), $(dd --version | head -1)"
	echo "runs: $PAIRS alternated rounds per case, ${SECS} s per timed run;" \
		"page-cache working set $CACHE_SIZE, disk file $DISK_SIZE; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$DIR/header"
cat "$DIR/header" >&2

if [[ " ${CASE_ORDER[*]} " =~ \ (rand_|seq_|scale|mix) ]]; then	# the cases that read F or write W
	say "== preparing $DIR: $DISK_SIZE of pseudo-random data in $F and $W"
	"$LOOP" -w -D -y -F -b 16m -s "$DISK_SIZE" "$F" >/dev/null || die "cannot write $F"
	"$LOOP" -w -D -y -b 16m -s "$DISK_SIZE" "$W" >/dev/null || die "cannot write $W"
	for i in $(seq 0 31); do ln "$F" "$F.$i" || die "cannot link $F.$i"; done
fi

if [[ " ${CASE_ORDER[*]}" == *" fast_"* ]]; then
	say "== preparing the fast device: $FAST_SIZE of zram"
	fast_setup
	echo "fast device: ${FAST_SKIP:+skipped: }${FAST_SKIP:-$Z, zram ($(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/zram$ZRAM/comp_algorithm")), $FAST_SIZE of random bytes}" >>"$DIR/header"
fi

for case in "${CASE_ORDER[@]}"; do
	if [ "$case" = start ]; then run_start; else run_case "$case" "$PAIRS"; fi
done

echo
cat "$DIR/header"
echo "took $((SECONDS - START)) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
print_table
echo
print_runs
cat <<EOF

Medians of $PAIRS alternated runs ($STARTS for start-up); sdb/peer and sdb/limit are ratios of
the medians, so above 1 is better for rates and below 1 is better for CPU, wall time and
start-up; the limit is the minimal loop, bench/loop.c (-q: bench/uring.c; start-up: /bin/true), which no
tool can beat by much: sdb/limit near 1 means sdb adds nothing measurable to the I/O
itself.  n/a = the tool refused or failed (see its message above); - = no such column.
Every tool used the same file and block size:
- page cache: first $CACHE_SIZE of one file, read twice before every run; ${SECS} s per run; sdb --cached,
  fio psync invalidate=0 (its default buffer and fadvise settings), loop = bench/loop.c
  (one pread per block, xorshift offsets, page-aligned buffer, 2 MiB-aligned
  MADV_HUGEPAGE from 256 KiB up).  -j 2 reads two hard links to the same file.
- disk O_DIRECT sequential: one pass over the same $DISK_SIZE file by every tool (same bytes,
  same offsets); writes overwrite a laid-out file in place and include the final
  fdatasync (sdb: inside its timing; fio end_fsync=1; dd conv=notrunc,fdatasync; loop -y);
  sdb needs --force there, as loop laid the file out and sdb rewrites only its own files.
  Data written: sdb -R and fio pseudo-random, loop a fixed pseudo-random block, dd zeros.
- disk 4k random O_DIRECT: ${SECS} s over the whole $DISK_SIZE file; -j 32 = 32 sdb threads on
  32 hard links of it vs 32 fio jobs (processes) on it; -q 32 = one thread, io_uring.
  CPU: each tool's own accounting (sdb: cpu.user+system over total.ops; fio:
  (usr_cpu+sys_cpu)% x job_runtime over total_ios).
- fast device (fast_*): 4k random O_DIRECT reads for ${SECS} s from a zram device of the
  script's own ($FAST_SIZE of random bytes): memory behind a block device, so the tool and
  the kernel's I/O path are the bottleneck, not the device.  QD1 = one thread, pread;
  -j 2 = two threads (fio: two jobs) on the two halves; -q 32 = one thread, io_uring,
  against fio's io_uring engine; limits: bench/loop.c (two at once for -j 2) and
  bench/uring.c (a raw io_uring loop: registered buffer and file, SINGLE_ISSUER +
  DEFER_TASKRUN, IOSQE_ASYNC, waiting for 8 completions at a time).  CPU per I/O of
  every tool here is measured around its processes (bash's time: user + system of
  every thread), because zram cannot be tried without blocking, so io_uring hands
  every I/O to kernel io-wq threads of the process, which fio's own figure omits.
- quick check: whole-process wall time around the process (bash EPOCHREALTIME,
  which adds a fork of bash to both), the file removed and the file system synced
  before every run; fio fills its 64 MiB buffer with random data by default, sdb
  writes zeros without -R.
- etcd: etcd's disk check, 22 MiB in 2300-byte buffered writes to a new file (removed and
  the file system synced before every run), an fdatasync after each; the p99 of the
  syncs alone (sdb -R --fsync 1, fio fdatasync=1: both time the sync apart from the write).
  etcd asks for under 10 ms.  fio lays the new file out first (fallocate), sdb extends it.
- mix: ${SECS} s of 4k at random, 70% reads, O_DIRECT, one thread, pread/pwrite, on the
  laid-out write target (sdb -M 70 -R --force, fio randrw rwmixread=70); reads + writes a second.
- start-up: $STARTUP_METHOD.
EOF
