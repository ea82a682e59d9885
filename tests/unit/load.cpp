// Unit tests of src/load.h: saved documents read back (a file or standard
// input), the inputs as launchers gather them, and a document into a
// HostRun with every count checked.
#include "../../src/load.h"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"
#include "documents.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

TEST_SUITE("load") {

TEST_CASE("read_input: a file whole; a missing one is an error naming it")
{
	std::string path_name = scratch_name("sdb-load-XXXXXX");
	char *path = path_name.data();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	std::string big(200000, 'x');	// more than one read's chunk
	REQUIRE(write(fd, big.data(), big.size()) == static_cast<ssize_t>(big.size()));
	close(fd);
	std::string text;
	CHECK(!read_input(path, text));
	CHECK(text == big);
	unlink(path);
	text.clear();
	Error e = read_input(path, text);
	CHECK(e.status == exit_runtime);
	CHECK(e.msg.find(path) != std::string::npos);
	CHECK(e.msg.find("No such file") != std::string::npos);
}

TEST_CASE("split_prefixed: pdsh's lines by host, in order; a plain document is not prefixed")
{
	std::vector<std::pair<std::string, std::string>> hosts;
	CHECK(split_prefixed("n1: {\"a\":\nn2: {\"b\":\npdsh@x: n3: exit 1\nn1: 1}\nn2: sdb: warning\nn2: 2}\n", hosts));
	REQUIRE(hosts.size() == 2);
	CHECK(hosts[0] == std::make_pair(std::string("n1"), std::string("{\"a\":\n1}\n")));
	CHECK(hosts[1] == std::make_pair(std::string("n2"), std::string("{\"b\":\n2}\n")));
	hosts.clear();
	CHECK_FALSE(split_prefixed("  {\"version\": \"x\"}\n", hosts));
	CHECK_FALSE(split_prefixed("not a: prefix {\n", hosts));
	CHECK(hosts.empty());
}

TEST_CASE("load_run: foreign documents and bad histograms are errors naming the file")
{
	auto error = [](const char *text) {
		HostRun r;
		return load_run(json_of(text), "x.json", r).msg;
	};
	CHECK(error("[1]") == "x.json: not an sdb result (not a JSON object); --merge reads sdb --json output");
	CHECK(error("{\"a\": 1}") == "x.json: not an sdb result (no \"version\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"quick\": {}, \"suite\": []}") ==
	      "x.json: a quick suite's result, which --merge does not add up; --merge reads the --json output of -w, -r "
	      "or -M runs (--compare takes quick suites)");
	CHECK(error("{\"version\": \"1\", \"options\": {}, \"total\": {}, \"sweep\": []}").find("x.json: a --sweep's result") == 0);
	CHECK(error("{\"version\": \"1\", \"options\": {}}") ==
	      "x.json: not an sdb result (no \"total\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": \"many\"}}") ==
	      "x.json: not an sdb result (no total bytes and seconds); --merge reads sdb --json output");
	const char *head = "{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": 1, \"seconds\": 1}, \"threads\": [{\"histogram\": ";
	// (the messages name the field: a bad count is one of them)
	CHECK(error((std::string(head) + "[[256, 258, 1]]}]}").c_str()) ==
	      "x.json: threads[0].histogram[0]: histogram bucket [256, 258] is not one of sdb's buckets");
	CHECK(error((std::string(head) + "[[1, 1]]}]}").c_str()) ==
	      "x.json: threads[0].histogram[0]: a histogram bucket is not [low_ns, high_ns, count]");
	CHECK(error((std::string(head) + "[[1, 1, -1]]}]}").c_str()) ==
	      "x.json: threads[0].histogram[0].count: -1 is not a count (a whole number from 0 below 2^64)");
	CHECK(error((std::string(head) + "[[256, 257, 4], [5, 5, 1]]}]}").c_str()).empty());
}

