#!/bin/bash
# ------------------------------------------------------------ run-watch
# On a terminal (script(1) gives one) the header comes
# before the run, a random run's status line has its IOPS, and the quick
# suite's table is printed row by row, each row once.
. "$(dirname "$0")/../lib.sh"
if command -v script >/dev/null; then
	TERM=xterm script -qec "$sdb -r -f /dev/zero -s 64m -b 4k -m rand -t 1.5" /dev/null </dev/null | tr '\r' '\n' >watch.out
	first_status=$(grep -n 'ETA' watch.out | head -n 1 | cut -d: -f1)
	header=$(grep -n "^sdb $version: read rand" watch.out | cut -d: -f1)
	check "on a terminal: the header once, before the first status line" true \
		"$([ "$(wc -l <<<"$header")" = 1 ] && [ -n "$first_status" ] && [ "$header" -lt "$first_status" ] && echo true)"
	matches "on a terminal: a random run's status line has its IOPS" "$(grep ETA watch.out | head -n 1)" "*/s  * IOPS  *s  ETA *"
	TERM=xterm script -qec "$sdb -r -f /dev/zero -s 64m -b 1m -t 1.5" /dev/null </dev/null | tr '\r' '\n' >watch.out
	lacks "on a terminal: a sequential run's status line has none" "$(grep ETA watch.out)" "IOPS"
	mkdir -p wq
	TERM=xterm script -qec "$sdb --quick=real -f wq -s 64m -t 0.3 --runs 1" /dev/null </dev/null | tr '\r' '\n' >watch.out
	check "on a terminal: the quick table's heading, each of its 4 rows and the footer once" "1 1 1 1 1 1" \
		"$(for r in '^.*Test  ' '^.*SEQ1M Q1T1 write ' '^.*SEQ1M Q1T1 read ' '^.*RND4K Q1T1 write ' '^.*RND4K Q1T1 read ' '^.*One run per test'; do
			grep -c "$r" watch.out; done | tr '\n' ' ' | sed 's/ $//')"
	rm -rf wq watch.out
else
	skipped "run-watch" "needs script(1)"
fi
