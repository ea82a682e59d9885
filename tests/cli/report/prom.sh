#!/bin/bash
# ------------------------------------------------------------ prom
# --prom FILE: the result as Prometheus metrics.  Its figures are the
# --json document's of the same run, promtool's lint passes, a real
# node_exporter serves them from its textfile directory with no scrape
# error, and the file passes the overwrite rule before any I/O.
. "$(dirname "$0")/../lib.sh"

bad_input 2 "--prom: writes the result of a -w, -r or -M run" --compare a.json b.json --prom m.prom
bad_input 2 "--prom: writes the result of a -w, -r or -M run" -r -f x --explain --prom m.prom
bad_input 2 "--prom: writes the result of a -w, -r or -M run" -T --prom m.prom
bad_input 2 "--prom same: also --html's page: give each its own file" -r -f x --html same --prom same
bad_input 2 "--prom nodir/m.prom: nodir: No such file or directory" -w -f x -s 1m --prom nodir/m.prom
printf 'node_foo 1\n' >theirs.prom
sum=$(md5sum <theirs.prom)
bad_input 2 "--prom theirs.prom exists and sdb did not write it: add --force" -w -f x -s 1m --prom theirs.prom
check "--prom over a file sdb did not write: refused before any I/O, the file as it was, no target made" \
	"$sum missing" "$(md5sum <theirs.prom) $(size_of x)"

# A mix: reads and writes apart, each figure the document's.
run -M 70 -f mix -s 8m -m rand -b 4k --json --prom m.prom
check "--prom with a mix: exit 0, the file written, no temporary left" "0 true missing" \
	"$rc $([ -s m.prom ] && echo true) $(size_of m.prom.sdb-tmp)"
metric() {	# metric NAME DIRECTION [QUANTILE]: the value of that series in m.prom
	awk -v n="$1" -v d="direction=\"$2\"" -v q="${3:+quantile=\"$3\"}" \
		'index($1, n "{") == 1 && index($1, d) && (q == "" ? !index($1, "quantile=") : index($1, q)) { print $2 }' m.prom
}
for side in read write; do
	check "--prom, the mix's $side side: rate, IOPS, p99 and p50 are the document's (to 1e-9)" true \
		"$(jq --argjson b "$(metric sdb_bytes_per_second $side)" --argjson i "$(metric sdb_iops $side)" \
			--argjson p "$(metric sdb_latency_seconds $side 0.99)" --argjson m "$(metric sdb_latency_seconds $side 0.5)" \
			--arg s $side 'def near(a; b): ((a - b) | fabs) <= 1e-9 * (b | fabs) + 1e-12;
			.total[$s] | near($b; .bytes_per_second) and near($i; .iops) and
			near($p; .latency_ns.p99 / 1e9) and near($m; .latency_ns.p50 / 1e9)' <<<"$out")"
	check "--prom, the mix's $side side: verified as the device line says, the count the document's I/Os" \
		"$(jq -r --arg s $side '"\(if .device.verified then 1 else 0 end) \(.total[$s].ops)"' <<<"$out")" \
		"$(metric sdb_verified $side) $(metric sdb_latency_seconds_count $side)"
done
check "--prom: labelled with the target, its device, the pattern, block size, depth and threads" 1 \
	"$(grep -c '^sdb_iops{target="mix",device="[a-z0-9]*",direction="read",pattern="rand",block_size="4096",depth="1",threads="1"} ' m.prom)"
check "--prom: the run's start, and sdb's version" "$(jq -r '.start_unix | . * 1000 | round' <<<"$out") 1" \
	"$(awk '$1 == "sdb_run_timestamp_seconds" { printf "%.0f", $2 * 1000 }' m.prom) $(grep -c "^sdb_info{version=\"$version\",host=\"[^\"]*\"} 1$" m.prom)"
check "--prom: every metric has its HELP and TYPE, no sample a timestamp" "6 6 0" \
	"$(grep -c '^# HELP sdb_' m.prom) $(grep -c '^# TYPE sdb_' m.prom) $(grep -v '^#' m.prom | awk 'NF != 2' | wc -l)"
if command -v promtool >/dev/null; then
	lint=$(promtool check metrics <m.prom 2>&1); rc=$?
	check "--prom: promtool check metrics passes" "0 " "$rc $lint"
else
	skipped "--prom: promtool check metrics passes" "promtool is not installed (apt-get install prometheus)"
fi
run -w -f mix -s 8m --prom m.prom
check "--prom over its own file: replaced" "0 write" "$rc $(sed -n 's/^sdb_iops{.*direction="\([a-z]*\)".*/\1/p' m.prom)"

# --merge: the merged total, verified only where every host's device was.
"$sdb" -w -f one -s 8m --json >one.json 2>/dev/null
"$sdb" -w -f two -s 8m --json >two.json 2>/dev/null
run --merge one.json two.json --json --prom mg.prom
check "--prom with --merge: the merged total's rate, one write series" "0 1 true" \
	"$rc $(grep -c '^sdb_bytes_per_second{' mg.prom) $(jq --argjson b "$(sed -n 's/^sdb_bytes_per_second{.*} //p' mg.prom)" \
		'((.total.bytes_per_second - $b) | fabs) <= 1e-9 * $b' <<<"$out")"

# The quick suite: a series per test, named as the suite names it.
run --quick -f . -s 16m -t 0.2 --runs 1 --prom q.prom --json
check "--prom with --quick: a series per row, the row's median" "0 8 true" \
	"$rc $(grep -c '^sdb_iops{' q.prom) $(jq --argjson i "$(sed -n 's/^sdb_iops{.*test="RND4K Q1T1 read"} //p' q.prom)" \
		'.suite[] | select(.name == "RND4K Q1T1 read") | ((.median.iops - $i) | fabs) <= 1e-9 * $i' <<<"$out")"
check "--prom with --quick: the target is the directory given, not the test file" 8 \
	"$(grep -c '^sdb_iops{target=".",' q.prom)"
if command -v promtool >/dev/null; then
	check "--prom with --quick: promtool check metrics passes" 0 "$(promtool check metrics <q.prom >/dev/null 2>&1; echo $?)"
fi

# A real node_exporter, on 127.0.0.1, reading a textfile directory.
exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
if ! system; then
	skipped "node_exporter serves --prom's metrics" "a daemon on 127.0.0.1: needs root, not in a hermetic run"
	exit
elif [ -z "$exporter" ] || ! command -v curl >/dev/null; then
	skipped "node_exporter serves --prom's metrics" "prometheus-node-exporter or curl is not installed"
	exit
fi
mkdir textfiles
"$sdb" -r -f mix -b 4k -m rand -t 0.3 --prom textfiles/sdb.prom >/dev/null 2>&1
port=
for p in $(seq 19100 19150); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }; done
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/textfiles" >exporter.log 2>&1 &
exp=$!
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }
wait_for "$exp" listening
scraped=$(curl -s --max-time 10 "http://127.0.0.1:$port/metrics")
kill "$exp" 2>/dev/null
wait "$exp" 2>/dev/null
check "node_exporter serves --prom's metrics: sdb's series, no scrape error" "1 0" \
	"$(grep '^sdb_iops{' <<<"$scraped" | grep 'direction="read"' | grep -c 'target="mix"') $(sed -n 's/^node_textfile_scrape_error //p' <<<"$scraped")"
