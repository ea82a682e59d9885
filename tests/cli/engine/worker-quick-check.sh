#!/bin/bash
# ------------------------------------------------------------ worker-quick-check
. "$(dirname "$0")/../lib.sh"
run -w -f test -b 64m -s 256m -D -S
check "quick check: exit 0" 0 "$rc"
check "quick check: writes 256 MiB" 268435456 "$(size_of test)"
matches "quick check: per-thread line" "$out" '*Thread  0 (CPU:*seconds -> *iB/s*IOPS in 4 loops*'
run -r -f test -b 64m -s 256m -D --json
check "read back: exit 0" 0 "$rc"
check "read back: total.bytes" 268435456 "$(jq .total.bytes <<<"$out")"
check "read back: total.ops" 4 "$(jq .total.ops <<<"$out")"
check "read back: JSON only on stdout" 1 "$(jq -s length <<<"$out")"
check "read back: not interrupted" false "$(jq .interrupted <<<"$out")"
run -r -f test -D --json
check "read size defaults to the file's size" 268435456 "$(jq .options.size <<<"$out")"
rm -f test
