#!/bin/bash
# ------------------------------------------------------------ merge-fleet
# --merge as a fleet's result and its seams: All
# running exact, the inputs pdsh and Ansible leave, duplicates, bad counts,
# one JSON document whatever happened, memory bounded by the input.
. "$(dirname "$0")/../lib.sh"
# A timeline that ends before the window does: sdb leaves out a last step
# under half a step long (here 0.045 s of 1.045), and a write's final
# fdatasync comes after the last sample; the document's last step is
# dropped so that the tail is there every time.  Three hosts in one
# window: All running is the Total's rate (it read 3-23% low).
"$sdb" -w -f fm -s 32m -R >/dev/null 2>&1
run -r -f fm -s 32m -b 64k -D -t 1.045 --json
jq '.timeline |= .[:-1]' <<<"$out" >fa.json
for h in b c; do jq --arg h "$h" '.host = $h' fa.json >"f$h.json"; done
run --merge fa.json fb.json fc.json --json
check "merge-fleet: three hosts in one window, exit 0" 0 "$rc"
check "merge-fleet: All running is the Total's rate within 1% (the partial last step counted)" true \
	"$(jq '(.total.all_running.bytes_per_second / .total.bytes_per_second - 1) | fabs < 0.01' <<<"$out")"
check "merge-fleet: fleet: no skew, full overlap, no straggler, the worst p99" "0 1 0 true" \
	"$(jq -r '"\(.fleet.start_skew) \(.fleet.overlap) \(.fleet.stragglers | length) \(.fleet.worst_p99_ns == .hosts[0].latency_ns.p99)"' <<<"$out")"
check "merge-fleet: hosts[].device is each document's verdict" "$(jq -c .device fa.json)" "$(jq -c '.hosts[2].device' <<<"$out")"
run --merge fa.json fb.json fc.json
matches "merge-fleet: a line per host with its device verdict" "$out" \
	"*Host vm (fa.json): 1 thread, * seconds -> *, * IOPS, p99 *; device *: *% delivered, limit *Host c (fc.json)*"
matches "merge-fleet: the Fleet line" "$out" "*Fleet: start skew 0 ns, windows overlap 100.0%, worst p99 * (fa.json), stragglers: none*"
# A straggler among documents: c at a tenth of the rate (its window 10x longer).
jq '.total.seconds *= 10 | .end_unix = .start_unix + .total.seconds | .timeline = []' fc.json >slow.json
run --merge fa.json fb.json slow.json --json
check "merge-fleet: the slow document is a straggler, a warning, exit 0" "0 slow.json" \
	"$rc $(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
contains "merge-fleet: the straggler's warning" "$err" "sdb: warning: straggler slow.json: "
# The same document twice, a merged document beside its input.
run --merge fa.json fb.json fa.json --json
check "merge-fleet: the same document twice: exit 1, merged once" "1 2" "$rc $(jq '.total.hosts' <<<"$out")"
contains "merge-fleet: the same document twice: both named" "$err" "sdb: fa.json: the same document as fa.json (host vm, start "
cp fa.json copy.json
run --merge fa.json copy.json
contains "merge-fleet: a copy under another name: both named" "$err" "sdb: copy.json: the same document as fa.json"
"$sdb" --merge fa.json fb.json --json >fab.json 2>/dev/null
run --merge fab.json fa.json
check "merge-fleet: a merged document beside its input: exit 1" 1 "$rc"
contains "merge-fleet: a merged document beside its input: both named" "$err" \
	"sdb: fa.json: one of the inputs of fab.json (host -, start "
# Counts that are not counts: the file and the field named, no silent 0.
jq '.total.ops = -3' fa.json >neg.json
bad_input 1 "neg.json: total.ops: -3 is not a count (a whole number from 0 below 2^64)" --merge neg.json
jq '.threads[0].histogram[0][2] = 18446744073709549568 | .threads[0].histogram[1][2] = 18446744073709549568' fa.json >wrap.json
bad_input 1 "wrap.json: threads[0].histogram: the bucket counts add up past 64 bits" --merge wrap.json
# Another sdb's document: flagged.
jq '.version = "0.0.9"' fb.json >old.json
run --merge fa.json old.json
contains "merge-fleet: another version flagged" "$err" "sdb: warning: old.json: written by sdb 0.0.9, this is sdb $version"
# --json with nothing merged: still one valid document.
run --merge neg.json missing.json --json
check "merge-fleet: nothing merged: exit 1, one valid document with the errors" "1 0 2" \
	"$rc $(jq -r '"\(.total.hosts) \(.errors | length)"' <<<"$out" 2>&1)"
