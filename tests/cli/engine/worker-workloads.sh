#!/bin/bash
# ------------------------------------------------------------ worker-workloads
. "$(dirname "$0")/../lib.sh"
# --fsync N: an fdatasync after every N writes, each timed apart; 2300-byte
# blocks (etcd's check) without -D.  1 MiB / 2300 bytes: 456 writes.
run -w -f etcd -b 2300 -s 1m --fsync 1 --json
check "--fsync 1 -b 2300: exit 0" 0 "$rc"
check "--fsync 1: 456 writes, 1 MiB, options.fsync 1" "456 1048576 1" \
	"$(jq -r '"\(.threads[0].ops) \(.threads[0].bytes) \(.options.fsync)"' <<<"$out")"
check "--fsync 1: sync.ops = writes" 456 "$(jq '.threads[0].sync.ops' <<<"$out")"
check "--fsync 1: the sync's latencies, ordered" true \
	"$(jq '.threads[0].sync.latency_ns | .min <= .p50 and .p50 <= .p99 and .p99 <= .p999 and .p999 <= .max and .mean > 0' <<<"$out")"
run -w -f etcd -b 2300 -s 1m --fsync 4 --json
check "--fsync 4: a sync per 4 writes" 114 "$(jq '.threads[0].sync.ops' <<<"$out")"
run -w -f etcd -b 2300 -s 64k --json
check "without --fsync: sync, read and write are null" "null null null null null" \
	"$(jq -r '"\(.threads[0].sync) \(.threads[0].read) \(.threads[0].write) \(.total.read) \(.options.fsync)"' <<<"$out")"
run -w -f etcd -b 2300 -s 1m --fsync 1
matches "--fsync: a Sync: line with count, mean, p99, p99.9, max" "$out" \
	"*Sync: 456 fdatasync, mean *, p99 *, p99.9 *, max *"
matches "--fsync: the syncs' own distribution, then etcd's 10 ms judged" "$out" \
	"*Sync distribution (456 fdatasync):*%*etcd: fdatasync p99 *, *under etcd's 10 ms for its write-ahead log: *"
run -w -f etcd -b 2300 -s 1m -j 2 --fsync 1 --json
check "--fsync -j 2: total.sync holds both threads' syncs, etcd_met from their p99" "912 true" \
	"$(jq -r '.total.sync | "\(.ops) \(.etcd_met == (.latency_ns.p99 < 10000000))"' <<<"$out")"
