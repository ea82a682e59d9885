#!/bin/bash
# bench/run.sh - sdb side by side with fio, dd and a minimal loop (issue 6).
#
# A benchmark, not a test: it never fails on a slow result, it prints a table.
# Every case runs each tool on the same file, with the same block size, the
# same duration (or the same bytes) and the same cache state, alternating the
# tools A B C A B C ... BENCH_PAIRS times, and reports the median of each tool
# and the ratio sdb/peer next to the goal from issue 6.
#
#   make bench            or    sh bench/run.sh        (from the repo root)
#
# Environment:
#   BENCH_PAIRS=3         rounds of alternated runs per case
#   BENCH_SECONDS=4       length of each timed run (whole seconds)
#   BENCH_CACHE_SIZE=1g   working set of the page-cache cases
#   BENCH_DISK_SIZE=4g    test file of the on-disk cases (one pass = one run)
#   BENCH_STARTS=20       runs of the start-up case
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
[ "$CACHE_BYTES" -le "$DISK_BYTES" ] || die "BENCH_CACHE_SIZE must not exceed BENCH_DISK_SIZE"

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
cleanup() { rm -rf "$DIR"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Measure one build from start to end: others may rebuild ./sdb meanwhile.
# (A scratch directory mounted noexec keeps the original.)
cp "$SDB" "$DIR/sdb" && "$DIR/sdb" -V >/dev/null 2>&1 && SDB=$DIR/sdb
"$SDB" -V >/dev/null || die "$SDB does not run"
LOOP=$ROOT/bench/loop
[ "$LOOP" -nt "$LOOP.c" ] || cc -O2 -o "$LOOP" "$LOOP.c" || die "cannot build bench/loop.c"
F=$DIR/f	# BENCH_DISK_SIZE of pseudo-random bytes; F.0..F.31 are hard links to it
W=$DIR/w	# the write target, laid out before the first timed write
Q=$DIR/q	# the quick check's file, removed before every run
LOG=$DIR/log

# ---- one run of one tool: prints "VALUE CPU_S_PER_MIO_IO" or "n/a" ------------

fail() {	# fail TOOL STATUS: log the cause, print n/a
	say "    $1 failed (exit $2): $(tail -1 "$LOG" 2>/dev/null)"
	echo n/a
}

# sdb_run iops|bps ARGS...: sdb --json, the tool's own totals and CPU use.
sdb_run() {
	local metric=$1 out rc
	shift
	out=$("$SDB" --json "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail sdb $rc; return; }
	jq -r --arg m "$metric" '
		(if $m == "iops" then .total.iops else .total.bytes_per_second end) as $v |
		((.cpu.user_seconds + .cpu.system_seconds) / .total.ops * 1e6) as $c |
		"\($v) \($c)"' <<<"$out"
}

# fio_run iops|bps read|write ARGS...: fio's JSON; with group_reporting jobs[0]
# is the sum.  CPU: usr_cpu/sys_cpu are percent of job_runtime (ms, summed
# over jobs), so seconds = (usr+sys)/100 * job_runtime/1000.
fio_run() {
	local metric=$1 dir=$2 out rc
	shift 2
	[ $HAVE_FIO = 1 ] || { echo n/a; return; }
	out=$(fio --output-format=json "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail fio $rc; return; }
	sed -n '/^{/,$p' <<<"$out" | jq -r --arg m "$metric" --arg d "$dir" '
		.jobs[0] as $j | $j[$d] as $io |
		(if $m == "iops" then $io.iops else $io.bw_bytes end) as $v |
		(($j.usr_cpu + $j.sys_cpu) / 100 * $j.job_runtime / 1000 / $io.total_ios * 1e6) as $c |
		"\($v) \($c)"'
}

# loop_run iops|bps ARGS...
loop_run() {
	local metric=$1 out rc
	shift
	out=$("$LOOP" "$@" 2>"$LOG")
	rc=$?
	[ $rc = 0 ] || { fail loop $rc; return; }
	sed -n "s/.*\\b$metric=\\([0-9.]*\\).*/\\1 -/p" <<<"$out"
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

# ---- the cases: one function per (case, tool) -----------------------------------

R="--invalidate=0"	# fio: keep the page cache warm (its default is to drop it)

c_rand_cached_sdb()  { sdb_run iops -r --cached -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" -f "$F"; }
c_rand_cached_fio()  { fio_run iops read --name=rand_cached --filename="$F" --rw=randread --bs=4k \
				--ioengine=psync $R --size="$CACHE_BYTES" --time_based --runtime="$SECS"; }
c_rand_cached_loop() { loop_run iops -r -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" "$F"; }

c_seq_cached_sdb()   { sdb_run bps -r --cached -b 1m -s "$CACHE_SIZE" -t "$SECS" -f "$F"; }
c_seq_cached_fio()   { fio_run bps read --name=seq_cached --filename="$F" --rw=read --bs=1m \
				--ioengine=psync $R --size="$CACHE_BYTES" --time_based --runtime="$SECS"; }
c_seq_cached_loop()  { loop_run bps -r -b 1m -s "$CACHE_SIZE" -t "$SECS" "$F"; }

c_scale_j2() { sdb_run iops -r --cached -m rand -b 4k -s "$CACHE_SIZE" -t "$SECS" -j 2 -f "$F"; }
c_scale_j1() { c_rand_cached_sdb; }

c_seq_read_sdb()  { sdb_run bps -r -D -b 1m -s "$DISK_SIZE" -f "$F"; }
c_seq_read_fio()  { fio_run bps read --name=seq_read --filename="$F" --rw=read --bs=1m \
			--ioengine=psync --direct=1 --size="$DISK_BYTES"; }
c_seq_read_dd()   { dd_run if="$F" of=/dev/null bs=1M count=$((DISK_BYTES >> 20)) iflag=direct; }
c_seq_read_loop() { loop_run bps -r -D -b 1m -s "$DISK_SIZE" "$F"; }

c_seq_write_sdb()  { sdb_run bps -w -D -R -b 1m -s "$DISK_SIZE" -f "$W"; }
c_seq_write_fio()  { fio_run bps write --name=seq_write --filename="$W" --rw=write --bs=1m \
			--ioengine=psync --direct=1 --size="$DISK_BYTES" --end_fsync=1; }
c_seq_write_dd()   { dd_run if=/dev/zero of="$W" bs=1M count=$((DISK_BYTES >> 20)) \
			oflag=direct conv=notrunc,fdatasync; }
c_seq_write_loop() { loop_run bps -w -D -y -b 1m -s "$DISK_SIZE" "$W"; }

c_rand_j32_sdb() { sdb_run iops -r -D -m rand -b 4k -j 32 -t "$SECS" -f "$F"; }
c_rand_j32_fio() { fio_run iops read --name=rand_j32 --filename="$F" --rw=randread --bs=4k \
			--ioengine=psync --direct=1 --numjobs=32 --group_reporting \
			--size="$DISK_BYTES" --time_based --runtime="$SECS"; }

c_rand_q32_sdb() { sdb_run iops -r -D -m rand -b 4k -q 32 -t "$SECS" -f "$F"; }
c_rand_q32_fio() { fio_run iops read --name=rand_q32 --filename="$F" --rw=randread --bs=4k \
			--ioengine=io_uring --iodepth=32 --direct=1 \
			--size="$DISK_BYTES" --time_based --runtime="$SECS"; }

c_quick_sdb() { rm -f "$Q"; sync; wall_run "$SDB" -w -f "$Q" -b 64m -s 256m -D -S; }
c_quick_fio() {
	[ $HAVE_FIO = 1 ] || { echo n/a; return; }
	rm -f "$Q"; sync
	wall_run fio --name=quick --filename="$Q" --rw=write --bs=64m --size=256m \
		--direct=1 --sync=1 --end_fsync=1
}

c_start_sdb()  { wall_run "$SDB" -V; }
c_start_fio()  { if [ $HAVE_FIO = 1 ]; then wall_run fio --version; else echo n/a; fi; }
c_start_true() { wall_run /bin/true; }

# Start-up: hyperfine -N (spawns the process directly, no shell) when it is
# installed; otherwise the alternated EPOCHREALTIME loop above, which also
# counts a fork of bash (several ms on a small VM: /bin/true is the floor).
run_start() {
	local names=(sdb true) cmds=("$SDB -V" /bin/true) i
	if ! command -v hyperfine >/dev/null; then
		STARTUP_METHOD="bash EPOCHREALTIME around each process, alternated (includes a fork of bash)"
		run_case start "$STARTS" sdb fio true
		return
	fi
	STARTUP_METHOD="hyperfine -N --warmup 3 --runs $STARTS (no shell; one command after the other)"
	[ $HAVE_FIO = 1 ] && names+=(fio) cmds+=("fio --version")
	say "== start"
	hyperfine -N --warmup 3 --runs "$STARTS" --export-json "$DIR/start.json" "${cmds[@]}" >/dev/null 2>"$LOG" ||
		{ fail hyperfine $?; return; }
	for i in "${!names[@]}"; do
		jq -r --argjson i "$i" '.results[$i].times[] | "\(.) -"' "$DIR/start.json" >"$RES/start.${names[$i]}"
		say "   ${names[$i]}: median $(median start "${names[$i]}") s"
	done
}

# ---- running, medians, the table ------------------------------------------------

RES=$DIR/results
mkdir -p "$RES"

# run_case CASE ROUNDS TOOL...: alternate the tools ROUNDS times.
run_case() {
	local case=$1 rounds=$2 r t v
	shift 2
	say "== $case"
	echo "$*" >"$RES/$case.tools"
	for ((r = 1; r <= rounds; r++)); do
		for t in "$@"; do
			v=$("c_${case}_$t")
			printf '%s\n' "$v" >>"$RES/$case.$t"
			[ "$rounds" -gt 5 ] || say "   $t: $v"
		done
	done
}

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
	[ "$2" = n/a ] && { echo n/a; return; }
	case $1 in
	IOPS) awk -v v="$2" 'BEGIN { printf "%.1fk", v / 1e3 }' ;;
	GiB/s) awk -v v="$2" 'BEGIN { printf "%.2f", v / 1073741824 }' ;;
	s) awk -v v="$2" 'BEGIN { printf "%.3f", v }' ;;
	ms) awk -v v="$2" 'BEGIN { printf "%.2f", v * 1e3 }' ;;
	*) awk -v v="$2" 'BEGIN { printf "%.2f", v }' ;;
	esac
}

