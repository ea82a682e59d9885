#!/bin/bash
# ------------------------------------------------------------ run-signals
. "$(dirname "$0")/../lib.sh"
"$sdb" -r -f /dev/zero -s 1g -b 64k -t 60 --json >sig.json 2>sig.err &
pid=$!
wait_for $pid has_read $pid $((1 << 20))	# in its timed loop
kill -INT $pid
wait $pid; rc=$?
check "SIGINT: exit 130" 130 "$rc"
check "SIGINT: valid JSON, interrupted, the run cut short" true \
	"$(jq '.interrupted and .total.bytes > 0 and .total.seconds < 60' sig.json 2>&1)"
rm -f sig.json sig.err

"$sdb" -r -f /dev/zero -s 1g -b 64k -t 60 --json >sig.json 2>/dev/null &
pid=$!
wait_for $pid has_read $pid $((1 << 20))
kill -TERM $pid
wait $pid; rc=$?
check "SIGTERM: exit 143 (128 + 15) with results" "143 true" "$rc $(jq .interrupted sig.json 2>&1)"
rm -f sig.json

# Every signal that ends sdb ends it cleanly: exit 128 + n and the quick
# suite's test file removed; the -R fill stops at once.
mkdir -p sigq
for sig in HUP QUIT USR1 ALRM; do
	"$sdb" --quick -f sigq -t 1 -s 32m >/dev/null 2>&1 &
	pid=$!
	wait_for $pid quick_file sigq 0	# the test file is there to be removed
	kill -$sig $pid
	wait $pid; rc=$?
	check "--quick ended by SIG$sig: exit 128 + n, test file removed" "$((128 + $(kill -l $sig))) " "$rc $(ls sigq)"
done
"$sdb" --quick -f sigq -t 1 -s 32m 2>/dev/null | true
check "--quick into a closed pipe: exit 141 (SIGPIPE), test file removed" "141 " "${PIPESTATUS[0]} $(ls sigq)"
rmdir sigq
"$sdb" -w -f fillint -b 4g -s 4g -R >/dev/null 2>"$work/.err" &
pid=$!
wait_for $pid resident $pid $((4000 << 10))	# the 4 GiB buffer is in memory: the fill comes next
kill -INT $pid
wait $pid; rc=$?
check "SIGINT during the -R fill: exit 130 before any file is made" "130 missing" "$rc $(size_of fillint)"
contains "SIGINT during the -R fill: stopped the fill itself" "$(cat "$work/.err")" "interrupted by SIGINT while filling the buffer"
rm -f fillint
