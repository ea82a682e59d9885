// Unit tests of src/report.h: the timeline, its sparkline and the cliff
// (a write cache's, or a memory cgroup's page cache), the latency
// distribution's bars.
#include "../../src/report.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cinttypes>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

TEST_SUITE("report") {

TEST_CASE("timeline: steps, rates and the cliff")
{
	std::vector<Sample> samples;
	for (int i = 1; i <= 60; i++)	// 6 s: 100 MiB/s for 2 s, then 20 MiB/s
		samples.push_back({i / 10.0, static_cast<std::uint64_t>((i <= 20 ? i * 10 : 200 + (i - 20) * 2) * MiB / 1)});
	std::vector<Point> points = make_timeline(samples, 6.0, samples.back().bytes, timeline_step(6.0, 0.001, false, 0.1));
	REQUIRE(points.size() >= 15);
	REQUIRE(points.size() <= 25);
	CHECK(points.front().bytes_per_second == doctest::Approx(100.0 * MiB).epsilon(0.02));
	CHECK(points.back().bytes_per_second == doctest::Approx(20.0 * MiB).epsilon(0.02));
	std::string fell = cliff(points);
	CHECK(fell.find("100.00 MiB/s") != std::string::npos);
	CHECK(fell.find("20.00 MiB/s sustained") != std::string::npos);
	CHECK(fell.find("first 2.") != std::string::npos);

	CHECK(timeline_step(600, 0.001, false, 0.1) == doctest::Approx(1.0));	// JSON: a sample a second
	CHECK(timeline_step(600, 0.001, true, 0.1) == doctest::Approx(30.0));	// the sparkline: twenty bars
	CHECK(timeline_step(3, 0.5, false, 0.1) == doctest::Approx(1.5));	// never shorter than three I/Os
	CHECK(timeline_step(600, 0.001, false, 6.4) == doctest::Approx(6.4));	// a long run's samples: one a step
	CHECK(timeline_step(10, 0.001, false, 0.2) == doctest::Approx(0.6));	// half a second, in whole samples
	std::vector<Point> flat(12, Point{1, 50.0 * MiB});
	CHECK(cliff(flat).empty());
	std::string line = sparkline({{1, 0}, {2, 10}}, 0, 10);
	CHECK(line == "\u2581\u2588");
}

TEST_CASE("write_cliff: a buffered write's fall near a memory cgroup's limit is the page cache; with -D a write cache")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	// The cgroups this process is in, each given a 256 MiB limit in the fixture.
	std::ifstream in("/proc/self/cgroup");
	std::string line;
	fx.write("/fs/cgroup/memory/cgroup.procs", "1");
	fx.write("/fs/cgroup/unified/cgroup.controllers", "memory");
	while (std::getline(in, line)) {
		std::string path = line.substr(line.find(':', line.find(':') + 1) + 1);
		if (path == "/")
			path.clear();
		fx.write("/fs/cgroup/memory" + path + "/memory.limit_in_bytes", std::to_string(256 * MiB));
		fx.write("/fs/cgroup/unified" + path + "/memory.max", std::to_string(256 * MiB));
	}
	Plan p = plan_on(makedev(8, 0));
	p.opt.op = Options::Op::write;
	Execution ex;
	for (int i = 1; i <= 60; i++)	// 6 s: 100 MiB/s for 2 s, then 20 MiB/s: the fall after 200 MiB
		ex.result.samples.push_back({i / 10.0, static_cast<std::uint64_t>((i <= 20 ? i * 10 : 200 + (i - 20) * 2) * MiB)});
	ex.totals.together = ex.totals.io = 6;
	Report r;
	r.plan = &p;
	r.ex = &ex;
	std::optional<Cliff> c = write_cliff(r);
	REQUIRE(c);
	CHECK(c->offset == doctest::Approx(200.0 * MiB).epsilon(0.05));
	CHECK(c->page_cache.find("256 MiB in " + fx.root + "/fs/cgroup/") != std::string::npos);
	std::string text = cliff_words(*c);
	CHECK(text.find("Page cache: the rate fell after ") == 0);
	CHECK(text.find("the memory cgroup's limit (memory.") != std::string::npos);
	CHECK(text.find("a write cache of about") == std::string::npos);
	p.opt.direct = true;	// -D: no page cache in the way
	c = write_cliff(r);
	REQUIRE(c);
	CHECK(c->page_cache.empty());
	CHECK(cliff_words(*c).find("Write cache: the rate fell after ") == 0);
	p.opt.direct = false;
	// A limit far above the fall (a machine-wide slice) is not the cause.
	REQUIRE(std::system(("find '" + fx.root + "/fs/cgroup' -name 'memory.*' -delete").c_str()) == 0);
	fx.write("/fs/cgroup/memory/memory.limit_in_bytes", std::to_string(64 * GiB));
	c = write_cliff(r);
	REQUIRE(c);
	CHECK(c->page_cache.empty());
}

