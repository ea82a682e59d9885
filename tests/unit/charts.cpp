// charts: the SVG primitives of --html's pages, as the text they make.
#include "../../src/charts.h"

#include <doctest/doctest.h>

#include "helpers.h"

#include <string>
#include <vector>

TEST_SUITE("charts") {

TEST_CASE("html_text escapes what would end an element or an attribute")
{
	CHECK(html_text("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
	CHECK(nice_step(1000, 5) == 200);
	CHECK(nice_step(7, 4) == 2);
}

TEST_CASE("svg_bars: a rect a row, whiskers where given, bars to the left for a fall")
{
	std::vector<Bar> bars = {{"a", 10, 8.0, 12.0, "bar", "10"}, {"b <x>", -5, -9.0, -1.0, "same", "-5"}, {"c", 3, {}, {}, "slow", ""}};
	std::string s = svg_bars("T", bars, [](double x) { return std::to_string(static_cast<int>(x)); });
	CHECK(s.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
	CHECK(count_of(s, "class=\"hbar ") == 3);
	CHECK(count_of(s, "class=\"whisker\"") == 2);
	CHECK(count_of(s, "class=\"hbar slow\"") == 1);
	CHECK(s.find("b &lt;x&gt;") != std::string::npos);
	CHECK(s.find(">-10<") != std::string::npos);	// the axis reaches below the lowest whisker
	CHECK(s.find("height=\"112\"") != std::string::npos);	// 28 + 3 rows of 18 + 30
}

TEST_CASE("svg_lines: a path a series, a legend for more than one, decades on a log axis, the mark, the caption")
{
	std::vector<Series> lines = {{"p50", "p50", {{1, 1000}, {2, 2000}}}, {"p99", "p99", {{1, 50000}, {2, 0}}}};
	LineStyle style;
	style.log_y = true;
	style.steps = false;
	style.mark_x = 1.5;
	style.mark_label = "knee";
	std::string s = svg_lines("L", lines, style, [](double y) { return format("%g", y); });
	CHECK(count_of(s, "<path ") == 2);
	CHECK(count_of(s, "class=\"legend ") == 2);
	CHECK(count_of(s, "<circle ") == 3);	// a value of 0 has no place on a log axis
	for (const char *tick : {">1000<", ">10000<", ">100000<"})
		CHECK(s.find(tick) != std::string::npos);
	CHECK(s.find(">knee<") != std::string::npos);
	CHECK(count_of(s, "class=\"caption\"") == 0);
	style.caption = "under <the> axis";
	CHECK(count_of(svg_lines("L", lines, style, [](double y) { return format("%g", y); }),
		       "<text x=\"80\" y=\"236\" class=\"caption\">under &lt;the&gt; axis</text>") == 1);
	std::string one = svg_lines("one", {lines[0]}, LineStyle{}, [](double y) { return format("%g", y); });
	CHECK(count_of(one, "class=\"legend") == 0);
	CHECK(count_of(one, "<circle ") == 0);
}

TEST_CASE("svg_latency: the four marks, nothing without samples")
{
	Histogram h;
	for (int i = 1; i <= 1000; i++)
		h.add(static_cast<std::uint64_t>(i) * 1000);
	std::string s = svg_latency(h);
	for (const char *mark : {">p50 ", ">p99 ", ">p99.9 ", ">max "})
		CHECK(s.find(mark) != std::string::npos);
	CHECK(svg_latency(Histogram{}).empty());
}

} // TEST_SUITE("charts")
