#!/bin/bash
# ------------------------------------------------------------ cdm
# --quick --cdm: CrystalDiskMark's Save Text layout, line by line, its
# figures the suite's medians from the same run (the --html page's
# embedded document), MB/s 1000-based.
. "$(dirname "$0")/../lib.sh"
bad_input 2 "--cdm: only meaningful with --quick" -r -f x --cdm
bad_input 2 "--cdm and --json: one layout on standard output" --quick -f . --cdm --json
mkdir d
run --quick -f d -s 16m -t 0.2 --runs 1 --cdm --html page.html
check "--quick --cdm: exit 0, the test file removed" "0 " "$rc $(ls d)"
rule=------------------------------------------------------------------------------
layout=$(printf '%s\n' "$rule" "sdb $version --quick=default --cdm: CrystalDiskMark's Save Text layout" "$rule" \
	"* MB/s = 1,000,000 bytes/s" "* KB = 1000 bytes, KiB = 1024 bytes" "" "[Read]" R R R R "" "[Write]" W W W W "" \
	"Profile: Default" "   Test: 16 MiB (x1) [d]" T D O)
n=0 wrong=
while IFS= read -r want && IFS= read -r got <&3; do
	n=$((n + 1))
	case $want in
	R | W) [[ $got =~ ^(SEQ|RND)\ (1MiB|4KiB)\ \(Q=[\ 0-9]{2},\ T=[\ 0-9]{2}\):\ [\ 0-9]{4}[0-9]\.[0-9]{3}\ MB/s\ \[[\ 0-9]{6}[0-9]\.[0-9]\ IOPS\]\ \<[\ 0-9]{5}[0-9]\.[0-9]{2}\ us\>$ ]] || wrong="$wrong [$n: $got]" ;;
	T) [[ $got == "   Time: Measure 0.2 sec, the median of 1 run (CrystalDiskMark: the fastest)" ]] || wrong="$wrong [$n: $got]" ;;
	D) [[ $got =~ ^\ \ \ Date:\ 20[0-9]{2}/[01][0-9]/[0-3][0-9]\ [0-2][0-9]:[0-5][0-9]:[0-5][0-9]$ ]] || wrong="$wrong [$n: $got]" ;;
	O) [[ $got == "     OS: Linux "* ]] || wrong="$wrong [$n: $got]" ;;
	*) [ "$got" = "$want" ] || wrong="$wrong [$n: $got]" ;;
	esac
done <<<"$layout" 3<<<"$out"
check "--cdm: every line in CrystalDiskMark's layout, 23 lines, nothing more" \
	"23 23 " "$(grep -c '' <<<"$layout") $(grep -c '' <<<"$out") $wrong"
embedded=$(sed -n '/<script type="application\/json" id="sdb-result">/,/<\/script>/p' page.html | sed '1d;$d' | sed 's|<\\/|</|g')
# Each row's figures: the suite's median, MB/s = bytes/s / 10^6 to 3 decimals.
cdm_of() {	# cdm_of BLOCK NAME: "MB/s IOPS" of the row NAME (SEQ 1MiB (Q= 8, T= 1)) in [BLOCK]
	sed -n "/^\\[$1\\]/,/^\$/p" <<<"$out" | grep -F "$2:" | sed 's/.*: *\([0-9.]*\) MB\/s \[ *\([0-9.]*\) IOPS.*/\1 \2/'
}
for row in "SEQ1M Q8T1:SEQ 1MiB (Q= 8, T= 1)" "RND4K Q32T1:RND 4KiB (Q=32, T= 1)" "RND4K Q1T1:RND 4KiB (Q= 1, T= 1)"; do
	for side in Read Write; do
		name="${row%%:*} ${side,,}"
		set -- $(cdm_of "$side" "${row#*:}")
		check "--cdm: $name is the suite's median, in 1000-based MB/s (to the digits shown)" true \
			"$(jq --arg n "$name" --argjson mb "${1:-0}" --argjson io "${2:-0}" '.suite[] | select(.name == $n) | .median |
				((.bytes_per_second / 1e6 - $mb) | fabs) <= 0.00051 and ((.iops - $io) | fabs) <= 0.051' <<<"$embedded")"
	done
done
