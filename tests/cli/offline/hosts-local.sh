#!/bin/bash
# ------------------------------------------------------------ hosts-local
. "$(dirname "$0")/../lib.sh"
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
# Every host failed: no page and no metrics, each said.
SDB_SSH=false run --hosts a,b -w -f hl -s 1m --html hl.html --prom hl.prom
check "--hosts, every host failed: exit 1, the page and the metrics named as not written, neither made" "1 2 false" \
	"$rc $(grep -c '^sdb: hl\.\(html\|prom\): no host gave a result: not written$' <<<"$err") $([ -e hl.html ] || [ -e hl.prom ] && echo true || echo false)"
