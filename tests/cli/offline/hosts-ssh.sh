#!/bin/bash
# ------------------------------------------------------------ hosts-ssh
# --hosts end to end over a throwaway sshd on 127.0.0.1 (root: it logs in
# as root with a key made here); the remote sdb is this one (SDB_REMOTE).
. "$(dirname "$0")/../lib.sh"
if ! system || [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null; then
	skipped "many hosts over ssh" "needs root, sshd and ssh-keygen (openssh-server)"
elif ! "$sdb" --help | grep -q -- --start-at; then
	skipped "many hosts over ssh" "this sdb has no --start-at yet"
else
	ssh_dir=$work/ssh
	start_sshd "$ssh_dir" 2222 2299
	stop_sshd() { [ -f "$ssh_dir/sshd.pid" ] && kill "$(cat "$ssh_dir/sshd.pid")" 2>/dev/null; }
	trap 'stop_sshd; cleanup' EXIT
	export SDB_SSH="ssh -p $port -i $ssh_dir/key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	export SDB_REMOTE=$sdb
	mkdir -p h1 h2
	t0=$(date +%s.%N)
	run --hosts "localhost:$work/h1/t,127.0.0.1:$work/h2/t" -w -s 64m -D --json
	check "--hosts: exit 0" 0 "$rc"
	check "--hosts: both hosts' files written" "67108864 67108864" "$(size_of h1/t) $(size_of h2/t)"
	check "--hosts: merged total" "2 134217728" "$(jq -r '"\(.total.hosts) \(.total.bytes)"' <<<"$out")"
	check "--hosts: each host named" "localhost:$work/h1/t 127.0.0.1:$work/h2/t" \
		"$(jq -r '[.hosts[].source] | join(" ")' <<<"$out")"
	# The common --start-at is 3 s after the launch (sdb.1), given to the ms.
	check "--hosts: every host waited for the common start" true \
		"$(jq --argjson t0 "$t0" '[.hosts[].start_unix] | length == 2 and min >= $t0 + 2.999' <<<"$out")"
	check "--hosts: merged percentiles from the union of the histograms" \
		"$(jq -c "$jq_hist [.hosts[].histogram] | union | pcts" <<<"$out")" \
		"$(jq -c '.total.latency_ns | {p50, p90, p99, p999}' <<<"$out")"
	run --hosts "localhost:$work/h1/t,127.0.0.1:$work/h2/t" -r -s 64m -D
	check "--hosts: read back, exit 0" 0 "$rc"
	matches "--hosts: a line per host and a Total" "$out" "*Host localhost:$work/h1/t: 1 thread*Total (2 hosts, 2 threads)*"
	# 127.0.0.2 is loopback too, but nothing listens there.
	run --hosts "127.0.0.2:$work/h3/t,127.0.0.1:$work/h2/t" -r -s 64m -D --json
	check "--hosts: an unreachable host: exit 1" 1 "$rc"
	contains "--hosts: the unreachable host named" "$err" "sdb: 127.0.0.2:$work/h3/t: ssh: connect to host 127.0.0.2"
	check "--hosts: the other host's result still prints" "1 67108864" "$(jq -r '"\(.total.hosts) \(.total.bytes)"' <<<"$out")"
	SDB_REMOTE=/nonexistent/sdb run --hosts "127.0.0.1:$work/h2/t" -r -s 64m
	check "--hosts: no sdb there: exit 1" 1 "$rc"
	contains "--hosts: no sdb there, said so" "$err" "exit 127"
	run --hosts "127.0.0.1:$work/nowhere/t" -r -s 64m
	contains "--hosts: the remote sdb's own error" "$err" "sdb: 127.0.0.1:$work/nowhere/t: $work/nowhere/t: No such file or directory"
	# Ctrl-C: every remote run stopped, exit 130.
	"$sdb" --hosts "localhost:$work/h1/s,127.0.0.1:$work/h2/s" -w -s 8m -t 60 >/dev/null 2>"$work/.err" &
	pid=$!
	both_writing() { at_least h1/s $((8 << 20)) && at_least h2/s $((8 << 20)); }
	wait_for "$pid" both_writing	# both remote runs in their timed loops
	kill -INT "$pid"
	wait "$pid"; rc=$?
	check "--hosts: Ctrl-C: exit 130" 130 "$rc"
	contains "--hosts: Ctrl-C: the hosts named" "$(cat "$work/.err")" "localhost:$work/h1/s: interrupted"
	for try in $(seq 50); do pgrep -f -- "--file=$work/h./s" >/dev/null || break; sleep 0.1; done
	check "--hosts: Ctrl-C: no remote sdb left" "" "$(pgrep -f -- "--file=$work/h./s")"
	unset SDB_SSH SDB_REMOTE
	stop_sshd
	trap cleanup EXIT
	rm -rf h1 h2 "$ssh_dir"
fi
