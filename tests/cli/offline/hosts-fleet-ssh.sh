#!/bin/bash
# ------------------------------------------------------------ hosts-fleet-ssh
# Three hosts over a real OpenSSH sshd on 127.0.0.1 (its own host key and
# client key, made here and removed at the end), as hosts-ssh starts one:
# one host's loop device throttled (blkio) and named a straggler, Ctrl-C's
# partial merged report through real sessions, a remote killed mid-run.
. "$(dirname "$0")/../lib.sh"
if ! system || [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null || [ ! -w /sys/fs/cgroup/blkio ]; then
	skipped "hosts-fleet-ssh" "needs root, sshd and ssh-keygen (openssh-server), cgroup v1 blkio"
else
	fs_dir=$work/fssh
	start_sshd "$fs_dir" 2300 2399 "MaxStartups 30" "MaxSessions 30"
	fcg=/sys/fs/cgroup/blkio/sdb-cli-ssh-$$
	stop_fleet_sshd() {
		[ -f "$fs_dir/sshd.pid" ] && kill "$(cat "$fs_dir/sshd.pid")" 2>/dev/null
		[ -n "${fl1:-}" ] && losetup -d "$fl1" "$fl2" "$fl3" 2>/dev/null
		rmdir "$fcg" 2>/dev/null
	}
	trap 'stop_fleet_sshd; cleanup' EXIT
	export SDB_SSH="ssh -p $port -i $fs_dir/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	for i in 1 2 3; do truncate -s 96m "$fs_dir/img$i"; done
	fl1=$(losetup -f --show "$fs_dir/img1") && fl2=$(losetup -f --show "$fs_dir/img2") && fl3=$(losetup -f --show "$fs_dir/img3")
	mkdir -p "$fcg"
	echo "$(cat "/sys/block/${fl3#/dev/}/dev") $((16 << 20))" >"$fcg/blkio.throttle.write_bps_device"	# 16 MiB/s
	# The remote sdb, started by sshd, joins the cgroup first (only loop 3 is limited there).
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs\nexec %s "$@"\n' "$fcg" "$sdb" >"$fs_dir/remote"
	chmod +x "$fs_dir/remote"
	export SDB_REMOTE=$fs_dir/remote
	hosts="127.0.0.1:$fl1,localhost:$fl2,root@127.0.0.1:$fl3"
	run --hosts "$hosts" -w -D -R -s 64m -t 2 --force --json
	check "hosts-fleet-ssh: three hosts over sshd, one throttled: exit 0, all merged" "0 3" "$rc $(jq .total.hosts <<<"$out")"
	check "hosts-fleet-ssh: the throttled host named a straggler" "root@127.0.0.1:$fl3" "$(jq -r '.fleet.stragglers | join(",")' <<<"$out")"
	contains "hosts-fleet-ssh: the straggler's warning" "$err" "sdb: warning: straggler root@127.0.0.1:$fl3: "
	check "hosts-fleet-ssh: each host's verdict: its loop device, all bytes delivered" \
		"${fl1#/dev/} true ${fl2#/dev/} true ${fl3#/dev/} true" \
		"$(jq -r '[.hosts[].device | "\(.name) \(.verified)"] | join(" ")' <<<"$out")"
	check "hosts-fleet-ssh: a common start: the skew under a second, the windows overlapping" true \
		"$(jq '.fleet.start_skew < 1 and .fleet.overlap > 0' <<<"$out")"
	# Ctrl-C: the remote runs stop through their sessions and report.
	"$sdb" --hosts "127.0.0.1:$work/fssh/c1,localhost:$work/fssh/c2" -w -s 8m -t 60 --json >"$fs_dir/int.json" 2>/dev/null &
	pid=$!
	c_writing() { at_least "$fs_dir/c1" $((8 << 20)) && at_least "$fs_dir/c2" $((8 << 20)); }
	wait_for "$pid" c_writing
	kill -INT "$pid"
	wait "$pid"; rc=$?
	check "hosts-fleet-ssh: Ctrl-C: exit 130, both hosts' partial results merged" "130 2 true true" \
		"$rc $(jq -r '"\(.total.hosts) \(.interrupted) \(.total.bytes >= 2 * 8388608)"' "$fs_dir/int.json" 2>&1)"
	for try in $(seq 50); do pgrep -f -- "^$sdb .*--file=$fs_dir/c" >/dev/null || break; sleep 0.1; done
	check "hosts-fleet-ssh: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "^$sdb .*--file=$fs_dir/c")"
	# A remote killed mid-run: named, the other merged, exit 1.
	"$sdb" --hosts "127.0.0.1:$fs_dir/k1,localhost:$fs_dir/k2" -w -s 8m -t 4 --json >"$fs_dir/kill.json" 2>"$fs_dir/kill.err" &
	pid=$!
	k_writing() { at_least "$fs_dir/k1" $((8 << 20)) && at_least "$fs_dir/k2" $((8 << 20)); }
	wait_for "$pid" k_writing
	pkill -KILL -f -- "^$sdb .*--file=$fs_dir/k2"
	wait "$pid"; rc=$?
	check "hosts-fleet-ssh: a remote killed: exit 1, the other merged, the killed one listed" "1 1 localhost:$fs_dir/k2" \
		"$rc $(jq -r '"\(.total.hosts) \(.hosts[1].host)"' "$fs_dir/kill.json" 2>&1)"
	contains "hosts-fleet-ssh: the killed host named" "$(cat "$fs_dir/kill.err")" "sdb: localhost:$fs_dir/k2: "
	unset SDB_SSH SDB_REMOTE
	stop_fleet_sshd
	fl1=
	trap cleanup EXIT
	rm -rf "$fs_dir"
fi
