#!/bin/bash
# ------------------------------------------------------------ verify
. "$(dirname "$0")/../lib.sh"
# --verify: every 4 KiB unit written is checkable; a
# write is read back after the run, a read checks as it reads; bad units
# are named by offset and kind, counted, and make the exit status 1.
run -w -f vf -s 8m -b 64k --verify --json
check "-w --verify on a file: exit 0, all 2048 units read back clean" "0 2048 0 true null" \
	"$rc $(jq -r '"\(.verify.units) \(.verify.bad) \(.verify.read_back) \(.verify.first_bad)"' <<<"$out")"
check "-w --verify: the read-back has its own rate" true "$(jq '.verify.bytes_per_second > 0 and .verify.seconds > 0' <<<"$out")"
check "-w --verify: -R implied, no urandom fill needed" "true true" "$(jq -r '"\(.options.verify) \(.options.random_buffer)"' <<<"$out")"
check "-w --verify: the data does not compress" true "$(echo "$(gzip -1 -c vf | wc -c) > 0.98 * 8388608" | bc -l | sed 's/1/true/;s/0/false/')"
run -r -f vf --verify
check "-r --verify: exit 0" 0 "$rc"
contains "-r --verify: the header says the check is timed" "$out" "each 4 KiB checked as read (timed)"
contains "-r --verify: the Verify line" "$out" "Verify: 2048 units of 4 KiB checked as read: all as written"
run -w -f vf -s 8m --verify
contains "-w --verify: the header says the pattern is made per I/O, timed" "$out" "--verify pattern made per I/O (timed)"
matches "-w --verify: the Verify line gives the read-back's rate" "$out" "*Verify: 2048 units of 4 KiB read back in * s (*iB/s, untimed): all as written*"
# the byte is inverted, not overwritten with a constant: the pattern holds
# any given value at a given place once in 256 runs
byte=$(dd if=vf bs=1 skip=$((3 * 1048576 + 5000)) count=1 status=none | od -An -tu1 | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 255)))" | dd of=vf bs=1 seek=$((3 * 1048576 + 5000)) conv=notrunc status=none
run -r -f vf --verify -m rand -b 16k -q 4 --json
check "a flipped byte: exit 1, corrupt, at its unit, counted once" "1 corrupt $((3 * 1048576 + 4096)) null 1" \
	"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.bad)"' <<<"$out")"
check "a flipped byte: the report carries the error" true "$(jq '.error | test("^--verify: 1 of 2048 units")' <<<"$out")"
# (a run beside this one may add the verdict's shared-device warning: the
# --verify line is the one under test)
check "a flipped byte: one --verify line names the offset and the kind" "sdb: --verify: 1 of 2048 units of 4 KiB bad; the first at offset 3149824 of vf: corrupt" \
	"$(grep '^sdb: --verify' <<<"$err")"
rm -f vf
run -w -f vj -j 2 -s 4m -m rand -b 8k -q 4 --verify --json
check "-j 2 -q 4 random: each thread's file read back clean" "0 2048 0" "$rc $(jq -r '"\(.verify.units) \(.verify.bad)"' <<<"$out")"
run -w -f vt -s 1m -b 64k -t 0.3 --verify --json
check "-t: passes rewrite the units, the last state checks clean" "0 true 256 0" \
	"$rc $(jq -r '"\(.threads[0].passes > 1) \(.verify.units) \(.verify.bad)"' <<<"$out")"
rm -f vj.* vt
# Interrupted while checking as it reads: the units so far are good, and
# the report says the rest went unchecked rather than "all as written".
"$sdb" -w -f vi -s 16m --verify >/dev/null 2>&1
"$sdb" -r -f vi --verify -b 4k -t 60 --json >vi.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((4 << 20))	# checking as it reads
kill -INT $pid
wait $pid; rc=$?
check "-r --verify interrupted: exit 130, verify.complete false, none bad" "130 false 0" \
	"$rc $(jq -r '"\(.verify.complete) \(.verify.bad)"' vi.json)"
"$sdb" -r -f vi --verify -b 4k -t 60 >vi.out 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((4 << 20))
kill -INT $pid
wait $pid
contains "-r --verify interrupted: says the rest is unchecked" "$(cat vi.out)" "none bad before the interruption, the rest unchecked"
rm -f vi vi.json vi.out
# A truncated file: the units past its end are missing, not "all as
# written".  With -s the read asks for them; without, the --verify write's
# mark (user.sdb.verify) says how far it wrote, where the file system
# keeps extended attributes.  The read changes no byte of the file.
"$sdb" -w -f vx -s 16m --verify >/dev/null 2>&1
truncate -s 8m vx
sum=$(sha256sum <vx)
run -r -f vx -s 16m --verify --json
check "a file truncated to 8 of 16 MiB, -s 16m: exit 1, 2048 missing from 8 MiB on, 4096 units" "1 2048 missing 8388608 4096" \
	"$rc $(jq -r '.verify | "\(.kinds.missing) \(.first_bad.kind) \(.first_bad.offset) \(.units)"' <<<"$out")"
