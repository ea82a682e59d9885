#!/bin/bash
# What every section of the CLI tests shares.  A section is one file,
# tests/cli/WING/SECTION.sh, that sources this first; tests/cli/run.sh runs
# each in a scratch directory of its own, in a process group of its own,
# under a time limit.
# Black-box tests: run the real sdb in a scratch directory the way a user
# does and check exit codes, files, JSON values and messages.  Tests that
# need root (loop devices, tmpfs mounts) report themselves as skipped
# without it.  Nothing here asserts a speed, only ratios where the point of
# a feature is a difference in speed (cache eviction), nor how long anything
# took; a run is signalled once it shows that it reached the state under
# test (wait_for), not after a guessed sleep.
# Each section makes the files it uses: it runs alone by construction.
# The section ends with one line "cli: PASSED FAILED SKIPPED" appended to
# COUNTS-FILE, and its exit status is 1 if anything failed; its cleanup (the
# EXIT trap, also on INT, TERM and HUP) unmounts, detaches and ends
# whatever it left under its scratch directory.
# usage: bash tests/cli/WING/SECTION.sh SDB MAN-PAGE VERSION [COUNTS-FILE]
#   (tests/cli/run.sh sets CLI_WORK, the scratch directory; alone, a
#   section makes its own)
set -u
sdb=$(realpath "$1") man=$(realpath "$2") version=$3 counts=${4:-/dev/null}
case $counts in /*) ;; *) counts=$PWD/$counts ;; esac
pass=0 fail=0 skip=0
work=${CLI_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/sdb-cli.XXXXXX")} || exit 1
work=$(realpath "$work") || exit 1
. "$(dirname "${BASH_SOURCE[0]}")/sweep.sh"
# unmount DIR: a FUSE daemon (ntfs-3g) can keep its mount busy for a moment
# after the last file closes; retry, and detach it lazily in the end.
unmount() {
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		umount "$1" 2>/dev/null && return 0
		mountpoint -q "$1" || return 0
		sleep 0.3
	done
	umount -l "$1"
}
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	trap - EXIT INT TERM HUP
	[ -n "${mnt:-}" ] && unmount "$mnt" 2>/dev/null
	[ -n "${loop:-}" ] && losetup -d "$loop" 2>/dev/null
	cd / && sweep "$work"
	rm -rf "$work" /dev/shm/sdb-cli-$$*
	echo "cli: $pass $fail $skip" >>"$counts"
	[ "$fail" -eq 0 ]
	exit
}
trap cleanup EXIT
trap 'bad "interrupted (SIGINT)"; exit 130' INT
trap 'bad "interrupted (SIGTERM: the time limit?)"; exit 143' TERM
trap 'bad "interrupted (SIGHUP)"; exit 129' HUP
cd "$work" || exit 1
export XDG_STATE_HOME=$work/state	# --probe's undo journals, inside the scratch directory
command -v jq >/dev/null || { bad "jq is needed (apt-get install jq)"; exit 1; }

# system: the tests that reach outside the scratch directory may run:
# those that need root (loop devices, mounts, cgroups, FUSE, sshd, zram)
# and those that use /dev/shm.  Not without root, and not where
# SDB_TEST_HERMETIC is set: the package build's tests (make
# check-hermetic), which touch nothing outside the build tree even as root.
system() { [ "$(id -u)" = 0 ] && [ -z "${SDB_TEST_HERMETIC:-}" ]; }

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
skipped() { skip=$((skip + 1)); echo "skip $1 ($2)"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi; }
contains() { if [[ $2 == *"$3"* ]]; then ok "$1"; else bad "$1" "'$3' not in '$2'"; fi; }
lacks() { if [[ $2 != *"$3"* ]]; then ok "$1"; else bad "$1" "'$3' in '$2'"; fi; }
matches() { if [[ $2 == $3 ]]; then ok "$1"; else bad "$1" "'$2' does not match $3"; fi; }	# $3: a glob

# run ARGS...: sets $rc, $out, $err
run() {
	out=$("$sdb" "$@" 2>"$work/.err"); rc=$?
	err=$(cat "$work/.err")
}
size_of() { stat -c %s "$1" 2>/dev/null || echo missing; }
# wait_for PID SIGN...: before a run PID is signalled or changed under it,
# wait for a sign that it has reached the state under test: the command
# SIGN... succeeding, polled every 0.05 s.  It gives up when PID has ended
# or after 20 s, and the checks that follow say what went wrong; how long
# the wait took is never checked.
wait_for() {
	local pid=$1 try
	shift
	for ((try = 0; try < 400; try++)); do
		"$@" && return 0
		running "$pid" || return 1
		sleep 0.05
	done
	return 1
}
# The signs.  running PID: PID exists and has not exited (a zombie has).
running() { local s; s=$(sed -n 's/^State:\s*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }
# wrote PID BYTES: PID has written at least BYTES (wchar of /proc/PID/io).
wrote() { local n; n=$(sed -n 's/^wchar: //p' "/proc/$1/io" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# end_held PID HOW: end PID, whose stdout is a FIFO this shell holds open
# as fd 3 and never reads: SIGHOW to it, or for PIPE the reader closed;
# then wait until it ends (or 20 s, then KILL).  Sets rc, and want to the
# exit HOW should give (130, 143, 141).
end_held() {
	if [ "$2" = PIPE ]; then exec 3<&-; else kill -"$2" "$1"; fi
	wait_for "$1" false	# until it ends (or 20 s)
	running "$1" && kill -KILL "$1"
	wait "$1"; rc=$?
	exec 3<&-
	case $2 in
	INT) want=130 ;; TERM) want=143 ;; PIPE) want=141 ;;
	esac
}
# sectors DEV FIELD: bytes in DEV's stat field (3: sectors read, 7: written).
sectors() { awk -v f="$2" '{printf "%.0f\n", $f * 512}' "/sys/class/block/$1/stat"; }
# has_read PID BYTES: PID has read at least BYTES (rchar of /proc/PID/io,
# which counts pread; sdb reads only a few KiB before its timed loop).
has_read() { local n; n=$(sed -n 's/^rchar: //p' "/proc/$1/io" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# resident PID KIB: PID has at least KIB of memory resident (VmRSS).
resident() { local n; n=$(sed -n 's/^VmRSS:\s*\([0-9]*\) kB$/\1/p' "/proc/$1/status" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# run_peak ARGS...: as run ($rc, $out, $err), and $peak: the most memory
# sdb had resident at once, in KiB (its ru_maxrss, read by python3).
run_peak() {
	peak=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[3:], stdout=open(sys.argv[1], "w"), stderr=open(sys.argv[2], "w"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$work/.out" "$work/.err" "$sdb" "$@")
	rc=${peak% *} peak=${peak#* }
	out=$(cat "$work/.out") err=$(cat "$work/.err")
}
# peak_within DESC KIB: run_peak's $peak was KIB or less; skipped under
# the sanitizers, whose shadow memory is not sdb's.
peak_within() {
	if [ -n "${ASAN_OPTIONS:-}" ]; then
		skipped "$1" "AddressSanitizer's own memory"
	else
		check "$1" true "$([ "$peak" -le "$2" ] && echo true || echo "$peak KiB")"
	fi
}
# has_open PID PATH: PID has PATH open.
has_open() { local fd; for fd in /proc/"$1"/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0; done; return 1; }
# at_least FILE BYTES: FILE exists and holds at least BYTES.
at_least() { [ "$(stat -c %s "$1" 2>/dev/null || echo -1)" -ge "$2" ]; }
# quick_file DIR BYTES: the quick suite's test file in DIR holds at least BYTES.
quick_file() { local f; for f in "$1"/sdb-quick.*; do at_least "$f" "$2" && return 0; done; return 1; }
# quick_running PID DIR BYTES: the quick suite PID has laid out its test
# file of BYTES in DIR and the first row's run is under way
# (quick_row_running PID: its io_uring is open (SEQ1M Q8T1), or the 8
# threads that stand in for one).
quick_running() {
	quick_file "$2" "$3" || return 1
	quick_row_running "$1"
}
quick_row_running() {
	has_open "$1" "anon_inode:[io_uring]" || [ "$(sed -n 's/^Threads:\s*//p' "/proc/$1/status" 2>/dev/null)" -ge 9 ] 2>/dev/null
}
# taken PID SIG: SIG is no longer pending for PID (sdb has read it from its
# signalfd: ShdPnd of /proc/PID/status), or PID has ended.
taken() {
	local pending
	pending=$(sed -n 's/^ShdPnd:\s*//p' "/proc/$1/status" 2>/dev/null)
	[ -z "$pending" ] || (((0x$pending >> ($(kill -l "$2") - 1) & 1) == 0))
}
# release_image IMG: detach the loop device $loop (if any), remove IMG.
release_image() { [ -n "${loop:-}" ] && losetup -d "$loop"; loop=; rm -f "$1"; }
# bad_input RC TEXT ARGS...: exit RC, exactly one line "sdb: ...TEXT...", no stdout.
# start_sshd DIR FIRST LAST [CONFIG...]: a throwaway sshd on 127.0.0.1 at
# the first free port of FIRST..LAST (set in $port), root's login by the key
# DIR/key, its files and pid in DIR; CONFIG lines are added to its config.
# Returns once it listens (at most 5 s).
start_sshd() {
	local dir=$1 first=$2 last=$3 p try
	shift 3
	mkdir -p "$dir" /run/sshd && chmod 700 "$dir"
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$dir/key"
	cp "$dir/key.pub" "$dir/authorized_keys"
	port=
	for p in $(seq "$first" "$last"); do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
	done
	{
		printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $dir/host_key" \
			"AuthorizedKeysFile $dir/authorized_keys" "PermitRootLogin prohibit-password" \
			"PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" "$@" \
			"PidFile $dir/sshd.pid"
	} >"$dir/sshd_config"
	/usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log"
	for try in $(seq 50); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
bad_input() {	# expected-rc expected-text args...
	local want=$1 text=$2
	shift 2
	run "$@"
	local lines
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && [[ $err == "sdb: "*"$text"* ]] && [ -z "$out" ]; then
		ok "bad input ($*): exit $want"
	else
		bad "bad input ($*)" "rc=$rc stderr=$err"
	fi
}

# CLI_SECTIONS="quick-suite run-signals" runs only those sections.  Each is
# named by the room of src/ whose behaviour it mainly tests (and by what it
# tests there, where the room has several); each makes the files it uses.

# jq's copy of Histogram::percentile over [[low, high, count], ...]: the
# bucket midpoint, clamped to the lowest and highest bounds; the top rank
# is the highest bound.  And the union of several histograms.
jq_hist='def union: [.[][]] | group_by(.[0]) | map([.[0][0], .[0][1], (map(.[2]) | add)]);
def pct($q): (map(.[2]) | add) as $n | sort_by(.[0]) as $s | ($q * $n | ceil) as $r0
	| if $r0 >= $n then $s[-1][1] else ([$r0, 1] | max) as $r
	| first(foreach $s[] as $b (0; . + $b[2]; if . >= $r then $b[0] + (($b[1] - $b[0] + 1) / 2 | floor) else empty end))
	| [[., $s[0][0]] | max, $s[-1][1]] | min end;
def pcts: {p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), p999: pct(0.999)};'
