#!/bin/bash
# ------------------------------------------------------------ cliff
# A sequential write's cliff: tests/fakeflash.py in cliff mode writes the
# first 64 MiB at 80 MiB/s and the rest at 16 MiB/s, as a drive whose
# write cache filled; sdb must place the fall within 5% of 64 MiB.
. "$(dirname "$0")/../lib.sh"
fakeflash=$(dirname "$sdb")/tests/fakeflash.py
[ -f "$fakeflash" ] || fakeflash=$(dirname "$man")/tests/fakeflash.py
run -w -f flat -s 256m -b 1m --json
check "a steady write has no cliff (null)" "0 null" "$rc $(jq -c '.cliff' <<<"$out")"
rm -f flat
if ! system || ! /usr/bin/python3 -c "import fusepy" 2>/dev/null; then
	skipped "the cliff of a drive whose cache fills" "needs root and python3-fusepy"
else
	mkdir -p ffmnt
	for form in json human; do
		/usr/bin/python3 "$fakeflash" "$work/ffmnt" $((256 << 20)) $((64 << 20)) cliff 2>"$work/ff.err" &
		ffpid=$!
		for try in $(seq 100); do [ -e ffmnt/disk ] && break; sleep 0.05; done
		if [ $form = json ]; then
			run -w -f ffmnt/disk -s 96m -b 1m -R --force --json
			check "a write cache of 64 MiB: the cliff's offset within 5% of 64 MiB, the rate after below" "0 true true" \
				"$rc $(jq '.cliff.offset > 0.95 * 67108864 and .cliff.offset < 1.05 * 67108864' <<<"$out") $(jq '.cliff.after_bytes_per_second < 0.5 * .cliff.before_bytes_per_second' <<<"$out")"
			echo "     (the cliff: $(jq -c '.cliff' <<<"$out"))"	# what a failure under load found
		else
			run -w -f ffmnt/disk -s 96m -b 1m -R --force
			matches "the cliff in words: a write cache of about 6x MiB" "$out" "*Write cache: the rate fell after *: a write cache of about 6[1-7] MiB*"
		fi
		unmount "$work/ffmnt"; wait "$ffpid" 2>/dev/null
	done
	rmdir ffmnt
fi
