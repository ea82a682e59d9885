// compare: the change between two documents' figures and its interval.
#include "../../src/compare.h"
#include "scratch.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
// A quick suite's document with one test, its runs at these rates.
std::string suite_doc(const char *name, std::vector<double> rates)
{
	std::string runs;
	for (double r : rates)
		runs += format("%s{\"bytes_per_second\": %.0f, \"iops\": %.0f, \"p99_ns\": 1000}", runs.empty() ? "" : ", ", r,
			       r / 4096);
	return format("{\"version\": \"0.1.0\", \"host\": \"h\", \"suite\": [{\"name\": \"%s\", \"runs\": [%s]}]}", name,
		      runs.c_str());
}

std::string saved(const std::string &text)
{
	std::string path_name = scratch_name("sdb-compare-unit.XXXXXX");
	char *path = path_name.data();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
	close(fd);
	return path;
}
}

TEST_SUITE("compare")
{
TEST_CASE("change_of: Welch's 95% interval of the change, as a share of the old mean")
{
	Figure old_f{0, {100, 102, 98, 101, 99}}, same{0, {101, 99, 100, 102, 98}}, faster{0, {120, 122, 118, 121, 119}};
	Change none = change_of(old_f, same);
	CHECK(none.change == doctest::Approx(0.0));
	REQUIRE(none.low);
	CHECK(*none.low < 0);
	CHECK(*none.high > 0);
	CHECK_FALSE(none.significant());
	Change up = change_of(old_f, faster);
	CHECK(up.change == doctest::Approx(0.20));
	CHECK(*up.low > 0.15);
	CHECK(*up.high < 0.25);
	CHECK(up.significant());
}

TEST_CASE("change_of: one value each gives a change and no interval")
{
	Change c = change_of(Figure{200, {}}, Figure{150, {}});
	CHECK(c.change == doctest::Approx(-0.25));
	CHECK_FALSE(c.low);
	CHECK_FALSE(c.significant());
	CHECK(change_words(c) == "-25.0% (no interval: one value each)");
}

TEST_CASE("slower_beyond: worse by more than PCT, the whole interval beyond it")
{
	Figure old_f{0, {100, 102, 98, 101, 99}};
	Figure slower{0, {80, 82, 78, 81, 79}}, a_bit{0, {96, 98, 94, 97, 95}}, faster{0, {120, 122, 118, 121, 119}};
	auto row = [&](const char *metric, const Figure &n) { return Row{"t", metric, old_f, n, change_of(old_f, n)}; };
	CHECK(slower_beyond(row("bytes_per_second", slower), 10));	// -20%, interval about [-23%, -17%]
	CHECK_FALSE(slower_beyond(row("bytes_per_second", slower), 19));	// the interval reaches past -19%
	CHECK_FALSE(slower_beyond(row("iops", a_bit), 10));	// -4%: within the threshold
	CHECK_FALSE(slower_beyond(row("iops", faster), 10));
	CHECK(slower_beyond(row("p99_ns", faster), 10));	// p99 up 20%: slower
	CHECK_FALSE(slower_beyond(row("p99_ns", slower), 10));	// p99 down: faster
	Row single{"t", "bytes_per_second", Figure{100, {}}, Figure{10, {}}, change_of(Figure{100, {}}, Figure{10, {}})};
	CHECK_FALSE(slower_beyond(single, 10));	// no interval: never called slower
}

TEST_CASE("t975: Student's t for small samples, the normal's 1.96 for large ones")
{
	CHECK(t975(2) == doctest::Approx(4.303));
	CHECK(t975(2.7) == doctest::Approx(4.303));	// Welch's df rounded down: the wider interval
	CHECK(t975(1000) == doctest::Approx(1.96));
}

TEST_CASE("load_compared and compare_rows: a quick suite's tests by name, their runs the samples")
{
	std::string a = saved(suite_doc("RND4K Q32T1 read", {100e6, 102e6, 98e6})),
		    b = saved(suite_doc("RND4K Q32T1 read", {150e6, 149e6, 151e6})),
		    c = saved(suite_doc("SEQ1M Q8T1 read", {1e9, 1e9, 1e9}));
	Compared x, y, z;
	REQUIRE_FALSE(load_compared(a, x));
	REQUIRE_FALSE(load_compared(b, y));
	REQUIRE_FALSE(load_compared(c, z));
	std::vector<Row> rows = compare_rows(x, y);
	REQUIRE(rows.size() == 3);
	CHECK(rows[0].metric == "bytes_per_second");
	CHECK(rows[0].change.change == doctest::Approx(0.5));
	CHECK(rows[0].change.significant());
	CHECK(compare_rows(x, z).empty());	// no test in common
	std::vector<std::string> w = compare_warnings(x, z);
	CHECK(w.size() == 2);	// each test is only in one
	for (const std::string &f : {a, b, c})
		unlink(f.c_str());
}
}
