#!/bin/bash
# ------------------------------------------------------------ verdict-evidence
. "$(dirname "$0")/../lib.sh"
# A verdict from evidence: each cause the Device line names comes from a
# check, and device.evidence lists every check with what it saw.  Each
# case is built for real and held against what the kernel says: a blkio
# throttle this section sets (on sdb's own cgroup, on an ancestor, on the
# loop device below the one sdb reads) and the loop device's counters
# (/sys/block/X/stat), a kill -STOP whose length the test measures, and a
# writer on the device during a read (the device's sectors written).
reads_done() { awk '{print $1}' "/sys/class/block/$1/stat"; }

run -r -f /dev/zero -s 16m --json
check "device.evidence: every check made, each with what it saw, for an unverifiable target too" "true true" \
	"$(jq -r '.device.evidence | "\(length >= 4) \(all(has("check") and has("found") and has("figure")))"' <<<"$out")"

blkio=/sys/fs/cgroup/blkio
if ! system || [ ! -w "$blkio/cgroup.procs" ] || [ ! -e "$blkio/blkio.throttle.read_bps_device" ] ||
	! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	for t in "a blkio throttle on sdb's cgroup" "a throttle on an ancestor" "a throttle on the level below" \
		"kill -STOP mid-run" "a writer during a read"; do
		skipped "$t" "needs root, losetup, mkfs.ext4 and cgroup v1 blkio"
	done
	exit
fi
cg=$blkio/sdb-cli-evidence-$$
cgs=()
mkcg() { mkdir -p "$1" && cgs+=("$1"); }
# stop_writer TARGET: end the loop $writer and the dd it runs on TARGET,
# and wait (up to 10 s) until no dd writes TARGET.
stop_writer() {
	local try
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	for ((try = 0; try < 200; try++)); do
		pkill -f "of=$1 " || return 0
		sleep 0.05
	done
}
# inside CGROUP ARGS...: run sdb in CGROUP (sets $rc, $out, $err).
inside() {
	local c=$1
	shift
	out=$( (echo "$BASHPID" >"$c/cgroup.procs" && exec "$sdb" "$@") 2>"$work/.err"); rc=$?
	err=$(cat "$work/.err")
}

truncate -s 96m ev.img
if ! loop=$(losetup -f --show --direct-io=on ev.img 2>/dev/null); then
	skipped "blkio throttles on a loop device" "losetup failed"
