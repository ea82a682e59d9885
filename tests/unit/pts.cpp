// Unit tests of src/pts.h: the SNIA PTS steady-state test against series
// worked out by hand, and against an implementation written apart from it
// (tests/unit/pts_reference.py, exact rational arithmetic) on 10,000
// generated series with the boundaries among them.
#include "../../src/pts.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

TEST_SUITE("pts") {

TEST_CASE("pts_window: average, range, slope and excursion of five rounds")
{
	// 96 98 100 102 104: a line of slope 2, excursion 8 (8% of 100), range 8%.
	PtsWindow w = pts_window({1, 96, 98, 100, 102, 104}, 5);
	CHECK(w.first == 1);
	CHECK(w.average == doctest::Approx(100));
	CHECK(w.range == doctest::Approx(8));
	CHECK(w.slope == doctest::Approx(2));
	CHECK(w.excursion == doctest::Approx(8));
	CHECK(w.steady);
	// A slope of 2.75 a round: an excursion of 11%, within range (11%): not steady.
	CHECK_FALSE(pts_window({94.5, 97.25, 100, 102.75, 105.5}, 4).steady);
	// 90 110 90 110 90: slope 0, but a range of 20 on an average of 98 (20.4%).
	PtsWindow zig = pts_window({90, 110, 90, 110, 90}, 4);
	CHECK(zig.slope == doctest::Approx(0));
	CHECK_FALSE(zig.steady);
	// Exactly at the limits: range 20 of 100, and a line of 2.5 a round (10).
	CHECK(pts_window({90, 110, 100, 100, 100}, 4).steady);
	CHECK(pts_window({95, 97.5, 100, 102.5, 105}, 4).steady);
	// Nothing moved: a flat series is steady; a series of zeros is not (no average).
	CHECK(pts_window({7, 7, 7, 7, 7}, 4).steady);
	CHECK_FALSE(pts_window({0, 0, 0, 0, 0}, 4).steady);
}

TEST_CASE("pts_test: the first steady window, and the first round that leaves it")
{
	// A cache that runs out: 200 200 150 100 100 101 99 100, then a step to 130.
	PtsResult r = pts_test({200, 200, 150, 100, 100, 101, 99, 100, 104, 130, 100});
	REQUIRE(r.window);
	CHECK(r.window->first == 3);	// rounds 4-8
	CHECK(r.window->last == 7);
	REQUIRE(r.left_at);
	CHECK(*r.left_at == 9);		// round 10: 130 is 30% over the window's 100
	REQUIRE(r.last);
	CHECK(r.last->last == 10);
	// Four rounds: no window yet.
	PtsResult four = pts_test({1, 1, 1, 1});
	CHECK_FALSE(four.window);
	CHECK_FALSE(four.last);
	// Never steady: a climb of 10% a round.
	CHECK_FALSE(pts_test({100, 110, 121, 133, 146, 161, 177}).window);
}

// Splits "v v v | first last left" into the rounds and the three answers.
bool parse_line(const std::string &line, std::vector<double> &rounds, std::string answer[3])
{
	std::size_t bar = line.find('|');
	if (bar == std::string::npos)
		return false;
	std::istringstream values(line.substr(0, bar)), answers(line.substr(bar + 1));
	rounds.clear();
	for (std::string v; values >> v;)
		rounds.push_back(std::strtod(v.c_str(), nullptr));
	return static_cast<bool>(answers >> answer[0] >> answer[1] >> answer[2]);
}

std::string one_based(const std::optional<std::size_t> &i)
{
	return i ? std::to_string(*i + 1) : "-";
}

TEST_CASE("pts_test agrees with an implementation written apart, on 10,000 series")
{
	std::FILE *p = popen("/usr/bin/python3 tests/unit/pts_reference.py 10000 4 2>&1", "r");
	REQUIRE(p);
	std::string text;
	char chunk[65536];
	for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, p)) > 0;)
		text.append(chunk, n);
	REQUIRE(pclose(p) == 0);	// run from the top of the tree, python3 installed
	std::istringstream lines(text);
	std::size_t series = 0, agree = 0, steady = 0, left = 0;
	std::vector<double> rounds;
	std::string want[3];
	for (std::string line; std::getline(lines, line);) {
		REQUIRE(parse_line(line, rounds, want));
		series++;
		PtsResult r = pts_test(rounds);
		std::string got[3] = {r.window ? one_based(r.window->first) : "-", r.window ? one_based(r.window->last) : "-",
				      one_based(r.left_at)};
		if (got[0] == want[0] && got[1] == want[1] && got[2] == want[2])
			agree++;
		else
			FAIL_CHECK(line << "  sdb: " << got[0] << " " << got[1] << " " << got[2]);
		steady += r.window.has_value();
		left += r.left_at.has_value();
	}
	CHECK(series == 10000);
	CHECK(agree == series);
	// Both verdicts and left rounds are among them, not one kind only.
	CHECK(steady > 1000);
	CHECK(series - steady > 1000);
	CHECK(left > 100);
}

} // TEST_SUITE
