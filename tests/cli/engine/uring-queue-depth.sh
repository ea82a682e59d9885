#!/bin/bash
# ------------------------------------------------------------ uring-queue-depth
. "$(dirname "$0")/../lib.sh"
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
if system && [ -w /proc/sys/kernel/io_uring_disabled ]; then
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
