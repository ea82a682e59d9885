#!/bin/bash
# ------------------------------------------------------------ hosts-fleet
# --hosts over a stand-in for ssh (it runs the remote command here): the
# straggler named (one host's loop device throttled by a blkio cgroup),
# Ctrl-C and a lost host giving the merged report of those that answered,
# --host-timeout, --fanout, @FILE and ranges, the status lines.
. "$(dirname "$0")/../lib.sh"
mkdir -p hf
cat >hf/rsh <<-'SSH'	# not named ssh: no -o BatchMode added
	#!/bin/sh
	host=$1; shift
	case $host in
	hang*) exec sleep 1000 ;;	# a host that never answers, and ignores its stdin
	junk*) echo "Welcome to junk"; exit 0 ;;	# a remote that prints no result
	flood*) yes "not a result" | head -c 104857600; exit 0 ;;	# one that prints 100 MiB of it
	slow*)	# a slow handshake: logged when ssh starts and when it is through
		echo "$host spawned $(date +%s.%N)" >>"${0%/*}/slow.log"
		sleep 0.3
		echo "$host through $(date +%s.%N)" >>"${0%/*}/slow.log" ;;
	esac
	exec sh -c "$*"
SSH
chmod +x hf/rsh
export SDB_SSH=$work/hf/rsh SDB_REMOTE=$sdb
cg=/sys/fs/cgroup/blkio/sdb-cli-$$
if ! system || [ ! -w /sys/fs/cgroup/blkio ] || ! command -v losetup >/dev/null; then
	skipped "hosts-fleet: the throttled straggler" "needs root, losetup and cgroup v1 blkio"
