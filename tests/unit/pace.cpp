// pace: --rate's value, the due-time schedule, whether a load was met.
#include "../../src/pace.h"

#include <doctest/doctest.h>

TEST_SUITE("pace")
{
TEST_CASE("parse_rate: I/Os per second with k and m, bytes per second with /s")
{
	CHECK(parse_rate("5000")->per_second == 5000);
	CHECK(parse_rate("5k")->per_second == 5000);
	CHECK(parse_rate("2.5k")->per_second == 2500);
	CHECK(parse_rate("1m")->per_second == 1e6);
	CHECK(parse_rate("0.5")->per_second == 0.5);
	CHECK_FALSE(parse_rate("5k")->bytes);
	auto b = parse_rate("200m/s");
	REQUIRE(b);
	CHECK(b->bytes);
	CHECK(b->per_second == 200.0 * 1048576);
	CHECK(ios_per_second(*b, 4096) == 51200);
	CHECK(ios_per_second(*parse_rate("300"), 4096) == 300);
	for (const char *bad : {"", "0", "0.0", "-1", "k", "5kk", "5 k", "1e3", "inf", "nan", "0/s", "/s", "5x/s", "1000m"})
		CHECK_MESSAGE(!parse_rate(bad), bad);
}

TEST_CASE("Pace: I/O i is due at start + i/rate, computed from i, and restarts")
{
	Pace off;
	CHECK_FALSE(off.on());
	CHECK_FALSE(Pace(5, 0).on());
	Pace p(1000, 4000);	// 250 us apart
	REQUIRE(p.on());
	CHECK(p.take() == 1000);
	CHECK(p.take() == 1000 + 250000);
	CHECK(p.due() == 1000 + 500000);
	CHECK(p.due() == 1000 + 500000);	// due() does not advance
	for (int i = 2; i < 4000; i++)
		p.take();
	CHECK(p.due() == 1000 + 1000000000);	// a second later, exactly: no rounding added up
	p.restart(7);
	CHECK(p.take() == 7);
	Pace third(0, 3);	// 333,333,333.3 ns apart
	for (int i = 0; i < 3000; i++)
		third.take();
	CHECK(third.due() == 1000000000000);
}

TEST_CASE("judge_rate: met at 98% and within a second of the schedule")
{
	CHECK(judge_rate(1000, 1000, 0.01).met);
	CHECK(judge_rate(1000, 980, 0.5).met);
	CHECK_FALSE(judge_rate(1000, 979, 0.5).met);
	CHECK_FALSE(judge_rate(1000, 1000, 1.2).met);	// caught up in the end, but a second late on the way
	CHECK(rate_warning(judge_rate(1000, 1000, 0)) == "");
	std::string w = rate_warning(judge_rate(2000, 1000, 1.5));
	CHECK(w.find("the offered load was not met: 2000 IOPS offered, 1000 achieved (50.0%), up to 1.500 s behind") !=
	      std::string::npos);
}

TEST_CASE("format_count: rounded, with thousands separators")
{
	CHECK(format_count(0) == "0");
	CHECK(format_count(999.4) == "999");
	CHECK(format_count(7200) == "7,200");
	CHECK(format_count(1234567.6) == "1,234,568");
	CHECK(format_count(-3) == "0");
}
} // TEST_SUITE("pace")
