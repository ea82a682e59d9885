#!/bin/bash
# sweep DIR: end whatever a CLI section left under its scratch directory
# DIR, whatever happened to it: the mounts under DIR (deepest first, which
# also ends a FUSE daemon serving one: ntfs-3g, tests/fakeflash.py), the
# loop devices backed by a file under DIR, and every process still running
# with DIR in its command line or as its working directory (an sshd started
# with -f DIR/..., a run left in the background): TERM, then KILL.  The
# section's own cleanup calls it, and tests/cli/run.sh again after the
# section's process group has ended (a section killed at its time limit
# has run no cleanup of its own).  Sourced by lib.sh and run.sh.
sweep_mounts() {	# DIR
	local m
	# mountinfo's field 5 is the mount point, with spaces as \040
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r |
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
}
sweep_procs() {	# DIR: the PIDs, but for this shell and its parents
	local p pid cwd cmd skip=" $$ ${BASHPID:-} $PPID "
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[[ $skip == *" $pid "* ]] && continue
		cwd=$(readlink "$p/cwd" 2>/dev/null)
		cmd=$( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null)	# it may have ended meanwhile
		if [ "$cwd" = "$1" ] || [[ $cwd == "$1/"* ]] || [[ $cmd == *"$1/"* ]] || [[ "$cmd " == *"$1 "* ]]; then
			echo "$pid"
		fi
	done
}
sweep() {	# DIR
	local d=$1 dev back pids try
	[ -n "$d" ] && [ -d "$d" ] || return 0
	sweep_mounts "$d"
	if command -v losetup >/dev/null; then
		losetup -nl -O NAME,BACK-FILE 2>/dev/null | while read -r dev back; do
			case $back in "$d"/*) losetup -d "$dev" 2>/dev/null ;; esac
		done
	fi
	pids=$(sweep_procs "$d")
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		for try in 1 2 3 4 5 6 7 8 9 10; do
			pids=$(sweep_procs "$d")
			[ -z "$pids" ] && break
			sleep 0.2
		done
		# shellcheck disable=SC2086
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	fi
	sweep_mounts "$d"
	return 0
}
