#!/bin/bash
# ------------------------------------------------------------ quick-flash
# --quick=flash: its first row writes until the write cache's cliff or the
# cap, once; the other rows run on what it wrote.  A steady disk under a
# small -s reaches the cap; tests/fakeflash.py in cliff mode (64 MiB at
# 80 MiB/s, then 16 MiB/s, 1 GiB claimed), behind a loop device, must have
# its cliff found within 5% of 64 MiB and the write stopped well before the
# 1 GiB cap (bytes written, from the JSON).
. "$(dirname "$0")/../lib.sh"
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
mkdir -p qf
run --quick=flash -f qf -s 64m -t 0.3 --runs 2 --json
check "--quick=flash to a cap of 64 MiB: exit 0, all of it written, no cliff, the rows on those 64 MiB" \
	"0 67108864 67108864 null 67108864" \
	"$rc $(jq -r '"\(.flash.cap_bytes) \(.flash.written_bytes) \(.cliff) \(.quick.size)"' <<<"$out")"
check "--quick=flash: its rows, the write to the cliff once, the others --runs times" \
	"SEQ1M Q1T1 write:1,SEQ1M Q1T1 read:2,RND4K Q1T1 write:2,RND4K Q1T1 read:2,RND4K Q32T1 write:2,RND4K Q32T1 read:2" \
	"$(jq -r '[.suite[] | "\(.name):\(.runs | length)"] | join(",")' <<<"$out")"
check "--quick=flash: the test file removed" "" "$(ls qf)"
run --quick=flash -f qf -s 64m -t 0.3 --runs 1
contains "--quick=flash: no cliff said in words" "$out" "Write to the cliff: 64 MiB of a 64 MiB cap in "
contains "--quick=flash: ... and that none was found" "$out" ": no cliff within 64 MiB ("
run --quick=flash -f qf -s 64m --explain
check "--quick=flash --explain: exit 0, six fio lines, the write to the cap and the rows on it" "0 6 1 5" \
	"$rc $(grep -c '^fio ' <<<"$out") $(grep -c '^fio --name=SEQ1M-Q1T1-write .*--rw=write --bs=1m --size=64m ' <<<"$out") $(grep -c '^fio --name=.*--size=64m .*--runtime=' <<<"$out")"
contains "--quick=flash --explain: says fio does not stop at the cliff" "$out" "fio has no such stop"
bad_input 2 "unknown profile (default, nvme, real, mix or flash)" --quick=flush -f qf
rmdir qf
if ! system || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "--quick=flash on a drive whose cache fills" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	for form in json human; do
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((1 << 30)) $((64 << 20)) cliff 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && break; sleep 0.05; done
		loop=$(losetup -f --show ffmnt/disk)
		if [ $form = json ]; then
			run --quick=flash -f "$loop" --force -t 0.3 --runs 1 --json
			check "--quick=flash, a 64 MiB write cache: exit 0, the cliff within 5% of 64 MiB, slower after" "0 true true" \
				"$rc $(jq '.cliff.offset > 0.95 * 67108864 and .cliff.offset < 1.05 * 67108864' <<<"$out") $(jq '.cliff.after_bytes_per_second < 0.5 * .cliff.before_bytes_per_second' <<<"$out")"
			check "--quick=flash, a 64 MiB write cache: the cap 1 GiB, the write stopped before a quarter of it" "1073741824 true true" \
				"$(jq -r '"\(.flash.cap_bytes) \(.flash.written_bytes > 67108864) \(.flash.written_bytes < 268435456)"' <<<"$out")"
			check "--quick=flash: the rows ran on what the write wrote" "true" \
				"$(jq '.quick.size <= .flash.written_bytes and .quick.size > 67108864' <<<"$out")"
		else
			run --quick=flash -f "$loop" --force -t 0.3 --runs 1
			matches "--quick=flash: the cliff in words (its size within 5%: the JSON run's check)" "$out" \
				"*Write to the cliff: * of a 1 GiB cap in *: the rate fell after *: a write cache of about * MiB*"
		fi
		losetup -d "$loop"; loop=
		unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null
	done
	rmdir ffmnt
fi
