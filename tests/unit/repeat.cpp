// Unit tests of src/repeat.h: which run of --runs N is the median one.
#include "../../src/repeat.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <vector>

TEST_SUITE("repeat") {

namespace {
std::vector<RunFigures> runs_at(std::vector<double> rates)
{
	std::vector<RunFigures> runs;
	for (double r : rates) {
		RunFigures f;
		f.bytes_per_second = r;
		runs.push_back(f);
	}
	return runs;
}
} // namespace

TEST_CASE("mark_median: the middle run by rate, marked once")
{
	std::vector<RunFigures> odd = runs_at({30, 10, 50, 20, 40});
	CHECK(mark_median(odd) == 0);	// 30: the third of 10 20 30 40 50
	CHECK(odd[0].median);
	int marked = 0;
	for (const RunFigures &f : odd)
		marked += f.median;
	CHECK(marked == 1);
	std::vector<RunFigures> even = runs_at({40, 10, 30, 20});
	CHECK(mark_median(even) == 3);	// 20, the slower of the middle two: a run that happened
	std::vector<RunFigures> one = runs_at({5});
	CHECK(mark_median(one) == 0);
}

} // TEST_SUITE("repeat")
