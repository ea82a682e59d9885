// Unit tests of src/merge.h: saved documents merged, percentiles from the
// union of their histograms, and what is flagged (loading them: load.cpp).
#include "../../src/merge.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"
#include "documents.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <cstdint>
#include <string>
#include <vector>

TEST_SUITE("merge") {

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
	// b's p99 (about 3 ms) is far above the others' (100 us, 1.5 us): a straggler by the p99 rule.
	CHECK(m.fleet.stragglers == std::vector<std::string>{"b.json"});
	REQUIRE(m.warnings.size() == 1);
	CHECK(m.warnings[0].rfind("straggler b.json: p99 ", 0) == 0);
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
		     "starts 0.500 s apart (a.json first, b.json last): the rate while all ran is the one to compare\n"
		     "the windows overlap 60% (all running 1.500 s of 2.500 s): the hosts did not run together; "
		     "compare each host's own rate\n");
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

// A document whose timeline covers only its first `covered` seconds and a
// share of its bytes, as a buffered write's does (its final fdatasync
// comes after the last sample).
std::string partial_document(const char *host, double start, double seconds, double covered, std::uint64_t bytes,
			     double share)
{
	return format("{\"version\": \"%s\", \"host\": \"%s\", \"start_unix\": %.6f, \"end_unix\": %.6f, "
		      "\"options\": {\"op\": \"write\"}, \"threads\": [{\"id\": 0, \"histogram\": [[200, 200, 4]]}], "
		      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": 4, \"seconds\": %.6f}, "
		      "\"timeline\": [{\"t\": %.6f, \"unix\": %.6f, \"bytes_per_second\": %.6f}], \"warnings\": []}",
		      SDB_VERSION, host, start, start + seconds, bytes, seconds, covered, start + covered, share * bytes / covered);
}

TEST_CASE("merge: All running counts the partial step after the timeline's last sample")
{
	// Three hosts in one window: the timeline holds 60% of the bytes (the
	// buffered writes), the rest came in the last 0.4 s (the fdatasync).
	std::vector<HostRun> runs;
	for (const char *h : {"a", "b", "c"})
		runs.push_back(loaded(partial_document(h, 1000, 1, 0.5, 100 << 20, 0.6), h));
	Merged m = merge_runs(runs);
	REQUIRE(m.together);
	double total_rate = static_cast<double>(m.bytes) / m.seconds;
	double all_rate = m.together_bytes / (m.together_end - m.together_start);
	CHECK(all_rate == doctest::Approx(total_rate).epsilon(0.01));	// was 60% of it
	CHECK(m.from_timelines);
	// Windows apart: the bytes inside the common window, the partial step's share too.
	std::vector<HostRun> apart{loaded(partial_document("a", 1000, 1, 0.5, 100, 0.5), "a"),
				   loaded(partial_document("b", 1000.5, 1, 0.5, 100, 0.5), "b")};
	m = merge_runs(apart);
	CHECK(m.together_end - m.together_start == doctest::Approx(0.5));
	CHECK(m.together_bytes == doctest::Approx(50 + 50));	// a's partial step (its second half), b's first step
}

TEST_CASE("load_inputs: histograms lifted out of the text merge as parsed ones, and errors keep their offsets")
{
	Histogram h;
	for (std::uint64_t v = 100; v < 5000000; v = v * 11 / 10 + 1)
		h.add(v);
	std::string text = sdb_document("a", 1000, 2, 1 << 20, h);
	HostRun parsed = loaded(text, "a.json");
	std::vector<HostRun> lifted = inputs(text, "a.json");
	REQUIRE(lifted.size() == 1);
	CHECK(lifted[0].latency == parsed.latency);
	CHECK(lifted[0].latency_json == parsed.latency_json);
	CHECK(json_buckets(lifted[0].latency) == json_histogram(h));
	std::string lifted_text = text;
	Lifted l = lift_histograms(lifted_text);
	CHECK(l.side.size() == 1);
	CHECK(lifted_text.size() < text.size() / 2);
	// A syntax error after a lifted histogram: the byte offset is the input's.
	std::string bad = text;
	bad.insert(bad.find("\"total\""), "@");
	std::string error;
	inputs(bad, "bad.json", &error);
	std::string expected;
	{
		Json v;
		expected = parse_json(bad, "bad.json", v).msg;
	}
	CHECK(error == expected);
	// A histogram that is not sdb's stays in the text and is named.
	std::string odd = text;
	odd.replace(odd.find("\"histogram\": [[") + 14, 0, "[256, 258, 1], ");
	inputs(odd, "odd.json", &error);
	CHECK(error == "odd.json: threads[0].histogram[0]: histogram bucket [256, 258] is not one of sdb's buckets");
}