# pdsh's output: each line "HOST: ...", the hosts' lines interleaved.
sed 's/^/node1: /' fa.json >p1; sed 's/^/node2: /' fb.json >p2
paste -d '\n' p1 p2 | grep -v '^$' >pdsh.txt
echo "pdsh@head: node3: ssh exited with exit code 255" >>pdsh.txt
run --merge pdsh.txt --json
check "merge-fleet: pdsh's output merged, each host named" "0 pdsh.txt#node1 pdsh.txt#node2" \
	"$rc $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
check "merge-fleet: pdsh's output: the bytes of both" "$(jq -s 'map(.total.bytes) | add' fa.json fb.json)" "$(jq .total.bytes <<<"$out")"
# Ansible --tree: a file per host, the task's result with sdb's output in stdout.
mkdir -p tree
for h in a b; do jq -n --rawfile o "f$h.json" '{changed: true, cmd: "sdb ...", rc: 0, stderr: "", stdout: $o}' >"tree/node-$h"; done
run --merge tree --json
check "merge-fleet: an Ansible --tree directory merged" "0 tree/node-a tree/node-b" "$(jq -r '"\(.total.hosts | . * 0) \([.hosts[].source] | join(" "))"' <<<"$out")"
jq -n '{changed: true, rc: 2, stderr: "sdb: /data/t: No such file or directory", stdout: ""}' >tree/node-c
run --merge tree
contains "merge-fleet: a failed Ansible task named" "$err" "sdb: tree/node-c: the Ansible task failed (rc 2): sdb: /data/t: No such file"
# Ansible's plain output (no --tree): one line that says how to get what merges.
{ echo "node-a | CHANGED | rc=0 >>"; cat fa.json; echo "node-b | CHANGED | rc=0 >>"; cat fb.json; } >plain.txt
run --merge plain.txt
check "merge-fleet: Ansible's plain output: exit 1, the hint to --tree" "1 1" \
	"$rc $(grep -c '^sdb: plain.txt: Ansible.s plain output (HOST | CHANGED | rc=0 >>), which --merge cannot split: run ansible with --tree DIR and merge DIR$' <<<"$err")"
rm -f plain.txt
# Memory grows with what is kept: a 20 MB document (512 threads, 2000
# buckets each) within 4 times its size plus the histograms (was 1.6 GB).
awk 'BEGIN { printf "{\"version\": \"%s\", \"host\": \"big\", \"start_unix\": 1000, \"end_unix\": 1002, ", "'"$version"'";
	printf "\"options\": {\"op\": \"read\"}, \"threads\": [";
	for (t = 0; t < 512; t++) { printf "%s{\"id\": %d, \"histogram\": [", t ? ", " : "", t;
		for (i = 256; i < 2256; i++) { w = 2 ^ (int(i / 128) - 1); low = (i % 128 + 128) * w;	# bucket i of sdb
			printf "%s[%d, %d, %d]", (i > 256 ? ", " : ""), low, low + w - 1, 1 + (i + t) % 97 }
		printf "]}" }
	printf "], \"total\": {\"bytes\": 1048576, \"ops\": 1, \"seconds\": 2}, \"warnings\": [], \"interrupted\": false}\n" }' >big.json
kib=$(( $(size_of big.json) / 1024 ))
if [ -n "${ASAN_OPTIONS:-}" ] || [ ! -x /usr/bin/time ]; then
	skipped "merge-fleet: the peak memory of a 20 MB document" "needs GNU time, and no AddressSanitizer (its own memory)"
else
	/usr/bin/time -o big.time -f %M "$sdb" --merge big.json >/dev/null 2>&1
	peak=$(tail -n 1 big.time)
	check "merge-fleet: a ${kib} KiB document merges in under 4x its size plus 8 MiB (peak ${peak} KiB)" true \
		"$([ "${peak:-999999999}" -lt $((4 * kib + 8192)) ] && echo true || echo "false")"
fi
rm -rf fm fa.json fb.json fc.json slow.json copy.json fab.json neg.json wrap.json old.json p1 p2 pdsh.txt tree big.json big.time
