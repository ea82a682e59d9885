#!/bin/bash
# bench/cost.sh - the cost rows of make bench (issue 42, item 7): what sdb
# itself costs where the work grows, beside the bound it is held to.
#   - resident memory after 10 s and after 60 s of one run (flat: the
#     timeline keeps at most 128 samples);
#   - --merge of a 20 MB document padded with a long extra array, beside a
#     plain one (peak at most twice the input plus a constant);
#   - --hosts with two remotes that print 1 GB each that is not a result,
#     beside one that answers (at most 16 MiB kept a host);
#   - -j 1024 --cached -t 1 on hard links of one 1 GiB file: the timed
#     window and the time outside it.
# A benchmark, not a test: it prints a table and never fails on a slow
# result.  About 90 s.
#
#   make bench   or   bash bench/cost.sh      (from the repo root)
#
# Environment:
#   BENCH_DIR=      scratch parent (default /var/tmp; the 1 GiB file lives there)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SDB=$ROOT/sdb
[ -x "$SDB" ] || { echo "bench/cost.sh: build sdb first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/cost.sh: needs /usr/bin/time (GNU time) for the peak memory" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench/cost.sh: needs jq" >&2; exit 1; }
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/sdb-cost.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

printf '%-52s %14s %16s\n' "cost" "measured" "bound"
line() { printf '%-52s %14s %16s\n' "$1" "$2" "$3"; }
kib() { sed -n "s/^$2:\\s*\\([0-9]*\\) kB$/\\1/p" "/proc/$1/status" 2>/dev/null; }
# wait_until PID SECONDS-AFTER-START: sleep until then (or PID's end).
wait_until() {
	local end
	end=$(awk -v s="$start" -v d="$2" 'BEGIN { printf "%.3f", s + d }')
	while kill -0 "$1" 2>/dev/null && [ "$(awk -v e="$end" -v n="$(date +%s.%N)" 'BEGIN { print (n >= e) }')" = 0 ]; do
		sleep 0.1
	done
}

# 1. Resident memory over a run's length: 4 KiB random reads from the
# page cache (the most samples' worth of I/Os a second), 62 s.
"$SDB" -w -f cached -s 64m -R >/dev/null 2>&1
cat cached >/dev/null
start=$(date +%s.%N)
"$SDB" -r -f cached -s 64m -b 4k -m rand --cached -t 62 >/dev/null 2>&1 &
pid=$!
wait_until "$pid" 10; r10=$(kib "$pid" VmRSS)
wait_until "$pid" 60; r60=$(kib "$pid" VmRSS)
wait "$pid"
line "RSS after 10 s of a run" "${r10:-?} KiB" "-"
line "RSS after 60 s, less after 10 s" "$(( ${r60:-0} - ${r10:-0} )) KiB" "256 KiB"

# peak LABEL BOUND-KIB COMMAND...: the command's peak RSS (GNU time) and
# wall time, beside BOUND-KIB.
peak() {
	local label=$1 bound=$2 secs kib
	shift 2
	/usr/bin/time -o time.txt -f '%e %M' "$@" >/dev/null 2>err.txt
	read -r secs kib < <(tail -n 1 time.txt)
	line "$label" "$((kib / 1024)) MiB, ${secs} s" "$((bound / 1024)) MiB"
	grep '^sdb: ' err.txt | head -n 2 | sed 's/^/  (/; s/$/)/'	# what sdb said of it
}

# 2. A 20 MB document: a real result with a long extra array, and a plain one.
"$SDB" -r -f /dev/zero -s 16m -b 4k -m rand -t 0.3 --json >plain.json 2>/dev/null
jq -c --argjson n 5000000 '.host = "padded" | .context.host = "padded" | .extra = [range($n) | "x"]' plain.json >padded.json 2>/dev/null ||
	jq -c --argjson n 5000000 '.host = "padded" | .extra = [range($n) | "x"]' plain.json >padded.json
bytes=$(( $(wc -c <padded.json) + $(wc -c <plain.json) ))
peak "--merge of a $((bytes / 1000000)) MB padded document and a plain one" $((2 * bytes / 1024 + 65536)) \
	"$SDB" --merge padded.json plain.json

# 3. Two remotes that flood their standard output, one that answers.  GNU
# time's peak would be a child's: sdb's own is its VmHWM, read until it ends.
cat >rsh <<'SSH'
#!/bin/sh
host=$1; shift
case $host in flood*) yes "not a result" | head -c 1000000000; exit 0 ;; esac
exec sh -c "$*"
SSH
chmod +x rsh
SDB_SSH=$dir/rsh SDB_REMOTE=$SDB "$SDB" --hosts "flood1,real,flood2" -r -f /dev/zero -s 16m -t 0.5 >/dev/null 2>&1 &
pid=$! hwm=0
while kill -0 "$pid" 2>/dev/null; do
	v=$(kib "$pid" VmHWM)
	[ -n "$v" ] && hwm=$v
	sleep 0.05
done
wait "$pid"
line "--hosts, two remotes printing 1 GB each" "$((hwm / 1024)) MiB" "$((2 * 16 + 64)) MiB"

# 4. 1,024 threads for 1 s, each on a hard link of one cached 1 GiB file.
"$SDB" -w -f big -s 1g -R >/dev/null 2>&1
mkdir -p links
for i in $(seq 0 1023); do ln big "links/t.$i"; done
sync	# the 1 GiB just written is not the run's to wait for
cat big >/dev/null
start=$(date +%s.%N)
"$SDB" -r -f links/t -j 1024 --cached -t 1 --json >j1024.json 2>/dev/null
end=$(date +%s.%N)
read -r window before after < <(jq -r --argjson s "$start" --argjson e "$end" \
	'"\(.total.seconds) \(.start_unix - $s) \($e - .end_unix)"' j1024.json 2>/dev/null)
line "-j 1024 --cached -t 1: the timed window" "$(printf '%.2f' "${window:-0}") s" "1.3 s"
line "-j 1024 --cached -t 1: before and after it" "$(printf '%.2f + %.2f' "${before:-0}" "${after:-0}") s" "1 s"
echo "(on $(nproc) CPUs, $(uname -r); $(date -u +%Y-%m-%d))"
