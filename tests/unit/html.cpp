// html: the pages --html writes, from hand-made documents.
#include "../../src/html.h"

#include <doctest/doctest.h>

#include "helpers.h"

#include <string>

namespace {
std::string page_of(const std::string &text)
{
	Json doc;
	REQUIRE_FALSE(parse_json(text, "test", doc));
	std::string page;
	REQUIRE_FALSE(make_page(doc, text, page));
	return page;
}
}

TEST_SUITE("html") {

TEST_CASE("a sweep's response curve: three percentiles against the IOPS achieved, the knee marked")
{
	std::string doc = R"({"version": "0.1.0", "options": {"op": "read", "mode": "rand", "file": "f", "block_size": 4096,
		"threads": 1}, "total": {"bytes": 1, "seconds": 1, "bytes_per_second": 1, "iops": 1},
		"sweep": [{"offered": 1000, "achieved": 1000, "p50_ns": 80000, "p99_ns": 120000, "p999_ns": 200000},
			  {"offered": 5000, "achieved": 4990, "p50_ns": 90000, "p99_ns": 300000, "p999_ns": 900000},
			  {"offered": 10000, "achieved": 8000, "p50_ns": 400000, "p99_ns": 5000000, "p999_ns": 9000000}],
		"knee": {"iops": 4990, "share": 0.5, "p99_ns": 300000}, "warnings": []})";
	std::string page = page_of(doc);
	CHECK(page.find("Latency against load (log scale)") != std::string::npos);
	CHECK(count_of(page, "class=\"p50 dot\"") == 3);
	CHECK(count_of(page, "class=\"p99 dot\"") == 3);
	CHECK(count_of(page, "class=\"p999 dot\"") == 3);
	CHECK(page.find("knee: 4990 IOPS, p99 300.0 us") != std::string::npos);
	std::string no_knee = doc.substr(0, doc.find("\"knee\"")) + "\"knee\": null}";
	std::string plain = page_of(no_knee);
	CHECK(plain.find("Latency against load") != std::string::npos);
	CHECK(plain.find("knee:") == std::string::npos);
	std::string alone = R"({"version": "0.1.0", "sweep": [{"offered": 1, "achieved": 1, "p50_ns": 1000, "p99_ns": 2000,
		"p999_ns": 3000}, {"offered": 2, "achieved": 2, "p50_ns": 1000, "p99_ns": 2000, "p999_ns": 3000}], "knee": null})";
	CHECK(count_of(page_of(alone), "class=\"p99 dot\"") == 2);	// no options or total: the curve alone
}

TEST_CASE("a mix's page: reads and writes apart, each with its percentiles; a single-way run's as it was")
{
	std::string mix = R"({"version": "0.1.0", "options": {"op": "mix", "mode": "rand", "file": "f", "block_size": 4096,
		"threads": 1}, "threads": [{"histogram": [[2008, 2015, 10], [40960, 41215, 20]]}],
		"total": {"bytes": 1, "seconds": 1, "bytes_per_second": 1, "iops": 1,
		 "read": {"bytes": 1, "ops": 20, "latency_ns": {"min": 40960, "mean": 42000, "p50": 41000, "p90": 42000,
			  "p99": 42500, "p999": 43000, "max": 43007}},
		 "write": {"bytes": 1, "ops": 10, "latency_ns": {"min": 2000, "mean": 2020, "p50": 2010, "p90": 2030,
			  "p99": 2040, "p999": 2045, "max": 2047}}}, "warnings": []})";
	std::string page = page_of(mix);
	CHECK(page.find("aria-label=\"Latency percentiles, reads and writes apart\"") != std::string::npos);
	for (const char *row : {">reads p50<", ">writes p50<", ">reads p99<", ">writes p99<", ">reads p99.9<", ">writes p99.9<"})
		CHECK_MESSAGE(page.find(row) != std::string::npos, row);
	CHECK(count_of(page, "class=\"hbar bar\"") == 3);	// reads
	CHECK(count_of(page, "class=\"hbar write\"") == 3);
	CHECK(page.find(">42.5 us<") != std::string::npos);	// the reads' p99, and the writes' p99.9:
	CHECK(page.find(">2.0 us<") != std::string::npos);	// each side's own
	CHECK(page.find("Latency, reads: min 41.0 us, p50 41.0 us") != std::string::npos);
	CHECK(page.find("Latency, writes: min 2.0 us, p50 2.0 us") != std::string::npos);
	CHECK(page.find("Latency distribution of reads and writes together") != std::string::npos);
	std::string one = R"({"version": "0.1.0", "options": {"op": "read", "mode": "rand", "file": "f", "block_size": 4096,
		"threads": 1}, "threads": [{"histogram": [[40960, 41215, 20]]}], "total": {"bytes": 1, "seconds": 1,
		"bytes_per_second": 1, "iops": 1, "read": null, "write": null}, "warnings": []})";
	std::string single = page_of(one);
	CHECK(single.find("reads p") == std::string::npos);
	CHECK(single.find("Latency, reads") == std::string::npos);
	CHECK(single.find("class=\"hbar") == std::string::npos);
	CHECK(single.find("<p>Latency: min ") != std::string::npos);
	CHECK(single.find("Latency distribution (20 I/Os, log scale)") != std::string::npos);
}

