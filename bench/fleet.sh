#!/bin/bash
# bench/fleet.sh - the fleet row of make bench (issues 22 and 24): --merge of
# 10, 100, 1000 and 10000 documents (time and peak memory, beside the
# input's size), and --hosts over 100 stand-in hosts (a stand-in for ssh that
# runs each remote sdb here: the cost of sdb's own fan-out and merge, not of
# ssh).  A benchmark, not a test: it prints a table and never fails on a
# slow result.
#
#   make bench   or   bash bench/fleet.sh      (from the repo root)
#
# Environment:
#   BENCH_FLEET_COUNTS="10 100 1000 10000"   the --merge sizes
#   BENCH_FLEET_HOSTS=100                    the --hosts size
#   BENCH_DIR=                               scratch parent (default /var/tmp)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SDB=$ROOT/sdb
COUNTS=${BENCH_FLEET_COUNTS:-10 100 1000 10000}
HOSTS=${BENCH_FLEET_HOSTS:-100}
[ -x "$SDB" ] || { echo "bench/fleet.sh: build sdb first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/fleet.sh: needs /usr/bin/time (GNU time) for the peak memory" >&2; exit 1; }
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/sdb-fleet.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

# One real document (a random 4 KiB read of /dev/zero: a histogram of a
# few hundred buckets, a timeline), then N copies each with a host of its
# own (the same document twice is an error).
"$SDB" -r -f /dev/zero -s 64m -b 4k -m rand -t 0.5 --json >template.json 2>/dev/null || exit 1
make_docs() {	# N DIR
	mkdir -p "$2"
	awk -v n="$1" -v d="$2" 'BEGIN { RS = "\0" } { doc = $0 } END {
		for (i = 0; i < n; i++) {
			s = doc
			sub(/"host": "[^"]*"/, "\"host\": \"node" i "\"", s)
			f = sprintf("%s/%05d.json", d, i); printf "%s", s > f; close(f)
		} }' template.json
}
# row LABEL N INPUT-BYTES COMMAND...: one row: wall and CPU seconds, peak RSS.
printf '%-36s %8s %11s %9s %9s %10s %11s\n' "fleet" "inputs" "input MiB" "seconds" "cpu s" "peak MiB" "peak/input"
row() {
	local label=$1 n=$2 bytes=$3
	shift 3
	/usr/bin/time -o time.txt -f '%e %M %U %S' "$@" >/dev/null 2>err.txt
	local rc=$? secs kib user sys
	read -r secs kib user sys < <(tail -n 1 time.txt)
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || secs="failed($rc)"
	awk -v l="$label" -v n="$n" -v b="$bytes" -v s="$secs" -v k="$kib" -v c="$user $sys" \
		'BEGIN { split(c, t, " "); printf "%-36s %8d %11.1f %9s %9.2f %10.1f %11.2f\n", l, n, b / 1048576, s, t[1] + t[2], k / 1024, b ? k * 1024 / b : 0 }'
}
for n in $COUNTS; do
	make_docs "$n" "docs$n"
	bytes=$(cat "docs$n"/*.json | wc -c)
	row "--merge of $n documents" "$n" "$bytes" "$SDB" --merge "docs$n"
	rm -rf "docs$n"
done
# --hosts over stand-in hosts: every remote run here, O_DIRECT reads of
# one small file (not /dev/zero, whose suspiciously fast reads make each
# run time the memory ceiling).  GNU time's peak would be the largest
# process's, a remote sdb's; sdb's own is its VmHWM, read until it ends.
printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >rsh
chmod +x rsh
"$SDB" -w -f reads -s 16m -R >/dev/null 2>&1
list=$(seq -f 'h%g' 1 "$HOSTS" | paste -sd,)
start=$(date +%s.%N)
SDB_SSH=$dir/rsh SDB_REMOTE=$SDB "$SDB" --hosts "$list" -r -f "$dir/reads" -s 16m -b 64k -D -t 1 >hosts.txt 2>err.txt &
pid=$! hwm=0
while kill -0 "$pid" 2>/dev/null; do
	v=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB$/\1/p' "/proc/$pid/status" 2>/dev/null)
	[ -n "$v" ] && hwm=$v
	sleep 0.05
done
wait "$pid"; rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
[ "$rc" -eq 0 ] || secs="failed($rc)"
awk -v l="--hosts over $HOSTS stand-in hosts" -v n="$HOSTS" -v s="$secs" -v k="$hwm" \
	'BEGIN { printf "%-36s %8d %11s %9s %9s %10.1f %11s\n", l, n, "-", s, "-", k / 1024, "-" }'
echo "(--hosts: from the launch to the merged report of $(grep -c '^Host ' hosts.txt) hosts: the common start $(
	awk -v n="$HOSTS" 'BEGIN { printf "%.2f", 3 + 0.05 * (n > 10 ? n - 10 : 0) }') s ahead, 1 s runs; peak: sdb's own process)"
