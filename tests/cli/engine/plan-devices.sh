#!/bin/bash
# ------------------------------------------------------------ plan-devices
. "$(dirname "$0")/../lib.sh"
run -w -f /dev/null -s 64m -j 2
check "/dev/null write: exit 0" 0 "$rc"
run -r -f /dev/zero -s 16m -b 1m --json
check "/dev/zero read: 16 ops" 16 "$(jq .total.ops <<<"$out")"
check "/dev/zero: shared by threads" "/dev/zero" "$(jq -r .threads[0].file <<<"$out")"