TEST_CASE("a --ramp run's time charts say that they start at the ramp's end; a run without one's say nothing")
{
	std::string doc = R"({"version": "0.1.0", "options": {"op": "read", "mode": "rand", "file": "f", "block_size": 4096,
		"threads": 1, "ramp": 1.5}, "threads": [{"histogram": [[40960, 41215, 20]]}], "total": {"bytes": 1, "seconds": 2,
		"bytes_per_second": 1, "iops": 1, "read": null, "write": null},
		"timeline": [{"t": 1, "bytes_per_second": 4096, "p50_ns": 41000, "p99_ns": 41100},
			     {"t": 2, "bytes_per_second": 8192, "p50_ns": 41000, "p99_ns": 41200}], "warnings": []})";
	std::string page = page_of(doc);
	CHECK(count_of(page, "<text x=\"80\" y=\"236\" class=\"caption\">0 s is the end of the 1.5 s ramp: the ramp is not "
			     "timed and not drawn</text>") == 3);	// throughput, IOPS, percentiles over time
	std::string plain = doc;
	plain.replace(plain.find("\"ramp\": 1.5"), 11, "\"ramp\": null");
	std::string none = page_of(plain);
	CHECK(count_of(none, "<svg ") == 4);
	CHECK(count_of(none, "class=\"caption\"") == 0);
	CHECK(none.find("ramp") == none.find("\"ramp\": null") + 1);	// only in the document embedded
}

TEST_CASE("a quick suite's page: a bar per test in each chart, writes apart, the document embedded")
{
	std::string doc = R"({"version": "0.1.0", "quick": {"profile": "real", "file": "q"}, "suite": [
		{"name": "SEQ1M Q1T1 write", "op": "write", "median": {"bytes_per_second": 2e8, "iops": 190, "p99_ns": 0},
		 "min": {"bytes_per_second": 1e8, "iops": 95}, "max": {"bytes_per_second": 3e8, "iops": 286}},
		{"name": "SEQ1M Q1T1 read", "op": "read", "median": {"bytes_per_second": 4e8, "iops": 381, "p99_ns": 0},
		 "min": {"bytes_per_second": 4e8, "iops": 381}, "max": {"bytes_per_second": 4e8, "iops": 381}}],
		"warnings": ["</script> is not the end"]})";
	std::string page = page_of(doc);
	CHECK(count_of(page, "<svg ") == 2);
	CHECK(count_of(page, "class=\"hbar write\"") == 2);
	CHECK(count_of(page, "class=\"hbar bar\"") == 2);
	CHECK(count_of(page, "class=\"whisker\"") == 4);
	CHECK(count_of(page, "</script>") == 1);	// the warning's is escaped in the page and in the document
	CHECK(page.find("\\u003c/script> is not the end") != std::string::npos);
}

TEST_CASE("a merge's page: a bar per host, the straggler marked, failed hosts named")
{
	std::string doc = R"({"version": "0.1.0", "hosts": [
		{"source": "a", "host": "a", "total": {"bytes_per_second": 1e9, "iops": 1}, "latency_ns": {"p99": 1000}},
		{"source": "b", "host": "b", "total": {"bytes_per_second": 2e8, "iops": 1}, "latency_ns": {"p99": 9000}},
		{"source": "c", "host": "c", "exit": 255, "error": "ssh: no route"}],
		"total": {"hosts": 2, "bytes": 1, "seconds": 1, "bytes_per_second": 1.2e9, "iops": 2, "histogram": []},
		"fleet": {"stragglers": ["b"]}, "warnings": []})";
	std::string page = page_of(doc);
	CHECK(count_of(page, "class=\"hbar ") == 4);	// rate and p99, two hosts each
	CHECK(count_of(page, "class=\"hbar slow\"") == 2);
	CHECK(page.find("(straggler)") != std::string::npos);
	CHECK(page.find("c: ssh: no route") != std::string::npos);
}

TEST_CASE("a comparison's page: old and new, and each change with its interval or without")
{
	std::string doc = R"({"version": "0.1.0", "compare": [
		{"name": "t", "metric": "bytes_per_second", "old": 1e8, "new": 2e8, "change": 1, "low": 0.8, "high": 1.2, "significant": true},
		{"name": "t", "metric": "iops", "old": 10, "new": 10.1, "change": 0.01, "low": -0.1, "high": 0.12, "significant": false},
		{"name": "t", "metric": "p99_ns", "old": 1000, "new": 900, "change": -0.1, "low": null, "high": null, "significant": null}],
		"warnings": []})";
	std::string page = page_of(doc);
	CHECK(count_of(page, "class=\"hbar old\"") == 3);
	CHECK(count_of(page, "class=\"hbar new\"") == 3);
	CHECK(count_of(page, "class=\"whisker\"") == 2);
	CHECK(page.find("+1.0% (no significant difference)") != std::string::npos);
	CHECK(page.find("-10.0% (no interval)") != std::string::npos);
	CHECK(page.find("+100.0%<") != std::string::npos);
}

} // TEST_SUITE("html")
