#!/bin/bash
# The Debian package, end to end: README's set-up command in a copy of this
# tree; then the .deb built from another copy with README's command (the
# build runs "make check"), checked with lintian, installed with README's
# command; the installed sdb run, and removed.  For CI: run from the
# repository root, as root, on a Debian machine with build-essential,
# debhelper, lintian, doctest-dev, jq, bc and man-db.  The last line is "package: N passed, M failed"; the
# exit status is 1 if anything failed.  Nothing is left behind, even on
# failure: the temporary directory goes, and so does the installed package.
# usage: tests/package.sh
set -u
pkg=simple-disk-benchmark
pass=0 fail=0 tmp='' installed=''

ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi; }
verify() { if "${@:2}"; then ok "$1"; else bad "$1"; fi; }	# DESC COMMAND...

run_sdb() {	# DESC ARGS...: the installed sdb exits 0 and reports a rate
	local out
	out=$(/usr/bin/sdb "${@:2}" 2>&1)
	case $?:$out in 0:*iB/s*) ok "$1" ;; *) bad "$1" "$out" ;; esac
}

# The README's own command line that contains TEXT (its commands are the
# lines indented by four spaces), run in DIR as a root shell in a fresh
# container runs it: with no sudo there.
readme_command() { sed -n 's/^    //p' README.md | grep -F -m 1 -- "$1"; }
as_readme_says() {	# DIR TEXT
	local cmd
	cmd=$(readme_command "$2") || { echo "README has no command with '$2'"; return 1; }
	echo "+ $cmd"
	(cd "$1" && bash -c 'sudo() { echo "sudo: command not found" >&2; return 127; }; '"$cmd")
}

finish() {
	echo "package: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [ -n "$installed" ] && dpkg-query -W -f '${db:Status-Status}' "$pkg" 2>/dev/null | grep -qv '^not-installed$'; then
		dpkg -r "$pkg" >/dev/null 2>&1 || echo "package.sh: could not remove $pkg: run dpkg -r $pkg" >&2
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'bad interrupted; finish' INT TERM

# Without root there is no dpkg -i; without the tree there is nothing to build.
[ "$(id -u)" = 0 ] || { bad "run as root" "dpkg -i needs it"; finish; }
if [ ! -f debian/changelog ] || [ ! -f Makefile ]; then bad "run from the repository root"; finish; fi

# ------------------------------------------------------------ version
version=$(sed -n 's/^VERSION *= *//p' Makefile)
check "debian/changelog version is the Makefile's VERSION" "$version" "$(dpkg-parsechangelog -S Version)"
check "debian/changelog names the package" "$pkg" "$(dpkg-parsechangelog -S Source)"

# ------------------------------------------------------------ build
# A copy, so that the build's artifacts (which dpkg-buildpackage puts in
# the parent directory) and its debian/ leftovers stay out of the checkout.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdb-package.XXXXXX") || { bad "mktemp"; finish; }
chmod 755 "$tmp"	# lintian reads it as another user
src=$tmp/$pkg-$version
if ! mkdir "$src" || ! tar --exclude=./.git -cf - . | tar -C "$src" -xf -; then bad "copy the tree to $src"; finish; fi
# README's first command (install the build dependencies, build, run the
# quick check), as a root shell without sudo runs it.
setup=$tmp/setup
if mkdir "$setup" && tar --exclude=./.git -cf - . | tar -C "$setup" -xf - &&
	as_readme_says "$setup" "./sdb -w -f test" >"$tmp/setup.log" 2>&1; then
	ok "README's set-up command (as root, no sudo)"
else
	bad "README's set-up command (as root, no sudo)" "$(tail -n 5 "$tmp/setup.log")"
fi
rm -rf "$setup"
if as_readme_says "$src" "dpkg-buildpackage" >"$tmp/build.log" 2>&1; then
	ok "README's command builds the .deb (as root, no sudo)"
else
	bad "README's command builds the .deb (as root, no sudo)" "the failed tests and the last lines of the log:"
	{ grep '^FAIL' "$tmp/build.log"; tail -n 30 "$tmp/build.log"; } | sed 's/^/    /'
	finish
fi
# The summary line of make check, to show that the tests ran in the build.
# A user's dpkg-buildpackage runs make check (dh_auto_test); CI, which ran
# make check on the same tree minutes before, builds with
# DEB_BUILD_OPTIONS=nocheck, and then there is no summary to look for.
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/build.log" | tail -n 1)
case ${DEB_BUILD_OPTIONS:-}:$summary in
*nocheck*:) echo "skip make check in the build (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)" ;;
*:*" passed, 0 failed"*) ok "make check in the build: $summary" ;;
*) bad "make check in the build" "no summary line (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})" ;;
esac
deb=$(echo "$tmp/${pkg}_${version}_"*.deb)
changes=$(echo "$tmp/${pkg}_${version}_"*.changes)
if [ ! -f "$deb" ] || [ ! -f "$changes" ]; then bad "the build made one .deb and one .changes" "$deb $changes"; finish; fi

