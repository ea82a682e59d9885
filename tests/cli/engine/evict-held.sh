#!/bin/bash
# ------------------------------------------------------------ evict-held
# A read evicts its region first and says how much stayed cached: pages
# another process maps cannot be dropped.  The check is bounded (cachestat,
# or mincore sampled over a large region), and still tells half from none.
. "$(dirname "$0")/../lib.sh"
	eh_dir=$work/evict-held
	mkdir -p "$eh_dir"
	if [[ $(stat -f -c %T "$eh_dir") == tmpfs || $(stat -f -c %T "$eh_dir") == ramfs ]] || ! command -v python3 >/dev/null; then
		skipped "evict-held" "needs python3 and a scratch directory on a disk (not tmpfs)"
	else
		head -c $((64 << 20)) /dev/urandom >"$eh_dir/f"
		sync "$eh_dir/f"
		python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 32 << 20, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))
open(sys.argv[2], "w").close()
time.sleep(60)' "$eh_dir/f" "$eh_dir/held" &
		eh_pid=$!
		for try in $(seq 100); do [ -e "$eh_dir/held" ] && break; sleep 0.1; done
		run --json -r -m rand -b 4k -t 0.3 -f "$eh_dir/f"
		pct=$(jq -r '.warnings[] | select(test("stayed in the page cache after eviction")) | capture(": (?<p>[0-9]+)% of the file").p' <<<"$out")
		check "evict-held: half the file mapped by another process: exit 0, the warning says about 50%" "0 true" \
			"$rc $( [ -n "$pct" ] && [ "$pct" -ge 40 ] && [ "$pct" -le 60 ] && echo true || echo "false ($pct)")"
		kill "$eh_pid"
		wait "$eh_pid" 2>/dev/null
		run --json -r -m rand -b 4k -t 0.3 -f "$eh_dir/f"
		check "evict-held: nobody holds it: exit 0, no such warning" "0 false" \
			"$rc $(jq '.warnings | any(test("stayed in the page cache"))' <<<"$out")"
	fi
	rm -rf "$eh_dir"
