#!/bin/bash
# ------------------------------------------------------------ commands
. "$(dirname "$0")/../lib.sh"
# Every sdb command in README.md (its lines indented by four spaces that
# start with "sdb -" or "./sdb -") and in sdb.1's EXAMPLES (the lines of its
# .EX blocks that start with "sdb -"; a "  # comment" after one is left
# out) runs here and must exit 0 (or 3, the exit of --fail-slower that the
# documents give it, where two runs of one disk differ by chance), as the
# documents say it does: the documents cannot drift from the program.  Each
# document's commands run in order in one scratch directory, as a reader
# types them.  What a reader's names stand for here:
#   test, old.json, page.html...   files in the scratch directory
#   /var/tmp                        a directory in the scratch directory
#   /dev/sdX                        a 256 MiB loop device (root only)
#   host1,host2...                  hosts over ssh: skipped, with the reason
# and, so that make check stays short, every -t is 0.2 s, every --ramp 0.1,
# every -s of more than 64 MiB is 64 MiB (a -s computed by the shell stays
# as it is), --runs is at most 2, and a --quick, --rate, --sweep or --steady
# run with no -t gets -t 0.2.  A name the table does not know (another absolute
# path) fails the test: a document's commands use these names.
root=$(dirname "$man")
mkdir -p bin && ln -s "$sdb" bin/sdb
PATH=$work/bin:$PATH
loop=
if system && truncate -s 256m "$work/sdx.img"; then
	loop=$(losetup -f --show "$work/sdx.img" 2>/dev/null) || loop=
fi

# shorten CMD: the command as this test runs it (see above); what follows
# a pipe is left as it is.
shorten() {
	local w head=${1%%|*} tail= out=() prev= t=
	[ "$head" = "$1" ] || tail="|${1#*|}"
	set -f
	# shellcheck disable=SC2086  # a command line, split as the shell does
	for w in $head; do
		case $prev:$w in
		-t:* | --time:*) w=0.2 t=1 ;;
		--ramp:*) w=0.1 ;;
		--runs:*) [ "$w" -gt 2 ] 2>/dev/null && w=2 ;;
		-s:[0-9]*[gGtT] | -s:[0-9]*[gGtT]iB | --size:[0-9]*[gGtT]) w=64m ;;
		-s:[0-9]*[mM] | --size:[0-9]*[mM]) [ "${w%[mM]}" -gt 64 ] 2>/dev/null && w=64m ;;
		esac
		out+=("$w") prev=$w
	done
	set +f
	case " ${out[*]} " in
	*" --quick"* | *" --rate "* | *" --sweep "* | *" --steady"*) [ -n "$t" ] || out+=(-t 0.2) ;;
	esac
	w="${out[*]}${tail:+ $tail}"
	w=${w//\/var\/tmp/$work/vartmp}
	[ -n "$loop" ] && w=${w//\/dev\/sdX/$loop}
	printf '%s\n' "$w"
}

# run_commands DOC FILE: run the commands (one per line in FILE) in a
# scratch directory of their own.
run_commands() {
	local doc=$1 list=$2 dir cmd runs n=0 why
	dir=$work/$doc.d
	mkdir -p "$dir" "$work/vartmp"
	while IFS= read -r cmd; do
		n=$((n + 1))
		why=
		case $cmd in
		*--hosts*) why="needs hosts over ssh" ;;
		*/dev/sdX*) [ -n "$loop" ] || why="needs root for a loop device" ;;
		esac
		if [ -n "$why" ]; then skipped "$doc: $cmd" "$why"; continue; fi
		runs=$(shorten "$cmd")
		if grep -oE '(^| |=)/[^ ]*' <<<"${runs//$work/W}" | grep -vE '^[ =]?/dev/(null$|zero$|loop[0-9])' | grep -q .; then
			bad "$doc: $cmd" "a path this test does not know: use test, /var/tmp or /dev/sdX"
			continue
		fi
		out=$(cd "$dir" && timeout -k 5 120 bash -o pipefail -c "$runs" 2>&1 </dev/null); rc=$?
		if [ "$rc" = 0 ] || { [ "$rc" = 3 ] && [[ $cmd == *--fail-slower* ]]; }; then ok "$doc: $cmd"
		else bad "$doc: $cmd" "exit $rc (ran: $runs): $(tail -n 3 <<<"$out")"; fi
	done <"$list"
	[ "$n" -gt 0 ] || bad "$doc: no commands found"
}

sed -n 's/^    \(\.\/\)\{0,1\}\(sdb -.*\)/\2/p' "$root/README.md" | sed 's/  *# .*//' >readme.cmds
run_commands README.md readme.cmds
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$man" | sed -n '/^\.EX/,/^\.EE/p' | grep '^sdb \\\{0,1\}-' |
	sed 's/  *# .*//; s/\\-/-/g; s/\\(aq/'"'"'/g; s/\\(dq/"/g; s/\\e/\\/g' >manual.cmds
run_commands sdb.1 manual.cmds
check "sdb.1's EXAMPLES: at least 15 commands" true "$([ "$(wc -l <manual.cmds)" -ge 15 ] && echo true)"
if [ -n "$loop" ]; then losetup -d "$loop"; loop=; fi	# (a last status of 1 would be the section's)