TEST_CASE("admit: the same document twice, or a merged one beside its input, is an error naming both")
{
	Histogram h;
	h.add(1000);
	std::vector<HostRun> runs;
	Seen seen;
	HostRun a = loaded(sdb_document("a", 1000, 2, 100, h), "a.json"), b = loaded(sdb_document("b", 1000, 2, 300, h), "b.json");
	REQUIRE(!admit(a, runs, seen));
	runs.push_back(a);
	REQUIRE(!admit(b, runs, seen));
	runs.push_back(b);
	HostRun again = loaded(sdb_document("a", 1000, 2, 100, h), "copy.json");
	CHECK(admit(again, runs, seen).msg == "copy.json: the same document as a.json (host a, start 1000.000000): given twice");
	// A merged document of a and another: it holds a.
	std::vector<HostRun> pair{a, loaded(sdb_document("c", 1000, 2, 500, h), "c.json")};
	Merged m = merge_runs(pair);
	std::string merged_text;
	{
		char *buf = nullptr;
		std::size_t len = 0;
		std::FILE *f = open_memstream(&buf, &len);
		print_merged_json(f, pair, m, {}, {}, false);
		std::fclose(f);
		merged_text.assign(buf, len);
		free(buf);
	}
	HostRun merged = loaded(merged_text, "merged.json");
	CHECK(merged.parts.size() == 3);
	CHECK(admit(merged, runs, seen).msg ==
	      "merged.json: a merged document holding a.json (host a, start 1000.000000): merge either, not both");
	std::vector<HostRun> first{merged};
	Seen fresh;
	REQUIRE(!admit(merged, {}, fresh));
	CHECK(admit(a, first, fresh).msg ==
	      "a.json: one of the inputs of merged.json (host -, start 1000.000000), a merged document: merge either, not both");
	// Another sdb's document: flagged.
	std::string old = sdb_document("d", 1000, 2, 100, h);
	old.replace(old.find(SDB_VERSION), std::strlen(SDB_VERSION), "0.0.9");
	std::vector<HostRun> mixed{a, loaded(old, "d.json")};
	m = merge_runs(mixed);
	CHECK(std::find(m.warnings.begin(), m.warnings.end(),
			"d.json: written by sdb 0.0.9, this is sdb " SDB_VERSION ": its fields may mean something else") != m.warnings.end());
}

// A mix's document: each side's own histogram in total.read and total.write
// (or none, as an sdb before them wrote it); the threads' histogram holds both.
std::string mix_document(const char *host, double start, const Histogram &reads, const Histogram &writes, bool sides = true)
{
	Histogram both = reads;
	both.merge(writes);
	auto side = [&](const Histogram &h) {
		return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 "%s}", h.count() * 4096, h.count(),
			      sides ? (", \"histogram\": " + json_histogram(h)).c_str() : "");
	};
	return format("{\"version\": \"" SDB_VERSION "\", \"host\": \"%s\", \"start_unix\": %.6f, \"end_unix\": %.6f, "
		      "\"options\": {\"op\": \"mix\", \"mix\": 70, \"mode\": \"rand\", \"block_size\": 4096, \"size\": 1048576}, "
		      "\"threads\": [{\"id\": 0, \"histogram\": %s}], "
		      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": 2, \"read\": %s, \"write\": %s}, "
		      "\"warnings\": [], \"interrupted\": false}",
		      host, start, start + 2, json_histogram(both).c_str(), both.count() * 4096, both.count(),
		      side(reads).c_str(), side(writes).c_str());
}

