#!/bin/bash
# ------------------------------------------------------------ plan-safe-targets
. "$(dirname "$0")/../lib.sh"
# sdb overwrites only what it wrote: each case checks the
# precious file's checksum, not just the exit code.
mkdir -p safe && cd safe || exit 1
head -c 100000 /dev/urandom >precious
sum=$(md5sum <precious)
run -w -f precious -s 64k
check "existing file not made by sdb: usage error" 2 "$rc"
contains "existing file not made by sdb: says how" "$err" "precious exists and sdb did not create it: add --force"
check "existing file not made by sdb: untouched" "$sum" "$(md5sum <precious)"
run -w -f mine -s 64k
run -w -f mine -s 128k
check "a file sdb made is rewritten without --force" "0 131072" "$rc $(size_of mine)"
: >empty
run -w -f empty -s 64k
check "an empty file is written without --force" "0 65536" "$rc $(size_of empty)"
ln mine other
run -w -f mine -s 64k
check "a file with two links: usage error" 2 "$rc"
contains "a file with two links: says so" "$err" "has 2 links"
rm -f other mine empty
cp precious copy
run -w -f copy -s 64k --force
check "--force overwrites a file sdb did not make" "0 ff" "$rc $(od -An -tx1 -N1 -j 70000 copy | tr -d ' ' | sed 's/^..$/ff/')"
rm -f copy
ln -s precious link
run -w -f link -s 4k
check "a symlink as target: usage error" 2 "$rc"
contains "a symlink as target: says so" "$err" "link is a symbolic link"
check "a symlink as target: what it points to is untouched" "$sum" "$(md5sum <precious)"
# Another user's planted link in a sticky world-writable directory is never
# followed, even with --force (the symlink attack).
mkdir -m 1777 pub
ln -s ../precious pub/bench.0
ln -s ../nothing-here pub/dangling
for force in "" --force; do
	run -w -f pub/bench -j 2 -s 4k $force
	check "planted link in a sticky directory ${force:-without --force}: refused" true "$([ "$rc" != 0 ] && echo true)"
	check "planted link in a sticky directory ${force:-without --force}: target untouched" "$sum" "$(md5sum <precious)"
	check "planted link ${force:-without --force}: no pub/bench.1 left behind" missing "$(size_of pub/bench.1)"
done
contains "planted link with --force: says why" "$err" "sticky world-writable directory: refusing to follow it, even with --force"
run -w -f pub/dangling -s 4k --force
check "dangling link: refused, nothing created where it points" "1 missing" "$rc $(size_of nothing-here)"
rm -rf pub link
mkfifo fifo
run -r -f fifo -s 4k
check "a FIFO: refused at once, not opened and waited on" 1 "$rc"
contains "a FIFO: says what it is" "$err" "not a regular file or a device (a FIFO)"
rm -f fifo
run -w -f /dev/sdb-cli-typo-$$ -s 1m --force
check "a missing path under /dev: an error, not a new file" "1 missing" "$rc $(size_of /dev/sdb-cli-typo-$$)"
contains "a missing path under /dev: says so" "$err" "no such device, and sdb creates no files in /dev"
check "safe targets: nothing left but the precious file" "precious" "$(ls)"
cd .. && rm -rf safe

# Sizes whose derived quantities overflow are usage errors, not crashes or
# process memory written to the file.
max=18446744073709551615
bad_input 2 "larger than the largest possible file offset" -r -f /dev/zero -b $max -s $max -q 2
bad_input 2 "larger than the largest possible file offset" -w -f huge -b $max -s $max -R
bad_input 2 "larger than the largest possible file offset" -w -f huge -b $max -s $max -q 2
bad_input 2 "need 8192.00 PiB of memory"   -w -f huge -b 9223372036854775807 -s 9223372036854775807 -q 2
check "absurd sizes: no file made" missing "$(size_of huge)"
run --quick -f . -s 17361641481138401521
check "--quick with an absurd -s: refused before any file is made" "2 " "$rc $(ls sdb-quick.* 2>/dev/null)"

# A run that cannot start leaves none of the files it made, and warns about
# nothing it did not run.
out=$( (ulimit -n 20; "$sdb" -w -f nofd -j 64 -s 4k) 2>"$work/.err"); rc=$?; err=$(cat "$work/.err")
check "failed start (open files): exit 1" 1 "$rc"
check "failed start: no FILE.N left" 0 "$(ls nofd.* 2>/dev/null | wc -l)"
check "failed start: one line, no warnings" 1 "$(grep -c . <<<"$err")"
rm -f nofd.*
if [ -n "${ASAN_OPTIONS:-}" ]; then
	skipped "-j 4096 under ulimit -v" "AddressSanitizer needs more address space than any such limit"
else
	out=$( (ulimit -v 400000; "$sdb" -r -f /dev/zero -s 4k -b 4k -j 4096) 2>&1); rc=$?
	check "-j 4096 under ulimit -v: exit 1 with one sdb: line" "1 1" "$rc $(grep -c '^sdb: ' <<<"$out")"
fi

