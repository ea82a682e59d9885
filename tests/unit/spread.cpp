// Unit tests of src/spread.h: the median, range and 95% interval of
// repeated values, against figures worked out by hand.
#include "../../src/spread.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <vector>

TEST_SUITE("spread") {

TEST_CASE("spread_of: median, min, max, and mean +- t s/sqrt(n)")
{
	// 1..5: mean 3, s = sqrt(2.5), t(4) = 2.776: half = 2.776 * sqrt(0.5).
	Spread s = spread_of({5, 1, 4, 2, 3});
	CHECK(s.median == 3);
	CHECK(s.min == 1);
	CHECK(s.max == 5);
	REQUIRE(s.ci95_low);
	CHECK(*s.ci95_low == doctest::Approx(3 - 1.962928));
	CHECK(*s.ci95_high == doctest::Approx(3 + 1.962928));
	// An even count: the median is the mean of the middle two.
	CHECK(spread_of({10, 40, 20, 30}).median == 25);
	// Equal values: no spread, an interval of width 0.
	Spread flat = spread_of({7, 7, 7});
	CHECK(*flat.ci95_low == 7);
	CHECK(*flat.ci95_high == 7);
}

TEST_CASE("spread_of: one value has no interval, none has nothing")
{
	Spread one = spread_of({4});
	CHECK(one.median == 4);
	CHECK_FALSE(one.ci95_low);
	Spread none = spread_of({});
	CHECK(none.median == 0);
	CHECK_FALSE(none.ci95_high);
}

TEST_CASE("t975: the table, and 1.96 far out")
{
	CHECK(t975(1) == doctest::Approx(12.706));
	CHECK(t975(4) == doctest::Approx(2.776));
	CHECK(t975(30) == doctest::Approx(2.042));
	CHECK(t975(1000) == doctest::Approx(1.960));
	CHECK(t975(0.5) == doctest::Approx(12.706));	// under 1: the widest
}

} // TEST_SUITE("spread")
