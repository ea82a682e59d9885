#!/bin/bash
# ------------------------------------------------------------ plan-less-than-a-block
# A size smaller than one block: with -b given (or
# random mode's 4k) a usage error; without -b the block is the size, and
# the header and JSON say so, not a 100-byte "1 MiB block" run.
. "$(dirname "$0")/../lib.sh"
bad_input 2 "-s 100 B is smaller than one 4 KiB block: less than one I/O to time" -w -f lessb -s 100 -b 4k
bad_input 2 "-s 512 KiB is smaller than one 1 MiB block" -M 50 -f lessb -s 512k -b 1m
bad_input 2 "-s 2 KiB is smaller than one 4 KiB block (the default -b): random mode" -w -f lessb -s 2k -m rand
check "-s under -b: nothing created" missing "$(size_of lessb)"
run -w -f lessb -s 100 --json
check "-s 100 without -b: one I/O of 100 bytes, block_size 100, the file 100 bytes" "0 100 1 100 100" \
	"$rc $(jq -r '"\(.options.block_size) \(.total.ops) \(.total.bytes)"' <<<"$out") $(size_of lessb)"
run -w -f lessb -s 100
matches "-s 100 without -b: the header says 100 B blocks" "$out" "sdb *: write seq, 100 B blocks, 100 B per thread,*"
head -c 100 /dev/urandom >lessb.small
sum=$(md5sum <lessb.small)
bad_input 2 "lessb.small: 100 B is smaller than one 4 KiB block (-b)" -r -f lessb.small -b 4k -q 2
check "a read of a file under -b: the file unchanged" "$sum" "$(md5sum <lessb.small)"
run -r -f lessb.small --json
check "a read of a 100-byte file without -b: one 100-byte I/O, said so" "0 100 1 100" \
	"$rc $(jq -r '"\(.options.block_size) \(.total.ops) \(.total.bytes)"' <<<"$out")"
run -w -f lessb -s 64k -b 64k --json
check "-s equal to -b: one I/O of one block" "0 1 65536" "$rc $(jq -r '"\(.total.ops) \(.total.bytes)"' <<<"$out")"
rm -f lessb lessb.small
