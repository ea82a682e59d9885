#!/bin/bash
# ------------------------------------------------------------ merge
. "$(dirname "$0")/../lib.sh"
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
# A FIFO that nobody writes: --merge and --compare wait on it, and a
# signal ends the wait (they used to hang in open(2), deaf to INT and TERM).
mkfifo fifo
for how in "INT --merge fifo" "TERM --compare fifo fifo"; do
	set -- $how
	"$sdb" "${@:2}" >/dev/null 2>fifo.err &
	pid=$!
	wait_for "$pid" has_open "$pid" "$work/fifo"
	kill -"$1" "$pid"
	wait_for "$pid" false	# until it ends (or 20 s)
	running "$pid" && kill -KILL "$pid"
	wait "$pid"; rc=$?
	check "$2 of a FIFO nobody writes: SIG$1 ends it, one line naming it" "$([ "$1" = INT ] && echo 130 || echo 143) sdb: fifo: interrupted while reading it" \
		"$rc $(cat fifo.err)"
done
(sleep 0.2; "$sdb" -r -f /dev/zero -s 1m --json >fifo) &
run --merge fifo --json
check "--merge of a FIFO that a run writes: merged" "0 1048576" "$rc $(jq .total.bytes <<<"$out")"
wait
rm -f fifo fifo.err
mkdir emptydir
bad_input 1 "emptydir: a directory with no file in it: nothing to merge" --merge emptydir
rmdir emptydir
echo x >bad-only.json
run --merge bad-only.json --html bad-only.html
check "--merge --html, no input gave a result: exit 1, the page named as not written, none made" \
	"1 1 false" "$rc $(grep -c '^sdb: bad-only.html: no input gave a result: not written$' <<<"$err") $([ -e bad-only.html ] && echo true || echo false)"
rm -f bad-only.json

# A result padded with 20 MB of data of its own (a long array): one line
# that names it, the other input still merged, and sdb's memory within
# twice the input and 64 MiB (it took 1.6 GB and 9 s before the parser
# counted what the values take).
"$sdb" -r -f /dev/zero -s 1m --json >plain.json 2>/dev/null
"$sdb" -r -f /dev/zero -s 1m --json 2>/dev/null | head -c -2 >padded.json
{ printf ',\n "extra": ['; seq -s, 0 2600000; printf ']}\n'; } >>padded.json
run_peak --merge padded.json plain.json --json
check "--merge of a padded document: exit 1, one line naming it, the other merged" "1 1 plain.json" \
	"$rc $(grep -c '^sdb: padded.json: too large to read: its values would take more memory than its size and 64 MiB' <<<"$err") $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
peak_within "--merge of a padded document: peak memory within twice its size and 64 MiB" \
	$(($(size_of padded.json) * 2 / 1024 + 65536))
rm -f padded.json plain.json

# A -j 1024 result is most of it histograms (2.3 MB): read as JSON values
# they take forty times their text, past the bound a padded document meets;
# --compare reads them apart, as --merge does, and --html and --prom read
# sdb's own document without a bound.
run -r -f /dev/zero -s 64m -b 4k -m rand -j 1024 --json --html wide.html --prom wide.prom
check "-j 1024 --json --html --prom: exit 0, the page and the metrics written" "0 true true" \
	"$rc $([ -s wide.html ] && echo true) $([ -s wide.prom ] && echo true)"
printf '%s\n' "$out" >wide.json
run --compare wide.json wide.json --json
check "--compare of two -j 1024 results: exit 0, a row per figure" "0 3" "$rc $(jq '.compare | length' <<<"$out")"
run --merge wide.json --json
check "--merge of a -j 1024 result: its 1024 threads" "0 1024" "$rc $(jq .total.threads <<<"$out")"
rm -f wide.json wide.html wide.prom

# Figures a document gives twice, or a thread's count that is not one:
# one line naming the file and the field, the other input merged (exit 1).
"$sdb" -r -f /dev/zero -s 1m --json >good.json 2>/dev/null
"$sdb" -r -f /dev/zero -s 1m --json 2>/dev/null | jq '.threads[0].bytes = -5' >negative.json
"$sdb" -r -f /dev/zero -s 1m --json 2>/dev/null | sed 's/"total": {"bytes": /"total": {"bytes": 1, "bytes": /' >twice.json
check "the test's document gives total.bytes twice" 1 "$(grep -c '"total": {"bytes": 1, "bytes": ' twice.json)"
run --merge negative.json good.json --json
check "--merge: a negative threads[0].bytes: exit 1, one line naming it, the other merged" "1 1 good.json" \
	"$rc $(grep -c '^sdb: negative.json: threads\[0\].bytes: -5 is not a count (a whole number from 0 below 2^64)$' <<<"$err") $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
run --merge twice.json good.json --json
check "--merge: total.bytes given twice: exit 1, one line naming it, the other merged" "1 1 good.json" \
	"$rc $(grep -c '^sdb: twice.json: total: the key "bytes" is given twice$' <<<"$err") $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
rm -f good.json negative.json twice.json
