#!/bin/bash
# ------------------------------------------------------------ html
# --html FILE: one page, nothing outside it: the document it embeds is
# the --json one of the same run, its SVG parses as XML, and headless
# Chromium (where installed) loads it with no error and no request.
. "$(dirname "$0")/../lib.sh"
run -r -f /dev/zero -s 1g -b 4k -m rand -t 2.5 --json --html page.html
check "--html with --json: exit 0, the page written" "0 true" "$rc $([ -s page.html ] && echo true)"
check "--html: under 300 KB" true "$([ "$(size_of page.html)" -lt 300000 ] && echo true)"
embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' page.html | sed '1d;$d' | sed 's|<\\/|</|g')
check "--html: the embedded document is the --json one of the same run" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
lacks "--html: no external reference" "$(sed 's|xmlns="http://www.w3.org/2000/svg"||g' page.html)" "http"
lacks "--html: no src or href" "$(cat page.html)" "src="
check "--html: throughput, IOPS, percentiles over time and latency drawn" 4 "$(grep -c '^<svg ' page.html)"
if command -v xmllint >/dev/null; then
	bad_svg=0
	while read -r n; do
		awk -v n="$n" '/^<svg /{k++} k==n{print} /^<\/svg>/{if (k==n) exit}' page.html >one.svg
		xmllint --noout one.svg 2>/dev/null || bad_svg=$((bad_svg + 1))
	done < <(seq 1 4)
	check "--html: each SVG parses as XML (xmllint)" 0 "$bad_svg"
	rm -f one.svg
else
	skipped "--html SVG as XML" "needs xmllint (libxml2-utils)"
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if ! system; then	# a browser writes a profile and shared memory outside the scratch directory
	skipped "--html in a browser" "Chromium's profile and /dev/shm: needs root, not in a hermetic run"
elif [ -n "$browser" ]; then
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --window-size=800,1100 \
		--screenshot="$work/page.png" "file://$work/page.html" >/dev/null 2>"$work/chromium.err"
	check "--html in headless Chromium: a screenshot that is not blank" true \
		"$([ "$(size_of page.png)" -gt 20000 ] 2>/dev/null && echo true || echo false)"
	rm -f page.png
	# A file name that opens an HTML comment and a script element: the
	# browser's parse of the page still ends the embedded document where
	# sdb ended it, and reads it back whole.
	name='x<!--<script>y'
	run -w -f "$name" -s 1m --json --html odd.html
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/odd.html" \
		>odd.dom 2>"$work/chromium.err"
	parsed=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' odd.dom | sed '1s/.*id="sdb-result">//; $s/<\/script>.*//')
	check "--html, a file name holding '<!--<script>': Chromium's parse holds the whole document, the name intact" \
		"$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$parsed" 2>&1)"
	check "--html, a file name holding '<!--<script>': the script element ends where sdb ended it (one </script> in Chromium's DOM)" \
		1 "$(grep -o '</script>' odd.dom | wc -l)"
	rm -f "$name" odd.html odd.dom
else
	skipped "--html in a browser" "needs chromium"
fi
run -r -f /dev/zero -s 64m --html page.html
contains "--html: the human report is unchanged beside it" "$out" "sdb $version: read seq"
mkdir -p adir
run -r -f /dev/zero -s 64m --html adir
check "--html into a directory: exit 2 before the run, no report" "2 " "$rc $out"
contains "--html into a directory: says why" "$err" "sdb: --html adir: Is a directory"
bad_input 2 "--html: draws a -w, -r or -M run, a quick suite, --merge, --hosts, --compare or --sweep" --explain -r -f adir --html page.html
rm -rf adir page.html
