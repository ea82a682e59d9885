#!/bin/bash
# ------------------------------------------------------------ html-mix-ramp
# --html for a -M mix: its reads and writes apart, each side's percentiles
# (the JSON's total.read and total.write), beside the histogram of both
# together.  For a --ramp run, whose timeline starts at the ramp's end,
# the time charts say so under their axis.
. "$(dirname "$0")/../lib.sh"
	mr_dir=$work/html-mix-ramp
	mkdir -p "$mr_dir"
	run -M 70 -f "$mr_dir/mixf" -s 16m -b 4k -m rand -t 0.5 --json --html "$mr_dir/mix.html"
	check "html-mix-ramp: a mix with --html: exit 0, the page written" "0 true" "$rc $([ -s "$mr_dir/mix.html" ] && echo true)"
	mr_bars=$(sed -n '/aria-label="Latency percentiles, reads and writes apart"/,/<\/svg>/p' "$mr_dir/mix.html")
	check "html-mix-ramp: a mix: a bar for the reads' and for the writes' p50, p99 and p99.9" "3 3 6" \
		"$(grep -c '>reads p[0-9.]*<' <<<"$mr_bars") $(grep -c '>writes p[0-9.]*<' <<<"$mr_bars") $(grep -o 'class="hbar [a-z]*"' <<<"$mr_bars" | wc -l)"
	# A bar's note ("162.3 us") in ns, within half its last digit (its
	# rounding: "1.23 ms" is 5 us either side) and 0.1% of the JSON's
	# figure, or what it was.
	mr_near() {
		local note ns
		note=$(grep -o ">$1 $2<.*" <<<"$mr_bars" | sed -n 's/.*class="tick">\([^<]*\)<.*/\1/p')
		ns=$(jq -r --arg n "$3" '.total.'"$4"'.latency_ns[$n]' <<<"$out")
		awk -v note="$note" -v ns="$ns" 'BEGIN { split(note, p, " "); m = p[2] == "us" ? 1e3 : p[2] == "ms" ? 1e6 : p[2] == "s" ? 1e9 : 1;
			dot = index(p[1], "."); half = (dot ? 10 ^ -(length(p[1]) - dot) : 1) * m / 2;
			d = p[1] * m - ns; print (note != "" && (d < 0 ? -d : d) <= 0.001 * ns + half) ? "near" : "\"" note "\" for " ns }'
	}
	check "html-mix-ramp: a mix: each side's p50 and p99 are the JSON's total.read and total.write" "near near near near" \
		"$(mr_near reads p50 p50 read) $(mr_near writes p50 p50 write) $(mr_near reads p99 p99 read) $(mr_near writes p99 p99 write)"
	matches "html-mix-ramp: a mix: each side's latency in words" "$(grep -A1 '^<p>Latency, reads: ' "$mr_dir/mix.html")" \
		'<p>Latency, reads: min *, p50 *, max *.<br>*Latency, writes: min *, p50 *, max *.</p>'
	run -r -f "$mr_dir/mixf" -s 16m -b 4k -m rand -t 0.5 --json --html "$mr_dir/read.html"
	check "html-mix-ramp: a read alone: its page has no sides" "0 0" "$rc $(grep -c 'reads and writes' "$mr_dir/read.html")"
	lacks "html-mix-ramp: no --ramp: no caption" "$(cat "$mr_dir/read.html")" 'class="caption"'
	run -r -f "$mr_dir/mixf" -s 16m -b 4k -m rand --ramp 0.5 -t 1 --json --html "$mr_dir/ramp.html"
	# (the last sample can come a tick after the window's end, and a loaded
	# machine's window runs past 1 s: at most the window plus 0.25 s, not
	# the window plus the ramp's 0.5 s of a timeline that held the ramp)
	check "html-mix-ramp: --ramp 0.5 -t 1: exit 0, its timeline from the ramp's end (0 to the window's end)" "0 true" \
		"$rc $(jq '.timeline[0].t > 0 and .timeline[0].t <= .timeline[-1].t and .timeline[-1].t <= .total.seconds + 0.25' <<<"$out")"
	check "html-mix-ramp: --ramp: throughput, IOPS and percentiles over time each say the ramp is not drawn" 3 \
		"$(grep -c '<text [^>]*class="caption">0 s is the end of the 0.5 s ramp: the ramp is not timed and not drawn</text>' "$mr_dir/ramp.html")"
	check "html-mix-ramp: --ramp: the latency distribution has no caption" 0 \
		"$(sed -n '/aria-label="Latency distribution/,/<\/svg>/p' "$mr_dir/ramp.html" | grep -c 'class="caption"')"
	rm -rf "$mr_dir"
