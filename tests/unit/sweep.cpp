// sweep: the knee of a latency-against-load curve, the steps' options.
#include "../../src/sweep.h"

#include <doctest/doctest.h>

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
}

TEST_SUITE("sweep")
{
TEST_CASE("find_knee: the lowest step whose p99 exceeds twice the lightest step's")
{
	auto k = find_knee(steps_with({100, 110, 105, 120, 150, 190, 200, 201, 900, 5000}), 10000);
	REQUIRE(k);
	CHECK(k->iops == 8000);	// 201 > 2 x 100; 200 is not
	CHECK(k->share == doctest::Approx(0.8));
	CHECK(k->p99_ns == 201000);
	CHECK(knee_words(k, steps_with({100})) ==
	      "p99 doubles above 8,000 IOPS, 80% of the maximum (p99 201.0 us, against 100.0 us at 1,000 IOPS)");
	CHECK_FALSE(find_knee(steps_with({100, 120, 150, 200, 199, 180, 200, 150, 190, 200}), 10000));
	CHECK(knee_words(std::nullopt, {}).find("no knee") != std::string::npos);
	CHECK_FALSE(find_knee({}, 10000));
	CHECK_FALSE(find_knee(steps_with({100, 300}), 0));
	k = find_knee(steps_with({100, 1000}), 10000);	// the very next step
	REQUIRE(k);
	CHECK(k->iops == 2000);
}

TEST_CASE("step_options: the maximum's share over the threads, -t a step (3 s without it), no --html")
{
	Options o;
	o.op = Options::Op::read;
	o.threads = 4;
	o.sweep = true;
	o.html = "page.html";
	Options max = step_options(o, 0, 0);
	CHECK_FALSE(max.sweep);
	CHECK(max.rate.per_second == 0);	// the closed loop
	CHECK(max.time_limit == 3);
	CHECK(max.html.empty());
	Options third = step_options(o, 8000, 3);
	CHECK(third.rate.per_second == doctest::Approx(600));	// 30% of 8,000 over 4 threads
	CHECK_FALSE(third.rate.bytes);
	o.time_limit = 1.5;
	CHECK(step_options(o, 8000, 10).time_limit == 1.5);
	CHECK(step_options(o, 8000, 10).rate.per_second == doctest::Approx(2000));
}
} // TEST_SUITE("sweep")
