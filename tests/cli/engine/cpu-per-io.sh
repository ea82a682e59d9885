#!/bin/bash
# ------------------------------------------------------------ cpu-per-io
# The CPU per I/O: JSON cpu.ns_per_io is the window's user + system time
# over its I/Os; -v prints it in microseconds, with cycles or why not.
. "$(dirname "$0")/../lib.sh"
	cp_dir=$work/cpu-per-io
	mkdir -p "$cp_dir"
	head -c $((16 << 20)) /dev/urandom >"$cp_dir/f"
	run --json -r -m rand -b 4k -q 4 -s 16m -t 0.5 -f "$cp_dir/f"
	check "cpu-per-io: a -q 4 run: exit 0, ns_per_io a positive number" "0 true" \
		"$rc $(jq '.cpu.ns_per_io | type == "number" and . > 0' <<<"$out")"
	check "cpu-per-io: ns_per_io is (user + system seconds) / total.ops, to the rounding" true \
		"$(jq '((.cpu.user_seconds + .cpu.system_seconds) * 1e9 / .total.ops) as $n |
			(.cpu.ns_per_io - $n) | fabs <= 0.001 * $n + 1' <<<"$out")"
	check "cpu-per-io: cycles_per_io is null or a positive number" true \
		"$(jq '.cpu.cycles_per_io | . == null or (type == "number" and . > 0)' <<<"$out")"
	run -v -r -m rand -b 4k -s 16m -t 0.3 -f "$cp_dir/f"
	matches "cpu-per-io: -v prints the CPU per I/O in us, with cycles or why not" \
		"$(grep '^CPU per I/O: ' <<<"$out")" "CPU per I/O: [0-9]*.[0-9][0-9] us, @(+([0-9]) cycles|cycles unavailable (no readable PMU))"
	run -r -m rand -b 4k -s 16m -t 0.3 -f "$cp_dir/f"
	lacks "cpu-per-io: without -v, no such line" "$out" "CPU per I/O"
	rm -rf "$cp_dir"
