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
# What a build could leave outside its tree, listed before and after it: a
# build's tests (make check-hermetic, as root here) must leave none of it.
outside() {
	echo "== loop devices"; losetup -nl -O NAME,BACK-FILE 2>/dev/null | sort
	echo "== mounts"; awk '{print $5}' /proc/self/mountinfo | sort
	echo "== cgroups"; find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort
	echo "== processes"	# but kernel threads and this list's own commands
	ps -e -o ppid=,comm= | awk '$1 != 0 && $1 != 2 {print $2}' | grep -vxE 'ps|awk|grep|sort|uniq|bash|sh' | sort | uniq -c
	echo "== files"; find /tmp /var/tmp /dev/shm -mindepth 1 -maxdepth 1 ! -path "$tmp" 2>/dev/null | sort
}
outside >"$tmp/outside.before"
start=$(date +%s)
if as_readme_says "$src" "dpkg-buildpackage" >"$tmp/build.log" 2>&1; then
	ok "README's command builds the .deb (as root, no sudo) in $(($(date +%s) - start)) s"
else
	bad "README's command builds the .deb (as root, no sudo)" "the failed tests and the last lines of the log:"
	{ grep '^FAIL' "$tmp/build.log"; tail -n 30 "$tmp/build.log"; } | sed 's/^/    /'
	finish
fi
# The summary line of the build's tests (make check-hermetic, from
# dh_auto_test), to show that they ran; none under DEB_BUILD_OPTIONS=nocheck.
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/build.log" | tail -n 1)
case ${DEB_BUILD_OPTIONS:-}:$summary in
*nocheck*:) echo "skip the tests in the build (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)" ;;
*:*" passed, 0 failed"*) ok "the build's tests (make check-hermetic): $summary" ;;
*) bad "the build's tests (make check-hermetic)" "no summary line (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})" ;;
esac
outside >"$tmp/outside.after"
# What is there after and was not before (a process that ended meanwhile,
# not the build's, is no leftover).
diff -U0 "$tmp/outside.before" "$tmp/outside.after" | grep '^+[^+]' >"$tmp/outside.diff"
if [ ! -s "$tmp/outside.diff" ]; then
	ok "the build left no loop device, mount, cgroup, process or file outside its tree"
else
	bad "the build left something outside its tree" "$(head -n 20 "$tmp/outside.diff")"
fi
deb=$(echo "$tmp/${pkg}_${version}_"*.deb)
changes=$(echo "$tmp/${pkg}_${version}_"*.changes)
if [ ! -f "$deb" ] || [ ! -f "$changes" ]; then bad "the build made one .deb and one .changes" "$deb $changes"; finish; fi

# ------------------------------------------------------------ reproducible
# The same source built again in another directory, later, without its
# tests: the same .deb, byte for byte (SOURCE_DATE_EPOCH is the changelog's
# date, dpkg-buildflags maps the build path away).
again=$tmp/again/$pkg-$version
if mkdir -p "$again" && tar --exclude=./.git -cf - . | tar -C "$again" -xf - &&
	(cd "$again" && DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b) >"$tmp/again.log" 2>&1; then
	deb2=$(echo "$tmp/again/${pkg}_${version}_"*.deb)
	if cmp -s "$deb" "$deb2"; then
		ok "reproducible: a second build elsewhere gives the same .deb (sha256 $(sha256sum <"$deb" | cut -c1-16)...)"
	elif command -v diffoscope >/dev/null; then
		bad "reproducible: the two builds differ" "$(diffoscope --text - "$deb" "$deb2" 2>&1 | head -n 40)"
	else
		bad "reproducible: the two builds differ" "$(cmp "$deb" "$deb2" 2>&1)"
	fi
else
	bad "reproducible: the second build" "$(tail -n 5 "$tmp/again.log")"
fi
rm -rf "$tmp/again"

# ------------------------------------------------------------ lintian
# As root lintian only warns that it should not run as root: run it as
# nobody, with a home, a TMPDIR and a working directory of its own (the
# checkout may sit in a directory nobody cannot enter).
lint=$tmp/lintian
mkdir -p "$lint/tmp" && chown -R nobody: "$lint"
lintian_out=$(cd "$lint" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	env HOME="$lint" TMPDIR="$lint/tmp" lintian --info --pedantic --fail-on error,warning,info,pedantic "$changes" 2>&1)
lintian_rc=$?
[ -n "$lintian_out" ] && printf '%s\n' "$lintian_out" | sed 's/^/    lintian: /'
check "lintian --pedantic: no tag but those overridden with their reason" 0 "$lintian_rc"

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

# ------------------------------------------------------------ autopkgtest
# debian/tests against the installed package, as Debian's CI runs them,
# with the null runner (this machine): the smoke test, and the system
# tests (CLI sections as root against /usr/bin/sdb).  AUTOPKGTEST_SECTIONS
# names the sections the system test runs (all where empty).
if ! command -v autopkgtest >/dev/null; then
	echo "skip autopkgtest (apt-get install autopkgtest)"
else
	start=$(date +%s)
	autopkgtest --output-dir "$tmp/autopkgtest" --env="CLI_SECTIONS=${AUTOPKGTEST_SECTIONS:-}" \
		"$deb" "$src" -- null >"$tmp/autopkgtest.log" 2>&1
	apt_rc=$?
	summary=$(sed -n 's/^\(smoke\|system\) *\(PASS\|FAIL\|SKIP\|FLAKY\).*/\1 \2/p' "$tmp/autopkgtest/summary" 2>/dev/null | tr '\n' ' ')
	if [ "$apt_rc" -eq 0 ] && [ "$summary" = "smoke PASS system PASS " ]; then
		ok "autopkgtest (null runner): $summary in $(($(date +%s) - start)) s"
	else
		bad "autopkgtest (null runner): exit $apt_rc, $summary" "$(grep -E '^FAIL|^=== section|FAIL' "$tmp/autopkgtest.log" | head -n 20
			for t in smoke system; do	# what a failed test printed
				case $summary in *"$t PASS"*) continue ;; esac
				for f in "$tmp/autopkgtest/$t-stdout" "$tmp/autopkgtest/$t-stderr"; do
					[ -s "$f" ] && { echo "--- ${f##*/} (last 20 lines)"; tail -n 20 "$f"; }
				done
			done)"
	fi
fi

# ------------------------------------------------------------ remove
if dpkg -r "$pkg" >"$tmp/dpkg.log" 2>&1; then
	ok "dpkg -r $pkg"
else
	bad "dpkg -r $pkg" "$(tail -n 5 "$tmp/dpkg.log")"
fi
verify "/usr/bin/sdb removed" test ! -e /usr/bin/sdb
verify "completion removed" test ! -e "$comp"
finish
