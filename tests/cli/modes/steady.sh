#!/bin/bash
# ------------------------------------------------------------ steady
. "$(dirname "$0")/../lib.sh"
# --steady: rounds until SNIA PTS steady state.  The rules it goes with; the
# window's figures recomputed here from the document's rounds; a row per
# round as it ends; --precondition's writes counted by the kernel; a
# constant device steady at round 5 or 6; and a device whose speed a
# throttle changes part-way: the window wholly after the change, a later
# change reported as leaving steady state.

bad_input 2 "--rounds: only meaningful with --steady" -r -f x --rounds 5
bad_input 2 "--precondition: only meaningful with --steady" -w -f x --precondition
bad_input 2 "--steady=fast: the steady variable is bw, iops or lat" -w -f x --steady=fast
bad_input 2 "--rounds 4: rounds must be a whole number from 5 (the PTS window) to 1000" -w -f x --steady --rounds 4
bad_input 2 "--steady and --runs: the rounds are the repeats (--rounds N for a fixed count)" -w -f x --steady --runs 3
bad_input 2 "--steady and --quick: a suite of many tests" --quick -f . --steady
bad_input 2 "--steady and --sweep: the sweep's steps change the load" -r -f x --steady --sweep
bad_input 2 "--steady: needs a workload to round: -w, -r or -M" -T --steady
bad_input 2 "--steady and --merge: it reads saved documents and runs nothing" --merge x.json --steady
bad_input 2 "bw: unexpected argument (a variable goes after --steady=: --steady=bw)" -w -f x --steady bw
check "the usage errors made no file" "missing" "$(size_of x.0)"

# window_ok JSON: the document's window figures recomputed from its
# rounds: average, range, least-squares slope, excursion (|slope| x 4), and
# the verdict beside the limits (to 1e-9 of each).
window_ok() {
	jq '.steady as $s | $s.rounds[$s.window[0] - 1:$s.window[1]] as $w | ($w | add / 5) as $avg |
		([range(5)] | map(. - 2)) as $x |
		([range(5) | $x[.] * ($w[.] - $avg)] | add / 10) as $slope |
		def near(a; b): ((a - b) | fabs) <= 1e-9 * ((b | fabs) + 1);
		($w | length) == 5 and near($s.average; $avg) and near($s.range; ($w | max) - ($w | min)) and
		near($s.slope; $slope) and near($s.excursion; ($slope | fabs) * 4) and
		($s.range <= 0.2 * $avg * (1 + 1e-9)) and ($s.excursion <= 0.1 * $avg * (1 + 1e-9))' <<<"$1"
}

# A file on the disk: --rounds 6 runs all six.
run -w -f st -s 8m -t 0.3 --steady --rounds 6 --json
check "--steady --rounds 6 on a file: exit 0, six rounds, bw, 0.3 s each" "0 6 bw 0.3" \
	"$rc $(jq -r '.steady | "\(.rounds | length) \(.variable) \(.round_seconds)"' <<<"$out")"
if [ "$(jq -r .steady.steady <<<"$out")" = true ]; then
	check "--steady on a file: the window's figures recomputed from the rounds" true "$(window_ok "$out")"
else
	check "--steady on a file, not steady: no window, the last five rounds' figures" "null true" \
		"$(jq -r '"\(.steady.window) \(.steady.average > 0)"' <<<"$out")"
fi
check "--steady without --precondition: the document says so" "null" "$(jq -c .steady.precondition <<<"$out")"
run -w -f st -s 8m -t 0.3 --steady --rounds 5
check "--steady, the report: a row per round, then the test" "5 1" \
	"$(grep -c '^Round  [1-5]: ' <<<"$out") $(grep -c '^Steady state (SNIA PTS 2.0, bandwidth): ' <<<"$out")"
contains "--steady, before round 1: the longest it can take" "$out" \
	"Steady state: rounds of 0.3 s until SNIA PTS steady state in bandwidth, all 5 rounds (2 s)"
contains "--steady without --precondition: the verdict says what was not seen" "$out" \
	"Not preconditioned: a cache or burst allowance larger than what the rounds wrote is not seen"
run -r -f st -m rand -b 4k -t 0.3 --steady --rounds 5 --json
check "--steady random without =VAR: IOPS" "0 iops" "$rc $(jq -r .steady.variable <<<"$out")"
run -r -f st -b 64k -t 0.3 --steady=lat --rounds 5 --json
check "--steady=lat: the rounds are mean latencies (ns, from each round's histogram)" "0 lat true" \
	"$rc $(jq -r '"\(.steady.variable) \(.steady.rounds | all(. > 100 and . < 1e9))"' <<<"$out")"

