// Unit tests of src/checks.h: the memory ceiling's copy size and the
// Verdict on a run against the device's counters.
#include "../../src/checks.h"
#include "../../src/document.h"	// json_device

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include <sys/sysmacros.h>

TEST_SUITE("checks") {

TEST_CASE("last_level_cache: the highest data or unified level, from SDB_SYSFS")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	CHECK(last_level_cache() == 0);	// sysfs says nothing
	fx.cache(0, "1", "48K", "Data");
	fx.cache(1, "1", "32K", "Instruction");
	CHECK(last_level_cache() == 48 * KiB);
	fx.cache(2, "2", "1024K", "Unified");
	fx.cache(3, "3", "32768K", "Unified");
	CHECK(last_level_cache() == 32 * MiB);
	fx.cache(4, "4", "256M", "Instruction");	// never an instruction cache
	CHECK(last_level_cache() == 32 * MiB);
	fx.cache(5, "3", "64M", "Unified");	// two at the top level: the larger
	CHECK(last_level_cache() == 64 * MiB);
}

TEST_CASE("copy_size: four times the last-level cache, 64 MiB at least, within the memory budget")
{
	CHECK(copy_size(32 * MiB, 16 * GiB, 0) == 128 * MiB);
	CHECK(copy_size(0, 16 * GiB, 0) == 64 * MiB);		// no cache known
	CHECK(copy_size(2 * MiB, 16 * GiB, 0) == 64 * MiB);
	CHECK(copy_size(32 * MiB, 16 * GiB, GiB) == GiB);	// -T -b 1g: the block size
	CHECK(copy_size(256 * MiB, 4 * GiB, 0) == 512 * MiB);	// two buffers: a quarter of 4 GiB
	CHECK(copy_size(32 * MiB, 64 * MiB, 0) == 8 * MiB);
	CHECK(copy_size(32 * MiB, 0, 0) == MiB);
}

// The cheap ceiling copies copy_size() bytes, not a copy the cache holds:
// between the halves of the I/O buffer when it is large enough (already
// faulted in), else in a scratch buffer of its own, the I/O buffer left as
// it was.  What is asserted is what was copied, never how fast.
TEST_CASE("copy_ceiling copies ceiling_size() bytes, within the I/O buffer when it is large enough")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.cache(0, "2", "1024K", "Unified");	// 1 MiB: the 16 MiB floor
	std::uint64_t bytes = ceiling_size(last_level_cache());
	REQUIRE(bytes == 16 * MiB);

	Buffer io;
	REQUIRE_FALSE(io.allocate(2 * bytes + 128));
	char *half = io.data() + io.size() / 2, *end = io.data() + io.size();
	std::memset(io.data(), 'a', io.size() / 2);
	std::memset(half, 'b', io.size() - io.size() / 2);
	MemoryRates m = copy_ceiling(io, 0);
	CHECK(m.bytes == bytes);
	CHECK(m.memcpy_bps > 0);
	CHECK(std::count(half, half + bytes, 'a') == static_cast<std::ptrdiff_t>(bytes));	// copied to the second half,
	CHECK(std::count(half + bytes, end, 'b') == end - half - static_cast<std::ptrdiff_t>(bytes));	// and no more

	Buffer small;	// too small for two halves of copy_size(): a scratch buffer
	REQUIRE_FALSE(small.allocate(MiB));
	std::memset(small.data(), 'x', small.size());
	m = copy_ceiling(small, 0);
	CHECK(m.bytes == bytes);
	CHECK(m.memcpy_bps > 0);
	CHECK(std::count(small.data(), small.data() + small.size(), 'x') == static_cast<std::ptrdiff_t>(small.size()));
}

