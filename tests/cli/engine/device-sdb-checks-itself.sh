#!/bin/bash
# ------------------------------------------------------------ device-sdb-checks-itself
. "$(dirname "$0")/../lib.sh"
# Every run but --cached is checked against the kernel's counters of the
# device under the target: the Device line, the JSON device
# object, what cannot be checked and why.
device_keys='["busy","bytes","delivered","evidence","fua","limit","link","name","other_bytes","path","reason","stack","verified","write_cache"]'
run -w -f /dev/null -s 64m --json
check "/dev/null: unverifiable, a character device, no name" "false true null" \
	"$(jq -r '"\(.device.verified) \(.device.reason | test("character device")) \(.device.name)"' <<<"$out")"
run -w -f /dev/null -s 64m
contains "/dev/null: the Device line says why not" "$out" "Device: unverifiable: /dev/null is a character device"
if ! system || ! command -v mkfs.ext4 >/dev/null; then
	skipped "sdb checks itself" "needs root and mkfs.ext4"
else
	mnt=$work/verify
	mkdir -p "$mnt"
	if mount -t tmpfs -o size=32m tmpfs "$mnt" 2>/dev/null; then
		run -w -f "$mnt/t" -s 16m --json
		check "tmpfs: unverifiable, limited by memory" "false memory true" \
			"$(jq -r '"\(.device.verified) \(.device.limit) \(.device.reason | test("tmpfs: files in memory"))"' <<<"$out")"
		unmount "$mnt"
	else
		skipped "tmpfs unverifiable" "mount failed"
	fi
	# A direct-I/O loop device: a buffered one (loop/dio 0) serves reads
	# from its backing file's page cache, which the verdict now follows
	# to the disk below (section stack-down-to-the-metal).
	truncate -s 1600m verify.img
	if loop=$(losetup -f --show --direct-io=on verify.img 2>/dev/null) && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop" && mount "$loop" "$mnt"; then
		name=${loop#/dev/}
		"$sdb" -w -f "$mnt/f" -s 256m -R >/dev/null 2>&1
		sync	# the journal's commit of the file just written is not sdb's read: let it land first
		run -r -f "$mnt/f"
		line=$(grep '^Device: ' <<<"$out")
		if [[ $line =~ ^Device:\ $name,\ .*\ read\ of\ 256\ MiB\ claimed\ \(([0-9]+)%\),\ busy\ [0-9]+%:\ limited\ by\ [a-zA-Z] ]] &&
			[ "${BASH_REMATCH[1]}" -ge 90 ]; then
			ok "ext4 on loop, default read: the Device line, >= 90% delivered, a limit"
		else
			bad "ext4 on loop, default read: the Device line, >= 90% delivered, a limit" "$out"
		fi
		sync	# the journal's commit of the file just written is not sdb's read: let it land first
		run -r -f "$mnt/f" --json
		check "--json: the device object has the SPEC's keys" "$device_keys" "$(jq -c '.device | keys' <<<"$out")"
		check "--json: the loop device, verified, >= 90% delivered, a limit" "$name /dev/$name true true null true" \
			"$(jq -r '.device | "\(.name) \(.path) \(.verified) \(.delivered >= 0.9) \(.reason) \(.limit | IN("device","link","cpu","latency"))"' <<<"$out")"
		check "--json: device bytes and busy are numbers" true \
			"$(jq '.device | (.bytes | type) == "number" and .busy >= 0 and .busy <= 1' <<<"$out")"
		run -r -f "$mnt/f" -v
		contains "-v: the loop device names its backing file" "$out" "Device detail: /dev/$name, backing file $work/verify.img"
		run -w -f "$mnt/w" -s 256m -R --json
		check "-w -R (timed fdatasync): >= 90% written, verified" "true true" \
			"$(jq -r '"\(.device.delivered >= 0.9) \(.device.verified)"' <<<"$out")"
		"$sdb" -r -f "$mnt/f" --cached >/dev/null 2>&1
		run -r -f "$mnt/f" --cached --json
		check "--cached: not claimed as the device's" "false memory null true" \
			"$(jq -r '.device | "\(.verified) \(.limit) \(.bytes) \(.reason | test("page cache by request"))"' <<<"$out")"
		rm -f "$mnt/w"
		truncate -s 1g "$mnt/sparse"
		fallocate -l 1g "$mnt/falloc"
		for f in sparse falloc; do
			run -r -f "$mnt/$f" --json
			check "$f 1 GiB: flagged before the run (holes) and after (delivered < 90%)" "true true false" \
				"$(jq -r '"\(.warnings | any(test("100% of what this read covers is holes or unwritten"))) \(.device.delivered < 0.9) \(.device.verified)"' <<<"$out")"
			check "$f: the warning before the run comes first on stderr" "holes saw" \
				"$(grep -o 'is holes\|saw' <<<"$err" | sed 's/is holes/holes/' | head -2 | tr '\n' ' ' | sed 's/ $//')"
		done
		rm -f "$mnt/sparse" "$mnt/falloc" "$mnt/f"
		run --quick -f "$mnt" -t 0.2 -s 16m --json
		check "--quick: every run's delivered share recorded, >= 90% on ext4" true \
			"$(jq '[.suite[].runs[].delivered] | length == 24 and all(. >= 0.9)' <<<"$out")"
		check "--quick: each row's median share" true "$(jq '[.suite[].median.delivered >= 0.9] | all' <<<"$out")"
		run --quick -f "$mnt" -t 0.2 -s 16m
		check "--quick: the table's Device column" "Device 8" \
			"$(grep -o 'Device$' <<<"$out") $(grep -c '^\(SEQ1M\|RND4K\) .* [0-9]*%$' <<<"$out")"
		unmount "$mnt"
	else
		skipped "sdb checks itself on ext4" "loop device, mkfs.ext4 or mount failed"
	fi
	release_image verify.img

	# btrfs with compress-force: zeros shrink to almost nothing on the
	# device, so a zero-buffer write is caught; -R data is not.
	truncate -s 1g verify.img
	if ! command -v mkfs.btrfs >/dev/null; then
		skipped "btrfs compression caught" "no mkfs.btrfs"
	elif loop=$(losetup -f --show verify.img 2>/dev/null) && mkfs.btrfs -q -f "$loop" >/dev/null 2>&1 &&
		mount -o compress-force=zstd "$loop" "$mnt" 2>/dev/null; then
		name=${loop#/dev/}
		run -w -f "$mnt/z" -s 256m --json
		check "btrfs compress, zero buffer: caught (the device is its loop, found through the fsid)" "$name false true" \
			"$(jq -r '"\(.device.name) \(.device.verified) \(.warnings | any(test("the all-zero buffer, and btrfs compresses it [(]compress-force=zstd")))"' <<<"$out")"
		run -w -f "$mnt/r" -s 256m -R --json
		check "btrfs compress, -R: >= 90% written" "true" "$(jq -r '.device.verified' <<<"$out")"
		unmount "$mnt"
		# Without the mount option only a file made +c compresses: the
		# zeros are warned of there, and not beside it.
		if mount "$loop" "$mnt" && touch "$mnt/c" && chattr +c "$mnt/c"; then
			run -w -f "$mnt/c" -s 64m -D --json
			check "btrfs, a +c file: the zero buffer warned of, by the file's attribute" "true true" \
				"$(jq -r '"\(.warnings | any(test("all-zero buffer, and btrfs compresses it [(]the file.s c attribute"))) \(.device.evidence[] | select(.check == "compression") | .found)"' <<<"$out")"
			run -w -f "$mnt/plain" -s 64m -D --json
			check "btrfs, a plain file: no zeros warning, the check says none compresses" "0 false" \
				"$(jq -r '"\(.warnings | map(select(test("zero"))) | length) \(.device.evidence[] | select(.check == "compression") | .found)"' <<<"$out")"
			unmount "$mnt"
		else
			skipped "btrfs, a +c file" "mount or chattr failed"
		fi
	else
		skipped "btrfs compression caught" "loop device, mkfs.btrfs or mount failed"
	fi
	[ -n "$loop" ] && losetup -d "$loop"
	loop= mnt=
	rm -f verify.img
fi