# --precondition on a file: 2 x 8 MiB written before round 1, said.
run -w -f pc -s 8m -t 0.2 --steady --rounds 5 --precondition --json
check "--precondition on a file: 16 MiB written first, not the whole device" "0 16777216 false" \
	"$rc $(jq -r '.steady.precondition | "\(.bytes) \(.whole_device)"' <<<"$out")"
run -w -f pc -s 8m -t 0.2 --steady --rounds 5 --precondition
contains "--precondition on a file: the verdict says the file, not the device" "$out" \
	"the file, not the whole device, was preconditioned"
contains "--precondition: the first pass's rate, and how much longer" "$out" "Precondition: pass 1 of 2, 8 MiB in "

# --html: the rounds drawn, with the window's band and fitted line when steady.
run -r -f st -b 64k -t 0.2 --steady --rounds 5 --html steady.html
embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' steady.html | sed '1d;$d' | sed 's|<\\/|</|g')
check "--steady --html: exit 0, the rounds' chart and the document with its five rounds" "0 1 5" \
	"$rc $(grep -c '<svg[^>]*aria-label="Rate per round (SNIA PTS)"' steady.html) $(jq '.steady.rounds | length' <<<"$embedded")"

# A round that cannot start (another process took the file's lock between
# two rounds): the rounds so far, the verdict says an error ended them, exit 1
# (after five rounds or more it may have found a steady window first: "steady
# in rounds 2-6 (6 rounds run, then an error)", as a busy CI once did).
"$sdb" -w -f lk -s 8m -t 0.3 --steady --rounds 8 >lk.out 2>lk.err &
pid=$!
locker=
if wait_for "$pid" grep -q '^Round  1: ' lk.out; then
	flock -x lk sleep 20 &
	locker=$!
fi
wait_for "$pid" false
running "$pid" && kill -KILL "$pid"
wait "$pid"; rc=$?
[ -n "$locker" ] && kill "$locker" 2>/dev/null
check "--steady, a later round refused (the lock): exit 1, the rounds so far said ended by an error" "1 1" \
	"$rc $(grep -c '^Steady state (SNIA PTS 2.0, bandwidth): \(not steady: ended by an error after [1-7] rounds\?\|steady in rounds [1-7]-[5-7] ([5-7] rounds run, then an error)\)$' lk.out)"
contains "--steady, a later round refused: the one line says why" "$(cat lk.err)" "sdb: lk is in use by another"
rm -f lk

# SIGINT after round 2: the report so far, the interrupted round left out, 130.
"$sdb" -r -f st -b 64k -t 1 --steady >int.out 2>int.err &
pid=$!
wait_for "$pid" grep -q '^Round  2: ' int.out && kill -INT "$pid"
wait_for "$pid" false
running "$pid" && kill -KILL "$pid"
wait "$pid"; rc=$?
check "--steady, SIGINT after round 2: exit 130, the test of the rounds that ended" "130 1" \
	"$rc $(grep -c '^Steady state (SNIA PTS 2.0, bandwidth): not steady: interrupted after 2 rounds$' int.out)"
contains "--steady, SIGINT: the report says it is partial" "$(cat int.out)" "Interrupted: the results above are partial"
# SIGINT while the next round gets ready (its -R buffer of 256 MiB filling,
# about a second): an interruption too, not "ended by an error".
"$sdb" -w -f prep -s 256m -b 256m -R -t 0.2 --steady >prep.out 2>prep.err &
pid=$!
wait_for "$pid" grep -q '^Round  1: ' prep.out && kill -INT "$pid"
wait_for "$pid" false
running "$pid" && kill -KILL "$pid"
wait "$pid"; rc=$?
check "--steady, SIGINT while a round gets ready: exit 130, interrupted after the rounds that ended, partial, no error line" \
	"130 1 1 0" "$rc $(grep -c '^Steady state (SNIA PTS 2.0, bandwidth): not steady: interrupted after [12] rounds\?$' prep.out) $(grep -c '^Interrupted: the results above are partial$' prep.out) $(grep -c '^sdb: interrupted' prep.err)"
rm -f prep prep.out prep.err

# --explain: fio's nearest (its slope rule over 5 rounds of 1 s samples),
# the longest run, and the precondition as its own line; nothing written.
run -w -f ex -s 8m -t 10 --steady --rounds 8 --precondition --explain
check "--steady --explain: exit 0, two fio lines, nothing made" "0 2 missing" \
	"$rc $(grep -c '^fio ' <<<"$out") $(size_of ex)"
