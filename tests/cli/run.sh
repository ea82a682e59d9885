#!/bin/bash
# The CLI tests: each section, tests/cli/WING/SECTION.sh, in a scratch
# directory of its own and a process group (a session) of its own, under a
# time limit that ends the whole group (CLI_TIMEOUT seconds, 600 unless
# given); then sweep.sh ends and removes whatever the section left under
# its directory (mounts, loop devices, daemons), whatever happened to it.
# A section that reached its limit, or ended without its count line, is a
# failure that names it.  Sections run CLI_JOBS at a time (4 unless given;
# each makes its own files, so none leans on another's), the slowest first,
# except the sections in $alone, which run with no other beside them;
# each one's output is printed whole when it ends, with its time.
# The last line is "cli: N passed, N failed, N skipped"; the line
# "cli: N N N" is appended to COUNTS-FILE (for tests/check.sh).
# usage: tests/cli/run.sh SDB MAN-PAGE VERSION [COUNTS-FILE [SECTION...]]
#   no SECTION: every section; an unknown SECTION is an error (exit 2).
set -u
dir=$(cd "$(dirname "$0")" && pwd) || exit 2
[ $# -ge 3 ] || { echo "usage: $0 SDB MAN-PAGE VERSION [COUNTS-FILE [SECTION...]]" >&2; exit 2; }
sdb=$(realpath "$1") man=$(realpath "$2") version=$3 counts=${4:-/dev/null}
shift 3; [ $# -gt 0 ] && shift
case $counts in /*) ;; *) counts=$PWD/$counts ;; esac
jobs=${CLI_JOBS:-4} limit=${CLI_TIMEOUT:-600}
. "$dir/sweep.sh"

# The order: first the sections that run alone (each one drains the
# others, so they cost least before anything runs), then those that take
# longest, as measured in CI four at a time (2026-12-08), so that the run
# ends with short ones.  Names not here follow in alphabetical order; a
# name here that is no section is ignored.
slow="stack-down-to-the-metal uring-queue-depth device-sdb-checks-itself stack-follows-the-bytes
probe run-signals run-dumb-terminal commands run-watch steady hosts-fleet rate runs
worker-every-pass-reaches-the-device compare checks-truthful-numbers cliff-page-cache
verdict-evidence quick-flash html-pages quick-suite worker-workloads hosts-fleet-ssh
checks-memory-not-a-device hosts-ssh guard-never-touch html-modes versions
report-latency-pictures plan-safe-targets plan-root-only"

# The sections that assert an upper bound on what a shared disk saw (the
# disk under the work directory read less than sdb's claim): another
# section's reads of that disk would break the bound, so these run alone.
# uring-queue-depth turns io_uring off for the whole machine for one run
# (kernel.io_uring_disabled): every -q run beside it would fail.
# device-sdb-checks-itself asserts a named limit for a loop device over
# the work directory's disk, which another section's writes to that disk
# turn, truthfully, into "limit unknown (vda ... was shared)";
# stack-follows-the-bytes, the same for a throttled btrfs leg (once in
# CI four at a time: a limit no check could name).
alone="stack-down-to-the-metal uring-queue-depth device-sdb-checks-itself stack-follows-the-bytes"

declare -A file
for f in "$dir"/*/*.sh; do
	n=${f##*/}; n=${n%.sh}
	file[$n]=$f
done
if [ $# -gt 0 ]; then
	names=("$@")
	for n in "${names[@]}"; do
		[ -n "${file[$n]:-}" ] && continue
		echo "FAIL cli: no section '$n' (the sections: $(printf '%s\n' "${!file[@]}" | sort | tr '\n' ' '))" >&2
		echo "cli: 0 1 0" >>"$counts"
		exit 2
	done
else
	names=()
	for n in $slow; do [ -n "${file[$n]:-}" ] && names+=("$n"); done
	for n in $(printf '%s\n' "${!file[@]}" | sort); do
		[[ " $(echo $slow) " == *" $n "* ]] || names+=("$n")
	done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdb-cli-run.XXXXXX") || exit 2
chmod 755 "$tmp"	# the sections that run sdb as nobody reach their files through it
pass=0 fail=0 skip=0
declare -A started pid_of
# shellcheck disable=SC2317  # called by the traps
stop() {
	local n
	for n in "${!pid_of[@]}"; do kill -TERM -- "-${pid_of[$n]}" 2>/dev/null; done
	sleep 1
	for n in "${!pid_of[@]}"; do kill -KILL -- "-${pid_of[$n]}" 2>/dev/null; sweep "$tmp/$n.work"; done
	rm -rf "$tmp"
}
trap stop EXIT
trap 'echo "cli: interrupted"; exit 130' INT TERM HUP

# launch NAME: the section, in the background, in a session of its own
# (setsid: its PID is its process group's); timeout ends the group.
launch() {
	local n=$1
	mkdir "$tmp/$n.work" || return 1
	: >"$tmp/$n.counts"
	started[$n]=$(date +%s.%N)
	CLI_WORK=$tmp/$n.work setsid -w timeout -k 10 "$limit" \
		bash "${file[$n]}" "$sdb" "$man" "$version" "$tmp/$n.counts" >"$tmp/$n.out" 2>&1 </dev/null &
	pid_of[$n]=$!
}
# finish NAME STATUS: sweep after it, print its output, add up its counts.
finish() {
	local n=$1 status=$2 line p f s secs
	unset "pid_of[$n]"
	sweep "$tmp/$n.work"; rm -rf "$tmp/$n.work"
	secs=$(echo "$(date +%s.%N) - ${started[$n]}" | bc)
	line=$(tail -n 1 "$tmp/$n.counts")
	cat "$tmp/$n.out"
	case $line in
	"cli: "*) read -r _ p f s <<<"$line" ;;
	*) p=0 f=0 s=0 ;;
	esac
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		f=$((f + 1)); echo "FAIL section $n: reached its time limit of $limit s (exit $status)"
	elif [ -z "$line" ]; then
		f=$((f + 1)); echo "FAIL section $n: ended without its count line (exit $status)"
	elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL section $n: exit $status with no failed test"
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '=== section %s: %d passed, %d failed, %d skipped, %.1f s\n' "$n" "$p" "$f" "$s" "$secs"
}

i=0 running=0 solo=
while [ "$i" -lt "${#names[@]}" ] || [ "$running" -gt 0 ]; do
	while [ "$running" -lt "$jobs" ] && [ "$i" -lt "${#names[@]}" ] && [ -z "$solo" ]; do
		n=${names[$i]}
		if [[ " $alone " == *" $n "* ]]; then
			[ "$running" -gt 0 ] && break	# it waits for the others to end
			solo=$n
		fi
		launch "$n" && running=$((running + 1))
		i=$((i + 1))
	done
	wait -n -p done_pid; status=$?
	for n in "${!pid_of[@]}"; do
		if [ "${pid_of[$n]}" = "$done_pid" ]; then
			finish "$n" "$status"; running=$((running - 1))
			[ "$n" = "$solo" ] && solo=
		fi
	done
done

echo "cli: $pass passed, $fail failed, $skip skipped"
echo "cli: $pass $fail $skip" >>"$counts"
[ "$fail" -eq 0 ]
