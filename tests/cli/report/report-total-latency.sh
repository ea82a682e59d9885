#!/bin/bash
# ------------------------------------------------------------ report-total-latency
# -j N: the Total's latency comes from the threads' merged histograms, so
# its min and max are the threads' extremes (a mean of percentiles is not).
. "$(dirname "$0")/../lib.sh"
run -r -f /dev/zero -s 32m -b 4k -m rand -j 3 --json
check "-j 3: total.latency_ns's min and max are the threads' extremes" "0 true true" \
	"$rc $(jq '.total.latency_ns.max == ([.threads[].latency_ns.max] | max)' <<<"$out") $(jq '.total.latency_ns.min == ([.threads[].latency_ns.min] | min)' <<<"$out")"
run -r -f /dev/zero -s 32m -b 4k -m rand -j 3
matches "-j 3: a latency line under the Total" "$out" "*Total (3 threads)*
           latency min *, avg *, p99 *, max *"
