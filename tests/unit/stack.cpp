// Unit tests of src/stack.h: the levels below a loop device in a fake
// sysfs, /proc/PID/io and cpu.stat as the kernel writes them, the CPU
// quotas over a process from a fake /proc/self/cgroup, and the deltas.
#include "../../src/stack.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

TEST_SUITE("stack") {

// A fixture with sysfs's symlinks (/sys/dev/block/M:m -> the device).
struct StackTree : SysfsFixture {
	void disk(const std::string &dir, dev_t dev) const
	{
		std::string name = dir.substr(dir.find_last_of('/') + 1);
		write("/devices/" + dir + "/stat", "0 0 0 0 0 0 0 0 0 0 0");
		write("/devices/" + dir + "/uevent", "DEVNAME=" + name);
		std::string link = format("/dev/block/%u:%u", major(dev), minor(dev));
		write(link + ".tmp", "");
		unlink((root + link + ".tmp").c_str());
		CHECK(symlink(("../../devices/" + dir).c_str(), (root + link).c_str()) == 0);
	}
};

TEST_CASE("stack_below: a loop device's backing file's device, and on down; none for a plain disk")
{
	StackTree fx;
	REQUIRE_FALSE(fx.root.empty());
	// The backing files are real, so that their st_dev is the kernel's.
	std::string image = fx.root + "/disk.img", inner = fx.root + "/inner.img";
	std::ofstream(image) << "x";
	std::ofstream(inner) << "x";
	struct stat st {};
	REQUIRE(stat(image.c_str(), &st) == 0);
	fx.disk("virtual/block/loop1", makedev(7, 1));
	fx.write("/devices/virtual/block/loop1/loop/backing_file", inner);
	fx.write("/devices/virtual/block/loop1/loop/dio", "0");
	Device loop0;
	loop0.name = "loop0";
	loop0.backing_file = image;
	CHECK(stack_below(loop0).size() == 1);
	Device top = loop0;
	// The backing file's st_dev is not in the fixture: a level without counters, and why.
	std::vector<Device> none = stack_below(top);
	REQUIRE(none.size() == 1);
	CHECK(none[0].stats.empty());
	CHECK_FALSE(none[0].name.empty());	// its file system's name, for the warnings
	CHECK(none[0].reason == format("the backing file %s of loop0 is on %s (%u:%u), which has no block device in sysfs: "
				       "a network file system, or memory", image.c_str(), none[0].name.c_str(),
				       major(st.st_dev), minor(st.st_dev)));
	struct statfs sf {};
	REQUIRE(statfs(image.c_str(), &sf) == 0);
	CHECK(none[0].memory == (memory_fs(static_cast<std::uint32_t>(sf.f_type)) ? none[0].name : ""));	// memory where /tmp is tmpfs
	// Its st_dev is the disk vda: one level.
	fx.disk("pci0000:00/0000:00:02.0/virtio1/block/vda", st.st_dev);
	std::vector<Device> below = stack_below(top);
	REQUIRE(below.size() == 1);
	CHECK(below[0].name == "vda");
	CHECK(below[0].stats == std::vector<std::string>{fx.root + "/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/stat"});
	top.backing_file = fx.root + "/gone.img";
	REQUIRE(stack_below(top).size() == 1);
	CHECK(stack_below(top)[0].reason == "the backing file " + fx.root + "/gone.img of loop0 cannot be found");
	Device disk;
	disk.name = "sda";
	CHECK(stack_below(disk).empty());	// not a loop device: nothing below
}

TEST_CASE("parse_proc_io: /proc/PID/io's byte counters; anything short of them is unknown")
{
	std::optional<ProcIo> io = parse_proc_io("rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\n"
						 "write_bytes: 8192\ncancelled_write_bytes: 512\n");
	REQUIRE(io);
	CHECK(io->read_bytes == 4096);
	CHECK(io->write_bytes == 8192);
	CHECK(io->cancelled_write_bytes == 512);
	CHECK_FALSE(parse_proc_io("rchar: 6976\nwchar: 0\n"));	// a kernel without task I/O accounting
	CHECK_FALSE(parse_proc_io(""));	// not readable (another user's process)
	CHECK(read_proc_io("/proc/self/io"));
	std::optional<ProcIo> later = parse_proc_io("read_bytes: 8192\nwrite_bytes: 8192\ncancelled_write_bytes: 512\n");
	std::optional<ProcIo> d = own_delta(io, later);
	REQUIRE(d);
	CHECK(d->read_bytes == 4096);
	CHECK(d->write_bytes == 0);
	CHECK_FALSE(own_delta(later, io));	// backwards
	CHECK_FALSE(own_delta(io, std::nullopt));
}

TEST_CASE("parse_cpu_stat: v1's throttled_time (ns) and v2's throttled_usec")
{
	std::optional<Throttling> v1 = parse_cpu_stat("nr_periods 40\nnr_throttled 38\nthrottled_time 3614522070\n"
						      "nr_bursts 0\nburst_time 0\n");
	REQUIRE(v1);
	CHECK(v1->periods == 38);
	CHECK(v1->ns == 3614522070u);
	std::optional<Throttling> v2 = parse_cpu_stat("usage_usec 100\nuser_usec 50\nsystem_usec 50\nnr_periods 4\n"
						      "nr_throttled 3\nthrottled_usec 250\n");
	REQUIRE(v2);
	CHECK(v2->periods == 3);
	CHECK(v2->ns == 250000);
	CHECK_FALSE(parse_cpu_stat("usage_usec 100\n"));	// no cpu controller: the root's cpu.stat
}

TEST_CASE("cpu_quotas: the quotas of a process's cgroup and its ancestors, v1 and v2; throttled() the longest")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string cgroup = fx.root + "/proc-cgroup";
	std::ofstream(cgroup) << "4:memory:/box\n1:cpu,cpuacct:/box/inner\n0::/slice/pod\n";
	fx.write("/fs/cgroup/cpu,cpuacct/cgroup.procs", "1");
	fx.write("/fs/cgroup/cpu,cpuacct/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0");
	fx.write("/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1");
	fx.write("/fs/cgroup/cpu,cpuacct/box/cpu.cfs_quota_us", "50000");
	fx.write("/fs/cgroup/cpu,cpuacct/box/cpu.cfs_period_us", "100000");
	fx.write("/fs/cgroup/cpu,cpuacct/box/cpu.stat", "nr_periods 9\nnr_throttled 1\nthrottled_time 1000");
	fx.write("/fs/cgroup/cpu,cpuacct/box/inner/cpu.cfs_quota_us", "-1");	// none here: the parent's applies
	fx.write("/fs/cgroup/cpu,cpuacct/box/inner/cpu.cfs_period_us", "100000");
	fx.write("/fs/cgroup/unified/cgroup.controllers", "cpu memory");
	fx.write("/fs/cgroup/unified/slice/pod/cpu.max", "20000 100000");
	fx.write("/fs/cgroup/unified/slice/pod/cpu.stat", "nr_periods 5\nnr_throttled 2\nthrottled_usec 10");
	fx.write("/fs/cgroup/unified/slice/cpu.max", "max 100000");
	std::vector<CpuQuota> q = cpu_quotas(cgroup);
	REQUIRE(q.size() == 2);
	CHECK(q[0].dir == fx.root + "/fs/cgroup/cpu,cpuacct/box");
	CHECK(q[0].v1);
	CHECK(q[0].cpus == doctest::Approx(0.5));
	CHECK(q[0].how == "cpu.cfs_quota_us 50000 per cpu.cfs_period_us 100000");
	CHECK(q[1].dir == fx.root + "/fs/cgroup/unified/slice/pod");
	CHECK(q[1].how == "cpu.max 20000 100000");
	CHECK(q[1].cpus == doctest::Approx(0.2));

	Watch w;
	w.quotas = q;
	Counters before = read_counters(w);
	REQUIRE(before.quotas.size() == 2);
	REQUIRE(before.quotas[1]);
	CHECK(before.quotas[1]->ns == 10000);
	CHECK_FALSE(throttled(w, before, before).quota);	// no period throttled between them
	fx.write("/fs/cgroup/cpu,cpuacct/box/cpu.stat", "nr_periods 19\nnr_throttled 6\nthrottled_time 900001000");
	fx.write("/fs/cgroup/unified/slice/pod/cpu.stat", "nr_periods 9\nnr_throttled 4\nthrottled_usec 100010");
	Throttled t = throttled(w, before, read_counters(w));
	REQUIRE(t.quota);
	CHECK(t.quota->dir == q[0].dir);	// 0.9 s against the other's 0.1 s
	CHECK(t.periods == 5);
	CHECK(t.ns == 900000000);
}

} // TEST_SUITE("stack")
