#!/bin/bash
# ------------------------------------------------------------ uring-pinned
# Where every I/O of a ring goes to the kernel's io-wq workers (zram has no
# FMODE_NOWAIT) and each wait is for one completion (-q 2 to 7), the thread
# is held to a CPU of its own and its workers to the others; the report
# says so on the thread's line.  Nowhere else: not at -q 8, not with more
# threads than CPUs, not with one CPU, not on a file that can say "would
# block" (the ring does its I/O itself there).
. "$(dirname "$0")/../lib.sh"
	pn_dir=$work/uring-pinned
	mkdir -p "$pn_dir"
	head -c $((8 << 20)) /dev/urandom >"$pn_dir/f"
	run -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f "$pn_dir/f"
	check "uring-pinned: -q 4 on a file the ring reads itself: exit 0, not pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
	cpus=$(nproc)
	if ! system || [ ! -r /sys/class/zram-control/hot_add ] || [ "$cpus" -lt 2 ]; then
		skipped "uring-pinned: zram" "needs root, zram-control and 2 CPUs"
	else
		pz=$(cat /sys/class/zram-control/hot_add)
		echo 64M >/sys/block/zram$pz/disksize
		dd if="$pn_dir/f" of=/dev/zram$pz bs=1M count=8 oflag=direct status=none
		run -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f /dev/zram$pz
		matches "uring-pinned: zram -q 4: the thread is pinned" "$(grep '^Thread' <<<"$out")" 'Thread  0 (CPU: *, pinned): *'
		run -r -D -m rand -b 4k -q 4 -j 2 -s 4m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 4 -j 2: each thread pinned, to CPUs of their own" "2 2" \
			"$(grep -c '^Thread.*, pinned)' <<<"$out") $(sed -n 's/^Thread .*(CPU: *\([0-9]*\), pinned).*/\1/p' <<<"$out" | sort -u | wc -l)"
		run -r -D -m rand -b 4k -q 8 -s 8m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 8 (a wait for two): exit 0, not pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
		run -r -D -m rand -b 4k -q 4 -j $((cpus + 1)) -s 1m -t 0.3 -f /dev/zram$pz
		check "uring-pinned: zram -q 4 -j $((cpus + 1)), more threads than CPUs: exit 0, none pinned" "0 0" "$rc $(grep -c ', pinned)' <<<"$out")"
		out=$(taskset -c 0 "$sdb" -r -D -m rand -b 4k -q 4 -s 8m -t 0.3 -f /dev/zram$pz 2>/dev/null)
		check "uring-pinned: zram -q 4 on one CPU (taskset): not pinned" "Thread 0" "$(grep -o '^Thread' <<<"$out") $(grep -c ', pinned)' <<<"$out")"
		# While it runs: the I/O thread may run on one CPU, its io-wq
		# workers (iou-wrk-TID) on none of that one's.
		"$sdb" -r -D -m rand -b 4k -q 4 -s 8m -t 3 -f /dev/zram$pz >"$pn_dir/out" 2>/dev/null &
		pid=$!
		io_workers() { grep -qs '^iou-wrk' /proc/"$pid"/task/*/comm; }
		wait_for "$pid" io_workers
		mask() { sed -n 's/^Cpus_allowed:\s*//p' "$1" | tr -d ,; }
		own="" wq=0 nwq=0
		for t in /proc/"$pid"/task/*; do
			m=$(mask "$t/status")
			[ -n "$m" ] || continue
			case $(cat "$t/comm" 2>/dev/null) in
			iou-wrk*) wq=$((wq | 0x$m)) nwq=$((nwq + 1)) ;;
			*) [ $((0x$m & (0x$m - 1))) = 0 ] && own=$((0x$m)) ;;
			esac
		done
		wait "$pid"
		check "uring-pinned: while it runs, the thread on one CPU, its io-wq workers on the others only" "true true" \
			"$([ -n "$own" ] && echo true || echo false) $([ "$nwq" -gt 0 ] && [ "$wq" != 0 ] && [ $((wq & ${own:-0})) = 0 ] && echo true || echo false)"
		echo 1 >/sys/block/zram$pz/reset
		echo "$pz" >/sys/class/zram-control/hot_remove
	fi
	rm -rf "$pn_dir"