TEST_CASE("timeline: each step's p50 and p99 from the samples' latency counts")
{
	auto at = [](std::uint64_t ns) { return Histogram::index(ns) / LiveHistogram::group; };
	std::vector<Sample> samples;
	for (int i = 1; i <= 36; i++) {	// 3.6 s: 100 I/Os a sample, 1 us; after 3 s 99 at 1 ms, 1 at 20 ms
		IntervalLatency l = {{at(1000), 100}};
		if (i > 30)
			l = {{at(1000000), 99}, {at(20000000), 1}};
		samples.push_back({i / 10.0, static_cast<std::uint64_t>(i) * MiB, l});
	}
	IntervalLatency tail = {{at(1000000), 100}};	// after the last sample
	std::vector<Point> points = make_timeline(samples, 3.7, 37 * MiB, 1.0, tail);
	REQUIRE(points.size() == 4);
	CHECK(points[0].ios == 1000);
	CHECK(points[0].p50_ns == doctest::Approx(1000).epsilon(0.04));
	CHECK(points[0].p99_ns == doctest::Approx(1000).epsilon(0.04));
	CHECK(points[3].t == 3.7);
	CHECK(points[3].ios == 700);	// 3.1 s to 3.6 s, and the tail
	CHECK(points[2].p99_ns == doctest::Approx(1000).epsilon(0.04));
	CHECK(points[3].p50_ns == doctest::Approx(1000000).epsilon(0.04));
	CHECK(points[3].p99_ns == doctest::Approx(1000000).epsilon(0.04));

	std::vector<Point> none = make_timeline({{1.0, MiB}}, 1.0, MiB, 1.0);
	REQUIRE(none.size() == 1);
	CHECK(none[0].ios == 0);
	CHECK(none[0].p99_ns == 0);
}

TEST_CASE("latency distribution: a bar a range, at most 8, the marks where they fall")
{
	Histogram h;
	for (int i = 0; i < 900; i++)
		h.add(30000);	// 30 us
	for (int i = 0; i < 99; i++)
		h.add(300000);	// 300 us
	h.add(3000000);		// 3 ms
	std::vector<std::string> lines = latency_bars(h);
	REQUIRE(lines.size() == 7);	// 1-2-5 steps: 20-50 us ... 2-5 ms
	CHECK(lines[0].find("20.0 us - 50.0 us") != std::string::npos);
	CHECK(lines[0].find(std::string(36, '#') + " ") != std::string::npos);	// 90% of 40
	CHECK(lines[0].find("90.0% p50") != std::string::npos);
	CHECK(lines[1].find(" .") == std::string::npos);
	CHECK(lines[1].find("0.0%") != std::string::npos);	// 50-100 us: none
	CHECK(lines[3].find("200.0 us - 500.0 us") != std::string::npos);
	CHECK(lines[3].find("9.9% p99 p99.9") != std::string::npos);	// the 999th of 1000 is at 300 us
	CHECK(lines[6].find("2.0 ms - 5.0 ms") != std::string::npos);
	CHECK(lines[6].find(" .") != std::string::npos);	// 0.1%: a dot
	CHECK(lines[6].find("p99") == std::string::npos);

	Histogram wide;
	wide.add(200);
	wide.add(5000000000);	// 200 ns to 5 s: decades
	std::vector<std::string> decades = latency_bars(wide);
	CHECK(decades.size() == 8);
	CHECK(decades[0].find("100 ns - 1.0 us") != std::string::npos);
	CHECK(latency_bars(Histogram{}).empty());
	Histogram widest;
	widest.add(1);
	widest.add(50000000000);	// 1 ns to 50 s: two decades a line
	CHECK(latency_bars(widest).size() <= 8);
}

} // TEST_SUITE("report")
