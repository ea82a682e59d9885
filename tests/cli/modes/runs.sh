#!/bin/bash
# ------------------------------------------------------------ runs
. "$(dirname "$0")/../lib.sh"
# Numbers you can quote: --runs N of any run (a line per run, the median
# with min-max and a 95% interval, recomputed here from the JSON's runs;
# the document's total is the median run's; --compare takes the runs as
# samples), the short-run words on the Thread line, and a device read
# without -s or -t bounded to 10 s.

# spread_ok JSON FIGURE: the summary's FIGURE (bytes_per_second, iops,
# p99_ns) recomputed from the runs: median, min, max, and mean +- t s/sqrt(n)
# (t at 97.5% for n-1 = 2 and 4 degrees of freedom), to 1e-6 of each.
spread_ok() {
	jq --arg f "$2" '
		[.runs[] | .[$f]] as $v | ($v | length) as $n | ($v | sort) as $s |
		(if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end) as $median |
		($v | add / $n) as $mean |
		([$v[] | (. - $mean) * (. - $mean)] | add / ($n - 1) | sqrt) as $sd |
		({"3": 4.303, "5": 2.776}[$n | tostring] * $sd / ($n | sqrt)) as $half |
		.summary[$f] as $got |
		def near(a; b): ((a - b) | fabs) <= 1e-6 * ((b | fabs) + 1);
		near($got.median; $median) and near($got.min; $s[0]) and near($got.max; $s[-1]) and
		near($got.ci95_low; $mean - $half) and near($got.ci95_high; $mean + $half)' <<<"$1"
}

# A plain file: five runs, each a whole run, the summary from them.
run -w -f q -s 16m -R --runs 5 --json
check "--runs 5 write: exit 0, five runs of 16 MiB each" "0 5 true" \
	"$rc $(jq -r '"\(.runs | length) \(all(.runs[]; .bytes == 16777216))"' <<<"$out")"
for f in bytes_per_second iops p99_ns; do
	check "--runs 5: the summary's $f recomputed from the runs" true "$(spread_ok "$out" $f)"
done
check "--runs 5: the document's total is the median run's, marked once" "true 1" \
	"$(jq -r '"\(.total.bytes_per_second == (.runs[] | select(.median) | .bytes_per_second)) \([.runs[] | select(.median)] | length)"' <<<"$out")"
check "--runs 5: the median run is the middle one by rate" true \
	"$(jq '(.runs | sort_by(.bytes_per_second) | .[2].median)' <<<"$out")"
run -M 50 -f q -s 16m -q 4 -j 2 --runs 3
check "--runs 3 mix, -j 2 on FILE.N made by run 1: every run ran (each let go of its lock)" "0 3" \
	"$rc $(grep -c '^  Run  [0-9]: ' <<<"$out")"
run -r -f q -m rand -b 4k -t 1 -q 4 -j 2 --runs 3
check "--runs 3 -q 4 -j 2 read of FILE.N: exit 0, a line per run, the median line" "0 3 1" \
	"$rc $(grep -c '^  Run  [0-9]: ' <<<"$out") $(grep -c '^Median: .* (.* - .*; 95% interval .* - .*), .* IOPS (.*), p99 ' <<<"$out")"
bad_input 2 "--runs: repeats a -w, -r or -M run or a --quick suite (--sweep runs its own steps)" \
	--sweep -r -f q --runs 3
bad_input 2 "--runs: repeats a -w, -r or -M run or a --quick suite" -T --runs 3

# --compare: a --runs document's runs are its samples, p99 among them
# (one run has a single p99: no interval).
run -r -f q -m rand -b 4k -t 1 --runs 3 --json
echo "$out" >a.json
run -r -f q -m rand -b 4k -t 1 --runs 3 --json
echo "$out" >b.json
run --compare a.json b.json
matches "--compare of two --runs documents: p99 has an interval from the runs" "$out" \
	"*  p99 * -> *: *% \[*%, *%\]*"

# The short-run words: in the Thread line of the card command (4 I/Os),
# not in a run of 2 s with thousands.
run -w -f card -b 64m -s 256m -D -S
matches "the card command: the Thread line says how short, and --runs 5" "$out" \
	"*Thread  0 (CPU: *): * loops (a short run: 4 I/Os in * s; --runs 5 for a number to quote)*"
run -r -f q -m rand -b 4k -t 2
lacks "a 2 s run of thousands of I/Os: no short-run words" "$out" "a short run"
check "a 2 s run: over 100 I/Os (what makes it not short)" true "$(grep -q 'IOPS in [0-9]\{3,\} loops$' <<<"$out" && echo true || echo false)"
run -w -f card -b 64m -s 256m -D --runs 3
lacks "--runs 3 of the card command: no advice to use --runs" "$out" "for a number to quote"
contains "--runs 3 of the card command: still says how short" "$out" "(a short run: 4 I/Os in "
rm -f card q

