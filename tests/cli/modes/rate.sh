#!/bin/bash
# ------------------------------------------------------------ rate
# --rate and --sweep (src/pace.h, src/sweep.h): an open loop offers a fixed
# load, counts each I/O's latency from when it was due, keeps the service
# time apart, and says when the load was not met.  Against a device of
# known speed (a loop device under a cgroup v1 blkio IOPS throttle, as
# root): half the limit is met, twice the limit is not and its latencies
# grow as a queue's, and the sweep names no knee: its maximum is the
# throttle's.
. "$(dirname "$0")/../lib.sh"
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 2000 --json
check "--rate 2000 on /dev/zero: exit 0, offered 2000, options.rate 2000, service_ns beside latency_ns" "0 2000 2000 true true" \
	"$rc $(jq -r '"\(.rate.offered) \(.options.rate) \(.total.service_ns | has("p99")) \(.threads[0].service_ns | has("p999"))"' <<<"$out")"
check "--rate 2000 -t 0.5: no more I/Os than the schedule holds (a closed loop does hundreds of thousands)" true \
	"$(jq '.total.ops <= 1001 and .total.ops > 0' <<<"$out")"
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 2000 -q 4 --json
check "--rate -q 4 (io_uring): offered 2000, no more I/Os than scheduled" "0 2000 true" \
	"$rc $(jq -r '"\(.rate.offered) \(.total.ops <= 1001 and .total.ops > 0)"' <<<"$out")"
# A slow schedule: its window is all of -t, not the time to its last I/O
# (2 IOPS for 1.5 s: three I/Os due, at 0, 0.5 and 1 s, and 2 achieved,
# where the window ending at the third I/O made it 3, 150%).
for q in 1 2; do
	run -r -f /dev/zero -b 4k -s 4m -t 1.5 --rate 2 -q $q --json
	check "--rate 2 -t 1.5 -q $q: three I/Os, 2 IOPS achieved (within 1%), met" "0 3 true true" \
		"$rc $(jq -r '"\(.total.ops) \(.rate.achieved / .rate.offered | . >= 0.99 and . <= 1.01) \(.rate.met)"' <<<"$out")"
done
run -r -f /dev/zero -b 4k -s 4m -t 0.5 --rate 8m/s -j 2 --json
check "--rate 8m/s -b 4k -j 2: 2048 I/Os per second per thread, 4096 offered" "0 2048 4096" \
	"$rc $(jq -r '"\(.options.rate) \(.rate.offered)"' <<<"$out")"
run -r -f /dev/zero -b 4k -s 4m
check "a closed loop's document has no rate and no service_ns" "false false" \
	"$("$sdb" -r -f /dev/zero -b 4k -s 4m --json | jq -r '"\(has("rate")) \(.total | has("service_ns"))"')"
run -w -f rate.dat -s 4m -b 4k
run -M 50 -f rate.dat -s 4m -b 4k -m rand -t 0.5 --rate 1k
contains "--rate -M 50: the rate line" "$out" "Rate: 1,000 IOPS offered, "
contains "--rate: the service time apart" "$out" "service (issue to completion) min "
contains "--rate: the header names the open loop" "$out" ", open loop at 1,000 IOPS per thread, zero buffer: rate.dat"
run -r -f rate.dat -b 4k -t 2 --rate 5k --explain
contains "--rate --explain: fio's rate_iops" "$out" "--rate_iops=5000"
run -r -f rate.dat -b 4k -m rand -q 4 --sweep --explain
check "--sweep --explain: the maximum and ten steps, each with rate_iops" "11 10" \
	"$(grep -c '^fio ' <<<"$out") $(grep -c -- '--rate_iops=\$((MAX \* [0-9]* / 10))$' <<<"$out")"
run -r -f rate.dat -b 4k -m rand -t 0.2 --sweep --json --html rate.html
check "--sweep --json: ten steps from 10% to 100% of the maximum, a knee or null, the page" "0 10 true true true true" \
	"$rc $(jq -r '"\(.sweep | length) \([.sweep[] | has("p999_ns")] | all) \(.knee == null or (.knee | has("share"))) \((.sweep[9].offered / .total.iops * 100 | round) == 100)"' <<<"$out") $([ -s rate.html ] && echo true)"
bad_input 2 "--rate 0: a rate is a positive number" -r -f rate.dat --rate 0
bad_input 2 "--rate fast: a rate is a positive number" -r -f rate.dat --rate fast
bad_input 2 "--rate 0/s: a rate is a positive number" -r -f rate.dat --rate 0/s
bad_input 2 "--rate: needs a test" -T --rate 5k
bad_input 2 "--sweep and --rate: the sweep sets its own rates" -r -f rate.dat --sweep --rate 5k
bad_input 2 "--sweep: needs a test" -T --sweep
bad_input 2 "--sweep and --verify" -w -f rate.dat --sweep --verify
bad_input 2 "--sweep and --start-at" -r -f rate.dat --sweep --start-at +5
bad_input 2 "--quick and --sweep" --quick -f . --sweep
rm -f rate.dat rate.html