check "--fsync: total.sync.histogram counts every sync" 912 "$(jq '[.total.sync.histogram[][2]] | add' <<<"$out")"
if system && [ -w /sys/fs/cgroup/blkio/cgroup.procs ] && command -v losetup >/dev/null; then
	# A device that takes 25 writes a second: each fdatasync waits for its
	# write, about 40 ms: etcd's 10 ms is not met, and said so.
	truncate -s 16m etcd.img
	eloop=$(losetup -f --show etcd.img)
	ecg=/sys/fs/cgroup/blkio/sdb-cli-etcd-$$
	mkdir "$ecg"
	echo "$(cat "/sys/block/${eloop#/dev/}/dev") 25" >"$ecg/blkio.throttle.write_iops_device"
	out=$( (echo "$BASHPID" >"$ecg/cgroup.procs" && exec "$sdb" -w -f "$eloop" -b 4k -s 80k --fsync 1 --force) 2>&1); rc=$?
	check "--fsync on a device of 25 writes a second: exit 0, etcd's 10 ms NOT met" "0 1" \
		"$rc $(grep -c "^etcd: fdatasync p99 .* ms, not under etcd's 10 ms for its write-ahead log: NOT met$" <<<"$out")"
	rmdir "$ecg"
	losetup -d "$eloop"
	rm -f etcd.img
else
	skipped "--fsync on a slow device: etcd's 10 ms NOT met" "needs root, losetup and cgroup v1 blkio"
fi
run -M 50 -f etcd -b 2300 -s 1m --fsync 2 --json
check "-M --fsync 2: a sync per two of the mix's writes" "$(jq '.threads[0].write.ops / 2 | floor' <<<"$out")" \
	"$(jq '.threads[0].sync.ops' <<<"$out")"
bad_input 2 "--fsync 0: writes per fdatasync" -w -f etcd --fsync 0
bad_input 2 "--fsync 1x: writes per fdatasync" -w -f etcd --fsync 1x
bad_input 2 "--fsync and -r" -r -f etcd --fsync 1
bad_input 2 "--fsync and -q 4" -w -f etcd --fsync 1 -q 4
bad_input 2 "--fsync: needs a test" -T --fsync 1
rm -f etcd

# -M PCT: seeded reads and writes over one target, reported apart.
run -w -f mixf -s 48m -b 1m -D -R
run -M 70 -f mixf -m rand -b 4k -s 48m -D --json
check "-M 70: exit 0, op mix, mix 70" "0 mix 70" "$rc $(jq -r '"\(.options.op) \(.options.mix)"' <<<"$out")"
check "-M 70: 12288 I/Os, reads + writes" "12288 12288" \
	"$(jq -r '.threads[0] | "\(.ops) \(.read.ops + .write.ops)"' <<<"$out")"
check "-M 70: reads are 68-72% of 12288 I/Os" true \
	"$(jq '.threads[0].read.ops / .threads[0].ops | . >= 0.68 and . <= 0.72' <<<"$out")"
check "-M 70: each side's bytes are its ops x 4 KiB, and add up" true \
	"$(jq '.threads[0] | .read.bytes == .read.ops * 4096 and .write.bytes == .write.ops * 4096 and .bytes == .read.bytes + .write.bytes' <<<"$out")"
check "-M 70: the total's sides are the thread's" true \
	"$(jq '.total.read.ops == .threads[0].read.ops and .total.write.bytes == .threads[0].write.bytes and .total.read.latency_ns.p99 > 0' <<<"$out")"
check "-M 70: each side has its own histogram, of its own I/Os, in the thread and the total" true \
	"$(jq '[.threads[0], .total] | map(.read.ops == ([.read.histogram[][2]] | add) and .write.ops == ([.write.histogram[][2]] | add)) | all' <<<"$out")"
reads=$(jq '.threads[0].read.ops' <<<"$out")
run -M 70 -f mixf -m rand -b 4k -s 48m -D --json
check "-M 70: the same reads again (seeded)" "$reads" "$(jq '.threads[0].read.ops' <<<"$out")"
run -M 70 -f mixf -m rand -b 4k -s 4m -D
matches "-M: read and write lines with their latencies" "$out" \
	"*read   *%: *IOPS, latency min *, p99 *write  *%: *IOPS, latency min *"
run -M 0 -f mixf -s 4m -b 64k --json
check "-M 0: writes only" "0 64" "$(jq -r '"\(.threads[0].read.ops) \(.threads[0].write.ops)"' <<<"$out")"
run -M 100 -f mixf -s 4m -b 64k --json
check "-M 100: reads only" "64 0" "$(jq -r '"\(.threads[0].read.ops) \(.threads[0].write.ops)"' <<<"$out")"
run -M 50 -f mixn -j 2 -q 4 -s 2m -b 16k --json
check "-M -j 2 -q 4: new files laid out to SIZE, every I/O counted" "0 2097152 2097152 256" \
	"$rc $(size_of mixn.0) $(size_of mixn.1) $(jq '.total.read.ops + .total.write.ops' <<<"$out")"
run -M 50 -f mixn -j 2 -s 1m -b 16k
matches "-M -j 2: the Total has the two sides" "$out" "*Total (2 threads)*read  *write  *"
bad_input 2 "-M 101: the share of reads" -M 101 -f mixf
bad_input 2 "--mix -1: the share of reads" --mix -1 -f mixf
bad_input 2 "-M and -w or -r" -M 70 -w -f mixf
bad_input 2 "-M and -w or -r" -r -M 70 -f mixf
echo "not sdb's" >foreign
bad_input 2 "add --force" -M 50 -f foreign -s 4k
# -R with a mix: its writes (and its layout) send random bytes, as -w -R
# does; gzip, not sdb, says whether the file holds them.
run -M 0 -R -f mixr -s 4m -b 64k
check "-M -R: the file is random bytes (gzip cannot shrink it)" "0 true" \
	"$rc $([ "$(gzip -c mixr | wc -c)" -gt 4100000 ] && echo true || echo false)"
contains "-M -R: the header says random buffer" "$out" ", random buffer"
rm -f mixf mixn.* foreign mixr
# -R with a deep queue: its slots are the random bytes; 1 MiB of its own for
# each slot filled 4 GiB from /dev/urandom for this 16 MiB test.
run -w -f deepr -s 16m -b 4k -m rand -q 4096 -R
check "-R -q 4096 -b 4k: 16 MiB of buffers filled, the file 16 MiB" "0 1 16777216" \
	"$rc $(grep -c '^Buffer filled from /dev/urandom: 16 MiB in ' <<<"$out") $(size_of deepr)"
rm -f deepr

# --ramp SEC: run first, count nothing of it.  Without -t the window is one
# pass, so exactly the pass's I/Os are counted however long the ramp ran.
run -w -f rampf -s 4m -b 64k -D -R
run -r -f rampf -s 4m -b 64k --ramp 0.3 --json
check "--ramp without -t: one pass counted, options.ramp" "0 64 4194304 0.3" \
	"$rc $(jq -r '"\(.threads[0].ops) \(.total.bytes) \(.options.ramp)"' <<<"$out")"
run -r -f rampf -s 1m -b 4k -m rand --ramp 0.2 --json
check "--ramp -m rand: one pass, every block once" 256 "$(jq '.threads[0].ops' <<<"$out")"
run -w -f rampf -s 4m -b 64k -D -R --ramp 0.3 -t 0.5 --json
check "--ramp -t: bytes are the window's I/Os" true "$(jq '.total.bytes == .total.ops * 65536 and .threads[0].ops > 0' <<<"$out")"
check "--ramp -t: the timeline starts after the ramp" true "$(jq '.timeline[0].t > 0 and .timeline[0].t <= .total.seconds + 0.2' <<<"$out")"
run -M 50 -f rampf -s 4m -b 64k -q 4 --ramp 0.2 -t 0.3 --json
check "--ramp -M -q 4: sides add up" true "$(jq '.total.ops == .total.read.ops + .total.write.ops and .total.ops > 0' <<<"$out")"
run -w -f rampf -s 4m -b 64k -D --ramp 0.2 -t 0.3
contains "--ramp: the header says it" "$out" "0.2 s ramp first (not counted)"
bad_input 2 "--ramp -1: ramp must be" -w -f rampf --ramp -1
bad_input 2 "--ramp 0: ramp must be" -w -f rampf --ramp 0
bad_input 2 "--ramp x: ramp must be" -w -f rampf --ramp x
bad_input 2 "--quick and --ramp" --quick -f . --ramp 1
rm -f rampf

# --explain in fio's words; the quick suite's mix row.
run -M 70 -f f -m rand -b 4k -D -t 5 --ramp 2 --explain
contains "--explain -M 70: randrw, rwmixread" "$out" "--rw=randrw --rwmixread=70"
contains "--explain --ramp 2: ramp_time" "$out" "--ramp_time=2"
run -w -f f -b 2300 -s 22m --fsync 1 --explain
contains "--explain --fsync 1: fdatasync=1" "$out" "--bs=2300 --size=22m"
contains "--explain --fsync 1: fdatasync=1" "$out" "--fdatasync=1"
run -M 30 -f f -s 1m --explain
contains "--explain -M seq: rw" "$out" "--rw=rw --rwmixread=30"
mkdir -p qm
run --quick=mix --explain -f qm -s 64m
contains "--quick=mix --explain: the mix row in fio's words" "$out" "--name=RND4K-Q1T1-mix-70/30 --filename="
contains "--quick=mix --explain: randrw 70" "$out" "--rw=randrw --rwmixread=70"
run --quick=mix -f qm -t 0.2 -s 16m --runs 1 --json
check "--quick=mix: 9 rows, the last a mix" "0 9 RND4K Q1T1 mix 70/30 mix" \
	"$rc $(jq -r '"\(.suite | length) \(.suite[-1].name) \(.suite[-1].op)"' <<<"$out")"
rm -rf qm f

# Against the kernel's own counters of a loop device (/sys/block/X/stat:
# 3rd field sectors read, 7th sectors written, 16th flushes completed):
# what a mix claims for each side, and --fsync's flushes.
if ! system; then
	skipped "-M and --fsync against the device's counters" "needs root (a loop device)"
else
	truncate -s 32m workloads-loop.img
	if loop=$(losetup -f --show workloads-loop.img 2>/dev/null); then
		ldev=${loop#/dev/}
		"$sdb" -w -f "$loop" --force -s 32m -D -R >/dev/null 2>&1
		read -ra before <"/sys/block/$ldev/stat"
		run -M 50 -f "$loop" --force -m rand -b 4k -D -s 16m --json
		read -ra after <"/sys/block/$ldev/stat"
		check "-M 50 -D on a loop device: exit 0" 0 "$rc"
		check "-M 50 -D: the device read what sdb claims for reads (to 1 MiB: a udev probe may add some)" true \
			"$(jq --argjson dev $(((after[2] - before[2]) * 512)) '$dev >= .total.read.bytes and $dev <= .total.read.bytes + 1048576' <<<"$out")"
		check "-M 50 -D: the device wrote what sdb claims for writes" "$(jq .total.write.bytes <<<"$out")" \
			"$(((after[6] - before[6]) * 512))"
		if [ "${#after[@]}" -ge 16 ]; then
			read -ra before <"/sys/block/$ldev/stat"
			run -w -f "$loop" --force -b 4k -s 1m --fsync 1 --json
			read -ra after <"/sys/block/$ldev/stat"
			check "--fsync 1: the device completed a flush for every sync sdb counts" true \
				"$(jq --argjson flushes $((after[15] - before[15])) '.threads[0].sync.ops == 256 and $flushes >= 256' <<<"$out")"
		else
			skipped "--fsync against the device's flush count" "this kernel's stat has no flush fields"
		fi
		release_image workloads-loop.img
	else
		skipped "-M and --fsync against the device's counters" "no loop device"
		rm -f workloads-loop.img
	fi
fi
