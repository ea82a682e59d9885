#!/bin/bash
# ------------------------------------------------------------ compare
# --compare OLD NEW: a real difference (five runs of a loop device read
# with and without a 10 MiB/s blkio throttle, the runs as samples) is
# significant; two throttled sets of one configuration differ by under 50%
# (each run after a ramp: the throttle lets a burst through at its start,
# and a run beside a busy neighbour caught over 15% more once;
# a test of "not significant" would fail 5% of the time by design, and a
# throttle's timeline steps alias with its dispatch slices, which made the
# timeline-based version fail under the sanitizers); a quick suite compares
# test by test; --fail-slower exits 3 where
# the new one is slower beyond its threshold, interval and all.  The loop
# device's image is on /dev/shm: the free runs are then memory's, not a
# share of the disk that the sections beside this one keep busy (from it
# the free runs came out as slow as the throttled ones in a full make check).
. "$(dirname "$0")/../lib.sh"
run -w -f cmp -s 64m -R
run -r -f cmp -s 64m -b 1m --json; echo "$out" >cmp-a.json
run -r -f cmp -s 64m -b 4k --json; echo "$out" >cmp-b.json
run --compare cmp-a.json cmp-b.json
check "--compare: exit 0, a line per figure" "0 3" "$rc $(grep -c '^  \(rate\|IOPS\|p99\) ' <<<"$out")"
contains "--compare: a different block size is a warning that names both" "$err" \
	"sdb: warning: the block size differs: 1 MiB in cmp-a.json, 4 KiB in cmp-b.json"
lacks "--compare: the same size and target, no warning of them" "$err" "the size differs"
contains "--compare: the header says the figures are means" "$out" ": means of each side's samples"
contains "--compare: two runs compare their Totals, named both ways" "$out" "read seq 1 MiB Q1T1 -> read seq 4 KiB Q1T1"
run -w -f cmp -s 32m -R
run -r -f cmp -s 32m -b 4k -t 1.2 --json; echo "$out" >cmp-e.json
run --compare cmp-b.json cmp-e.json
contains "--compare: a different size and time are warnings that name both" "$err" \
	"sdb: warning: the size differs: 64 MiB in cmp-b.json, 32 MiB in cmp-e.json"
contains "--compare: the time, one pass against -t" "$err" "sdb: warning: the time differs: one pass in cmp-b.json, 1.2 s in cmp-e.json"
run --compare cmp-e.json cmp-e.json --json
check "--compare --json: how many samples each mean is of (the timeline's steps but the last)" true \
	"$(jq --slurpfile e cmp-e.json '.compare[0].old_samples == ($e[0].timeline | length) - 1 and .compare[0].new_samples == .compare[0].old_samples' <<<"$out")"
run -M 50 -f cmp-m -s 16m -R -b 4k -t 0.5 --json; echo "$out" >cmp-f.json
run --compare cmp-e.json cmp-f.json
contains "--compare: other options that differ are named" "$err" "sdb: warning: the options differ (op, "
run -r -f cmp -s 64m -b 1m -t 2 --json; echo "$out" >cmp-a.json
run --compare cmp-a.json cmp-a.json --json
check "--compare --json: the same document, no change, intervals" "0 0 true" \
	"$rc $(jq '.compare[0].change' <<<"$out") $(jq '.compare[0].low <= 0 and .compare[0].high >= 0 and .compare[0].significant == false' <<<"$out")"
bad_input 2 "--compare: needs OLD NEW" --compare cmp-a.json
bad_input 2 "--compare and --block-size" --compare cmp-a.json cmp-b.json -b 4k
bad_input 2 "--fail-slower: only meaningful with --compare" -r -f cmp --fail-slower 5
bad_input 2 "--fail-slower -1: a percentage from 0 to 1000" --compare cmp-a.json cmp-b.json --fail-slower -1
echo '{"version": "0.1.0"}' >cmp-c.json
bad_input 1 "cmp-c.json: not an sdb run, quick suite or merge" --compare cmp-a.json cmp-c.json
echo 'not json' >cmp-d.json
bad_input 1 "cmp-d.json: not valid JSON" --compare cmp-d.json cmp-a.json
rm -f cmp cmp-m cmp-?.json
if ! system || [ ! -w /sys/fs/cgroup/blkio ]; then
	skipped "--compare of a throttled and a free device" "needs root and cgroup v1 blkio"
else
	img=/dev/shm/sdb-cli-$$-cmp.img
	truncate -s 256m "$img"
	loop=$(losetup -f --show "$img")
	"$sdb" -w -f "$loop" -s 256m -D -R --force >/dev/null 2>&1
	cg=/sys/fs/cgroup/blkio/sdb-cli-compare-$$
	mkdir "$cg"
	majmin=$(cat "/sys/block/${loop#/dev/}/dev")
	echo "$majmin $((10 << 20))" >"$cg/blkio.throttle.read_bps_device"
	check "--compare: the 10 MiB/s throttle is set on $loop" "$majmin $((10 << 20))" "$(cat "$cg/blkio.throttle.read_bps_device")"
	for x in a b; do
		sh -c "echo \$\$ >$cg/tasks; exec $sdb -r -f $loop -s 256m -b 256k -D --ramp 0.5 -t 1 --runs 5 --json" >cmp-$x.json 2>/dev/null
	done
	"$sdb" -r -f "$loop" -s 256m -b 256k -D -t 1 --runs 5 --json >cmp-c.json 2>/dev/null
	rmdir "$cg"
	run --compare cmp-a.json cmp-b.json --json
	check "--compare, two throttled sets of runs: the rate within 50% (the free one is over 10x), with an interval" "0 true true" \
		"$rc $(jq -r '.compare[] | select(.metric == "bytes_per_second") | "\(.change | fabs < 0.5) \(.low != null)"' <<<"$out")"
	run --compare cmp-a.json cmp-c.json --json
	check "--compare, throttled against free: the rate up, significantly" "0 true true" \
		"$rc $(jq -r '[.compare[] | select(.metric == "bytes_per_second") | .significant, .low > 1] | map(tostring) | join(" ")' <<<"$out")"
	run --compare cmp-a.json cmp-c.json
	contains "--compare: significant in words" "$out" ": significant"
	# --fail-slower: a regression gate.  Free (old) to throttled (new) is
	# slower beyond 10%, its interval too: exit 3, the test named; the
	# other way, and two throttled runs, pass.
	run --compare cmp-c.json cmp-a.json --fail-slower 10
	check "--fail-slower 10, free then throttled: exit 3, the slower rate named" "3 1" \
		"$rc $(grep -c '^--fail-slower 10%: slower: read seq 256 KiB Q1T1 rate (-[0-9.]*% \[-[0-9.]*%, -[0-9.]*%\]' <<<"$out")"
	run --compare cmp-c.json cmp-a.json --fail-slower 10 --json
	check "--fail-slower --json: exit 3, the rate row slower, the threshold kept" "3 true 10" \
		"$rc $(jq -r '"\(.compare[] | select(.metric == "bytes_per_second") | .slower) \(.fail_slower)"' <<<"$out")"
	run --compare cmp-a.json cmp-c.json --fail-slower 10
	check "--fail-slower 10, throttled then free (faster): exit 0, none slower" "0 1" \
		"$rc $(grep -c '^--fail-slower 10%: no test slower by more' <<<"$out")"
	run --compare cmp-a.json cmp-b.json --fail-slower 60
	check "--fail-slower 60, two throttled sets of runs: exit 0" 0 "$rc"
	losetup -d "$loop"; loop=
	rm -f "$img" cmp-?.json
fi
