#!/bin/sh
# Fuzz sdb's option and SIZE parsers and --merge's JSON reading for a
# bounded time (make fuzz).
#
#   sh tests/fuzz.sh SECONDS        from the top of the source tree
#
# Builds tests/fuzz_parse.cpp with clang++ and libFuzzer, ASan and UBSan into
# tests/fuzz_parse, starts from a copy of tests/fuzz_seeds/ (the seeds are
# never modified) plus a dictionary of sdb's option names taken from src/options.h,
# and runs for SECONDS.  Any crash, sanitizer report, leak, timeout or broken
# invariant fails; the input that did it is kept and printed.  Last line:
# "fuzz: N passed, N failed".
#
# Needs clang++ and the libFuzzer/sanitizer runtimes; on Debian 12 that is
#   apt-get install clang libclang-rt-14-dev
# (clang-14 only recommends libclang-rt-14-dev).  CLANGXX overrides clang++.

set -u

seconds=${1:-60}
case $seconds in
'' | *[!0-9]* | 0)
	echo "usage: sh tests/fuzz.sh SECONDS (a positive whole number)" >&2
	exit 2 ;;
esac

if [ ! -f sdb.cpp ] || [ ! -f tests/fuzz_parse.cpp ] || [ ! -d tests/fuzz_seeds ]; then
	echo "fuzz: run from the top of the sdb source tree" >&2
	exit 2
fi

summary() {
	echo "fuzz: $1 passed, $2 failed"
}

cxx=${CLANGXX:-clang++}
if ! command -v "$cxx" >/dev/null 2>&1; then
	echo "fuzz: $cxx not found; libFuzzer needs clang (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	summary 0 1
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdb-fuzz.XXXXXX") || exit 1
keep=0
cleanup() {
	[ "$keep" = 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Is there a libFuzzer runtime at all?  Ask with an empty target first, so
# that a missing runtime is not mistaken for a compile error in the target.
printf '%s\n' 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' \
	>"$tmp/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.cpp" >"$tmp/probe.log" 2>&1; then
	sed 's/^/  /' "$tmp/probe.log" >&2
	echo "fuzz: $cxx cannot link -fsanitize=fuzzer,address,undefined: the libFuzzer/sanitizer runtime is missing" >&2
	echo "fuzz: (Debian 12: apt-get install libclang-rt-14-dev)" >&2
	summary 0 1
	exit 1
fi

echo "fuzz: building tests/fuzz_parse with $cxx"
if ! "$cxx" -std=c++17 -g -O1 -fno-omit-frame-pointer -Wall -Wextra \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-DSDB_VERSION=\"fuzz\" -o tests/fuzz_parse tests/fuzz_parse.cpp; then
	echo "fuzz: tests/fuzz_parse.cpp does not build" >&2
	summary 0 1
	exit 1
fi

# The fuzzer grows its own copy of the corpus; the seeds stay as they are.
mkdir "$tmp/corpus" "$tmp/artifacts"
cp tests/fuzz_seeds/* "$tmp/corpus/"

# Option names straight from long_options[] in src/options.h, so the dictionary
# follows new options; getopt_long is not instrumented, so without these
# the fuzzer would have to guess "--random-buffer" letter by letter.
{
	sed -n 's/^[[:space:]]*{"\([a-z-]*\)", [a-z_]*, nullptr, .*/"--\1"\n"--\1="/p' src/options.h
	for w in -w -r -f -b -s -j -m -t -D -S -R -T -q -v -V -h -- seq rand \
		k K m M g G t T B iB KiB MiB GiB TiB 4096 18446744073709551615 0.5; do
		printf '"%s"\n' "$w"
	done
	printf '"\\x00"\n'
	# --merge's documents: sdb's JSON keys and tokens.
	for w in version host options total threads histogram latency_ns timeline unix start_unix end_unix \
		bytes ops seconds interrupted warnings error; do
		printf '"\\"%s\\":"\n' "$w"
	done
	for w in '{' '}' '[' ']' ',' 'null' 'true' 'false' '\\u' '\\ud800' '1e308' '-0' '1.8e19'; do
		printf '"%s"\n' "$w"
	done
} >"$tmp/options.dict"

echo "fuzz: running for $seconds s from $(ls "$tmp/corpus" | wc -l) seeds"
./tests/fuzz_parse -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=1024 \
	-print_final_stats=1 -dict="$tmp/options.dict" -artifact_prefix="$tmp/artifacts/" \
	"$tmp/corpus" >"$tmp/fuzz.log" 2>&1
status=$?

# From libFuzzer's log: coverage after the seeds and at the end, runs.
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done [0-9]+ runs|^stat::(average_exec_per_sec|new_units_added|peak_rss_mb)' \
	"$tmp/fuzz.log" | sed 's/^/  /'

if [ "$status" -eq 0 ] && [ -z "$(ls "$tmp/artifacts")" ]; then
	summary 1 0
	exit 0
fi

keep=1
echo "fuzz: FAILED (libFuzzer exit status $status); log and inputs kept in $tmp" >&2
grep -n -E 'ERROR|SUMMARY|check failed|runtime error|deadly signal|timeout' "$tmp/fuzz.log" | head -n 20 >&2
tail -n 40 "$tmp/fuzz.log" >&2
for f in "$tmp"/artifacts/*; do
	[ -f "$f" ] || continue
	echo "fuzz: input $f (NULs separate the arguments after sdb):" >&2
	od -An -c "$f" | head -n 20 >&2
	echo "fuzz: reproduce with: ./tests/fuzz_parse '$f'" >&2
done
summary 0 1
exit 1
