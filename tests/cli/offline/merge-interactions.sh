#!/bin/bash
# ------------------------------------------------------------ merge-interactions
# The run features together (--ramp, -M, --fsync, --verify,
# --start-at, --merge, --hosts).
. "$(dirname "$0")/../lib.sh"
# Ctrl-C in a long --ramp: nothing counted, and the empty window is dated
# when the run stopped, not at the end of a ramp that never came.
"$sdb" -w -f rampint -s 8m --ramp 60 -t 1 --json >rampint.json 2>/dev/null &
pid=$!
wait_for $pid at_least rampint $((1 << 20))	# the ramp's first write landed
kill -INT $pid
wait $pid; rc=$?
now=$(date +%s.%N)
check "SIGINT in --ramp: exit 130, interrupted, nothing counted" "130 true 0" \
	"$rc $(jq -r '"\(.interrupted) \(.total.bytes)"' rampint.json 2>&1)"
check "SIGINT in --ramp: start_unix and end_unix not after the run ended" true \
	"$(jq --argjson now "$now" '.start_unix <= $now and .end_unix <= $now' rampint.json 2>&1)"
rm -f rampint rampint.json
# -v with --ramp and --start-at: the start shown is the ramp's end, and the
# lateness is the barrier's (the ramp began then), not a second late.
run -v -w -f rampv -s 8m --ramp 0.2 -t 0.2 --start-at +0.3
matches "-v --ramp --start-at: the window opens at the ramp's end, which began at --start-at" "$out" \
	"*Started at *, the end of the 0.2 s ramp begun * after --start-at's *"
rm -f rampv
# --merge of -M, --fsync and --ramp runs: the header says what they ran.
run -M 70 -f mixm -s 1m -b 4k --fsync 2 --ramp 0.1 -t 0.2 --json
printf '%s\n' "$out" >mixm.json
jq '.host = "other"' mixm.json >mixm2.json	# the same document twice is an error now
run --merge mixm.json mixm2.json
matches "--merge of -M runs: the header has the mix, --fsync and --ramp" "$out" \
	"sdb *: 2 results merged: mix 70% read seq, 4 KiB blocks, *, fdatasync every 2 writes, 0.1 s ramp first (not counted)*"
matches "--merge of -M runs: the Total's reads and writes apart" "$out" "*Total (2 results*read  *%: *IOPS*write  *%: *IOPS*"
run --merge mixm.json mixm2.json --json
check "--merge --json of -M runs: total.read and total.write add up" \
	"$(jq '[.total.read.ops * 2, .total.write.ops * 2, .total.read.bytes * 2] | join(" ")' mixm.json)" \
	"$(jq '[.total.read.ops, .total.write.ops, .total.read.bytes] | join(" ")' <<<"$out")"
check "--merge --json of -M runs: reads and writes make the total" true \
	"$(jq '.total.read.ops + .total.write.ops == .total.ops and .total.read.bytes + .total.write.bytes == .total.bytes' <<<"$out")"
# The merge reads the saved histogram, whose buckets are under 0.8% wide:
# within 1% of the run's own percentiles, not to the nanosecond.
check "--merge --json of -M runs: each side's percentiles are the input's within a bucket (the same histogram twice)" true \
	"$(jq --slurpfile a mixm.json '[.total.read.latency_ns.p99, .total.write.latency_ns.p99, .total.write.latency_ns.p50] as $m |
		[$a[0].total.read.latency_ns.p99, $a[0].total.write.latency_ns.p99, $a[0].total.write.latency_ns.p50] as $i |
		[range(3) | ($m[.] - $i[.]) | fabs] | to_entries | all(.value <= 0.01 * $i[.key])' <<<"$out")"
run --merge mixm.json mixm2.json
matches "--merge of -M runs: each side's line has its latency" "$out" "*Total (2 results*read  *%: *IOPS, latency min *p99 *write  *%: *IOPS, latency min *p99 *"
jq 'del(.total.read.histogram)' mixm2.json >mixm3.json
run --merge mixm.json mixm3.json --json
check "--merge of -M runs, one without the sides' histograms: null, and a warning names it" "null 1" \
	"$(jq -r '"\(.total.read.latency_ns) \(.warnings | map(select(test("^mixm3.json: no histograms of its reads and writes apart"))) | length)"' <<<"$out")"
rm -f mixm mixm.json mixm2.json mixm3.json
# --hosts (here a stand-in for ssh, not named ssh, that logs the remote command and runs it
# here): -f's %h and %r go to each host as given, for it to expand, and
# the new options reach it.
mkdir -p hostsx
printf '#!/bin/sh\nshift\nprintf "%%s\\n" "$*" >>"%s/hostsx/ssh.log"\nexec sh -c "$*"\n' "$work" >hostsx/fakessh
chmod +x hostsx/fakessh
SDB_SSH=$work/hostsx/fakessh SDB_REMOTE=$sdb run --hosts localhost -M 70 -s 1m -b 4k --fsync 1 --ramp 0.1 -t 0.2 \
	-f "$work/hostsx/t.%h.%r" --json
check "--hosts -M --fsync --ramp: exit 0, one host merged" "0 1" "$rc $(jq '.total.hosts' <<<"$out")"
remote=$(eval "set -- $(cat hostsx/ssh.log)"; printf '%s' "$3")	# the sdb command inside "sh -c '...'"
contains "--hosts: -f's pattern goes to the host unexpanded" "$remote" "'--file=$work/hostsx/t.%h.%r'"
contains "--hosts: -M, --fsync and --ramp go to the host" "$remote" "'--mix=70' '--size=1m' '--block-size=4k' '--fsync=1' '--ramp=0.1' '--time=0.2'"
rm -rf hostsx
# --merge of a damaged document: sizes past 64 bits are an error naming
# the file and the field (they were once read as a silent 0), never
# converted out of range (undefined behaviour; 8 EiB on x86).
run -w -f dmg -s 64k -b 16k --json
jq '.total.bytes = 1e300 | .options.block_size = 1e300' <<<"$out" >dmg.json
run --merge dmg.json --json
check "--merge: a total of 1e300 bytes is an error naming the field, and the JSON still one document" "1 0 0" \
	"$rc $(jq '.total.bytes, .total.hosts' <<<"$out" | xargs)"
contains "--merge: 1e300 bytes: the field named" "$err" "sdb: dmg.json: options.block_size: 1.0000000000000001e+300 is not a count"
rm -f dmg dmg.json
