// Unit tests of src/throttle.h: v1 blkio throttle files and v2 io.max as
// the kernel writes them, the limits over a process from a fake
// /proc/self/cgroup and sysfs, and the limit a run came closest to.
#include "../../src/throttle.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <fstream>
#include <optional>
#include <string>
#include <vector>

TEST_SUITE("throttle") {

TEST_CASE("parse_blkio_throttle and parse_io_max: each limit with its device, direction and unit; max is none")
{
	std::vector<IoLimit> v1 = parse_blkio_throttle("7:3 1000\n254:0 0\nnonsense\n", "/cg", "blkio.throttle.write_iops_device");
	REQUIRE(v1.size() == 1);	// a 0 limit is the kernel's "none"
	CHECK(v1[0].major == 7);
	CHECK(v1[0].minor == 3);
	CHECK(v1[0].write);
	CHECK(v1[0].iops);
	CHECK(v1[0].value == 1000);
	CHECK(v1[0].dir == "/cg");
	std::vector<IoLimit> v2 = parse_io_max("8:16 rbps=2097152 wbps=max riops=max wiops=120\n", "/u/box");
	REQUIRE(v2.size() == 2);
	CHECK(v2[0].file == "io.max rbps");
	CHECK_FALSE(v2[0].write);
	CHECK_FALSE(v2[0].iops);
	CHECK(v2[0].value == 2097152);
	CHECK(v2[1].file == "io.max wiops");
	CHECK(v2[1].write);
	CHECK(v2[1].iops);
	CHECK(limit_words(v2[0]) == "2.00 MiB/s read limit on 8:16, io.max rbps in /u/box");
	CHECK(limit_words(v1[0]) == "1000 write IOPS limit on 7:3, blkio.throttle.write_iops_device in /cg");
}

TEST_CASE("io_limits: the limits of the process's cgroup, its ancestors and the root, on the stack's devices only")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string cgroup = fx.root + "/proc-cgroup";
	std::ofstream(cgroup) << "7:blkio:/box/inner\n0::/pod\n";
	fx.write("/devices/virtual/block/loop3/stat", "0 0 0 0 0 0 0 0 0 0 0");
	fx.write("/devices/virtual/block/loop3/dev", "7:3");
	fx.write("/devices/pci/block/vda/dev", "254:0");
	fx.write("/devices/pci/block/vda/vda1/stat", "0 0 0 0 0 0 0 0 0 0 0");
	fx.write("/devices/pci/block/vda/vda1/dev", "254:1");
	fx.write("/fs/cgroup/blkio/cgroup.procs", "1");
	fx.write("/fs/cgroup/blkio/blkio.throttle.read_bps_device", "254:0 1048576\n");	// the root: on vda, vda1's disk
	fx.write("/fs/cgroup/blkio/box/blkio.throttle.write_iops_device", "7:3 500\n8:0 9\n");	// 8:0 is not ours
	fx.write("/fs/cgroup/blkio/box/inner/blkio.throttle.read_iops_device", "");
	fx.write("/fs/cgroup/unified/cgroup.controllers", "io");
	fx.write("/fs/cgroup/unified/pod/io.max", "7:3 rbps=max wbps=1048576 riops=max wiops=max\n");
	std::vector<IoLimit> l = io_limits({fx.root + "/devices/virtual/block/loop3/stat", fx.root + "/devices/pci/block/vda/vda1/stat"}, cgroup);
	REQUIRE(l.size() == 3);
	CHECK(l[0].dir == fx.root + "/fs/cgroup/blkio/box");
	CHECK(l[0].value == 500);
	CHECK(l[1].dir == fx.root + "/fs/cgroup/blkio");
	CHECK(l[1].major == 254);
	CHECK(l[1].minor == 0);
	CHECK(l[2].file == "io.max wbps");
	CHECK(l[2].dir == fx.root + "/fs/cgroup/unified/pod");
	CHECK(io_limits({}, cgroup).empty());

	// The run read 4 MiB from vda1 in 2 s and wrote 1000 times to loop3:
	// 2 MiB/s against vda's 1 MiB/s is 200%; 500 IOPS against 500, 100%.
	std::vector<DeviceWork> work = device_work(
		{fx.root + "/devices/virtual/block/loop3/stat", fx.root + "/devices/pci/block/vda/vda1/stat"},
		{"0 0 0 0 0 0 0 0 0 0 0", "10 0 0 0 0 0 0 0 0 0 0"},
		{"0 0 0 0 1000 0 2048 0 0 0 0", "20 0 8192 0 0 0 0 0 0 0 0"});
	REQUIRE(work.size() == 2);
	CHECK(work[0].name == "loop3");
	CHECK(work[0].writes == 1000);
	CHECK(work[1].read_bytes == 4194304);
	std::optional<ThrottleUse> u = closest_limit(l, work, 2, true, true);
	REQUIRE(u);
	CHECK(u->device == "vda1");
	CHECK(u->share == doctest::Approx(2.0));
	u = closest_limit(l, work, 2, false, true);	// a write: the read limit does not apply
	REQUIRE(u);
	CHECK(u->limit.file == "blkio.throttle.write_iops_device");	// 500 IOPS of 500, over 0.5 MiB/s of 1
	CHECK(u->share == doctest::Approx(1.0));
	u = closest_limit({l[2]}, work, 2, false, true);
	REQUIRE(u);
	CHECK(u->share == doctest::Approx(0.5));
	CHECK_FALSE(closest_limit(l, work, 2, false, false));
	CHECK_FALSE(closest_limit(l, work, 0, true, true));
}

} // TEST_SUITE("throttle")
