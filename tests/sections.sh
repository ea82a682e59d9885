#!/bin/bash
# Every section of tests/cli.sh runs alone: each is run by itself
# (CLI_SECTIONS=NAME) and must pass without the files other sections make.
# usage: tests/sections.sh SDB MAN-PAGE VERSION
set -u
cli=$(dirname "$0")/cli.sh
pass=0 fail=0
for name in $(sed -n 's/^if section \([a-z0-9-]*\); then$/\1/p' "$cli"); do
	last=$(CLI_SECTIONS=$name bash "$cli" "$@" 2>&1 | tail -n 1)
	case $last in
	"cli: "*" passed, 0 failed, "*) pass=$((pass + 1)); echo "ok   section $name alone (${last#cli: })" ;;
	*) fail=$((fail + 1)); echo "FAIL section $name alone: $last" ;;
	esac
done
echo "sections: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
