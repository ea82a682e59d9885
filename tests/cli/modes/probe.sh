#!/bin/bash
# ------------------------------------------------------------ probe
# --probe against fake flash made for real: tests/fakeflash.py, a FUSE
# file that claims 256 MiB and keeps less (wrapping around, or losing
# writes), as a file and, behind a loop device, as a block device.  The
# data it overwrote is checked with md5sum, not with sdb's word.
. "$(dirname "$0")/../lib.sh"
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
if system; then
	# The genuine file lives on /dev/shm: its journal (under XDG_STATE_HOME,
	# in the scratch directory: lib.sh) must be on another file system.
	genuine=/dev/shm/sdb-cli-$$-genuine
	dd if=/dev/urandom of="$genuine" bs=1M count=256 status=none
	before=$(md5sum <"$genuine")
	bad_input 2 "add --force" --probe -f "$genuine"
	run --probe -f "$genuine" --force --json
	check "--probe a genuine file: exit 0, ok, all of it real" "0 ok 268435456 268435456" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.claimed_bytes) \(.probe.real_bytes)"' <<<"$out")"
	check "--probe a genuine file: at most 0.1% written, and restored" "true true" \
		"$(jq -r '"\(.probe.bytes_written <= 268435) \(.probe.restored)"' <<<"$out")"
	check "--probe a genuine file: its data unchanged (md5sum)" "$before" "$(md5sum <"$genuine")"
	contains "--probe: the journal's path on stderr before the first write" "$err" \
		"sdb: --probe: the undo journal is $XDG_STATE_HOME/sdb/probe-sdb-cli-$$-genuine-"
	check "--probe: a clean restore removes the journal" "" "$(ls "$XDG_STATE_HOME/sdb")"
	run --probe -f "$genuine" --force
	contains "--probe: the human report" "$out" "Capacity: all 256 MiB keep their data"
	contains "--probe: the restore in words" "$out" "Restored: all "
	bad_input 2 "the journal must survive what it undoes" --probe -f "$genuine" --force --journal /dev/shm/sdb-cli-$$-j
	touch taken
	bad_input 2 "--journal taken: exists" --probe -f "$genuine" --force --journal taken
	bad_input 2 "--journal nodir/j: nodir: No such file or directory" --probe -f "$genuine" --force --journal nodir/j
	bad_input 2 "--journal: only meaningful with --probe" -w -f x --journal j
	check "--probe: a refused journal: the file untouched (md5sum)" "$before" "$(md5sum <"$genuine")"
	rm -f "$genuine"
else
	skipped "--probe of a genuine file on /dev/shm, its journal elsewhere" "needs /dev/shm (not in a hermetic run)"
