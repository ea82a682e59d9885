#!/bin/bash
# ------------------------------------------------------------ options-bad-input
. "$(dirname "$0")/../lib.sh"
# Every one exits with the documented code, prints exactly one line that
# starts with "sdb: " and names the culprit, and leaves no file behind.
mkdir -p bad && cd bad || exit 1
echo data >small
bad_input 2 "one of -w"
bad_input 2 "-f FILE is required"	-w
bad_input 2 "choose one"		-w -r -f x
bad_input 2 "-b 12x: invalid size"	-w -f x -b 12x
bad_input 2 "-s 0: invalid size"	-w -f x -s 0
bad_input 2 "-s -1: invalid size"	-w -f x -s -1
bad_input 2 "-s 4kk: invalid size"	-w -f x -s 4kk
bad_input 2 "-s : invalid size"		-w -f x -s ''
bad_input 2 "invalid size"		-w -f x -s 18446744073709551616
bad_input 2 "invalid size"		-w -f x -s 17179869184G
bad_input 2 "-j 0: threads"		-w -f x -j 0
bad_input 2 "-j 4097: threads"		-w -f x -j 4097
bad_input 2 "-j two: threads"		-w -f x -j two
bad_input 2 "-m zig: mode"		-w -f x -m zig
bad_input 2 "-t 0: time"		-w -f x -t 0
bad_input 2 "-t 1x: time"		-w -f x -t 1x
bad_input 2 "-x: unknown option"	-w -f x -x
bad_input 2 "--frobnicate: unknown"	-w -f x --frobnicate
bad_input 2 "-b: missing argument"	-w -f x -b
bad_input 2 "unexpected argument"	-w -f x y
bad_input 2 "--cached and -D"		-w -f x -D --cached
bad_input 2 "needs multiples of"	-w -f x -D -b 1000
bad_input 2 "needs a size that is a multiple" -w -f x -D -b 4k -s 5000
bad_input 2 "-s SIZE is required"	-r -f /dev/zero
bad_input 2 "character device that may be hardware" -w -f /dev/urandom -s 1m
bad_input 2 "smaller than one"		-w -f x -m rand -b 1m -s 4k
bad_input 2 "of memory"			-r -f small -s 1t -b 1t
for dev in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0 ""; do [ -b "$dev" ] && break; done
if [ -n "$dev" ]; then bad_input 2 "add --force" -w -f "$dev"; else skipped "block device without --force" "no block device"; fi
bad_input 1 "x: No such file or directory" -r -f x
bad_input 1 "x.0: No such file or directory" -r -f x -j 2
bad_input 1 "nodir/x: No such file or directory" -w -f nodir/x
bad_input 1 "Is a directory"		-w -f .
bad_input 1 "Not a directory"		-r -f /dev/null/x
bad_input 1 "O_DIRECT (-D) is not supported here" -r -f /dev/zero -s 1m -D
: >empty
bad_input 1 "empty: file is empty"	-r -f empty
rm -f small empty
check "usage errors leave no file behind" "" "$(ls)"
cd .. && rmdir bad
# Standard descriptors closed: a closed stdout is refused before any I/O
# (the report went into sdb's own eventfd); closed stdin and stderr are
# taken by /dev/null, and the run goes on.
err=$("$sdb" -w -f closed -s 1m 2>&1 >&-); rc=$?
check "stdout closed: exit 1, one line, no file written" "1|sdb: standard output is closed: nowhere to write the report|missing" \
	"$rc|$err|$(size_of closed)"
out=$("$sdb" -w -f closed -s 1m 2>&- <&-); rc=$?
check "stdin and stderr closed: exit 0, the report, the file" "0 true 1048576" \
	"$rc $([[ $out == *"Thread  0"* ]] && echo true) $(size_of closed)"
rm -f closed
