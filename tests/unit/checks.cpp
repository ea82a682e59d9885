// Unit tests of src/checks.h: the memory ceiling's copy size and the
// Verdict on a run against the device's counters.
#include "../../src/checks.h"
#include "../../src/report.h"	// json_device

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
				"\"busy\": 0.995000, \"limit\": \"device\", \"link\": null, \"verified\": true, \"reason\": null}");
}

} // TEST_SUITE("checks")