TEST_CASE("merge: a mix's reads and writes keep their own percentiles, from each side's histograms added up")
{
	Histogram ra, wa, rb, wb, reads, writes;
	for (std::uint64_t i = 0; i < 3000; i++) {
		std::uint64_t r1 = 20000 + i * 7 % 9000, w1 = 400000 + i * 131 % 600000, r2 = 60000 + i * 13 % 30000;
		ra.add(r1), reads.add(r1), rb.add(r2), reads.add(r2);
		if (i % 3 == 0)
			wa.add(w1), wb.add(w1 * 2), writes.add(w1), writes.add(w1 * 2);
	}
	std::string a = mix_document("a", 1000, ra, wa), b = mix_document("b", 1000.01, rb, wb);
	std::vector<HostRun> runs{loaded(a, "a.json"), loaded(b, "b.json")};
	Merged m = merge_runs(runs);
	REQUIRE(m.side_latency_known);
	CHECK(m.side_latency[0].count() == reads.count());
	CHECK(m.side_latency[0].percentile(0.99) == reads.percentile(0.99));
	CHECK(m.side_latency[1].percentile(0.99) == writes.percentile(0.99));
	CHECK(m.side_latency[1].percentile(0.5) > m.side_latency[0].percentile(0.99));	// the writes are the slow side
	// The same through load_inputs, which lifts the histograms out of the text first.
	std::vector<HostRun> lifted = inputs(a, "a.json");
	REQUIRE(lifted.size() == 1);
	CHECK(lifted[0].side_histograms);
	CHECK(lifted[0].side_latency[1] == runs[0].side_latency[1]);
	// The merged document: each side's latency_ns and histogram, which a
	// second merge reads back as a run's.
	char *buf = nullptr;
	std::size_t len = 0;
	std::FILE *f = open_memstream(&buf, &len);
	print_merged_json(f, runs, m, {}, {}, false);
	std::fclose(f);
	std::string text(buf, len);
	free(buf);
	Json doc = json_of(text);
	const Json *write = doc.find("total")->find("write");
	REQUIRE(write);
	CHECK(write->find("latency_ns")->num("p99") == static_cast<double>(writes.percentile(0.99)));
	HostRun again = loaded(text, "merged.json");
	CHECK(again.side_histograms);
	std::vector<HostRun> one{again};
	CHECK(merge_runs(one).side_latency[0].percentile(0.99) == reads.percentile(0.99));
	// An input without them: the sides' latency is null, and said why.
	std::vector<HostRun> older{runs[0], loaded(mix_document("c", 1000, rb, wb, false), "c.json")};
	m = merge_runs(older);
	CHECK_FALSE(m.side_latency_known);
	CHECK(std::count(m.warnings.begin(), m.warnings.end(),
			 "c.json: no histograms of its reads and writes apart (an older sdb?): "
			 "the merged reads' and writes' latency is not given") == 1);
	CHECK(merged_side(m, 0).find("\"latency_ns\": null") != std::string::npos);
}

TEST_CASE("merge: every host's device verdict, in the line and in hosts[].device")
{
	Histogram h;
	h.add(1000);
	std::string ok = sdb_document("a", 1000, 2, 100, h), bad = sdb_document("b", 1000, 2, 100, h);
	const char *dev_ok = "\"device\": {\"name\": \"sdb\", \"path\": \"/dev/sdb\", \"bytes\": 100, \"delivered\": 1.000000, "
			     "\"busy\": 0.9, \"limit\": \"device\", \"link\": null, \"verified\": true, \"reason\": null}, ";
	const char *dev_bad = "\"device\": {\"name\": \"sdc\", \"path\": \"/dev/sdc\", \"bytes\": 10, \"delivered\": 0.100000, "
			      "\"busy\": 0.1, \"limit\": \"memory\", \"link\": null, \"verified\": false, \"reason\": \"the device saw 10% of the bytes\"}, ";
	ok.insert(ok.find("\"timeline\""), dev_ok);
	bad.insert(bad.find("\"timeline\""), dev_bad);
	std::vector<HostRun> runs{loaded(ok, "a.json"), loaded(bad, "b.json")};
	CHECK(device_words(runs[0].device) == "device sdb: 100% delivered, limit device");
	CHECK(device_words(runs[1].device) == "device sdc: 10% delivered (not confirmed), limit memory");
	Merged m = merge_runs(runs);
	CHECK(std::find(m.warnings.begin(), m.warnings.end(), "b.json: its device verdict failed: the device saw 10% of the bytes") !=
	      m.warnings.end());
	CHECK(json_host(runs[1]).find("\"device\": {\"name\": \"sdc\", \"path\": \"/dev/sdc\", \"bytes\": 10, \"delivered\": 0.100000") !=
	      std::string::npos);
}

} // TEST_SUITE("merge")
