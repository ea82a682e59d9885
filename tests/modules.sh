#!/bin/bash
# make check-modules: each module compiles alone, with nothing before it
# but what it includes (-include: a header given as the main file would
# warn about #pragma once); each ground module's includes, followed all
# the way down, stay on the ground floor, and each offline module's keep
# to its wing; and the fuzz target, which calls into the modules, still
# compiles with them (g++ is enough for that; make fuzz needs clang).
# The compilations run as many at a time as there are CPUs.
# usage: tests/modules.sh CXX "GROUND MODULES" "OFFLINE MODULES"
set -u
cxx=$1 ground=$2 offline=$3
pass=0 fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# alone MODULE: "ok" or "FAIL" line for it, into $tmp/MODULE.
alone() {
	if $cxx -std=c++17 -Wall -Wextra -Wno-unused-function -fsyntax-only -include "src/$1.h" -x c++ /dev/null 2>"$tmp/$1.err"
	then echo "ok   module $1 compiles alone"
	else cat "$tmp/$1.err" >&2; echo "FAIL module $1 does not compile alone"; fi >"$tmp/$1"
}
export -f alone
export cxx tmp
modules=$(for h in src/*.h; do m=${h#src/}; echo "${m%.h}"; done)
printf '%s\n' $modules | xargs -P "$(nproc)" -I{} bash -c 'alone {}'
for m in $modules; do
	line=$(cat "$tmp/$m")
	echo "$line"
	case $line in ok*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)) ;; esac
done

# keep KIND "ALLOWED" WORDS MODULE...: each MODULE's includes, all the way
# down, are among ALLOWED.
keep() {
	local kind=$1 allowed=" $2 " words=$3 m reach foreign r
	shift 3
	for m in "$@"; do
		reach=$($cxx -std=c++17 -MM "src/$m.h" | tr ' \\' '\n\n' | sed -n 's|^src/\(.*\)\.h$|\1|p' | sort -u)
		foreign=$(for r in $reach; do case $allowed in *" $r "*) ;; *) printf '%s ' "$r" ;; esac; done)
		if [ -z "$foreign" ]; then pass=$((pass + 1)); echo "ok   $kind $m $words"
		else fail=$((fail + 1)); echo "FAIL $kind $m reaches $foreign"; fi
	done
}
# shellcheck disable=SC2086  # the lists are words
keep ground "$ground" "stands on the ground floor alone" $ground
# shellcheck disable=SC2086
keep offline "$ground options $offline" "reaches only the ground floor, options and the offline wing" $offline
if $cxx -std=c++17 -Wall -Wextra -fsyntax-only tests/fuzz_parse.cpp
then pass=$((pass + 1)); echo "ok   tests/fuzz_parse.cpp compiles against the modules"
else fail=$((fail + 1)); echo "FAIL tests/fuzz_parse.cpp does not compile against the modules"; fi
echo "modules: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
