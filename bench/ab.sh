#!/bin/bash
# bench/ab.sh - two sdb binaries on the same command, alternated: is B slower than A?
#
#   bash bench/ab.sh [-n PAIRS] [-k KEY]... [-p PREP] A B SDB-ARGS...
#
# Runs "A --json SDB-ARGS", then "B --json SDB-ARGS", PAIRS times (default 5),
# A B A B ..., evaluating PREP (a shell command, e.g. one that warms the page
# cache) before every run.  KEY is what is compared: iops (the default), bps,
# cpu (microseconds of CPU, user + system, per I/O: what a busy machine
# disturbs least), or any jq expression over sdb's JSON; -k again adds one.
# Each run's values go to stderr; stdout gets one line per KEY:
#
#   KEY median_A median_B B/A min_A..max_A min_B..max_B
#
# A benchmark, not a test: it never fails on a slow result.  Alternation
# shares out the drift of a busy machine between the two; the medians and
# the spreads say whether a difference is more than noise.  Typical use:
# the build before a change against the build after it (make a copy of
# each: a rebuild of ./sdb during the runs would otherwise be measured).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
export LC_ALL=C

pairs=5 keys=() prep=:
while getopts n:k:p: opt; do
	case $opt in
	n) pairs=$OPTARG ;;
	k) keys+=("$OPTARG") ;;
	p) prep=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { echo "usage: bench/ab.sh [-n PAIRS] [-k KEY]... [-p PREP] A B SDB-ARGS..." >&2; exit 2; }
case $pairs in '' | *[!0-9]*) echo "ab: -n takes a whole number" >&2; exit 2 ;; esac
[ ${#keys[@]} -gt 0 ] || keys=(iops)
jqs=()
for k in "${keys[@]}"; do
	case $k in
	iops) jqs+=(.total.iops) ;;
	bps) jqs+=(.total.bytes_per_second) ;;
	cpu) jqs+=('(.cpu.user_seconds + .cpu.system_seconds) / .total.ops * 1e6') ;;
	*) jqs+=("$k") ;;
	esac
done
command -v jq >/dev/null || { echo "ab: jq is needed (Debian: apt-get install jq)" >&2; exit 1; }
a=$1 b=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

run() {	# run TAG BIN ARGS...: each KEY's value appended to $tmp/TAG.N
	local tag=$1 out v n line=
	shift
	if ! out=$("$@" 2>"$tmp/err"); then
		echo "ab: $1 failed: $(tail -1 "$tmp/err")" >&2
		return
	fi
	for n in "${!jqs[@]}"; do
		v=$(jq -r "${jqs[n]}" <<<"$out")
		echo "$v" >>"$tmp/$tag.$n"
		line="$line $v"
	done
	printf '  %s%s\n' "$tag" "$line" >&2
}

for ((i = 1; i <= pairs; i++)); do
	eval "$prep"; run A "$a" --json "$@"
	eval "$prep"; run B "$b" --json "$@"
done

median() {	# median FILE
	sort -g "$1" | awk '{ v[NR] = $1 } END { if (!NR) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
span() { sort -g "$1" | sed -n '1p;$p' | paste -sd' ' | awk '{ printf "%s..%s", $1, $2 }'; }
for n in "${!jqs[@]}"; do
	[ -s "$tmp/A.$n" ] && [ -s "$tmp/B.$n" ] || { echo "${keys[n]} n/a n/a n/a"; continue; }
	ma=$(median "$tmp/A.$n") mb=$(median "$tmp/B.$n")
	echo "${keys[n]} $ma $mb $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", b / a }') $(span "$tmp/A.$n") $(span "$tmp/B.$n")"
done
