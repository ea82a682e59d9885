#!/bin/bash
# ------------------------------------------------------------ html-modes
# --html with --quick, --merge, --hosts and --compare: one page
# each, nothing outside it, the document it embeds the --json one of stdout,
# the bars it promises (a bar per test, per host, old and new).
. "$(dirname "$0")/../lib.sh"
mkdir -p hm
# page_checks NAME PAGE MAX-BYTES: the page's shape; the embedded document in $embedded.
page_checks() {
	check "$1: the page written, under $3 bytes" true "$([ -s "$2" ] && [ "$(size_of "$2")" -lt "$3" ] && echo true)"
	embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' "$2" | sed '1d;$d' | sed 's|<\\/|</|g')
	check "$1: the embedded JSON parses" true "$(jq -e . <<<"$embedded" >/dev/null && echo true)"
	check "$1: no http:// or https:// src or href" 0 "$(grep -Eci '(src|href)="?https?:' "$2")"
	lacks "$1: no script but the data" "$(grep -v 'id="sdb-result"' "$2")" "<script"
	if command -v xmllint >/dev/null; then
		check "$1: xmllint --html accepts it (but for SVG's tags, HTML4's unknowns)" "0 0" \
			"$(xmllint --html --noout "$2" 2>"$work/hm/lint"; echo "$?") $(grep 'parser error' "$work/hm/lint" | grep -vc 'Tag [a-z]* invalid')"
	else
		skipped "$1: xmllint --html" "needs xmllint (libxml2-utils)"
	fi
}
# The quick suite: a bar per test in each of its two charts.
run --quick=real -f hm -s 64m -t 0.3 --runs 2 --json --html hm/quick.html
check "--quick --html --json: exit 0" 0 "$rc"
page_checks "--quick --html" hm/quick.html 300000
check "--quick --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
tests=$(jq '.suite | length' <<<"$out")
check "--quick --html: a bar per test, for MiB/s and for IOPS" "$((2 * tests))" "$(grep -o 'class="hbar [a-z]*"' hm/quick.html | wc -l)"
check "--quick --html: the writes' bars apart" "$(jq '[.suite[] | select(.op == "write")] | length * 2' <<<"$out")" \
	"$(grep -o 'class="hbar write"' hm/quick.html | wc -l)"
run --quick=real -f hm -s 64m -t 0.3 --runs 1 --html hm/quick2.html
contains "--quick --html: the human table unchanged beside it" "$out" "SEQ1M Q1T1 write"
check "--quick --html without --json: the page still carries the document" true \
	"$(sed -n '/id="sdb-result"/,/<\/script>/p' hm/quick2.html | sed '1d;$d' | jq -e '.suite | length > 0' 2>/dev/null)"
# A merge of three runs: a bar per host.
for h in 1 2 3; do "$sdb" -r -f /dev/zero -s 32m -b 4k -m rand -t 0.5 --json >"hm/h$h.json" 2>/dev/null; done
run --merge hm/h1.json hm/h2.json hm/h3.json --json --html hm/merge.html
check "--merge --html --json: exit 0" 0 "$rc"
page_checks "--merge --html" hm/merge.html 300000
check "--merge --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--merge --html: a bar per host, for rate and for p99" 6 "$(grep -o 'class="hbar [a-z]*"' hm/merge.html | wc -l)"
check "--merge --html: each straggler in red" "$(jq '.fleet.stragglers | length * 2' <<<"$out")" \
	"$(grep -o 'class="hbar slow"' hm/merge.html | wc -l)"
run --merge hm/h1.json hm/h2.json --html hm/merge2.html
contains "--merge --html: the human report unchanged beside it" "$out" "Total"
check "--merge --html: the page written without --json" true "$([ -s hm/merge2.html ] && echo true)"
# --compare: old and new, each change with its interval.
run --compare hm/h1.json hm/h2.json --json --html hm/cmp.html
check "--compare --html --json: exit 0" 0 "$rc"
page_checks "--compare --html" hm/cmp.html 300000
check "--compare --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--compare --html: old and new bars for rate, IOPS and p99" "3 3" \
	"$(grep -o 'class="hbar old"' hm/cmp.html | wc -l) $(grep -o 'class="hbar new"' hm/cmp.html | wc -l)"
check "--compare --html: a whisker for each change with an interval" \
	"$(jq '[.compare[] | select(.low != null)] | length' <<<"$out")" "$(grep -o 'class="whisker"' hm/cmp.html | wc -l)"
# --hosts: the page is this side's; the remote runs are not told of it.
printf '#!/bin/sh\nshift\nprintf "%%s\\n" "$*" >>"%s/hm/ssh.log"\nexec sh -c "$*"\n' "$work" >hm/fakessh
chmod +x hm/fakessh
SDB_SSH=$work/hm/fakessh SDB_REMOTE=$sdb run --hosts "localhost:$work/hm/t1,localhost:$work/hm/t2" -w -s 4m -t 0.5 \
	--json --html hm/hosts.html
check "--hosts --html --json: exit 0, two hosts merged" "0 2" "$rc $(jq .total.hosts <<<"$out")"
page_checks "--hosts --html" hm/hosts.html 300000
check "--hosts --html: the embedded document is stdout's" "$(jq -cS . <<<"$out")" "$(jq -cS . <<<"$embedded")"
check "--hosts --html: a bar per host for the rate" 2 "$(sed -n '/aria-label="MiB\/s per host"/,/<\/svg>/p' hm/hosts.html | grep -o 'class="hbar ' | wc -l)"
lacks "--hosts --html: the remote command has no --html" "$(cat hm/ssh.log)" "--html"
bad_input 2 "--html: draws a -w, -r or -M run" -T --html hm/x.html
bad_input 2 "--html: draws a -w, -r or -M run" --probe -f hm/t1 --html hm/x.html
rm -rf hm
