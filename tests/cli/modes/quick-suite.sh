#!/bin/bash
# ------------------------------------------------------------ quick-suite
. "$(dirname "$0")/../lib.sh"
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
run -w -f qs/x --runs 2 --explain
check "--runs with --explain (not --quick): usage error, no file" "2 " "$rc $(ls qs)"

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
	# Depth 32 reached, not held: 16 jobs on 2 cores spend much of the run
	# with fewer in flight (the most common level was 16 once, beside a busy section).
	check "fio runs RND4K Q32T16 read as explained: reads 4 KiB blocks, reaching depth 32, in 16 jobs" "0 0 4096 true 16" \
		"$rc $(jq -r '.jobs[0] | "\(.write.io_bytes) \(.read.io_bytes / .read.total_ios) \(.iodepth_level["32"] > 0) \(."job options".numjobs)"' <<<"$out" 2>&1)"
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
