#!/bin/bash
# ------------------------------------------------------------ probe
# --probe against fake flash made for real: tests/fakeflash.py, a FUSE
# file that claims 256 MiB and keeps less (wrapping around, or losing
# writes), as a file and, behind a loop device, as a block device.  The
# data it overwrote is checked with md5sum, not with sdb's word.
. "$(dirname "$0")/../lib.sh"
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
dd if=/dev/urandom of=genuine bs=1M count=256 status=none
before=$(md5sum <genuine)
bad_input 2 "add --force" --probe -f genuine
run --probe -f genuine --force --json
check "--probe a genuine file: exit 0, ok, all of it real" "0 ok 268435456 268435456" \
	"$rc $(jq -r '"\(.probe.kind) \(.probe.claimed_bytes) \(.probe.real_bytes)"' <<<"$out")"
check "--probe a genuine file: at most 0.1% written, and restored" "true true" \
	"$(jq -r '"\(.probe.bytes_written <= 268435) \(.probe.restored)"' <<<"$out")"
check "--probe a genuine file: its data unchanged (md5sum)" "$before" "$(md5sum <genuine)"
run --probe -f genuine --force
contains "--probe: the human report" "$out" "Capacity: all 256 MiB keep their data"
rm -f genuine
bad_input 2 "--probe and --threads" --probe -f x -j 2
bad_input 2 "--destructive: only meaningful with --probe" -w -f x --destructive
bad_input 2 "--probe needs -f" --probe
bad_input 2 "block device" --probe -f "$(df --output=source / | tail -n 1)"
if [ "$(id -u)" != 0 ] || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "--probe on fake flash" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	# fake MODE REAL: mount the fake drive (256 MiB claimed), wait for it.
	fake() {
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((256 << 20)) "$2" "$1" 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && return 0; sleep 0.05; done
		return 1
	}
	unfake() { unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null; }
	fake wrap $((32 << 20))
	dd if=/dev/urandom of=ffmnt/disk bs=1M count=32 conv=notrunc status=none
	before=$(dd if=ffmnt/disk bs=1M count=32 status=none | md5sum)
	run --probe -f ffmnt/disk --force --json
	check "--probe, a drive that wraps at 32 MiB: exit 1, misplaced, real 32 MiB, period 32 MiB" \
		"1 misplaced 33554432 33554432 0" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.period) \(.probe.resolution_bytes)"' <<<"$out")"
	check "--probe, wrapping: what it held is back (md5sum of the real 32 MiB)" "$before" \
		"$(dd if=ffmnt/disk bs=1M count=32 status=none | md5sum)"
	run --probe -f ffmnt/disk --force
	contains "--probe, wrapping: FAKE said in words" "$out" "FAKE: 32 MiB of the 256 MiB claimed keep their data"
	loop=$(losetup -f --show ffmnt/disk)
	run --probe -f "$loop" --force --json
	check "--probe, the wrapping drive as a block device (loop): real 32 MiB" "1 misplaced 33554432" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes)"' <<<"$out")"
	losetup -d "$loop"; loop=
	unfake
	fake zeros $((100 << 20))
	run --probe -f ffmnt/disk --force --json
	check "--probe, a drive that loses writes past 100 MiB: zeros, real 100 MiB to the unit" "1 zeros 104857600 0" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.resolution_bytes)"' <<<"$out")"
	run --probe -f ffmnt/disk --force --destructive --json
	check "--probe --destructive: nothing restored, the same finding" "1 zeros 104857600 false" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.restored)"' <<<"$out")"
	unfake
	fake good 0
	run --probe -f ffmnt/disk --force --json
	check "--probe, a genuine drive: exit 0, ok" "0 ok" "$rc $(jq -r '.probe.kind' <<<"$out")"
	unfake
	rmdir ffmnt
fi