if ! system || ! command -v losetup >/dev/null; then
	skipped "--runs 5 on a throttled loop device" "needs root and losetup"
	skipped "a device read without -s or -t: 10 s" "needs root and losetup"
	exit
fi
truncate -s 256m dev.img
if ! loop=$(losetup -f --show --direct-io=on dev.img 2>/dev/null); then
	skipped "--runs 5 on a throttled loop device" "losetup failed"
	skipped "a device read without -s or -t: 10 s" "losetup failed"
	exit
fi
name=${loop#/dev/}
blkio=/sys/fs/cgroup/blkio
if [ -w "$blkio/cgroup.procs" ] && [ -e "$blkio/blkio.throttle.read_bps_device" ]; then
	cg=$blkio/sdb-cli-runs-$$
	mkdir -p "$cg"
	echo "$(cat "/sys/block/$name/dev") $((16 << 20))" >"$cg/blkio.throttle.read_bps_device"
	out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" -r -f "$loop" -b 1m -D -s 16m --ramp 0.5 --runs 5 --json) 2>/dev/null); rc=$?
	check "--runs 5 on a loop device under a 16 MiB/s throttle: exit 0, five runs, limited by the throttle" "0 5 throttle" \
		"$rc $(jq -r '"\(.runs | length) \(.device.limit)"' <<<"$out")"
	for f in bytes_per_second iops p99_ns; do
		check "--runs 5 throttled: the summary's $f recomputed from the runs" true "$(spread_ok "$out" $f)"
	done
	check "--runs 5 throttled: every run within 10% of the 16 MiB/s limit" true \
		"$(jq '[.runs[].bytes_per_second / 16777216] | all(. > 0.9 and . < 1.1)' <<<"$out")"
	# A device read without -s or -t: at most 10 s, said in the header and
	# the JSON; 256 MiB at 16 MiB/s would take 16.
	r0=$(sectors "$name" 3)
	out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" -r -f "$loop" -b 1m -D --json) 2>/dev/null); rc=$?
	r1=$(sectors "$name" 3)
	check "a device read without -s or -t, 16 s of it: -t 10, ended after 10 s" "0 10 true" \
		"$rc $(jq -r '"\(.options.time_limit) \(.total.seconds >= 10 and .total.seconds < 11)"' <<<"$out")"
	check "a device read without -s or -t: the kernel saw the bytes sdb claims (+-10%)" true \
		"$(jq --argjson r $((r1 - r0)) '($r / .total.bytes) | . > 0.9 and . < 1.1' <<<"$out")"
	rmdir "$cg"
else
	skipped "--runs 5 on a throttled loop device" "no cgroup v1 blkio"
	skipped "a device read without -s or -t, 16 s of it: ended after 10 s" "no cgroup v1 blkio"
fi

# Unthrottled, the 256 MiB take well under 10 s: one pass, all of it.
run -r -f "$loop" -b 1m -D --json
check "a device read without -s or -t, under 10 s of it: one pass, the whole device" "0 10 268435456" \
	"$rc $(jq -r '"\(.options.time_limit) \(.total.bytes)"' <<<"$out")"
run -r -f "$loop" -b 1m -D
contains "a device read without -s or -t: the header says why 10 s" "$out" \
	", 10 s per thread at most (a device read without -s or -t), O_DIRECT: $loop"
"$sdb" -w -f "$loop" -b 1m -s 256m -D --verify --force >/dev/null 2>&1
run -r -f "$loop" -b 1m -D --verify --json
check "a device --verify read without -s or -t: not bounded, all of it checked" "0 null 268435456 0" \
	"$rc $(jq -r '"\(.options.time_limit) \(.total.bytes) \(.verify.bad)"' <<<"$out")"
run -r -f "$loop" -b 1m -D -t 1
contains "a device read with -t: its own time, no default said" "$out" ", 1 s per thread, O_DIRECT: $loop"
run -r -f "$loop" -b 1m -D -s 8m
lacks "a device read with -s: read to the size, no time limit" "$out" "s per thread"
run -r -f "$loop" -b 1m -D -s 8m --runs 1
lacks "--runs 1: no Runs lines" "$out" "Runs:"
# Each write of a block device holds it with O_EXCL: a run lets go before the next.
w0=$(sectors "$name" 7)
run -w -f "$loop" -b 1m -D -s 8m --force --runs 3 --json
check "--runs 3 writing a block device: exit 0, three runs, 24 MiB reached it" "0 3 true" \
	"$rc $(jq -r --argjson w $(($(sectors "$name" 7) - w0)) '"\(.runs | length) \($w >= 3 * 8388608)"' <<<"$out")"
# shellcheck disable=SC2034  # read by the cleanup
mnt=
