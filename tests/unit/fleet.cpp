// Unit tests of src/fleet.h: the start skew, the overlap, the straggler
// rule, and the warning for a relative --start-at under a launcher.
#include "../../src/fleet.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdlib>
#include <string>
#include <vector>

TEST_SUITE("fleet") {

// n hosts at rate MiB/s each, p99 1 ms, one window.
std::vector<FleetHost> even(std::vector<double> mib, std::vector<std::uint64_t> p99_us = {})
{
	std::vector<FleetHost> hosts;
	for (std::size_t i = 0; i < mib.size(); i++)
		hosts.push_back({"h" + std::to_string(i + 1), mib[i] * MiB,
				 i < p99_us.size() ? std::optional<std::uint64_t>(p99_us[i] * 1000) : std::optional<std::uint64_t>(1000000),
				 1000, 1002});
	return hosts;
}

TEST_CASE("judge_fleet: a host far below the others' rate is a straggler, named in a warning")
{
	// The case: a host throttled to 100 MiB/s beside two at 2600.
	Fleet f = judge_fleet(even({2600, 100, 2600}));
	CHECK(f.stragglers == std::vector<std::string>{"h2"});
	REQUIRE(f.warnings.size() == 1);
	CHECK(f.warnings[0] == "straggler h2: 100.00 MiB/s, 96% below the hosts' median 2.54 GiB/s");
	// Spread but within 20% of the median: none, however small the MAD.
	CHECK(judge_fleet(even({1000, 1000, 850, 1000})).stragglers.empty());
	// 20% below, but within 3 MADs of a wide spread: none.
	CHECK(judge_fleet(even({1000, 400, 700, 1300, 1600})).stragglers.empty());
	// Two hosts: no median to stand out from.
	CHECK(judge_fleet(even({2600, 100})).stragglers.empty());
	// Many hosts, two slow.
	Fleet many = judge_fleet(even({500, 510, 490, 505, 200, 495, 500, 250}));
	CHECK(many.stragglers == std::vector<std::string>{"h5", "h8"});
}

TEST_CASE("judge_fleet: a p99 far above the others' is a straggler too; the worst p99 and its host")
{
	Fleet f = judge_fleet(even({1000, 1000, 1000, 1000}, {700, 740, 94600, 720}));
	CHECK(f.stragglers == std::vector<std::string>{"h3"});
	CHECK(f.warnings[0] == "straggler h3: p99 94.6 ms, 129.6x the hosts' median 730.0 us");
	CHECK(f.worst_p99 == 94600000u);
	CHECK(f.worst == "h3");
	// Twice the median is the bar: 1.8x is not a straggler.
	CHECK(judge_fleet(even({1000, 1000, 1000}, {700, 1260, 700})).stragglers.empty());
}

TEST_CASE("judge_fleet: the start skew and the overlap of the windows")
{
	std::vector<FleetHost> hosts = even({100, 100, 100});
	hosts[1].start_unix += 0.25, hosts[1].end_unix += 0.25;
	hosts[2].end_unix -= 0.5;
	Fleet f = judge_fleet(hosts);
	CHECK(f.start_skew == doctest::Approx(0.25));
	CHECK(f.overlap == doctest::Approx((1.5 - 0.25) / 2.25));	// all ran 1000.25..1001.5 of 1000..1002.25
	REQUIRE(f.warnings.size() == 1);
	CHECK(f.warnings[0].rfind("the windows overlap 56% (all running 1.250 s of 2.250 s)", 0) == 0);
	CHECK(judge_fleet(even({100, 100})).overlap == doctest::Approx(1));
	CHECK(judge_fleet(even({100, 100})).warnings.empty());
}

} // TEST_SUITE("fleet")
