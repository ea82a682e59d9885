#!/bin/bash
# ------------------------------------------------------------ worker-ramp-window
# --ramp at any depth: the window counts only the I/O it
# issued.  At the ramp's end the slots drain, the device's counters are
# read, and only then does the window issue: a pass is exactly SIZE/bs
# I/Os, and the device read exactly the window's bytes (a loop device
# that nothing else reads).
. "$(dirname "$0")/../lib.sh"
run -w -f rampw.img -s 8m -b 64k -R
run -r -f rampw.img -s 4m -b 4k -q 8 --ramp 0.3 --json
check "-r -q 8 --ramp without -t: exactly SIZE/bs ops and bytes" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -r -f rampw.img -s 4m -b 4k -q 8 -m rand --ramp 0.3 --json
check "-r -q 8 -m rand --ramp: every block once, nothing of the ramp" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -w -f rampw.img -s 4m -b 4k -q 8 -D --ramp 0.3 --json
check "-w -q 8 --ramp without -t: exactly SIZE/bs writes" "0 1024 4194304" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes)"' <<<"$out")"
run -M 50 -f rampw.img -s 4m -b 4k -q 8 --ramp 0.3 --json
check "-M 50 -q 8 --ramp without -t: the sides add up to SIZE/bs" "0 1024" \
	"$rc $(jq -r '.total.read.ops + .total.write.ops' <<<"$out")"
rm -f rampw.img
if ! system; then
	skipped "--ramp window against a loop device's counters" "needs root (a loop device)"
else
	truncate -s 16m rampw-loop.img
	if loop=$(losetup -f --show rampw-loop.img 2>/dev/null); then
		"$sdb" -w -f "$loop" --force -s 16m -D -R >/dev/null 2>&1
		for q in 1 8; do
			read -ra before <"/sys/block/${loop#/dev/}/stat"
			run -r -f "$loop" -s 8m -b 4k -q $q -D --ramp 0.3 --json
			read -ra after <"/sys/block/${loop#/dev/}/stat"
			check "loop device -q $q --ramp: 2048 ops, and the device read the window's bytes, no more" \
				"0 2048 true ${loop#/dev/} 8388608" \
				"$rc $(jq -r --argjson all $(((after[2] - before[2]) * 512)) \
					'"\(.threads[0].ops) \($all > .total.bytes) \(.device.name) \(.device.bytes)"' <<<"$out")"
			run -r -f "$loop" -s 8m -b 4k -q $q -D --ramp 0.2 -t 0.3 --json
			check "loop device -q $q --ramp -t: the device read the window's bytes, no more" \
				"0 true" "$rc $(jq -r '.device.bytes == .total.bytes and .total.ops > 0' <<<"$out")"
		done
		release_image rampw-loop.img
	else
		skipped "--ramp window against a loop device's counters" "no loop device"
		rm -f rampw-loop.img
	fi
fi