# Errors reach the user with their real cause.
"$sdb" -w -f /dev/null -s 1m >/dev/full 2>"$work/.err"; rc=$?; out=$(tail -n 1 "$work/.err")
check "stdout on /dev/full: exit 1, the real errno" "1 sdb: write: standard output: No space left on device" "$rc $out"
for opt in --help --version; do
	"$sdb" $opt >/dev/full 2>/dev/null
	check "$opt to a full stdout: exit 1" 1 "$?"
done
if ! compgen -G '/sys/devices/system/cpu/cpu0/cache/index*' >/dev/null; then
	skipped "-T under ulimit -v: flagged as cache-sized" "this machine's sysfs names no CPU cache, so no copy is known to be cache-sized"
elif [ -z "${ASAN_OPTIONS:-}" ]; then
	out=$( (ulimit -v 250000; "$sdb" -T --json) 2>/dev/null); rc=$?
	check "-T under ulimit -v: the copy it could make, flagged as cache-sized" "0 true true" \
		"$rc $(jq '.memory.bytes > 0 and .memory.memcpy > 0' <<<"$out") $(jq '.warnings | any(test("cache rates"))' <<<"$out")"
fi
"$sdb" -w -f shrink -s 64m -R >/dev/null 2>&1
"$sdb" -r -f shrink -t 4 --json >shrink.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((68 << 20))	# in its second pass: the file was whole once
truncate -s 10m shrink
wait $pid
check "a file that shrinks during -t: end of file, and why" true \
	"$(jq '.warnings | any(test("shrink: end of file at offset [0-9]+, before the 64 MiB asked for \\(the file shrank"))' shrink.json)"
rm -f shrink shrink.json
esc=$'esc\033[2Jname'
run -w -f "$esc" -s 4k
contains "human report escapes control bytes in names" "$out" 'esc\x1b[2Jname'
check "human report prints no raw escape" 0 "$(grep -c $'\033' <<<"$out")"
rm -f "$esc"

# A file name that needs escaping comes back intact from the JSON.
name=$'we"ird\\name\nx'
run -w -f "$name" -s 64k --json
check "JSON escapes file names" "$name" "$(jq -j .options.file <<<"$out")"
rm -f "$name"

# Edge cases found in review.
: >dev.0; ln -s /dev/null dev.1
run -w -f dev -j 2 -s 1m --force	# --force: FILE.1 is a symlink, to a device
check "-j 2 where FILE.1 is a device: refused" 1 "$rc"
matches "-j 2 where FILE.1 is a device: says so" "$err" '*dev.1 is a device*'
check "-j 2 where FILE.1 is a device: FILE.0 untouched" 0 "$(size_of dev.0)"
rm -f dev.0 dev.1
run -w -f n1 -m rand -D -b 4k -s 10000 -R --json
check "-D random write, SIZE not a block multiple: whole blocks only" "0 2 8192" "$rc $(jq .total.ops <<<"$out") $(size_of n1)"
head -c 10000 /dev/urandom >odd
for q in 1 2; do
	out=$("$sdb" -r -f odd -b 4k -q $q --json 2>/dev/null)
	check "-q $q read of a 10000-byte file: 3 I/Os, 10000 bytes" "3 10000" "$(jq -r '"\(.total.ops) \(.total.bytes)"' <<<"$out")"
done
rm -f n1 odd
out=$( (ulimit -Sn 256; "$sdb" -r -f /dev/zero -s 4k -b 4k -j 600 -q 2 --json) 2>"$work/.err"); rc=$?
check "-j 600 -q 2 with 256 open files allowed: raises its limit" "0 600" "$rc $(jq .total.ops <<<"$out" 2>/dev/null)"

# A file size limit: EFBIG, reported with the file and offset, not a kill.
out=$( (ulimit -f 2048; "$sdb" -w -f fbig -s 8m -b 1m -R) 2>"$work/.err"); rc=$?; err=$(cat "$work/.err")
check "file size limit: exit 1" 1 "$rc"
check "file size limit: names file, offset, EFBIG" "sdb: write: fbig at offset 2097152: File too large" "$(tail -n 1 <<<"$err")"
rm -f fbig

# The live progress line: on a terminal only, erased before the report.
if command -v script >/dev/null; then
	tty_out=$(script -qec "$sdb -r -f /dev/zero -s 1t -b 1m -t 1.6" /dev/null | tr '\r' '\n')
	matches "progress line on a terminal" "$tty_out" '*ETA *'
	run -r -f /dev/zero -s 1t -b 1m -t 1.6
	lacks "no progress line when stderr is not a terminal" "$err" "ETA"
	tty_out=$(script -qec "$sdb -r -f /dev/zero -s 1t -b 1m -t 1.6 --json >tty.json" /dev/null)
	matches "--json on a terminal: the progress line on stderr" "$tty_out" '*ETA *'
	check "--json on a terminal: stdout holds the document alone" 1.6 "$(jq .options.time_limit tty.json)"
	rm -f tty.json
else
	skipped "progress line" "no script(1)"
fi
