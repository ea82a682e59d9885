// cliff: where a sequential write's rate fell, from 0.1 s samples (falling.h).
#include "../../src/cliff.h"

#include <doctest/doctest.h>

#include "falling.h"

#include <vector>

TEST_SUITE("cliff")
{
TEST_CASE("find_cliff: the offset of the fall, placed inside its sample, and both rates")
{
	const double MiBd = 1048576;
	auto c = find_cliff(falling(200 * MiBd, 20 * MiBd, 256 * MiBd, 6), 6);
	REQUIRE(c);
	CHECK(c->offset == doctest::Approx(256 * MiBd).epsilon(0.01));
	CHECK(c->seconds == doctest::Approx(1.28).epsilon(0.01));
	CHECK(c->before == doctest::Approx(200 * MiBd).epsilon(0.02));
	CHECK(c->after == doctest::Approx(20 * MiBd).epsilon(0.01));
}

TEST_CASE("find_cliff: none in a steady run, a short one, or a dip that recovers")
{
	const double MiBd = 1048576;
	CHECK_FALSE(find_cliff(falling(100 * MiBd, 100 * MiBd, 0, 5), 5));
	CHECK_FALSE(find_cliff(falling(200 * MiBd, 20 * MiBd, 50 * MiBd, 0.8), 0.8));
	CHECK_FALSE(find_cliff(falling(100 * MiBd, 80 * MiBd, 200 * MiBd, 5), 5));	// 20% slower: not a cliff
	std::vector<Sample> dip = falling(100 * MiBd, 100 * MiBd, 0, 6);
	for (std::size_t i = 20; i < dip.size(); i++)	// 1 s at a tenth, then back to full speed
		dip[i].bytes -= static_cast<std::uint64_t>(90 * MiBd * std::min(1.0, (i - 19) / 10.0));
	CHECK_FALSE(find_cliff(dip, 6));
}

TEST_CASE("about_bytes: a cache's size in round words")
{
	CHECK(about_bytes(67812187) == "65 MiB");
	CHECK(about_bytes(3ULL << 29) == "1.5 GiB");
}
}