check "the truncated file's bytes are unchanged by the read" "$sum" "$(sha256sum <vx)"
if mark=$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.sdb.verify").decode())' vx 2>/dev/null); then
	check "the --verify write's mark: the 16 MiB it wrote" 16777216 "$mark"
	run -r -f vx --verify
	check "truncated, no -s: exit 1, the Verify line and the error name the missing units" "1 1" \
		"$rc $(grep -c 'Verify: 4096 units of 4 KiB checked as read: 2048 bad (2048 missing), the first at offset 8388608 of vx: missing' <<<"$out")"
	contains "truncated, no -s: the warning says what the write left" "$err" "before the 16 MiB its --verify write left"
	"$sdb" -w -f vx -s 4m --verify >/dev/null 2>&1
	run -r -f vx --verify --json
	check "a later --verify write of 4 MiB: its mark is the one read (1024 units, none bad)" "0 1024 0" \
		"$rc $(jq -r '"\(.verify.units) \(.verify.bad)"' <<<"$out")"
	"$sdb" -w -f vx -s 4m >/dev/null 2>&1
	check "a write without --verify takes the mark away" gone \
		"$(python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.sdb.verify")' vx 2>/dev/null && echo kept || echo gone)"
else
	skipped "--verify of a truncated file without -s" "no user extended attributes on this file system"
fi
rm -f vx
bad_input 2 "--verify and --cached" -w -f vc --verify --cached
bad_input 2 "--verify and -M: a mix reads what it may be rewriting" -M 50 -f vc --verify
bad_input 2 "--verify and --ramp" -w -f vc --verify --ramp 1
bad_input 2 "--verify needs -b a multiple of 4k" -w -f vc --verify -b 2k
bad_input 2 "/dev/null is a character device: what is written there cannot be read back" -w -f /dev/null --verify -s 1m
check "usage errors create nothing" missing "$(size_of vc)"
run -w -f ve -s 1m --verify --explain
contains "--explain: fio's own verify" "$out" "--verify=crc32c"
if ! system; then
	skipped "--verify on a loop device" "needs root"
else
	truncate -s 64m verify-loop.img
	if loop=$(losetup -f --show verify-loop.img 2>/dev/null); then
		run -w -f "$loop" --force -s 64m --verify --json
		check "loop device, -w --verify: exit 0, 16384 units, none bad" "0 16384 0" \
			"$rc $(jq -r '"\(.verify.units) \(.verify.bad)"' <<<"$out")"
		# (a) a lost write: 64 KiB of zeros at 1 MiB
		dd if=/dev/zero of="$loop" bs=64k seek=16 count=1 conv=notrunc,fsync status=none
		run -r -f "$loop" --verify --json
		check "zeros: exit 1, kind zeros at 1 MiB, 16 units" "1 zeros 1048576 null 16" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.kinds.zeros)"' <<<"$out")"
		contains "zeros: named on stderr" "$err" "the first at offset 1048576 of $loop: zeros (a lost write)"
		# (b) wrap-around: 32 KiB of 32 MiB's units copied to 4 MiB (as a fake-capacity device returns them)
		"$sdb" -w -f "$loop" --force -s 64m --verify >/dev/null 2>&1
		dd if="$loop" of="$loop" bs=4k skip=8192 seek=1024 count=8 conv=notrunc,fsync status=none
		run -r -f "$loop" --verify -j 2 --json
		check "misplaced: exit 1, at 4 MiB, found 32 MiB's data, 8 units" "1 misplaced 4194304 33554432 8" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.first_bad.found_offset) \(.bad)"' <<<"$out")"
		run -r -f "$loop" --verify -j 2
		matches "misplaced: the Verify line" "$out" "*Verify: 16384 units of 4 KiB checked as read: 8 bad (8 misplaced), the first at offset 4194304 of $loop: misplaced (the data written for offset 33554432*"
		# (c) one flipped byte
		"$sdb" -w -f "$loop" --force -s 64m --verify -q 8 -m rand -b 16k >/dev/null 2>&1
		at=$((50 * 1048576 + 12345))
		byte=$(dd if="$loop" bs=1 skip=$at count=1 status=none | od -An -tu1 | tr -d ' ')
		printf "\\x$(printf %02x $((byte ^ 1)))" | dd of="$loop" bs=1 seek=$at conv=notrunc,fsync status=none
		run -r -f "$loop" --verify -D --json
		check "flipped byte: exit 1, corrupt, its unit's offset, 1 bad" "1 corrupt $((at / 4096 * 4096)) 1" \
			"$rc $(jq -r '.verify | "\(.first_bad.kind) \(.first_bad.offset) \(.bad)"' <<<"$out")"
		release_image verify-loop.img
	else
		skipped "--verify on a loop device" "no loop device"
		rm -f verify-loop.img
	fi
fi
