// Unit tests of src/knee.h: the knee of a latency-against-load curve from
// evidence: the light load's level and noise, a rise that stays, a rise
// that falls back (noise, warned), and a maximum that was not the device's.
#include "../../src/knee.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cstdint>
#include <string>
#include <vector>

namespace {
// Ten steps of a maximum of 10,000 IOPS with these p99s (microseconds).
std::vector<SweepStep> steps_with(std::vector<std::uint64_t> p99_us)
{
	std::vector<SweepStep> steps;
	for (std::size_t i = 0; i < p99_us.size(); i++) {
		SweepStep s;
		s.offered = 1000.0 * static_cast<double>(i + 1);
		s.p99_ns = p99_us[i] * 1000;
		steps.push_back(s);
	}
	return steps;
}
} // namespace

TEST_SUITE("knee") {

TEST_CASE("find_knee: the lowest step from which p99 stays above twice the light load's plus its noise")
{
	// Light load 100 and 110 us: level 110, noise 10, so above 230 us.
	KneeFinding f = find_knee(steps_with({100, 110, 105, 120, 150, 190, 231, 240, 900, 5000}), {100000, 110000}, 10000, "");
	REQUIRE(f.knee);
	CHECK(f.light_p99_ns == 110000);
	CHECK(f.noise_ns == 10000);
	CHECK(f.knee->iops == 7000);	// 231 > 230; 190 is not
	CHECK(f.knee->share == doctest::Approx(0.7));
	CHECK(f.knee->p99_ns == 231000);
	CHECK_FALSE(f.warn);
	CHECK(knee_words(f) == "p99 rises above 7,000 IOPS, 70% of the maximum, and stays (p99 231.0 us, against "
			       "110.0 us at light load, noise 10.0 us)");
	// A noisier light load moves the bar: 100 and 150 us, above 350 us.
	f = find_knee(steps_with({100, 110, 105, 120, 150, 190, 231, 240, 900, 5000}), {100000, 150000}, 10000, "");
	REQUIRE(f.knee);
	CHECK(f.knee->iops == 9000);
}

TEST_CASE("find_knee: a rise that falls back is noise, warned with the range; a flat curve is no knee, not warned")
{
	// The throttled case of round 3: p99 2-30 ms up and down.
	KneeFinding f = find_knee(steps_with({2000, 30000, 3000, 25000, 2500, 4000, 28000, 3000, 2000, 3500}), {2000000, 2600000},
				  10000, "");
	CHECK_FALSE(f.knee);
	CHECK(f.warn);
	CHECK(f.why == "p99 varies 2.0 ms-30.0 ms between steps without a trend (light load 2.6 ms, noise 600.0 us); "
		       "try a longer -t");
	f = find_knee(steps_with({100, 120, 150, 200, 199, 180, 200, 150, 190, 200}), {100000, 100000}, 10000, "");
	CHECK_FALSE(f.knee);
	CHECK_FALSE(f.warn);
	CHECK(f.why.find("no knee") != std::string::npos);
	// The heaviest step alone rises: that is a knee, at 100%.
	f = find_knee(steps_with({100, 120, 150, 200, 199, 180, 200, 150, 190, 900}), {100000, 100000}, 10000, "");
	REQUIRE(f.knee);
	CHECK(f.knee->iops == 10000);
}

TEST_CASE("find_knee: no knee where the maximum was not the device's, or nothing ran")
{
	KneeFinding f = find_knee(steps_with({100, 110, 105, 120, 150, 190, 231, 240, 900, 5000}), {100000, 110000}, 10000,
				  "the maximum was a throttle's (loop0 did 1000 IOPS)");
	CHECK_FALSE(f.knee);
	CHECK(f.warn);
	CHECK(f.why == "the maximum was a throttle's (loop0 did 1000 IOPS): no knee of the device's is named");
	CHECK_FALSE(find_knee({}, {1}, 10000, "").knee);
	CHECK_FALSE(find_knee(steps_with({100, 300}), {}, 10000, "").knee);
	CHECK_FALSE(find_knee(steps_with({100, 300}), {100000}, 0, "").knee);
}

} // TEST_SUITE("knee")