TEST_CASE("ceiling_size and copy_ceiling: bounded memory, and measured again while below the rate it is held against")
{
	CHECK(ceiling_size(0) == 16 * MiB);
	CHECK(ceiling_size(32 * MiB) == 32 * MiB);
	CHECK(ceiling_size(105 * MiB) == 64 * MiB);	// a large L3: 128 MiB copied, not 840
	Buffer io;
	REQUIRE_FALSE(io.allocate(2 * ceiling_size(last_level_cache()) + 128));
	CHECK(copy_ceiling(io, 0).tries == 1);		// nothing to be below: once
	MemoryRates m = copy_ceiling(io, 1e30);		// always below: measured four times, the best kept
	CHECK(m.tries == 4);
	CHECK(m.memcpy_bps > 0);
}

// A finished run of one thread: bytes claimed, wall and CPU time.
struct FakeRun {
	Execution ex;
	FakeRun(std::uint64_t bytes, double seconds, double cpu_seconds, const std::string &before, const std::string &after)
	{
		auto w = std::make_unique<Worker>();
		w->bytes = bytes;
		w->start_ns = 1000;
		w->end_ns = 1000 + static_cast<std::int64_t>(seconds * 1e9);
		w->cpu_ns = static_cast<std::int64_t>(cpu_seconds * 1e9);
		ex.shared.workers.push_back(std::move(w));
		ex.result.start_ns = 1000;
		ex.result.stats_before = {before};
		ex.result.stats_after = {after};
		ex.totals = add_up(ex.shared, ex.result.start_ns);
	}
};

// The verdict on a fake run, as seen through the device d.
Verdict judged(const Plan &p, const Device &d, FakeRun &run)
{
	run.ex.device = d;
	return judge(p, run.ex);
}

