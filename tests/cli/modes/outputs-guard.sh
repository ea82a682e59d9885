#!/bin/bash
# ------------------------------------------------------------ outputs-guard
# One guard for every write: --html's page passes the overwrite rule of
# the targets (a new file, sdb's own page, an empty file; the rest only
# with --force; never the command's own input or target, never a file
# that backs a loop device), and its path is checked before the run, so a
# bad one costs no I/O.  Where the guard cannot see the other processes
# (no /proc), sdb refuses to write an existing file, --force or not.  Each
# case checks the bytes on disk, not sdb's report.
. "$(dirname "$0")/../lib.sh"
sum() { md5sum "$1" 2>/dev/null | cut -d ' ' -f 1; }

echo "my notes" >notes.txt
before=$(sum notes.txt)
run -w -f t -s 1m --html notes.txt
check "--html over someone's file: exit 2, the file as it was" "2 $before" "$rc $(sum notes.txt)"
contains "--html over someone's file: says why and what would do it" "$err" "notes.txt exists and sdb did not write it: add --force"
check "--html refused before the run: no target written" missing "$(size_of t)"
run -w -f t -s 1m --html notes.txt --force
check "--html over someone's file with --force: replaced by a page" "0 1" "$rc $(grep -c '<meta name="generator" content="sdb ' notes.txt)"

run -w -f t -s 1m --html page.html
first=$(sum page.html)
run -w -f t -s 1m -R --html page.html
check "--html over sdb's own page: replaced without --force" "0 true" "$rc $([ "$(sum page.html)" != "$first" ] && echo true)"
: >empty.html
run -w -f t -s 1m --html empty.html
check "--html over an empty file: written" "0 true" "$rc $([ -s empty.html ] && echo true)"

run -w -f a.json -s 1m --json
[ "$rc" = 0 ] && printf '%s\n' "$out" >a.json.doc && mv a.json.doc a.json
before=$(sum a.json)
run --merge a.json --html a.json
check "--html over a --merge input: exit 2, the input as it was" "2 $before" "$rc $(sum a.json)"
contains "--html over its own input: says so" "$err" "a page never replaces its own input or target"
cp a.json b.json
before=$(sum b.json)
run --compare a.json b.json --html b.json
check "--html over a --compare input: exit 2, the input as it was" "2 $before" "$rc $(sum b.json)"
contains "--html over a --compare input: says so" "$err" "a page never replaces its own input or target"

head -c 2m /dev/urandom >x
before=$(sum x)
run -r -f x --html x --force
check "-r -f x --html x: exit 2, x as it was" "2 $before" "$rc $(sum x)"
run -w -f y -s 1m --html y
check "-w -f y --html y (y new): exit 2, nothing made" "2 missing" "$rc $(size_of y)"
run -w -f z -j 2 -s 1m --html z.1 --force
check "-w -f z -j 2 --html z.1: exit 2 (z.1 is a target)" "2 missing missing" "$rc $(size_of z.0) $(size_of z.1)"

run -w -f t2 -s 1m --html nodir/x.html
check "--html in a missing directory: exit 2 before the run" "2 missing" "$rc $(size_of t2)"
contains "--html in a missing directory: names it" "$err" "nodir: No such file or directory"
mkdir adir
run -w -f t2 -s 1m --html adir
check "--html DIRECTORY: exit 2 before the run" "2 missing" "$rc $(size_of t2)"
echo stale >q.html.sdb-tmp
run -w -f t2 -s 1m --html q.html
check "--html with a stale PAGE.sdb-tmp: exit 2 before the run, both files as they were" \
	"2 missing missing stale" "$rc $(size_of t2) $(size_of q.html) $(cat q.html.sdb-tmp)"
contains "--html with a stale PAGE.sdb-tmp: names it" "$err" "q.html.sdb-tmp exists"
run -w -f t2 -s 1m --html /proc/sdb-page.html
check "--html on /proc: exit 2" 2 "$rc"

if system && head -c 8m /dev/urandom >image && loop=$(losetup -f --show image 2>/dev/null); then
	before=$(sum image)
	run -w -f t3 -s 1m --html image --force
	check "--html over a loop device's backing file, with --force: exit 2, the image as it was" \
		"2 $before missing" "$rc $(sum image) $(size_of t3)"
	contains "--html over a loop device's backing file: names the device" "$err" "it backs the loop device $loop"
	losetup -d "$loop" && loop=
else
	skipped "--html over a loop device's backing file" "needs root for a loop device"
fi

if system && command -v unshare >/dev/null; then
	head -c 4m /dev/urandom >img
	before=$(sum img)
	echo "someone's" >held
	held_before=$(sum held)
	# LeakSanitizer (make check-sanitize) reads /proc itself at exit.
	blind() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		unshare -m sh -c 'umount -l /proc && exec "$@"' sh "$@"; }
	blind "$sdb" -w -f img -s 1m --force >/dev/null 2>"$work/.err"; rc=$?
	check "no /proc: -w --force on an existing file: exit 1, the file as it was" "1 $before" "$rc $(sum img)"
	contains "no /proc: says why" "$(cat "$work/.err")" "cannot tell whether img is in use: /proc is not mounted"
	blind "$sdb" -w -f held -s 1m >/dev/null 2>&1; rc=$?
	check "no /proc: -w on a file sdb did not make: refused, the file as it was" "1 $held_before" "$rc $(sum held)"
	blind "$sdb" -w -f t4 -s 1m --html notes.txt --force >/dev/null 2>&1; rc=$?
	check "no /proc: --html over an existing file, with --force: exit 2, nothing run" "2 missing" "$rc $(size_of t4)"
	blind "$sdb" -w -f fresh -s 1m >/dev/null 2>&1; rc=$?
	check "no /proc: a new file is still written" "0 1048576" "$rc $(size_of fresh)"
else
	skipped "writes without /proc" "needs root and unshare"
fi
