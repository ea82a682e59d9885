#!/bin/bash
# ------------------------------------------------------------ read-noatime
# A read leaves the file's access time as it was (O_NOATIME), where the
# mount would update it: relatime updates an atime older than a day.
. "$(dirname "$0")/../lib.sh"
na_dir=$(mktemp -d "$PWD/noatime.XXXXXX")
"$sdb" -w -f "$na_dir/f" -s 4m -b 1m >/dev/null 2>&1
touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
before=$(stat -c %X "$na_dir/f")
opts=$(findmnt -n -o OPTIONS -T "$na_dir" 2>/dev/null)
if [[ ",$opts," == *,noatime,* ]]; then
	skipped "read-noatime: a read leaves the atime" "mounted noatime: no read changes it"
else
	cat "$na_dir/f" >/dev/null
	if [ "$(stat -c %X "$na_dir/f")" = "$before" ]; then
		skipped "read-noatime: a read leaves the atime" "this mount ($opts) did not update an old atime on cat either"
	else
		touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
		run -r -f "$na_dir/f" -b 1m
		check "read-noatime: sdb -r leaves an old atime as it was (cat changes it), exit 0" "0 $before" "$rc $(stat -c %X "$na_dir/f")"
		touch -a -d '2001-02-03 04:05:06' "$na_dir/f"
		run -M 50 -f "$na_dir/f" -s 4m -b 1m -R
		check "read-noatime: sdb -M 50 leaves it too" "0 $before" "$rc $(stat -c %X "$na_dir/f")"
	fi
fi
rm -rf "$na_dir"