# ------------------------------------------------------------ lintian
# As root lintian only warns that it should not run as root: run it as
# nobody, with a home, a TMPDIR and a working directory of its own (the
# checkout may sit in a directory nobody cannot enter).
lint=$tmp/lintian
mkdir -p "$lint/tmp" && chown -R nobody: "$lint"
lintian_out=$(cd "$lint" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	env HOME="$lint" TMPDIR="$lint/tmp" lintian --info --fail-on error,warning "$changes" 2>&1)
lintian_rc=$?
[ -n "$lintian_out" ] && printf '%s\n' "$lintian_out" | sed 's/^/    lintian: /'
check "lintian: no E: or W: tags" 0 "$lintian_rc"

# ------------------------------------------------------------ install and use
installed=yes
if as_readme_says "$src" "install -y ../" >"$tmp/dpkg.log" 2>&1; then
	ok "README's command installs the .deb (as root, no sudo)"
else
	bad "README's command installs the .deb (as root, no sudo)" "$(tail -n 5 "$tmp/dpkg.log")"
	finish
fi
check "sdb --version" "sdb $version" "$(/usr/bin/sdb --version 2>&1)"
# dpkg-buildflags' hardening (hardening=+all in debian/rules) must survive
# the Makefile.  readelf comes with build-essential; blhc only if installed.
elf=$(readelf -dlW --dyn-syms /usr/bin/sdb 2>&1)
verify "hardening: PIE, BIND_NOW" grep -q 'Flags: NOW PIE' <<<"$elf"
verify "hardening: RELRO" grep -q GNU_RELRO <<<"$elf"
verify "hardening: stack protector" grep -q __stack_chk_fail <<<"$elf"
verify "hardening: _FORTIFY_SOURCE" grep -qE '__[a-z]+_chk@' <<<"$elf"
if command -v blhc >/dev/null; then
	verify "blhc: the build log has the hardening flags" blhc "$tmp/build.log"
fi
run_sdb "sdb -w -f FILE -s 1m" -w -f "$tmp/x" -s 1m
check "sdb -w: a file of 1 MiB" 1048576 "$(stat -c %s "$tmp/x" 2>&1)"
run_sdb "sdb -r -f FILE" -r -f "$tmp/x"
verify "man -w sdb finds the installed page" grep -qx /usr/share/man/man1/sdb.1.gz <(man -aw sdb 2>&1)
comp=/usr/share/bash-completion/completions/sdb
verify "bash completion installed" test -f "$comp"
check "bash completion registers sdb" "complete -F _sdb sdb" "$(bash -c ". $comp && complete -p sdb" 2>&1)"
verify "copyright installed" test -f /usr/share/doc/$pkg/copyright

# ------------------------------------------------------------ remove
if dpkg -r "$pkg" >"$tmp/dpkg.log" 2>&1; then
	ok "dpkg -r $pkg"
else
	bad "dpkg -r $pkg" "$(tail -n 5 "$tmp/dpkg.log")"
fi
verify "/usr/bin/sdb removed" test ! -e /usr/bin/sdb
verify "completion removed" test ! -e "$comp"
finish
