// Unit tests of src/merge.h: saved documents loaded and merged, percentiles
// from the union of their histograms, and what is flagged.
#include "../../src/merge.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cinttypes>
#include <cstdint>
#include <string>
#include <vector>

TEST_SUITE("merge") {

// A document as sdb writes it, with the keys --merge reads.
std::string sdb_document(const char *host, double start, double seconds, std::uint64_t bytes, const Histogram &h,
			 const char *options = "\"op\": \"write\", \"mode\": \"rand\", \"block_size\": 4096")
{
	return format("{\"version\": \"0.1.0\", \"host\": \"%s\", \"start_unix\": %.6f, \"end_unix\": %.6f, "
		      "\"options\": {%s, \"file\": \"%s.t\"}, \"threads\": [{\"id\": 0, \"histogram\": %s}], "
		      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %.6f}, "
		      "\"timeline\": [{\"t\": %.6f, \"unix\": %.6f, \"bytes_per_second\": %.6f}], \"warnings\": [], "
		      "\"interrupted\": false}",
		      host, start, start + seconds, options, host, json_histogram(h).c_str(), bytes, h.count(), seconds, seconds,
		      start + seconds, bytes / seconds);
}

HostRun loaded(const std::string &text, const char *name)
{
	HostRun r;
	r.source = name;
	Error e = load_run(json_of(text), name, r);
	REQUIRE_MESSAGE(!e, e.msg);
	return r;
}

TEST_CASE("merge: percentiles from the union of the saved histograms")
{
	Histogram a, b, c, all;
	std::uint64_t seed = 7;
	auto next = [&] { return seed = seed * 6364136223846793005ULL + 1442695040888963407ULL, seed >> 40; };
	for (int i = 0; i < 5000; i++) {
		std::uint64_t va = 20000 + next() % 100000, vb = 150000 + next() % 3000000, vc = 500 + next() % 1000;
		a.add(va), b.add(vb), c.add(vc);
		all.add(va), all.add(vb), all.add(vc);
	}
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 2, 1 << 20, a), "a.json"),
				  loaded(sdb_document("b", 1000.02, 2, 2 << 20, b), "b.json"),
				  loaded(sdb_document("c", 1000.04, 2, 3 << 20, c), "c.json")};
	Merged m = merge_runs(runs);
	// The union's histogram, as saved and read back, is the merged one.
	Histogram saved;
	for (unsigned i = 0; i < Histogram::buckets; i++)
		saved.add_bucket(i, all.at(i));
	CHECK(m.with_latency == 3);
	CHECK(m.latency.count() == all.count());
	for (unsigned i = 0; i < Histogram::buckets; i++)
		REQUIRE(m.latency.at(i) == all.at(i));
	for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) {
		CHECK(m.latency.percentile(q) == saved.percentile(q));
		// and within a bucket of the samples' own
		std::uint64_t exact = all.percentile(q);
		unsigned i = Histogram::index(exact);
		CHECK(m.latency.percentile(q) >= Histogram::low(i));
		CHECK(m.latency.percentile(q) <= Histogram::high(i));
	}
	CHECK(m.bytes == 6u << 20);
	CHECK(m.ops == 15000u);
	CHECK(m.threads == 3);
	CHECK(m.seconds == doctest::Approx(2.04));
	CHECK(m.together);
	CHECK(m.together_end - m.together_start == doctest::Approx(1.96));
	CHECK(m.together_bytes == doctest::Approx(6.0 * (1 << 20) * 1.96 / 2));
	CHECK(m.from_timelines);
	CHECK(m.warnings.empty());
}

TEST_CASE("merge: differing options, late starts, interrupted and warned inputs are flagged")
{
	Histogram h;
	h.add(1000);
	std::string late = sdb_document("b", 1000.5, 2, 100, h, "\"op\": \"write\", \"mode\": \"seq\", \"block_size\": 4096");
	std::string warned = sdb_document("c", 1000, 2, 100, h);
	warned.replace(warned.find("\"warnings\": []"), 14, "\"warnings\": [\"it was odd\"], \"error\": \"it broke\"");
	warned.replace(warned.find("\"interrupted\": false"), 20, "\"interrupted\": true");
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 2, 100, h), "a.json"), loaded(late, "b.json"),
				  loaded(warned, "c.json")};
	Merged m = merge_runs(runs);
	std::string all;
	for (const std::string &w : m.warnings)
		all += w + "\n";
	CHECK(all == "options differ: mode is \"rand\", \"seq\", \"rand\" (in input order)\n"
		     "c.json: interrupted: its results are partial\n"
		     "c.json: failed after it started: it broke\n"
		     "c.json warned: it was odd\n"
		     "starts 0.500 s apart (a.json first, b.json last): the rate while all ran is the one to compare\n");
}

TEST_CASE("merge: windows that do not overlap, documents without histograms or times")
{
	Histogram h;
	h.add(1000);
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 1, 100, h), "a.json"),
				  loaded(sdb_document("b", 1005, 1, 300, h), "b.json")};
	Merged m = merge_runs(runs);
	CHECK(!m.together);
	CHECK(m.seconds == doctest::Approx(6));
	std::vector<HostRun> old{loaded("{\"version\": \"0\", \"options\": {}, \"threads\": [{\"id\": 0}], "
				       "\"total\": {\"bytes\": 10, \"ops\": 1, \"seconds\": 2}}", "old.json"),
				 loaded("{\"version\": \"0\", \"options\": {}, \"threads\": [{\"id\": 0}, {\"id\": 1}], "
				       "\"total\": {\"bytes\": 30, \"ops\": 3, \"seconds\": 4}}", "old2.json")};
	m = merge_runs(old);	// taken as threads of one run: started together
	CHECK(m.seconds == doctest::Approx(4));
	CHECK(m.threads == 3);
	CHECK(m.with_latency == 0);
	CHECK(m.together_end - m.together_start == doctest::Approx(2));
	CHECK(m.together_bytes == doctest::Approx(10 + 15));
	CHECK(!m.from_timelines);
}

TEST_CASE("load_run: foreign documents and bad histograms are errors naming the file")
{
	auto error = [](const char *text) {
		HostRun r;
		return load_run(json_of(text), "x.json", r).msg;
	};
	CHECK(error("[1]") == "x.json: not an sdb result (not a JSON object); --merge reads sdb --json output");
	CHECK(error("{\"a\": 1}") == "x.json: not an sdb result (no \"version\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"options\": {}}") ==
	      "x.json: not an sdb result (no \"total\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": \"many\"}}") ==
	      "x.json: not an sdb result (no total bytes and seconds); --merge reads sdb --json output");
	const char *head = "{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": 1, \"seconds\": 1}, \"threads\": [{\"histogram\": ";
	CHECK(error((std::string(head) + "[[256, 258, 1]]}]}").c_str()) ==
	      "x.json: histogram bucket [256, 258] is not one of sdb's buckets");
	CHECK(error((std::string(head) + "[[1, 1]]}]}").c_str()) ==
	      "x.json: a histogram bucket is not [low_ns, high_ns, count]");
	CHECK(error((std::string(head) + "[[1, 1, -1]]}]}").c_str()) ==
	      "x.json: a histogram bucket is not [low_ns, high_ns, count]");
	CHECK(error((std::string(head) + "[[256, 257, 4], [5, 5, 1]]}]}").c_str()).empty());
}

} // TEST_SUITE("merge")