contains "--steady --explain: the rounds' run is 8 x 10 s, the slope rule over 50 s" "$out" \
	"--runtime=80 --time_based --end_fsync=1 --invalidate=1 --zero_buffers --steadystate=bw_slope:0.25% --ss_dur=50"
contains "--precondition --explain: 128 KiB sequential writes of random bytes, twice" "$out" \
	"--rw=write --bs=128k --size=8m"
contains "--steady --explain: how fio's rule differs, said" "$out" "fio's steadystate= holds one rule over 1 s samples"
rm -f st pc

if ! system || ! command -v losetup >/dev/null; then
	for t in "--precondition refused on a device without --force" "a constant device: steady at round 5 or 6" \
		"a throttle changed part-way: the window after it, leaving reported"; do
		skipped "$t" "needs root and losetup"
	done
	exit
fi
truncate -s 64m dev.img
if ! loop=$(losetup -f --show --direct-io=on dev.img 2>/dev/null); then
	skipped "--steady on a loop device" "losetup failed"
	exit
fi
name=${loop#/dev/}
w0=$(sectors "$name" 7)
run -r -f "$loop" -b 64k -D -t 0.2 --steady --precondition
check "--precondition on a device without --force: refused before any I/O (exit 2, as -w), nothing written" "2 0" \
	"$rc $(($(sectors "$name" 7) - w0))"
contains "--precondition refused: the line says why" "$err" "sdb: --precondition: "

blkio=/sys/fs/cgroup/blkio
if ! [ -w "$blkio/cgroup.procs" ] || ! [ -e "$blkio/blkio.throttle.read_bps_device" ]; then
	skipped "a constant device: steady at round 5 or 6" "no cgroup v1 blkio"
	skipped "a throttle changed part-way: the window after it, leaving reported" "no cgroup v1 blkio"
	exit
fi
cg=$blkio/sdb-cli-steady-$$
mkdir -p "$cg"
limit() { echo "$(cat "/sys/block/$name/dev") $(($1 << 20))" >"$cg/blkio.throttle.read_bps_device"; }
limit 8
out=$( (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" -r -f "$loop" -b 64k -D -t 1 --steady --json) 2>/dev/null); rc=$?
check "a constant device (an 8 MiB/s throttle): steady at round 5 or 6" "0 true" \
	"$rc $(jq -r '.steady | "\(.steady and (.window[1] == 5 or .window[1] == 6) and (.rounds | length) == .window[1])"' <<<"$out")"
check "a constant device: the window's figures recomputed from the rounds" true "$(window_ok "$out")"
check "a constant device: the document's total is the window's median round" true \
	"$(jq '.steady as $s | ($s.rounds[$s.window[0] - 1:$s.window[1]] | sort | .[2]) as $m |
		((.total.bytes_per_second - $m) | fabs) <= 1e-6 * $m' <<<"$out")"
check "a constant device: the window's average is the throttle's 8 MiB/s (+-10%)" true \
	"$(jq '.steady.average / 8388608 | . > 0.9 and . < 1.1' <<<"$out")"
check "a constant device: the verdict names the throttle" "throttle" "$(jq -r .device.limit <<<"$out")"
printf '%s\n' "$out" >c.json

# --merge of --steady results: the fleet is steady when every input is;
# its figure the windows' averages added up.  b.json: the same document
# from another host; n.json: one that was not steady.
jq -c '.host = "b"' c.json >b.json
jq -c '.host = "n" | .steady.steady = false | .steady.window = null' c.json >n.json
run --merge c.json b.json --json
check "--merge of two steady results: the fleet is steady, both hosts, the averages added up" "0 true 2 true" \
	"$rc $(jq -r '.fleet_steady as $f | "\($f.steady) \($f.steady_hosts) \(($f.value - ([.hosts[].steady.average] | add) | fabs) < 1e-6 * $f.value)"' <<<"$out")"
check "--merge: each host's steady object as its document gave it" true \
	"$(jq --slurpfile c c.json '.hosts[0].steady == $c[0].steady' <<<"$out")"
run --merge c.json n.json
contains "--merge, one input not steady: the fleet is not" "$out" \
	"Steady state (SNIA PTS 2.0, bandwidth): the fleet is not steady: 1 of 2 results is not"
contains "--merge: a steady input's window and average" "$out" \
	"  $(jq -r .host c.json) (c.json): steady in rounds $(jq -r '.steady.window | "\(.[0])-\(.[1])"' c.json), average "
contains "--merge: the input that was not steady, said" "$out" \
	"  n (n.json): not steady in $(jq '.steady.rounds | length' c.json) rounds"
run --compare c.json n.json --json
check "--compare of steady results: the window's rounds are the samples (their mean, an interval)" true \
	"$(jq --slurpfile c c.json '$c[0].steady as $s | ($s.round_figures[$s.window[0] - 1:$s.window[1]] | map(.bytes_per_second) | add / length) as $m |
		.compare[0] | .metric == "bytes_per_second" and ((.old - $m) | fabs) < 1e-6 * $m and .low != null' <<<"$out")"
contains "--compare: an input that was not steady, warned" "$err" "sdb: warning: n.json was not steady: its last five rounds are compared"
rm -f b.json n.json

# 16 MiB/s for three rounds, then 8 (the window must lie wholly after the
# change), then 32 after round 10 (left steady state at round 11 or 12).
limit 16
(echo "$BASHPID" >"$cg/cgroup.procs" && exec "$sdb" -r -f "$loop" -b 64k -D -t 1 --steady --rounds 14) >steady.out 2>steady.err &
pid=$!
wait_for "$pid" grep -q '^Round  3: ' steady.out && limit 8
wait_for "$pid" grep -q '^Round 10: ' steady.out && limit 32
wait_for "$pid" false
running "$pid" && kill -KILL "$pid"
wait "$pid"; rc=$?
out=$(cat steady.out)
window=$(sed -n 's/^Steady state (SNIA PTS 2.0, bandwidth): steady in rounds \([0-9]*\)-\([0-9]*\) (.*/\1 \2/p' <<<"$out")
left=$(sed -n 's/^  Left steady state at round \([0-9]*\): .*/\1/p' <<<"$out")
check "a throttle changed part-way: exit 0, all 14 rounds" "0 14" "$rc $(grep -c '^Round [ 1][0-9]: ' <<<"$out")"
check "a throttle changed after round 3: the window lies wholly after it, and ends by round 10" true \
	"$([ -n "$window" ] && set -- $window && [ "$1" -ge 4 ] && [ "$2" -le 10 ] && echo true || echo "false ($window)")"
check "a throttle changed after round 10: left steady state at round 11 or 12" true \
	"$([[ $left == 1[12] ]] && echo true || echo "false ($left)")"
if [ -n "$window" ]; then
	set -- $window
	check "the row of the window's last round says so, as it ends" 1 \
		"$(grep -c "^Round *$2: .*: steady in rounds $1-$2\$" <<<"$out")"
	check "the row of the round that left says it is outside the window's +-20%" 1 \
		"$(grep -c "^Round *$left: .*: outside +-20% of rounds $1-$2's average\$" <<<"$out")"
fi

# --steady --hosts: each host's rounds and verdict, the fleet steady when
# both are (two loop devices, each under its own 8 MiB/s throttle).
truncate -s 64m dev2.img
if loop2=$(losetup -f --show --direct-io=on dev2.img 2>/dev/null); then
	limit 8
	echo "$(cat "/sys/block/${loop2#/dev/}/dev") $((8 << 20))" >"$cg/blkio.throttle.read_bps_device"
	printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >rsh
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs\nexec %s "$@"\n' "$cg" "$sdb" >remote
	chmod +x rsh remote
	SDB_SSH=$work/rsh SDB_REMOTE=$work/remote run --hosts "a:$loop,b:$loop2" -r -b 64k -D -t 1 --steady --json
	check "--steady --hosts: exit 0, both hosts steady at round 5 or 6, so the fleet" "0 true 2 true" \
		"$rc $(jq -r '"\(.fleet_steady.steady) \(.fleet_steady.steady_hosts) \([.hosts[].steady.window[1]] | all(. == 5 or . == 6))"' <<<"$out")"
	check "--steady --hosts: the fleet's figure is the two windows' averages, 16 MiB/s (+-10%)" true \
		"$(jq '.fleet_steady.value / 16777216 | . > 0.9 and . < 1.1' <<<"$out")"
	# A host that fails has no rounds: neither it nor the fleet is steady.
	SDB_SSH=$work/rsh SDB_REMOTE=$work/remote run --hosts "a:$loop,c:$work/nodir/x" -r -b 64k -D -t 0.3 --steady --json
	check "--steady --hosts, one host failed: exit 1, the fleet not steady, the failed host among those not, no figure" \
		"1 false true null" "$rc $(jq -r '.fleet_steady | "\(.steady) \(.not_steady | index("c:'"$work"'/nodir/x") != null) \(.value)"' <<<"$out")"
	losetup -d "$loop2"
else
	skipped "--steady --hosts" "losetup failed"
fi
rm -f dev2.img
rmdir "$cg"
