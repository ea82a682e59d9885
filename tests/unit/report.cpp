// Unit tests of src/report.h: the JSON histogram and Unix times, the
// timeline, its sparkline and the cliff.
#include "../../src/report.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cinttypes>
#include <cstdint>
#include <string>
#include <vector>

TEST_SUITE("report") {

TEST_CASE("json_histogram and json_unix: a mergeable histogram, exact Unix times")
{
	Histogram h;
	CHECK(json_histogram(h) == "[]");
	h.add(5);
	h.add(5);
	h.add(1000);
	unsigned i = Histogram::index(1000);
	CHECK(json_histogram(h) == format("[[5, 5, 2], [%" PRIu64 ", %" PRIu64 ", 1]]", Histogram::low(i), Histogram::high(i)));
	CHECK(Histogram::low(i) <= 1000);
	CHECK(Histogram::high(i) >= 1000);
	CHECK(json_unix(1764500000LL * 1000000000 + 250081999) == "1764500000.250081");
	CHECK(json_unix(0) == "0.000000");
}

TEST_CASE("timeline: steps, rates and the cliff")
{
	std::vector<Sample> samples;
	for (int i = 1; i <= 60; i++)	// 6 s: 100 MiB/s for 2 s, then 20 MiB/s
		samples.push_back({i / 10.0, static_cast<std::uint64_t>((i <= 20 ? i * 10 : 200 + (i - 20) * 2) * MiB / 1)});
	std::vector<Point> points = make_timeline(samples, 6.0, samples.back().bytes, timeline_step(6.0, 0.001, false));
	REQUIRE(points.size() >= 15);
	REQUIRE(points.size() <= 25);
	CHECK(points.front().bytes_per_second == doctest::Approx(100.0 * MiB).epsilon(0.02));
	CHECK(points.back().bytes_per_second == doctest::Approx(20.0 * MiB).epsilon(0.02));
	std::string fell = cliff(points);
	CHECK(fell.find("100.00 MiB/s") != std::string::npos);
	CHECK(fell.find("20.00 MiB/s sustained") != std::string::npos);
	CHECK(fell.find("first 2.") != std::string::npos);

	CHECK(timeline_step(600, 0.001, false) == 1.0);	// JSON: a sample a second
	CHECK(timeline_step(600, 0.001, true) == 30.0);	// the sparkline: twenty bars
	CHECK(timeline_step(3, 0.5, false) == 1.5);	// never shorter than three I/Os
	std::vector<Point> flat(12, Point{1, 50.0 * MiB});
	CHECK(cliff(flat).empty());
	std::string line = sparkline({{1, 0}, {2, 10}}, 0, 10);
	CHECK(line == "\u2581\u2588");
}

} // TEST_SUITE("report")