ROWS=()
# row CASE-LABEL UNIT SDB-VALUE PEER-LABEL PEER-VALUE GOAL: GOAL is ">=1.2",
# "<=1", "<1" on the ratio sdb/peer, or "<5ms" on sdb's own value.
row() {
	local label=$1 unit=$2 a=$3 peer=$4 b=$5 goal=$6 ratio=n/a verdict=""
	if [ "$a" != n/a ] && [ "$b" != n/a ]; then
		ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	fi
	case $goal in
	*ms) [ "$a" != n/a ] && verdict=$(awk -v a="$a" -v g="${goal#<}" \
		'BEGIN { print (a * 1e3 < g + 0) ? "yes" : "NO" }') ;;
	"") ;;
	*) [ "$ratio" != n/a ] && verdict=$(awk -v r="$ratio" -v g="$goal" 'BEGIN {
		op = g; sub(/[0-9.]+$/, "", op); t = substr(g, length(op) + 1) + 0
		ok = op == ">=" ? r >= t : op == "<=" ? r <= t : op == "<" ? r < t : r > t
		print ok ? "yes" : "NO" }') ;;
	esac
	ROWS+=("$label|$unit|$(fmt "$unit" "$a")|$peer|$(fmt "$unit" "$b")|$ratio|$goal${verdict:+ $verdict}")
}

