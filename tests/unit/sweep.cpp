// sweep: the steps' options (the knee's tests are tests/unit/knee.cpp).
#include "../../src/sweep.h"

#include <doctest/doctest.h>

#include <vector>

TEST_SUITE("sweep")
{
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
