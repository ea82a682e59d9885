#!/bin/bash
# ------------------------------------------------------------ html-pages
# Every kind of page carries its context (SPEC "Results people keep"): a
# run, a timed random run, a quick suite, a sweep, a merge and a
# comparison each open with the headline figure, then the host, the date
# (UTC), sdb's version, the kernel, the command line, the target and its
# file system, the device and the verdict, from the document's "context".
# In headless Chromium (where installed, as root), at 1400 and at 800 px,
# page-check.js measures each page's DOM: no chart text outside its chart,
# none over another, none as large as the headline.
. "$(dirname "$0")/../lib.sh"
run -w -f pg -s 16m --json --html run.html
printf '%s\n' "$out" >run.json
run -r -f pg -b 4k -m rand -q 32 -t 1 --json --html rand.html
printf '%s\n' "$out" >rand.json
run -r -f pg -b 4k -m rand -q 1 -t 1 --json --html rand1.html
printf '%s\n' "$out" >rand1.json
run --quick=real -f . -s 16m -t 0.2 --html quick.html
run -r -f pg -b 4k -m rand -t 0.2 --sweep --json --html sweep.html
run --merge run.json rand.json --html merge.html
run --compare rand1.json rand.json --html compare.html
kernel=$(uname -sr)
device=$(jq -r '.context.device | if . then .name else "none" end' run.json)
check "the JSON's context: host, command line, kernel, target, file system" \
	"$(uname -n)|sdb -w -f pg -s 16m --json --html run.html|pg|$(findmnt -n -o FSTYPE --target .)" \
	"$(jq -r '.context | "\(.host)|\(.command_line)|\(.target)|\(.filesystem)"' run.json)"
check "the JSON's context: the kernel's name and release" true "$(jq --arg k "$kernel" '.context.kernel | startswith($k)' run.json)"
if [ "$device" != none ] && [ -e "/sys/class/block/$device/size" ]; then
	check "the JSON's context: the device's size and rotational flag, as sysfs says" \
		"$(($(cat "/sys/class/block/$device/size") * 512)) $([ "$(cat "/sys/class/block/$device/queue/rotational" 2>/dev/null)" = 1 ] && echo true || echo false)" \
		"$(jq -r '.context.device | "\(.bytes) \(.rotational)"' run.json)"
fi
for page in run rand quick sweep merge compare; do
	html=$(cat "$page.html" 2>/dev/null)
	matches "$page page: the headline first, then the context's rows" "$html" \
		'*<div class="headline">*<th>Host</th><td>'"$(uname -n)"'</td>*<th>Date</th><td>20[0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9] UTC</td>*<th>sdb</th><td>'"$version"'</td>*<th>Kernel</th><td>'"$kernel"'*<th>Command</th><td>sdb *<th>Verdict</th><td>*'
done
for page in run rand quick sweep; do
	contains "$page page: the target and its file system, the device" "$(cat "$page.html")" "<th>Target</th><td>"
	contains "$page page: the device row" "$(cat "$page.html")" "<th>Device</th><td>"
done
contains "a -q 32 page says its depth" "$(cat rand.html)" "queue depth 32, 1 thread"
contains "a -q 1 page says its depth" "$(cat rand1.html)" "queue depth 1, 1 thread"
contains "the merge page says which test ran" "$(cat merge.html)" "2 hosts merged: write seq, 1 MiB blocks, queue depth 1, 1 thread"
contains "the sweep page: x is the load offered, in load order" "$(cat sweep.html)" "IOPS offered"
browser=$(command -v chromium || command -v chromium-browser || true)
if ! system; then	# a browser writes a profile and shared memory outside the scratch directory
	skipped "pages measured in a browser" "Chromium's profile and /dev/shm: needs root, not in a hermetic run"
elif [ -z "$browser" ]; then
	skipped "pages measured in a browser" "needs chromium"
else
	for page in run rand quick sweep merge compare; do
		{ cat "$page.html"; printf '<script>\n'; cat "$(dirname "$0")/page-check.js"; printf '</script>\n'; } >"checked-$page.html"
		for width in 1400 800; do
			mkdir -p "profile-$width"
			found=$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
				--disable-background-networking --disable-component-update --disable-sync \
				--user-data-dir="$work/profile-$width" --window-size="$width,1400" --dump-dom \
				"file://$work/checked-$page.html" 2>/dev/null | tr '\n' '\r' | grep -o '<pre id="page-check">[^<]*' |
				tr '\r' '\n' | sed 's/<pre id="page-check">//')
			matches "$page page at $width px: every chart text inside its chart, none over another, none as large as the headline" \
				"$found" 'checked [1-9]* texts'
		done
		rm -f "checked-$page.html"
	done
	rm -rf profile-1400 profile-800
fi
rm -f pg pg.* run.* rand.* rand1.* quick.html sweep.html merge.html compare.html