print_table() {
	printf '%s\n' "case|unit|sdb|peer|peer value|sdb/peer|goal (met?)" "${ROWS[@]}" | awk -F'|' '
		{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR; nf = NF }
		END {
			for (r = 1; r <= n; r++) {
				line = "|"
				for (i = 1; i <= nf; i++)
					line = line sprintf(i <= 2 || i == 4 || i == 7 ? " %-*s |" : " %*s |", w[i], c[r, i])
				print line
				if (r == 1) {
					line = "|"
					for (i = 1; i <= nf; i++) {
						d = ""; for (k = 0; k < w[i]; k++) d = d "-"
						line = line (i <= 2 || i == 4 || i == 7 ? "-" d "-|" : "-" d ":|")
					}
					print line
				}
			}
		}'
}

print_runs() {	# every run, in the order it ran, to judge the noise behind a median
	local spec case unit t v line
	echo "Every run (in order):"
	for spec in rand_cached:IOPS seq_cached:GiB/s scale:IOPS seq_read:GiB/s seq_write:GiB/s \
		rand_j32:IOPS rand_q32:IOPS quick:s; do
		case=${spec%%:*} unit=${spec#*:} line="  $case ($unit):"
		[ -f "$RES/$case.tools" ] || continue
		for t in $(cat "$RES/$case.tools"); do
			line="$line $t"
			while read -r v _; do line="$line $(fmt "$unit" "$v")"; done <"$RES/$case.$t"
			line="$line;"
		done
		echo "${line%;}"
	done
}

# ---- main ---------------------------------------------------------------------

START=$SECONDS
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

say "== preparing $DIR: $DISK_SIZE of pseudo-random data in $F and $W"
"$LOOP" -w -D -y -F -b 16m -s "$DISK_SIZE" "$F" >/dev/null || die "cannot write $F"
"$LOOP" -w -D -y -b 16m -s "$DISK_SIZE" "$W" >/dev/null || die "cannot write $W"
for i in $(seq 0 31); do ln "$F" "$F.$i" || die "cannot link $F.$i"; done
# Warm the page cache for the cached cases (read twice: the second pass finds it all).
"$LOOP" -r -b 1m -s "$CACHE_SIZE" "$F" >/dev/null && "$LOOP" -r -b 1m -s "$CACHE_SIZE" "$F" >/dev/null

run_case rand_cached "$PAIRS" sdb fio loop
run_case seq_cached  "$PAIRS" sdb fio loop
run_case scale       "$PAIRS" j1 j2
run_case seq_read    "$PAIRS" sdb fio dd loop
run_case seq_write   "$PAIRS" sdb fio dd loop
run_case rand_j32    "$PAIRS" sdb fio
run_case rand_q32    "$PAIRS" sdb fio
run_case quick       "$PAIRS" sdb fio
run_start

m() { median "$@"; }
row "4k rand read, page cache, 1 thread"  IOPS  "$(m rand_cached sdb)" "fio psync"   "$(m rand_cached fio)"  ">=1.2"
row "4k rand read, page cache, 1 thread"  IOPS  "$(m rand_cached sdb)" "loop"        "$(m rand_cached loop)" ">=0.9"
row "1m seq read, page cache, 1 thread"   GiB/s "$(m seq_cached sdb)"  "fio psync"   "$(m seq_cached fio)"   ">=3"
row "1m seq read, page cache, 1 thread"   GiB/s "$(m seq_cached sdb)"  "loop"        "$(m seq_cached loop)"  ">=0.9"
row "4k rand read, page cache, -j 2 vs -j 1" IOPS "$(m scale j2)"      "sdb -j 1"    "$(m scale j1)"         ">=1.7"
row "1m seq read, O_DIRECT, disk"         GiB/s "$(m seq_read sdb)"    "fio psync"   "$(m seq_read fio)"     ">=0.97"
row "1m seq read, O_DIRECT, disk"         GiB/s "$(m seq_read sdb)"    "dd"          "$(m seq_read dd)"      ""
row "1m seq read, O_DIRECT, disk"         GiB/s "$(m seq_read sdb)"    "loop"        "$(m seq_read loop)"    ""
row "1m seq write, O_DIRECT, disk"        GiB/s "$(m seq_write sdb)"   "fio psync"   "$(m seq_write fio)"    ">=0.97"
row "1m seq write, O_DIRECT, disk"        GiB/s "$(m seq_write sdb)"   "dd"          "$(m seq_write dd)"     ""
row "1m seq write, O_DIRECT, disk"        GiB/s "$(m seq_write sdb)"   "loop"        "$(m seq_write loop)"   ""
row "4k rand read, O_DIRECT, -j 32"       IOPS  "$(m rand_j32 sdb)"    "fio numjobs=32" "$(m rand_j32 fio)"  ">=0.95"
row "  CPU per I/O at -j 32"              "s/1M I/O" "$(m rand_j32 sdb 2)" "fio numjobs=32" "$(m rand_j32 fio 2)" ""
row "4k rand read, O_DIRECT, -q 32"       IOPS  "$(m rand_q32 sdb)"    "fio io_uring QD32" "$(m rand_q32 fio)" ">=0.95"
row "  CPU per I/O at -q 32"              "s/1M I/O" "$(m rand_q32 sdb 2)" "fio io_uring QD32" "$(m rand_q32 fio 2)" "<=1"
row "quick check -w -b 64m -s 256m -D -S" s     "$(m quick sdb)"       "fio same job" "$(m quick fio)"       "<1"
row "start-up: sdb -V"                    ms    "$(m start sdb)"       "fio --version" "$(m start fio)"      "<5ms"
row "start-up: sdb -V"                    ms    "$(m start sdb)"       "/bin/true (floor)" "$(m start true)" ""

echo
cat "$DIR/header"
echo "took $((SECONDS - START)) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
print_table
echo
print_runs
cat <<EOF

Medians of $PAIRS alternated runs ($STARTS for start-up); ratio = sdb/peer, so above 1 is
better for rates and below 1 is better for CPU, wall time and start-up; n/a = the tool
refused or failed (see its message above).  Every tool used the same file and block size:
- page cache: first $CACHE_SIZE of one file, read twice beforehand; ${SECS} s per run; sdb --cached,
  fio psync invalidate=0 (its default buffer and fadvise settings), loop = bench/loop.c
  (one pread per block, xorshift offsets, page-aligned buffer, 2 MiB-aligned
  MADV_HUGEPAGE from 256 KiB up).  -j 2 reads two hard links to the same file.
- disk O_DIRECT sequential: one pass over the same $DISK_SIZE file by every tool (same bytes,
  same offsets); writes overwrite a laid-out file in place and include the final
  fdatasync (sdb: inside its timing; fio end_fsync=1; dd conv=notrunc,fdatasync; loop -y).
  Data written: sdb -R and fio pseudo-random, loop a fixed pseudo-random block, dd zeros.
- disk 4k random O_DIRECT: ${SECS} s over the whole $DISK_SIZE file; -j 32 = 32 sdb threads on
  32 hard links of it vs 32 fio jobs (processes) on it; -q 32 = one thread, io_uring.
  CPU: each tool's own accounting (sdb: cpu.user+system over total.ops; fio:
  (usr_cpu+sys_cpu)% x job_runtime over total_ios).
- quick check: whole-process wall time around the process (bash EPOCHREALTIME,
  which adds a fork of bash to both), the file removed and the file system synced
  before every run; fio fills its 64 MiB buffer with random data by default, sdb
  writes zeros without -R.
- start-up: $STARTUP_METHOD.
EOF