TEST_CASE("judge: delivered, busy and the first limit that applies")
{
	Plan p = plan_on(makedev(8, 0));
	Device d;
	d.name = "sda";
	d.path = "/dev/sda";
	d.stats = {"/sys/block/sda/stat"};
	// 1 GiB read in 2 s: 2097152 sectors; busy 1.96 s of 2.
	FakeRun busy(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1960");
	Verdict v = judged(p, d, busy);
	CHECK(v.measured);
	CHECK(v.confirmed);
	CHECK(v.bytes == GiB);
	CHECK(v.delivered == doctest::Approx(1.0));
	CHECK(v.busy == doctest::Approx(0.98));
	CHECK(v.limit == "device");
	CHECK(v.reason == "");

	FakeRun idle(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1000");
	CHECK(judged(p, d, idle).limit == "latency");
	d.link = Link{"sata", 530e6, "SATA 6 Gbps"};	// 512 MiB/s against 530 MB/s
	CHECK(judged(p, d, idle).limit == "link");
	d.link.reset();
	FakeRun cpu(GiB, 2, 1.9, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1000");
	CHECK(judged(p, d, cpu).limit == "cpu");

	// A tenth reached the device: not confirmed, and no claim about latency.
	FakeRun hollow(GiB, 2, 0.5, "0 0 0 0 0 0 0 0 0 0", "1 0 209715 0 0 0 0 0 0 100");
	Verdict h = judged(p, d, hollow);
	CHECK_FALSE(h.confirmed);
	CHECK(h.delivered == doctest::Approx(0.1));
	CHECK(h.reason == "the device saw 10% of the bytes claimed");
	CHECK(h.limit == "unknown");
	CHECK(h.causes.find("page cache") != std::string::npos);
	CHECK(verdict_warnings(p, h).size() == 1);

	p.opt.cached = true;
	Verdict c = judged(p, d, busy);
	CHECK_FALSE(c.measured);
	CHECK_FALSE(c.confirmed);
	CHECK(c.reason == "page cache by request (--cached)");
	CHECK(c.limit == "memory");
	p.opt.cached = false;

	FakeRun unread(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "");
	Verdict u = judged(p, d, unread);
	CHECK_FALSE(u.confirmed);
	CHECK(u.reason == "the counters of sda could not be read at both ends");
	CHECK(u.limit == "unknown");
	CHECK(json_device(u).find("\"bytes\": null, \"delivered\": null, \"busy\": null, \"limit\": \"unknown\"") != std::string::npos);

	p.opt.op = Options::Op::write;	// writes count the sectors written
	FakeRun wrote(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "0 0 0 0 9 0 2097160 0 0 1990");
	Verdict w = judged(p, d, wrote);
	CHECK(w.bytes == GiB + 8 * 512);
	CHECK(w.confirmed);
	CHECK(json_device(w) == "{\"name\": \"sda\", \"path\": \"/dev/sda\", \"bytes\": 1073745920, \"delivered\": 1.000004, "
				"\"busy\": 0.995000, \"limit\": \"device\", \"link\": null, \"verified\": true, \"reason\": null, "
				"\"stack\": [{\"name\": \"sda\", \"path\": \"/dev/sda\", \"bytes\": 1073745920, \"delivered\": 1.000004, "
				"\"other_bytes\": null}], "
				"\"other_bytes\": null, \"write_cache\": null, \"fua\": null, \"evidence\": ["
				"{\"check\": \"memory\", \"found\": false, \"figure\": \"the target is not in memory\"}, "
				"{\"check\": \"stopped\", \"found\": false, \"figure\": \"stopped or frozen 0.00 s of 2.00 s (0 times)\"}, "
				"{\"check\": \"throttle\", \"found\": false, "
				"\"figure\": \"no blkio throttle or io.max over sdb on the stack's devices\"}, "
				"{\"check\": \"busy\", \"found\": true, \"figure\": \"sda busy 100% of the window\"}, "
				"{\"check\": \"cpu quota\", \"found\": false, \"figure\": \"no CPU quota over sdb throttled it\"}, "
				"{\"check\": \"cpu\", \"found\": false, \"figure\": \"thread 0 was on a CPU 5% of its time\"}, "
	      "{\"check\": \"compression\", \"found\": false, "
	      "\"figure\": \"zeros written; no level sdb sees compresses them; sda took 100% of the bytes sdb wrote\"}]}");
}

Device sda()
{
	Device d;
	d.name = "sda";
	d.path = "/dev/sda";
	d.stats = {"/sys/block/sda/stat"};
	return d;
}

ProcIo proc_io(std::uint64_t read, std::uint64_t written)
{
	ProcIo io;
	io.read_bytes = read;
	io.write_bytes = written;
	return io;
}

TEST_CASE("judge: delivery on sdb's own share; the rest is other processes', a warning over 10%")
{
	Plan p = plan_on(makedev(8, 0));
	// The device read 1 GiB, but sdb's own accounting holds 100 MiB: the
	// page cache served sdb, another process read the disk meanwhile.
	FakeRun busy(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1960");
	busy.ex.result.counters_before.own = proc_io(0, 0);
	busy.ex.result.counters_after.own = proc_io(100 * MiB, 0);
	Verdict v = judged(p, sda(), busy);
	CHECK(v.bytes == GiB);	// what the device saw
	REQUIRE(v.own);
	CHECK(*v.own == 100 * MiB);
	REQUIRE(v.other_bytes);
	CHECK(*v.other_bytes == GiB - 100 * MiB);
	CHECK(v.delivered == doctest::Approx(100.0 / 1024));
	CHECK_FALSE(v.confirmed);
	CHECK(v.reason == "the device saw 10% of the bytes claimed from sdb itself");
	std::vector<std::string> w = verdict_warnings(p, v);
	REQUIRE(w.size() == 2);
	CHECK(w[0].find("sda saw 100 MiB read of the 1 GiB claimed from sdb (10%)") == 0);
	CHECK(w[1] == "924 MiB on sda were not sdb's (90% of the 1 GiB claimed; metadata or other processes): the device "
		      "was shared, the rate is a lower bound");
	CHECK(json_device(v).find("\"other_bytes\": 968884224") != std::string::npos);

	// sdb's own reads are all the device saw (readahead included): no others.
	busy.ex.result.counters_after.own = proc_io(GiB + MiB, 0);
	Verdict mine = judged(p, sda(), busy);
	CHECK(mine.confirmed);
	CHECK(*mine.other_bytes == 0);
	CHECK(verdict_warnings(p, mine).empty());

	// On a block device itself nothing is metadata: "other processes".
	Plan dev = plan_on(makedev(8, 0), EXT4_SUPER_MAGIC, Kind::block);
	busy.ex.result.counters_after.own = proc_io(GiB / 2, 0);
	Verdict half = judged(dev, sda(), busy);
	CHECK(std::string(half.others) == "other processes");
	CHECK(verdict_warnings(dev, half).back().find("50% of the 1 GiB claimed; other processes): the device was shared") != std::string::npos);

	// Unreadable accounting: judged on the device as before, others unknown.
	busy.ex.result.counters_after.own.reset();
	Verdict unknown = judged(p, sda(), busy);
	CHECK(unknown.confirmed);
	CHECK_FALSE(unknown.other_bytes);
	CHECK(json_device(unknown).find("\"other_bytes\": null") != std::string::npos);
}

TEST_CASE("judge: a buffered loop device is judged on its backing file's device too")
{
	Plan p = plan_on(makedev(7, 0));
	Device loop = sda();
	loop.name = "loop0";
	loop.path = "/dev/loop0";
	loop.backing_file = "/img";
	loop.loop_dio = false;
	Device vda = sda();
	vda.name = "vda";
	vda.path = "/dev/vda";
	// The loop device saw 1 GiB; vda below it 1 MiB: the backing file's page cache served the rest.
	FakeRun run(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1960");
	run.ex.result.watch.below = {vda};
	run.ex.result.counters_before.below = {{"0 0 0 0 0 0 0 0 0 0"}};
	run.ex.result.counters_after.below = {{"1 0 2048 0 0 0 0 0 0 10"}};
	Verdict v = judged(p, loop, run);
	REQUIRE(v.stack.size() == 2);
	CHECK(v.stack[0].delivered == doctest::Approx(1.0));
	CHECK(v.stack[1].bytes == MiB);
	CHECK(v.delivered == doctest::Approx(1.0 / 1024));
	CHECK_FALSE(v.confirmed);
	CHECK(v.reason == "vda, below loop0, saw 0% of the bytes claimed");
	CHECK(v.causes.find("the page cache of loop0's backing file /img (a buffered loop device, loop/dio 0)") == 0);
	CHECK(v.limit == "unknown");	// busy 98%, but serving a cache: not "device"
	CHECK(verdict_warnings(p, v)[0].find("vda saw 1 MiB read of the 1 GiB claimed (0%)") == 0);
	CHECK(json_device(v).find("\"stack\": [{\"name\": \"loop0\", \"path\": \"/dev/loop0\", \"bytes\": 1073741824, "
				  "\"delivered\": 1.000000, \"other_bytes\": null}, {\"name\": \"vda\", \"path\": \"/dev/vda\", "
				  "\"bytes\": 1048576, \"delivered\": 0.000977, \"other_bytes\": 0}]") != std::string::npos);

	// vda saw it all (loop/dio 1, or an evicted backing file): delivered.
	run.ex.result.counters_after.below = {{"9 0 2097152 0 0 0 0 0 0 1960"}};
	Verdict d = judged(p, loop, run);
	CHECK(d.confirmed);
	CHECK(d.limit == "device");
	// ... and wrote 512 MiB that did not come through loop0: shared below.
	run.ex.result.counters_after.below = {{"9 0 2097152 0 9 0 1048576 0 0 1960"}};
	Verdict s = judged(p, loop, run);
	CHECK(s.stack[1].other_bytes == 512 * MiB);
	CHECK(s.limit == "unknown");
	CHECK(s.limit_why == "vda, below loop0, was shared: 512 MiB that did not come through loop0");
	std::vector<std::string> sw = verdict_warnings(p, s);
	REQUIRE_FALSE(sw.empty());
	CHECK(sw[0].find("512 MiB on vda, below loop0, were not sdb's") == 0);
	run.ex.result.counters_after.below = {{"9 0 2097152 0 0 0 0 0 0 1960"}};
	// A backing file on tmpfs: a level without counters, not delivered.
	Device memory;
	memory.reason = "the backing file /img of loop0 is on no block device (0:40): memory, or a network";
	run.ex.result.watch.below = {memory};
	run.ex.result.counters_before.below = {{}};
	run.ex.result.counters_after.below = {{}};
	Verdict m = judged(p, loop, run);
	CHECK_FALSE(m.confirmed);
	CHECK(m.reason == "loop0: the backing file /img of loop0 is on no block device (0:40): memory, or a network");
}

TEST_CASE("judge: a run throttled by a CPU quota is limited by cpu, the reason names the quota")
{
	Plan p = plan_on(makedev(8, 0));
	FakeRun run(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1000");
	CHECK(judged(p, sda(), run).limit == "latency");
	CpuQuota q;
	q.dir = "/sys/fs/cgroup/cpu/box";
	q.v1 = true;
	q.cpus = 0.1;
	q.how = "cpu.cfs_quota_us 10000 per cpu.cfs_period_us 100000";
	run.ex.result.watch.quotas = {q};
	run.ex.result.counters_before.quotas = {Throttling{5, 1000}};
	run.ex.result.counters_after.quotas = {Throttling{5, 1000}};
	CHECK(judged(p, sda(), run).limit == "latency");	// not throttled during the run
	run.ex.result.counters_after.quotas = {Throttling{25, 1800000000}};	// 1.8 s of 2
	Verdict v = judged(p, sda(), run);
	CHECK(v.limit == "cpu");
	CHECK(v.limit_why == "the CPU quota of cgroup /sys/fs/cgroup/cpu/box (cpu.cfs_quota_us 10000 per cpu.cfs_period_us "
			     "100000: 0.10 CPU) throttled sdb 20 times, 1.80 s in all; more -q or -j cannot go faster");
	CHECK(v.limit_why.find("-q or -j may go faster") == std::string::npos);
	CHECK(json_device(v).find("\"limit\": \"cpu\"") != std::string::npos);
	CHECK(json_device(v).find("\"reason\": \"the CPU quota of cgroup /sys/fs/cgroup/cpu/box") != std::string::npos);
	p.opt.cached = true;	// the page cache's rate is the quota's too
	CHECK(judged(p, sda(), run).limit == "cpu");
}

// The check a verdict's evidence names, or none.
const Evidence *evidence(const Verdict &v, const std::string &check)
{
	for (const Evidence &e : v.evidence)
		if (e.check == check)
			return &e;
	return nullptr;
}

TEST_CASE("judge: a blkio throttle, a stop and a shared device are named from their checks, not called latency")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.write("/block/sda/dev", "8:0");
	Plan p = plan_on(makedev(8, 0));
	p.opt.op = Options::Op::read;
	Device d = sda();
	d.stats = {fx.root + "/block/sda/stat"};
	// 2000 reads of 1 MiB in 2 s, the device busy 50%: latency, by itself.
	FakeRun run(2000 * MiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "2000 0 4096000 0 0 0 0 0 0 1000");
	run.ex.result.stat_files = d.stats;
	Verdict free = judged(p, d, run);
	CHECK(free.limit == "latency");
	REQUIRE(evidence(free, "throttle"));
	CHECK_FALSE(evidence(free, "throttle")->found);

	// The same run under a 1000 read IOPS throttle on sda: it ran at it.
	IoLimit l;
	l.dir = "/sys/fs/cgroup/blkio/box";
	l.file = "blkio.throttle.read_iops_device";
	l.iops = true;
	l.major = 8;
	l.value = 1000;
	run.ex.result.watch.limits = {l};
	Verdict t = judged(p, d, run);
	CHECK(t.limit == "throttle");
	CHECK(t.limit_why == "sda did 1000 IOPS: 100% of the 1000 read IOPS limit on 8:0, blkio.throttle.read_iops_device "
			     "in /sys/fs/cgroup/blkio/box; more -q or -j cannot go faster");
	REQUIRE(evidence(t, "throttle"));
	CHECK(evidence(t, "throttle")->found);
	CHECK(json_device(t).find("{\"check\": \"throttle\", \"found\": true, \"figure\": \"sda did 1000 IOPS") !=
	      std::string::npos);
	l.value = 4000;	// a limit four times what it did: not the cause
	run.ex.result.watch.limits = {l};
	CHECK(judged(p, d, run).limit == "latency");
	p.opt.op = Options::Op::write;	// a read limit holds no write
	l.value = 1000;
	run.ex.result.watch.limits = {l};
	CHECK(judged(p, d, run).limit != "throttle");
	p.opt.op = Options::Op::read;

	// Stopped for 1 s of the 2: that, before anything else.
	run.ex.result.stops.stopped_ns = 1000000000;
	run.ex.result.stops.stops = 1;
	Verdict s = judged(p, d, run);
	CHECK(s.limit == "stopped");
	CHECK(s.limit_why == "stopped or frozen 1.00 s of 2.00 s (1 time)");
	std::vector<std::string> w = verdict_warnings(p, s);
	REQUIRE_FALSE(w.empty());
	CHECK(w.back().find("sdb was stopped or frozen 1.00 s of 2.00 s (1 time): kill -STOP") == 0);
	run.ex.result.stops.stopped_ns = 50000000;	// 2.5%: noise
	CHECK(judged(p, d, run).limit == "throttle");
	run.ex.result.stops = StopClock();
	run.ex.result.watch.limits.clear();

	// Busy the whole run, but 1 GiB of writes was another's: not "device".
	FakeRun busy(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "1024 0 2097152 0 512 0 2097152 0 0 1990");
	busy.ex.result.counters_before.own = proc_io(0, 0);
	busy.ex.result.counters_after.own = proc_io(GiB, 0);
	Verdict b = judged(p, d, busy);
	REQUIRE(b.other_bytes);
	CHECK(*b.other_bytes == GiB);	// the writes, though the run read
	CHECK(b.limit == "unknown");
	CHECK(b.limit_why == "sda was shared: 1 GiB not sdb's");
	REQUIRE(evidence(b, "others"));
	CHECK(evidence(b, "others")->found);
	REQUIRE(evidence(b, "busy"));
	CHECK(evidence(b, "busy")->found);
}

TEST_CASE("sync_warning: syncs faster than the device can make data stable")
{
	Plan p = plan_on(makedev(8, 0));
	p.opt.op = Options::Op::write;
	p.opt.fsync_every = 1;
	FakeRun run(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "0 0 0 0 9 0 2097152 0 0 1990");
	Worker &w = *run.ex.shared.workers[0];
	w.sync_latency.emplace();
	for (int i = 0; i < 100; i++) {
		w.latency.add(50000);	// writes: 50 us
		w.sync_latency->add(200000);	// syncs: 200 us
	}
	Device d = sda();
	d.rotational = true;
	d.write_cache = "write back";
	d.fua = false;
	Verdict v = judged(p, d, run);
	std::string warning = sync_warning(p, v);
	CHECK(warning.find("the median fdatasync took 2") == 0);
	CHECK(warning.find("on sda (write cache write back, FUA no): sda is rotational, and no spinning disk makes data "
			   "stable in under ~1 ms; the flush may stop in a volatile cache") != std::string::npos);
	d.rotational = false;	// flash: 200 us is a real flush, above the write's 50 us
	CHECK(sync_warning(p, judged(p, d, run)) == "");
	w.latency = Histogram();
	for (int i = 0; i < 100; i++)
		w.latency.add(400000);	// writes slower than the syncs: the flush did nothing
	CHECK(sync_warning(p, judged(p, d, run)).find("no slower than the median write") != std::string::npos);
	d.paravirtual = "virtio_blk";
	CHECK(sync_warning(p, judged(p, d, run)).find("(virtio_blk: the host's cache may sit below it)") != std::string::npos);
	p.opt.fsync_every = 0;	// neither --fsync nor -S: nothing to judge
	CHECK(sync_warning(p, judged(p, d, run)) == "");
}

} // TEST_SUITE("checks")
