#!/bin/bash
# ------------------------------------------------------------ worker-threads-and-files
. "$(dirname "$0")/../lib.sh"
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
check "rand write with -R: no compression check of a zero buffer" 0 \
	"$(jq '[.device.evidence[] | select(.check == "compression")] | length' <<<"$out")"

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
if [ "$(stat -f -c %T .)" = ext2/ext3 ]; then	# ext4 compresses nothing: checked, said in the evidence, no warning
	check "zero buffer on ext4: checked, no warning" "0 false" \
		"$(jq -r '"\(.warnings | map(select(test("zeros"))) | length) \(.device.evidence[] | select(.check == "compression") | .found)"' <<<"$out")"
else
	skipped "zero buffer on ext4: checked, no warning" "the scratch directory is on $(stat -f -c %T .)"
fi
check "buffered write: the timed fdatasync is reported" true \
	"$(jq '.threads[0] | .sync_seconds > 0 and .sync_seconds < .seconds' <<<"$out")"
check "the timeline stops before the fdatasync" true "$(jq '(.timeline | last | .t) <= .total.seconds - .threads[0].sync_seconds + 0.00001' <<<"$out")"

run -r -f r -m rand -b 4k -t 1 --cached --json	# the cache: more passes than a slow disk gives
check "-t 1: repeats passes" true "$(jq '.total.ops > 1024 and .threads[0].passes > 1' <<<"$out")"
check "-t 1: runs for the time asked" true "$(jq '.total.seconds >= 0.95' <<<"$out")"
check "-t 1: time_limit in JSON" 1 "$(jq .options.time_limit <<<"$out")"
rm -f r z grow
