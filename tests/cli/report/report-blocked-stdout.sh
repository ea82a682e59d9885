#!/bin/bash
# ------------------------------------------------------------ report-blocked-stdout
# A report held by a full stdout pipe: INT or TERM
# still ends sdb (128 + n), and a reader that goes away is exit 141, as for
# SIGPIPE.  The pipe is a FIFO whose reader never reads; the sign that sdb
# is held is 64 KiB written (wchar of /proc/PID/io: a run that reads
# /dev/zero writes nothing else of that size), the capacity of the pipe.
. "$(dirname "$0")/../lib.sh"
if [ ! -r /proc/self/io ]; then
	skipped "a report held by a full pipe" "no /proc/PID/io"
else
	for how in INT TERM PIPE; do
		rm -f held.fifo && mkfifo held.fifo
		"$sdb" -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json >held.fifo 2>held.err &
		pid=$!
		exec 3<held.fifo	# the reader: it never reads
		wait_for $pid wrote $pid 65536
		end_held $pid $how
		check "a report held by a full pipe, then $how: sdb ends, exit $want" $want "$rc"
		[ $how != PIPE ] && contains "held, then $how: one line says the report is cut short" "$(cat held.err)" \
			"sdb: interrupted by SIG$how while standard output took the report"
	done
	rm -f held.fifo held.err
fi
run -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json
check "the same report to a reader that reads: whole, valid JSON, exit 0" "0 128" "$rc $(jq '.threads | length' <<<"$out")"
"$sdb" -r -f /dev/zero -s 2m -b 4k -m rand -j 128 --json 2>early.err | head -c 10 >/dev/null	# over 64 KiB more than head reads
check "a report to a reader that leaves early (head -c 10): exit 141, no write error" "141 " \
	"${PIPESTATUS[0]} $(grep -c 'write: standard output' early.err | sed 's/^0$//')"
rm -f early.err
