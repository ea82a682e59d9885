// Unit tests of src/explain.h: fio's command line for sdb's runs.
#include "../../src/explain.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

TEST_SUITE("explain") {

TEST_CASE("--explain: fio's words for sdb's run")
{
	CHECK(fio_size(4096) == "4k");
	CHECK(fio_size(MiB) == "1m");
	CHECK(fio_size(3 * GiB) == "3g");
	CHECK(fio_size(1000) == "1000");
	CHECK(fio_seconds(5) == "5");
	CHECK(fio_seconds(0.2) == "200ms");
	CHECK(fio_seconds(0.0001) == "1ms");
	CHECK(shell_word("/var/tmp/f.0") == "/var/tmp/f.0");
	CHECK(shell_word("a b") == "'a b'");
	CHECK(shell_word("it's") == "'it'\\''s'");
	CHECK(shell_word("") == "''");
	CHECK(fio_path("a:b") == "a\\:b");

	Options o;
	o.op = Options::Op::write;
	o.random = true;
	o.file = "/var/tmp/q";
	o.block_size = 4 * KiB;
	o.size = 64 * MiB;
	o.threads = 16;
	o.queue_depth = 32;
	o.direct = true;
	o.random_buffer = true;
	o.time_limit = 5;
	CHECK(fio_command(o, "RND4K-Q32T16-write", Files::regions) ==
	      "fio --name=RND4K-Q32T16-write --filename=/var/tmp/q --rw=randwrite --bs=4k --size=64m --numjobs=16 "
	      "--offset_increment=64m --group_reporting --thread --ioengine=io_uring --iodepth=32 --direct=1 "
	      "--runtime=5 --time_based --end_fsync=1 --invalidate=1 --scramble_buffers=1");
	o.op = Options::Op::read;
	o.random = false;
	o.block_size = MiB;
	o.threads = 1;
	o.queue_depth = 1;
	o.direct = false;
	o.time_limit = 0;
	o.cached = true;
	CHECK(fio_command(o, "sdb", Files::shared) ==
	      "fio --name=sdb --filename=/var/tmp/q --rw=read --bs=1m --size=64m --thread --ioengine=psync --iodepth=1 "
	      "--direct=0 --invalidate=0");
	o.op = Options::Op::write;
	o.threads = 2;
	o.cached = false;
	o.sync = true;
	o.random_buffer = false;
	CHECK(fio_command(o, "sdb", Files::per_thread) ==
	      "fio --name=sdb '--filename_format=/var/tmp/q.$jobnum' --rw=write --bs=1m --size=64m --numjobs=2 "
	      "--group_reporting --thread --ioengine=psync --iodepth=1 --direct=0 --sync=1 --end_fsync=1 "
	      "--invalidate=1 --zero_buffers");
}

TEST_CASE("--explain: --fsync, -M and --ramp in fio's words")
{
	Options o;
	o.op = Options::Op::mix;
	o.mix = 70;
	o.random = true;
	o.file = "f";
	o.block_size = 4 * KiB;
	o.size = 64 * MiB;
	o.direct = true;
	o.time_limit = 5;
	o.ramp = 2;
	CHECK(fio_command(o, "sdb", Files::shared) ==
	      "fio --name=sdb --filename=f --rw=randrw --rwmixread=70 --bs=4k --size=64m --thread --ioengine=psync "
	      "--iodepth=1 --direct=1 --runtime=5 --time_based --ramp_time=2 --end_fsync=1 --invalidate=1 --zero_buffers");
	o.op = Options::Op::write;
	o.random = false;
	o.direct = false;
	o.block_size = 2300;
	o.size = 22 * MiB;
	o.time_limit = 0;
	o.ramp = 0;
	o.fsync_every = 1;
	CHECK(fio_command(o, "etcd", Files::shared) ==
	      "fio --name=etcd --filename=f --rw=write --bs=2300 --size=22m --thread --ioengine=psync --iodepth=1 "
	      "--direct=0 --fdatasync=1 --end_fsync=1 --invalidate=1 --zero_buffers");
}

} // TEST_SUITE("explain")