fi
printf 'notes\n' >notes
bad_input 1 "--restore: notes is not an sdb probe journal" --restore notes
check "--restore of a file that is not a journal: it is kept" "notes" "$(cat notes)"
bad_input 1 "--restore: missing.journal: No such file or directory" --restore missing.journal
bad_input 2 "--restore and --file" --restore notes -f x
bad_input 2 "--probe and --threads" --probe -f x -j 2
bad_input 2 "--destructive: only meaningful with --probe" -w -f x --destructive
bad_input 2 "--probe needs -f" --probe
bad_input 2 "block device" --probe -f "$(df --output=source / | tail -n 1)"
if ! system || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "--probe on fake flash" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	# fake MODE REAL: mount the fake drive (256 MiB claimed), wait for it;
	# the section ends if it does not come up (the rest would test a plain
	# file in its place).
	fake() {
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((256 << 20)) "$2" "$1" 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do mountpoint -q ffmnt && [ -e ffmnt/disk ] && return 0; sleep 0.05; done
		bad "the fake drive ($1) did not mount" "$(cat "$work/ff.err")"
		exit 1
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
	loop=$(losetup -f --show --direct-io=off ffmnt/disk)	# buffered, losetup's default: a page cache above the drive
	run --probe -f "$loop" --force --json
	check "--probe, the wrapping drive behind a buffered loop device: real 32 MiB" "0 1 misplaced 33554432" \
		"$(cat "/sys/block/${loop#/dev/}/loop/dio") $rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes)"' <<<"$out")"
	losetup -d "$loop"; loop=
	unfake
	fake zeros $((100 << 20))
	run --probe -f ffmnt/disk --force --json
	check "--probe, a drive that loses writes past 100 MiB: zeros, real 100 MiB to the unit" "1 zeros 104857600 0" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.resolution_bytes)"' <<<"$out")"
	loop=$(losetup -f --show --direct-io=off ffmnt/disk)
	run --probe -f "$loop" --force --json
	check "--probe, the losing drive behind a buffered loop device: zeros, real 100 MiB" "0 1 zeros 104857600" \
		"$(cat "/sys/block/${loop#/dev/}/loop/dio") $rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes)"' <<<"$out")"
	losetup -d "$loop"; loop=
	run --probe -f ffmnt/disk --force --destructive --json
	check "--probe --destructive: nothing restored, the same finding" "1 zeros 104857600 false" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.real_bytes) \(.probe.restored)"' <<<"$out")"
	unfake
	fake good 0
	run --probe -f ffmnt/disk --force --json
	check "--probe, a genuine drive: exit 0, ok" "0 ok" "$rc $(jq -r '.probe.kind' <<<"$out")"
	unfake
	# A drive that fails its writes past 100 MiB: an error, reported; what
	# the probe overwrote before it is back.
	fake eio $((100 << 20))
	dd if=/dev/urandom of=ffmnt/disk bs=1M count=100 conv=notrunc status=none
	before=$(dd if=ffmnt/disk bs=1M count=100 status=none | md5sum)
	run --probe -f ffmnt/disk --force --json
	check "--probe, writes fail past 100 MiB: exit 1, kind error, restored, the EIO named" \
		"1 error true true" "$rc $(jq -r '"\(.probe.kind) \(.probe.restored) \(.error | test("Input/output error"))"' <<<"$out")"
	contains "--probe, writes fail: the error on stderr too" "$err" "(--probe): Input/output error"
	check "--probe, writes fail: the first 100 MiB as they were (md5sum)" "$before" \
		"$(dd if=ffmnt/disk bs=1M count=100 status=none | md5sum)"
	unfake
	# A drive that dies after 10 units: every unit is attempted, each
	# failure listed, the journal kept; once it works again, --restore
	# puts everything back.
	rm -f "$work/ffmnt.mend" "$work/ffmnt.stalled"
	fake dies $((10 * 4096))
	before=$(md5sum <ffmnt/disk)
	run --probe -f ffmnt/disk --force --json
	journal=$(jq -r '.probe.journal' <<<"$out")
	check "--probe, the drive dies: exit 1, no verdict, not restored, failures listed, the journal kept" \
		"1 error false true true" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.restored) \(.probe.restore_failures | length > 0)"' <<<"$out") $([ -s "$journal" ] && echo true)"
	check "--probe, the drive dies: each failure has its offset and its error" "true" \
		"$(jq -r '[.probe.restore_failures[] | (.offset | type) == "number" and (.error | test("Input/output error"))] | all' <<<"$out")"
	contains "--probe, the drive dies: stderr says how to restore" "$err" "the journal is kept: sdb --restore '$journal'"
	touch "$work/ffmnt.mend"
	run --restore "$journal"
	check "--restore once the drive works again: exit 0, all read back, the journal removed" "0 true" \
		"$rc $([ ! -e "$journal" ] && echo true)"
	matches "--restore: says what it restored" "$out" "*Restored: * of * units read back as they were; the journal is removed*"
	check "--restore: the drive as it was before the probe (md5sum)" "$before" "$(md5sum <ffmnt/disk)"
	unfake
	# stalled_probe: a probe in the background ($pid) of a drive whose
	# writes past 24 KiB hang; it returns once one hangs. $before: the drive before.
	stalled_probe() {
		rm -f "$work/ffmnt.mend" "$work/ffmnt.stalled"
		fake stall $((6 * 4096))
		before=$(md5sum <ffmnt/disk)
		"$sdb" --probe -f ffmnt/disk --force --json >probe.out 2>probe.err &
		pid=$!
		wait_for "$pid" test -e "$work/ffmnt.stalled"
	}
	# kill -9 while a write hangs: the journal on disk brings it all back.
	stalled_probe
	kill -9 "$pid"; wait "$pid" 2>/dev/null
	touch "$work/ffmnt.mend"
	journal=$(sed -n "s/^sdb: --probe: the undo journal is \(.*\); if this.*/\1/p" probe.err)
	lacks "kill -9 mid-probe: the drive holds the probe's units" "$(md5sum <ffmnt/disk)" "$before"
	run --restore "$journal" --json
	check "kill -9 mid-probe, then --restore: exit 0, every unit back, the journal removed" "0 true true" \
		"$rc $(jq -r '"\(.restore.units == .restore.restored and .restore.units > 0) \(.restore.journal_removed)"' <<<"$out")"
	check "kill -9 mid-probe, then --restore: the drive as it was (md5sum)" "$before" "$(md5sum <ffmnt/disk)"
	unfake
	# Ctrl-C while a write hangs: the probe stops, restores, and says so.
	stalled_probe
	kill -INT "$pid"
	touch "$work/ffmnt.mend"
	wait "$pid"; rc=$?
	check "SIGINT mid-probe: exit 130, kind interrupted, restored" "130 interrupted true" \
		"$rc $(jq -r '"\(.probe.kind) \(.probe.restored)"' <probe.out)"
	check "SIGINT mid-probe: the drive as it was (md5sum)" "$before" "$(md5sum <ffmnt/disk)"
	unfake
	rm -f "$work/ffmnt.mend" "$work/ffmnt.stalled"
	rmdir ffmnt
fi
