#!/bin/bash
# ------------------------------------------------------------ report-latency-pictures
# Percentiles over time (timeline[].p50_ns, p99_ns) and the text
# report's latency distribution, for runs that show latency.
. "$(dirname "$0")/../lib.sh"
run -r -f /dev/zero -s 64m -b 4k -m rand -t 2.5 --json
check "timeline: every step has p50_ns <= p99_ns, within the run's min and max" "0 true" \
	"$rc $(jq '.total.latency_ns as $l | [.timeline[] | .p50_ns <= .p99_ns and .p50_ns >= $l.min * 0.9 and .p99_ns <= $l.max * 1.1] | all and length >= 5' <<<"$out")"
check "timeline: the steps' p50 near the run's (the buckets are under 6.3% wide)" true \
	"$(jq '.total.latency_ns.p50 as $p | [.timeline[] | .p50_ns] | sort | .[length / 2 | floor] | . >= $p * 0.5 and . <= $p * 2' <<<"$out")"
run -w -f lat.file -s 16m -b 4k -t 2 --fsync 64 --json
check "timeline: a sequential write with --fsync has percentiles too (null in a step where no write ended)" "0 true" \
	"$rc $(jq '[.timeline[] | select(.p99_ns != null)] | length > 0 and all(.[]; .p99_ns > 0 and .p50_ns <= .p99_ns)' <<<"$out")"
run -r -f /dev/zero -s 64m -b 4k -m rand -t 2.2 -j 2
ios=$(sed -n 's/^Latency distribution (\([0-9]*\) I\/Os):$/\1/p' <<<"$out")
loops=$(sed -n 's/^Total (2 threads): .* in \([0-9]*\) loops.*/\1/p' <<<"$out")
check "distribution: counts every I/O of the Total" "$loops" "$ios"
bars=$(sed -n '/^Latency distribution/,/^[^ ]/p' <<<"$out" | grep '^  ')
check "distribution: 1 to 8 lines, each a range, a bar and a share" true \
	"$(n=$(wc -l <<<"$bars"); [ "$n" -ge 1 ] && [ "$n" -le 8 ] && ! grep -qv '^ *[0-9.]* [nmu]*s - [0-9.]* [nmu]*s  *[#.]* *[0-9.]*%' <<<"$bars" && echo true)"
check "distribution: the shares add up to 100%" true \
	"$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /%$/) s += $i} END {print (s > 99.5 && s < 100.5) ? "true" : s}' <<<"$bars")"
check "distribution: p50, p99 and p99.9 each marked once" "1 1 1" \
	"$(for m in p50 p99 p99.9; do grep -c " $m\( \|$\)" <<<"$bars"; done | tr '\n' ' ' | sed 's/ $//')"
matches "distribution: a p99 line under the Timeline" "$out" "*Timeline: *
p99 latency: * min *, max *"
run -r -f /dev/zero -s 64m -b 1m -t 2.2
lacks "distribution: none for a sequential read, which shows no latency" "$out" "Latency distribution"
lacks "distribution: no p99 line for it either" "$out" "p99 latency"
rm -f lat.file