TEST_CASE("load_run: counts that are not counts are errors naming the file and the field")
{
	auto error = [](const std::string &text) {
		HostRun r;
		return load_run(json_of(text), "x.json", r).msg;
	};
	std::string doc = "{\"version\": \"0.1.0\", \"options\": {\"block_size\": 4096}, \"total\": {\"bytes\": BYTES, \"ops\": 1, \"seconds\": 1}}";
	auto with = [&](const char *bytes) { std::string d = doc; return d.replace(d.find("BYTES"), 5, bytes); };
	CHECK(error(with("100")).empty());
	CHECK(error(with("-5")) == "x.json: total.bytes: -5 is not a count (a whole number from 0 below 2^64)");
	CHECK(error(with("1e300")) == "x.json: total.bytes: 1.0000000000000001e+300 is not a count (a whole number from 0 below 2^64)");
	CHECK(error(with("1.5")) == "x.json: total.bytes: 1.5 is not a count (a whole number from 0 below 2^64)");
	CHECK(error(with("18446744073709551616")).find("total.bytes: ") != std::string::npos);
	std::string seconds = with("1");
	seconds.replace(seconds.find("\"seconds\": 1"), std::strlen("\"seconds\": 1"), "\"seconds\": -2");
	CHECK(error(seconds) == "x.json: total.seconds: -2 is not a time in seconds (a number from 0)");
	std::string block = with("1");
	block.replace(block.find("4096"), 4, "-4096");
	CHECK(error(block) == "x.json: options.block_size: -4096 is not a count (a whole number from 0 below 2^64)");
	// Histogram counts whose sum passes 64 bits: an error, never a wrapped count and "avg 0 ns".
	const char *head = "{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": 1, \"seconds\": 1}, \"threads\": [{\"histogram\": ";
	CHECK(error(std::string(head) + "[[0, 0, 18446744073709549568], [1, 1, 18446744073709549568]]}]}") ==
	      "x.json: threads[0].histogram[1]: the bucket counts add up past 64 bits (3.69e+19 I/Os, or their latency past 2^64 ns): not a run's");
	HostRun big;
	Error e = load_run(json_of(std::string(head) + "[[5, 5, 1000000000000000000]]}, {\"histogram\": [[5, 5, 1000000000000000000]]}]}"),
			   "x.json", big);
	REQUIRE_MESSAGE(!e, e.msg);
	CHECK(big.latency_ios == 2000000000000000000u);
	CHECK(big.latency_json.find("\"mean\": 5,") != std::string::npos);
}

TEST_CASE("load_inputs: pdsh/clush prefixes and Ansible --tree files")
{
	Histogram h;
	h.add(1000);
	std::string a = sdb_document("a", 1000, 2, 100, h), b = sdb_document("b", 1000, 2, 300, h);
	// pdsh interleaves the hosts' lines: split a's and b's over lines.
	auto lines = [](const std::string &doc) {
		std::vector<std::string> out;
		for (std::size_t at = 0; at < doc.size();) {	// a line per member, as sdb's own has a few
			std::size_t next = doc.find(", \"", at + 1);
			next = next == std::string::npos ? doc.size() : next + 2;
			out.push_back(doc.substr(at, next - at));
			at = next;
		}
		return out;
	};
	std::vector<std::string> la = lines(a), lb = lines(b);
	std::string pdsh;
	for (std::size_t i = 0; i < std::max(la.size(), lb.size()); i++) {
		if (i < la.size())
			pdsh += "node1: " + la[i] + "\n";
		if (i < lb.size())
			pdsh += "node2: " + lb[i] + "\n";
		if (i == 1)
			pdsh += "node2: sdb: warning: the buffer is all zeros\npdsh@head: node3: ssh exited with exit code 255\n";
	}
	std::vector<HostRun> found = inputs(pdsh, "pdsh.out");
	REQUIRE(found.size() == 2);
	CHECK(found[0].source == "pdsh.out#node1");
	CHECK(found[1].source == "pdsh.out#node2");
	CHECK(found[0].bytes + found[1].bytes == 400);
	// Ansible: the task's result, sdb's document in "stdout".
	std::string tree = "{\"changed\": true, \"cmd\": \"sdb ...\", \"rc\": 0, \"stderr\": \"\", \"stdout\": " + json_string(a) +
			   ", \"stdout_lines\": []}";
	found = inputs(tree, "results/node1");
	REQUIRE(found.size() == 1);
	CHECK(found[0].source == "results/node1");
	CHECK(found[0].bytes == 100);
	CHECK(found[0].latency.size() == 1);
	std::string error;
	inputs("{\"changed\": true, \"rc\": 2, \"stderr\": \"sdb: /data/t: No such file\", \"stdout\": \"\"}", "results/node2", &error);
	CHECK(error == "results/node2: the Ansible task failed (rc 2): sdb: /data/t: No such file");
}

} // TEST_SUITE("load")
