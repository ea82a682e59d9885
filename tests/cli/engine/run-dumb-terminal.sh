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
	# --quick --json with stderr a terminal: each test's status line there,
	# the document on stdout whole.
	mkdir -p qdir
	TERM=xterm script -qec "'$sdb' --quick -f qdir -s 16m -t 0.3 --runs 1 --json >q.json" /dev/null >q.out 2>&1
	check "--quick --json on a terminal: a status line on stderr for every test, as it runs" 8 \
		"$(tr '\r' '\n' <q.out | grep -o '^\(SEQ\|RND\)[0-9A-Z]* Q[0-9]*T[0-9]* \(read\|write\), run 1 of 1: ' | sort -u | wc -l)"
	check "--quick --json on a terminal: the document on stdout, its 8 rows" 8 "$(jq '.suite | length' q.json)"
	rm -rf qdir q.json q.out
fi
