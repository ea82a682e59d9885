// Unit tests of src/checks.h: the memory ceiling's copy size and the
// Verdict on a run against the device's counters.
#include "../../src/checks.h"
#include "../../src/report.h"	// json_device

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <algorithm>
#include <cstdint>
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

// The point of copy_size(): a copy the cache holds runs faster than the
// ceiling's copy.  Rates measured alternately, best of three each: a ratio
// on this machine, not a wall-clock time.
TEST_CASE("copy-ceiling test shows the ceiling below the cache-sized copy on this machine")
{
	std::uint64_t llc = last_level_cache();
	if (llc == 0) {
		MESSAGE("skipped: sysfs does not give the last-level cache size");
		return;
	}
	std::uint64_t big = copy_size(llc, available_memory(), 0), small = llc / 2;
	Buffer a, b;
	REQUIRE_FALSE(a.allocate(2 * big + 64));
	REQUIRE_FALSE(b.allocate(2 * small + 64));
	double best_big = 0, best_small = 0;
	for (int i = 0; i < 3; i++) {
		best_small = std::max(best_small, time_copy(b.data(), b.data() + small, small, 0.05).memcpy_bps);
		best_big = std::max(best_big, time_copy(a.data(), a.data() + big, big, 0.05).memcpy_bps);
	}
	MESSAGE(format("memcpy of %s: %s; of %s (the ceiling's size): %s", format_bytes(small).c_str(),
		       format_rate(best_small).c_str(), format_bytes(big).c_str(), format_rate(best_big).c_str()));
	CHECK(best_big < best_small);
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
	CHECK(v.verified);
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

	// A tenth reached the device: not verified, and no claim about latency.
	FakeRun hollow(GiB, 2, 0.5, "0 0 0 0 0 0 0 0 0 0", "1 0 209715 0 0 0 0 0 0 100");
	Verdict h = judged(p, d, hollow);
	CHECK_FALSE(h.verified);
	CHECK(h.delivered == doctest::Approx(0.1));
	CHECK(h.reason == "the device saw 10% of the bytes claimed");
	CHECK(h.limit == "unknown");
	CHECK(h.causes.find("page cache") != std::string::npos);
	CHECK(verdict_warnings(p, h).size() == 1);

	p.opt.cached = true;
	Verdict c = judged(p, d, busy);
	CHECK_FALSE(c.measured);
	CHECK_FALSE(c.verified);
	CHECK(c.reason == "page cache by request (--cached)");
	CHECK(c.limit == "memory");
	p.opt.cached = false;

	FakeRun unread(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "");
	Verdict u = judged(p, d, unread);
	CHECK_FALSE(u.verified);
	CHECK(u.reason == "the counters of sda could not be read at both ends");
	CHECK(u.limit == "unknown");
	CHECK(json_device(u).find("\"bytes\": null, \"delivered\": null, \"busy\": null, \"limit\": \"unknown\"") != std::string::npos);

	p.opt.op = Options::Op::write;	// writes count the sectors written
	FakeRun wrote(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "0 0 0 0 9 0 2097160 0 0 1990");
	Verdict w = judged(p, d, wrote);
	CHECK(w.bytes == GiB + 8 * 512);
	CHECK(w.verified);
	CHECK(json_device(w) == "{\"name\": \"sda\", \"path\": \"/dev/sda\", \"bytes\": 1073745920, \"delivered\": 1.000004, "
				"\"busy\": 0.995000, \"limit\": \"device\", \"link\": null, \"verified\": true, \"reason\": null}");
}

} // TEST_SUITE("checks")