blkio=/sys/fs/cgroup/blkio
if ! system || [ ! -w "$blkio/cgroup.procs" ] || [ ! -e "$blkio/blkio.throttle.read_iops_device" ]; then
	skipped "rate: --rate and --sweep against a throttled loop device" "needs root and cgroup v1 blkio"
elif ! truncate -s 64m rate.img || ! loop=$(losetup -f --show rate.img 2>/dev/null); then
	skipped "rate: --rate and --sweep against a throttled loop device" "losetup failed"
	rm -f rate.img
else
	limit=1000
	cg=$blkio/sdb-cli-rate-$$
	mkdir "$cg"
	echo "$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ') $limit" >"$cg/blkio.throttle.read_iops_device"
	# throttled ARGS...: run sdb inside the cgroup (sets $rc, $out, $err).
	throttled() {
		out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" "$@") 2>"$work/.err"); rc=$?
		err=$(cat "$work/.err")
	}
	# A loaded machine can stall sdb's thread past a second once (then the
	# load was not met, truly): up to three tries, each shown.
	for try in 1 2 3; do
		throttled -r -f "$loop" -b 4k -m rand -D -t 3 --rate $((limit / 2)) --json
		half=$(jq -r '"\(.rate.met) \(.rate.achieved / .rate.offered | . >= 0.98 and . <= 1.02)"' <<<"$out")
		[ "$half" = "true true" ] && break
		echo "     (try $try at half the throttle: $(jq -c .rate <<<"$out"))"
	done
	check "--rate at half the throttle: met, achieved within 2% of offered" "0 true true" "$rc $half"
	throttled -r -f "$loop" -b 4k -m rand -D -t 3 --rate $((limit * 2)) --json
	check "--rate at twice the throttle: not met, and said so in the warnings" "0 false true" \
		"$rc $(jq -r '"\(.rate.met) \([.warnings[] | contains("the offered load was not met")] | any)"' <<<"$out")"
	check "--rate at twice the throttle: the queue shows (p99 from the due time over 10x the service p99, behind over 0.5 s)" \
		"true true" "$(jq -r '"\(.total.latency_ns.p99 > 10 * .total.service_ns.p99) \(.rate.behind_seconds > 0.5)"' <<<"$out")"
	contains "--rate at twice the throttle: the warning on stderr" "$err" "sdb: warning: --rate: the offered load was not met"
	throttled -r -f "$loop" -b 4k -m rand -D -t 3 -q 4 --rate $((limit * 2)) --json
	check "--rate -q 4 at twice the throttle: not met, latency far above service" "0 false true" \
		"$rc $(jq -r '"\(.rate.met) \(.total.latency_ns.p99 > 10 * .total.service_ns.p99)"' <<<"$out")"
	# The knee under the throttle: the maximum is the throttle's, not the
	# device's, so no knee is named and a warning says why (round 3 named
	# one at 20% of the limit, from p99s that went up and down).  The
	# light load ran twice: two p99s in the JSON, the first the 10% row's.
	throttled -r -f "$loop" -b 4k -m rand -D -t 1 --sweep --json
	# (+-30%: a 1 s maximum catches the throttle's opening burst, which
	# under the sanitizers once took it past +15%; the device gives 20x.)
	check "--sweep under the throttle: the maximum is the throttle's (+-30%)" "0 true" \
		"$rc $(jq -r --argjson l $limit '.total.iops / $l | . > 0.7 and . < 1.3' <<<"$out")"
	check "--sweep under the throttle: no knee, the warning names the throttle" "null true" \
		"$(jq -c '.knee' <<<"$out") $(jq '.warnings | any(test("^--sweep: the maximum was a throttle.s \\(.* read IOPS limit on .*: no knee of the device.s is named"))' <<<"$out")"
	check "--sweep: the light load measured twice, the first its row's" "2 true" \
		"$(jq -r '"\(.light_p99_ns | length) \(.light_p99_ns[0] == .sweep[0].p99_ns)"' <<<"$out")"
	throttled -r -f "$loop" -b 4k -m rand -D -t 1 --sweep
	contains "--sweep under the throttle: the Knee line points at the warning" "$out" "Knee: none (see the warning)"
	contains "--sweep under the throttle: the warning on stderr" "$err" "sdb: warning: --sweep: the maximum was a throttle's"
	rmdir "$cg"
	release_image rate.img
fi