else
	name=${loop#/dev/}
	majmin=$(cat "/sys/block/$name/dev")
	limit=$((8 << 20))	# 8 MiB/s
	mkcg "$cg"
	echo "$majmin $limit" >"$cg/blkio.throttle.read_bps_device"
	# 1. The throttle on sdb's own cgroup: -q 16 and -j 2 cannot pass it,
	# and the Device line says so, with the value and where it is set.
	for args in "-q 16" "-j 2"; do
		b0=$(sectors "$name" 3)
		# shellcheck disable=SC2086
		inside "$cg" -r -f "$loop" -b 1m -D $args -t 2 --json
		b1=$(sectors "$name" 3)
		check "throttle on sdb's cgroup, $args: limited by throttle, named with its value and cgroup" \
			"0 throttle true true" "$rc $(jq -r --arg cg "$cg" --arg v "$majmin" '.device |
				"\(.limit) \(.reason | contains("8.00 MiB/s read limit on \($v), blkio.throttle.read_bps_device in \($cg)")) \(.reason | contains("-q or -j may go faster") | not)"' <<<"$out")"
		check "throttle, $args: the device's own rate (kernel counters over sdb's window) at the limit, +-10%" true \
			"$(jq -r --argjson b $((b1 - b0)) --argjson l $limit '($b / .total.seconds / $l) | . > 0.9 and . < 1.1' <<<"$out")"
		check "throttle, $args: the evidence holds the throttle check, found" true \
			"$(jq '[.device.evidence[] | select(.check == "throttle" and .found)] | length == 1' <<<"$out")"
	done
	run -r -f "$loop" -b 1m -D -t 1 --json	# outside the cgroup: no limit over it
	check "no throttle over sdb: not called throttle, the check says none" "0 false false" \
		"$rc $(jq -r '.device | "\(.limit == "throttle") \(any(.evidence[]; .check == "throttle" and .found))"' <<<"$out")"
	# 2. On an ancestor: the child cgroup sdb is in has none of its own.
	mkcg "$cg/child"
	inside "$cg/child" -r -f "$loop" -b 1m -D -q 4 -t 2 --json
	check "throttle on an ancestor: named, where it is set (the parent)" "0 throttle true" \
		"$rc $(jq -r --arg cg "$cg" '.device | "\(.limit) \(.reason | contains("blkio.throttle.read_bps_device in \($cg)"))"' <<<"$out")"
	rmdir "$cg/child" && unset 'cgs[-1]'
	# 3. The level below: a loop device over an image on an ext4 on the
	# throttled one.  sdb reads the upper loop device; its bios reach the
	# lower one through the loop driver, charged to sdb's cgroup.
	mnt=$work/ev
	mkdir -p "$mnt"
	if mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" && mount "$loop" "$mnt" && truncate -s 48m "$mnt/upper.img" &&
		upper=$(losetup -f --show --direct-io=on "$mnt/upper.img" 2>/dev/null); then
		dd if=/dev/urandom of="$upper" bs=1M count=48 oflag=direct status=none
		inside "$cg" -r -f "$upper" -b 1m -D -q 8 -t 2 --json
		check "throttle on the level below: limited by throttle on $name, below ${upper#/dev/}" "0 throttle true ${upper#/dev/} $name" \
			"$rc $(jq -r --arg n "$name" '.device | "\(.limit) \(.reason | contains("\($n) did")) \(.stack[0].name) \(.stack[1].name)"' <<<"$out")"
		# A writer on the lower loop device's file system while sdb reads the
		# upper one: the level below moved bytes that did not come from sdb.
		(while :; do dd if=/dev/zero of="$mnt/junk" bs=1M count=16 oflag=direct status=none || exit; done) &
		writer=$!
		w0=$(sectors "$name" 7)
		run -r -f "$upper" -b 1m -D -t 2 --json
		w1=$(sectors "$name" 7)
		stop_writer "$mnt/junk"
		check "a writer below a loop device: $name's others counted (at most the kernel's writes), not device or latency" \
			"0 true unknown true" "$rc $(jq -r --argjson w $((w1 - w0)) '.device | "\(.stack[1].other_bytes > 0 and .stack[1].other_bytes <= $w) \(.limit) \(any(.evidence[]; .check == "stack" and .found))"' <<<"$out")"
		check "a writer below a loop device: the warning names the level" true \
			"$(jq --arg n "$name" '.warnings | any(test("iB on \($n), below .*were not sdb.s.*the device was shared"))' <<<"$out")"
		losetup -d "$upper"
		rm -f "$mnt/upper.img" "$mnt/junk"
		# A buffered write over pages dd left dirty: the kernel charges a
		# page's write to whoever dirtied it first, so sdb writes them out
		# before its window; the device's bytes are then sdb's own.
		dd if=/dev/urandom of="$mnt/dirty" bs=1M count=32 status=none
		w0=$(sectors "$name" 7)
		run -w -f "$mnt/dirty" --force -s 32m --json
		w1=$(sectors "$name" 7)
		# (the disk under the image is another level, shared with whatever
		# runs beside this section: only $name's own words are under test)
		check "a buffered write over dd's dirty pages: $name saw the 32 MiB, counted as sdb's, no word of $name shared" \
			"0 true true 0" "$rc $(jq -r --arg n "$name" --argjson w $((w1 - w0)) '"\(.device.delivered >= 0.95) \(.device.bytes <= $w and $w >= 33554432) \([.warnings[] | select(test("iB on \($n) were not sdb.s|^\($n) saw "))] | length)"' <<<"$out")"
		umount "$mnt"
	else
		skipped "a throttle on the level below" "could not build a loop device over a file on the throttled one"
		mountpoint -q "$mnt" && umount "$mnt"
	fi
	mnt=
	# 4. An IOPS throttle, and a write: the write limit holds a write.
	echo "$majmin 0" >"$cg/blkio.throttle.read_bps_device"
	echo "$majmin 200" >"$cg/blkio.throttle.write_iops_device"
	w0=$(awk '{print $5}' "/sys/block/$name/stat")
	inside "$cg" -w -f "$loop" --force -b 4k -m rand -D -q 8 -t 2 -s 32m --json
	w1=$(awk '{print $5}' "/sys/block/$name/stat")
	check "write IOPS throttle: limited by throttle, 200 write IOPS named; the kernel's writes at the limit +-10%" \
		"0 throttle true true" "$rc $(jq -r --argjson n $((w1 - w0)) '"\(.device.limit) \(.device.reason | contains("200 write IOPS limit")) \($n / .total.seconds / 200 | . > 0.9 and . < 1.1)"' <<<"$out")"
	echo "$majmin 0" >"$cg/blkio.throttle.write_iops_device"

	# 5. kill -STOP mid-run, for a time this test measures: "stopped", the
	# time within what the test held it, and a warning.
	dd if=/dev/urandom of="$loop" bs=1M count=64 oflag=direct status=none
	"$sdb" -r -f "$loop" -b 4k -m rand -D -t 4 --json >stop.json 2>stop.err &
	pid=$!
	if wait_for "$pid" has_read "$pid" $((1 << 20)); then
		kill -STOP "$pid"
		t0=$(date +%s%N)
		until [ $(($(date +%s%N) - t0)) -ge 1500000000 ]; do sleep 0.1; done	# the stop under test: 1.5 s
		kill -CONT "$pid"
		t1=$(date +%s%N)
		wait "$pid"; rc=$?
		out=$(cat stop.json)
		check "kill -STOP for $(((t1 - t0) / 1000000)) ms: limited by stopped, the stop measured within it" "0 stopped true" \
			"$rc $(jq -r --argjson held $(((t1 - t0))) '.device.limit as $l | (.device.reason | capture("stopped or frozen (?<s>[0-9.]+) s").s | tonumber * 1e9) as $s |
				"\($l) \($s > 0.6 * $held and $s <= $held + 2e8)"' <<<"$out")"
		contains "kill -STOP: the warning on stderr" "$(cat stop.err)" "sdb: warning: sdb was stopped or frozen "
		check "kill -STOP: no latency advice" false "$(jq '.device.reason | contains("may go faster")' <<<"$out")"
	else
		bad "kill -STOP mid-run" "sdb did not start reading"
		wait "$pid"
	fi

	# 6. Another process writes the device while sdb reads it: its bytes
	# are counted (both ways), the device is shared, and neither "device"
	# nor "latency" is the cause.
	dd if=/dev/zero of="$loop" bs=1M seek=64 count=32 oflag=direct status=none
	(while :; do dd if=/dev/zero of="$loop" bs=1M seek=64 count=32 oflag=direct status=none || exit; done) &
	writer=$!
	w0=$(sectors "$name" 7)
	run -r -f "$loop" -b 1m -s 64m -D -t 2 --json
	w1=$(sectors "$name" 7)
	stop_writer "$loop"
	check "a writer during a read: its bytes counted (at most the kernel's writes), shared, not device or latency" \
		"0 true true unknown" "$rc $(jq -r --argjson w $((w1 - w0)) '.device | "\(.other_bytes > 0 and .other_bytes <= $w) \(any(.evidence[]; .check == "others" and .found)) \(.limit)"' <<<"$out")"
	matches "a writer during a read: one line, the figure first, says the device was shared" "$err" \
		"*sdb: warning: [0-9]*iB on $name were not sdb's ([0-9]*% of the * claimed; other processes): the device was shared, the rate is a lower bound*"
	release_image ev.img
fi
for ((i = ${#cgs[@]} - 1; i >= 0; i--)); do rmdir "${cgs[i]}"; done
