#!/bin/bash
# ------------------------------------------------------------ run-dumb-terminal
# TERM=dumb, or no TERM: no progress line and no escape
# sequence on a terminal (script(1) gives the run a pty); a terminal that
# takes them still gets the progress line.
. "$(dirname "$0")/../lib.sh"
if ! command -v script >/dev/null; then
	skipped "the progress line and TERM" "no script(1)"
else
	for term in xterm dumb unset; do
		if [ $term = unset ]; then
			env -u TERM script -qec "'$sdb' -w -f dumbt -s 64m -b 4k -t 1.5" /dev/null >dumb.out 2>&1
		else
			TERM=$term script -qec "'$sdb' -w -f dumbt -s 64m -b 4k -t 1.5" /dev/null >dumb.out 2>&1
		fi
		escapes=$(grep -c $'\033' dumb.out)
		if [ $term = xterm ]; then
			check "TERM=xterm on a tty: the progress line is drawn (an escape to clear it)" true "$([ "$escapes" -gt 0 ] && echo true)"
		else
			check "TERM=$term on a tty: no escape sequence at all" 0 "$escapes"
		fi
		contains "TERM=$term: the report is there" "$(cat dumb.out)" "Thread  0 (CPU:"
	done
	rm -f dumbt dumb.out
fi