else
	for i in 1 2 3; do truncate -s 96m "hf/img$i"; done
	l1=$(losetup -f --show hf/img1) && l2=$(losetup -f --show hf/img2) && l3=$(losetup -f --show hf/img3)
	mkdir -p "$cg"
	echo "$(cat "/sys/block/${l3#/dev/}/dev") $((16 << 20))" >"$cg/blkio.throttle.write_bps_device"	# 16 MiB/s
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs\nexec %s "$@"\n' "$cg" "$sdb" >hf/remote	# every host's sdb in the cgroup
	chmod +x hf/remote
	sectors() { awk '{print $7}' "/sys/block/${1#/dev/}/stat"; }
	before=$(sectors "$l3")
	SDB_REMOTE=$work/hf/remote run --hosts "a:$l1,b:$l2,c:$l3" -w -D -R -s 64m -t 2 --force --json
	after=$(sectors "$l3")
	check "hosts-fleet: three hosts, one throttled: exit 0 (a straggler is a warning)" "0 3" "$rc $(jq .total.hosts <<<"$out")"
	check "hosts-fleet: the throttled host is named in fleet.stragglers" "c:$l3" "$(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
	contains "hosts-fleet: the straggler's warning" "$err" "sdb: warning: straggler c:$l3: "
	check "hosts-fleet: each host's device verdict in hosts[].device" "${l1#/dev/} ${l2#/dev/} ${l3#/dev/}" \
		"$(jq -r '[.hosts[].device.name] | join(" ")' <<<"$out")"
	check "hosts-fleet: the throttled host's device bytes are the kernel's (/sys/block/X/stat)" $(((after - before) * 512)) \
		"$(jq '.hosts[2].device.bytes' <<<"$out")"
	check "hosts-fleet: the worst p99 is the throttled host's" true \
		"$(jq '.fleet.worst_p99_ns == .hosts[2].latency_ns.p99 and .fleet.worst_p99_ns > .total.latency_ns.p99' <<<"$out")"
	SDB_REMOTE=$work/hf/remote run --hosts "a:$l1,b:$l2,c:$l3" -w -D -R -s 64m -t 1 --force
	matches "hosts-fleet: a line per host with its verdict, the straggler marked" "$out" \
		"*Host c:$l3: 1 thread, * p99 *; device ${l3#/dev/}: *% delivered, limit * (straggler)*Fleet: *stragglers: c:$l3*"
	rmdir "$cg"
	losetup -d "$l1" "$l2" "$l3"
	rm -f hf/img?
fi
# Ctrl-C while the hosts run: every remote run stops and reports; the
# merged report of what they did, exit 130.
"$sdb" --hosts "a:$work/hf/s1,b:$work/hf/s2" -w -s 8m -t 60 --json >hf/int.json 2>hf/int.err &
pid=$!
both_writing() { at_least hf/s1 $((8 << 20)) && at_least hf/s2 $((8 << 20)); }
wait_for "$pid" both_writing
kill -INT "$pid"
wait "$pid"; rc=$?
check "hosts-fleet: Ctrl-C: exit 130, both hosts' partial results merged" "130 2 true true" \
	"$rc $(jq -r '"\(.total.hosts) \(.interrupted) \(.total.bytes >= 2 * 8388608)"' hf/int.json 2>&1)"
check "hosts-fleet: Ctrl-C: each host's run says it was interrupted" "true true" "$(jq -r '[.hosts[].interrupted] | join(" ")' hf/int.json)"
check "hosts-fleet: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "--file=$work/hf/s")"
# Ctrl-C before the common start: still one valid document.
"$sdb" --hosts "a:$work/hf/e1,b:$work/hf/e2" -w -s 1m --json >hf/early.json 2>/dev/null &
pid=$!
wait_for "$pid" at_least hf/e2 0	# both remote runs made their files, waiting for the start
wait_for "$pid" at_least hf/e1 0
kill -INT "$pid"
wait "$pid"; rc=$?
check "hosts-fleet: Ctrl-C before the start: exit 130, one valid document, no I/O" "130 true 0" \
	"$rc $(jq -r '"\(.interrupted) \(.total.ops)"' hf/early.json 2>&1)"
# A remote killed mid-run: that host named, the other merged, exit 1.
"$sdb" --hosts "a:$work/hf/k1,b:$work/hf/k2" -w -s 8m -t 4 --json >hf/kill.json 2>hf/kill.err &
pid=$!
k_writing() { at_least hf/k1 $((8 << 20)) && at_least hf/k2 $((8 << 20)); }
wait_for "$pid" k_writing
pkill -KILL -f -- "^$sdb .*--file=$work/hf/k2"	# the remote sdb, not the shells around it
wait "$pid"; rc=$?
check "hosts-fleet: a remote killed: exit 1, the other host merged" "1 1 a:$work/hf/k1" \
	"$rc $(jq -r '"\(.total.hosts) \(.hosts[0].source)"' hf/kill.json 2>&1)"
check "hosts-fleet: the killed host as {host, exit, error}" "b:$work/hf/k2 137" \
	"$(jq -r '.hosts[1] | "\(.host) \(.exit)"' hf/kill.json 2>&1)"
contains "hosts-fleet: the killed host named, how it ended" "$(cat hf/kill.err)" "sdb: b:$work/hf/k2: Killed (exit 137)"
# --host-timeout: a host that never answers is stopped and named.
run --hosts "a:$work/hf/t1,hang:$work/hf/t2" -w -s 1m --host-timeout 5 --json
check "hosts-fleet: --host-timeout: exit 1, the answering host merged" "1 1" "$rc $(jq .total.hosts <<<"$out")"
check "hosts-fleet: --host-timeout: the hung host's entry" "hang:$work/hf/t2 no answer within --host-timeout: stopped" \
	"$(jq -r '.hosts[1] | "\(.host) \(.error)"' <<<"$out")"
# A remote that prints something else: the parse error, not "no result".
run --hosts "junk:$work/hf/j1" -w -s 1m
contains "hosts-fleet: non-JSON output: its size and the parse error" "$err" \
	"sdb: junk:$work/hf/j1: its 16 B of output are not a result: not valid JSON (byte 0: not a JSON value)"
# Two remotes that flood their standard output: each named with what it
# printed, the answering host merged, and sdb's memory within what two
# results may take (16 MiB each) and 64 MiB (1 GB each took it to 790 MB
# a host before sdb let go of what no result could need).
run_peak --hosts "flood1:$work/hf/f1,a:$work/hf/f2,flood2:$work/hf/f3" -w -s 1m --json
check "hosts-fleet: flooding hosts: exit 1, both named with their bytes, the other merged" "1 2 a:$work/hf/f2" \
	"$rc $(grep -c '^sdb: flood[12]:.*: printed 100 MiB on its standard output, more than the 16 MiB a result takes: not a result$' <<<"$err") $(jq -r '[.hosts[] | select(.error == null) | .source] | join(" ")' <<<"$out")"
peak_within "hosts-fleet: flooding hosts: peak memory within two results' worth and 64 MiB" $((2 * 16384 + 65536))
# @FILE, ranges, --fanout.
printf '# readers\nr[1-2]\n\nr3   # the last\n' >hf/hosts.txt
run --hosts @hf/hosts.txt -r -f /dev/zero -s 16m --json
check "hosts-fleet: @FILE with a range: three hosts" "0 r1 r2 r3" "$rc $(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
# --fanout N: at most N ssh sessions connecting at once, every run with
# the one common start: the third session starts only after one of the
# first two is through its (slow) handshake, and the three runs overlap.
run --hosts slow1,slow2,slow3 -r -f /dev/zero -s 64m -t 1 --fanout 2 --json
third=$(sed -n 's/^slow3 spawned //p' hf/slow.log)
first_through=$(sed -n 's/^slow[12] through //p' hf/slow.log | sort -n | head -n 1)
check "hosts-fleet: --fanout 2: the third session started after a first one was through" "0 true" \
	"$rc $(echo "${third:-0} >= ${first_through:-9e9}" | bc -l | sed 's/1/true/;s/0/false/')"
check "hosts-fleet: --fanout 2: one common start, the three runs overlap" true \
	"$(jq '.fleet.start_skew < 0.5 and .fleet.overlap > 0.5' <<<"$out")"
lacks "hosts-fleet: --fanout 2: no word of windows that do not overlap" "$err" "the windows overlap"
bad_input 2 "--fanout: only meaningful with --hosts" -r -f /dev/zero -s 1m --fanout 2
# The status lines, on a terminal (script(1) gives one).
if command -v script >/dev/null; then
	TERM=xterm script -qfec "$sdb --hosts 's1:$work/hf/st1,s2:$work/hf/st2' -w -s 4m -t 2.5" /dev/null >hf/tty.txt 2>&1
	contains "hosts-fleet: on a terminal, a status line per host" "$(cat hf/tty.txt)" "s2:$work/hf/st2: running"
	check "hosts-fleet: each host's status line gives its rate (from its run's progress lines)" true \
		"$(grep -aq "s1:$work/hf/st1: running [0-9.]* s, [0-9.]* [KMG]iB/s" hf/tty.txt && echo true)"
	contains "hosts-fleet: the status line before the start" "$(cat hf/tty.txt)" "s1:$work/hf/st1: started, the run begins in"
	run --hosts "s1:$work/hf/st1" -w -s 4m
	lacks "hosts-fleet: no terminal: no status line" "$err" "running"
else
	skipped "hosts-fleet: status lines" "no script(1)"
fi
# A relative --start-at under a launcher: a warning.
SLURM_PROCID=2 run -r -f /dev/zero -s 1m --start-at +0.2 --json
contains "hosts-fleet: --start-at +SEC under a launcher: a warning" "$err" \
	"sdb: warning: --start-at +0.2 under a launcher (SLURM_PROCID is set)"
check "hosts-fleet: the document carries the rank" 2 "$(jq .rank <<<"$out")"
unset SDB_SSH SDB_REMOTE
rm -rf hf
