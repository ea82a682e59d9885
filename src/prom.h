// prom: --prom FILE.  The result of a run, a quick suite, --steady,
// --sweep, --merge or --hosts in the Prometheus text format, for
// node_exporter's textfile collector, drawn from the mode's --json
// document (as --html's page is): gauges (latency a summary) with HELP and TYPE, no
// timestamps, a series per test and direction, written to FILE.sdb-tmp in
// FILE's directory (a name the collector, which reads *.prom, skips) and
// renamed over FILE.  Offers write_prom() to the modes' outputs.
#pragma once

#include "base.h"
#include "json.h"

#include <string>
#include <utility>
#include <vector>

namespace {

// The first line of every file --prom writes: a comment, which the format
// allows, and the mark outputs.h looks for where a file system keeps no
// attributes.
constexpr char prom_mark[] = "# Written by sdb --prom";

// A label value in the exposition format: \, " and newline escaped.
std::string prom_label(const std::string &v)
{
	std::string out;
	for (char c : v)
		out += c == '\\' ? std::string("\\\\") : c == '"' ? std::string("\\\"") : c == '\n' ? std::string("\\n")
												       : std::string(1, c);
	return out;
}

// One test in one direction: its labels and its figures.
struct PromSeries {
	std::vector<std::pair<std::string, std::string>> labels;
	double bytes_per_second = 0, iops = 0;
	std::vector<std::pair<const char *, double>> quantiles;	// "0.5", seconds
	double count = 0, sum_seconds = 0;	// the I/Os timed and their latencies added up; 0: not known
	bool verified = false;
};

std::string prom_labels(const PromSeries &s, const char *extra_name = nullptr, const char *extra = nullptr)
{
	std::string out;
	for (const auto &[k, v] : s.labels)
		out += (out.empty() ? "" : ",") + k + "=\"" + prom_label(v) + "\"";
	if (extra_name)
		out += (out.empty() ? "" : ",") + std::string(extra_name) + "=\"" + extra + "\"";
	return "{" + out + "}";
}

// The quantiles of a latency_ns object (p50, p99, p999), in seconds.
std::vector<std::pair<const char *, double>> prom_quantiles(const Json *lat)
{
	std::vector<std::pair<const char *, double>> q;
	if (!lat)
		return q;
	for (auto [key, name] : {std::pair<const char *, const char *>{"p50", "0.5"}, {"p99", "0.99"}, {"p999", "0.999"}})
		if (const Json *v = lat->find(key, Json::Type::number))
			q.push_back({name, v->number / 1e9});
	return q;
}

// A run's (or a merge's) total as one series per direction: a mix's reads
// and writes apart.
void prom_total(const Json &doc, std::vector<PromSeries> &out)
{
	const Json *o = doc.find("options", Json::Type::object), *t = doc.find("total", Json::Type::object);
	if (!o || !t)
		return;
	const Json *d = doc.find("device", Json::Type::object);
	bool verified = d && d->flag("verified");
	if (const Json *hosts = doc.find("hosts", Json::Type::array)) {	// a merge: every host's device verified
		verified = !hosts->items.empty();
		for (const Json &h : hosts->items) {
			const Json *hd = h.find("device", Json::Type::object);
			verified = verified && hd && hd->flag("verified");
		}
	}
	auto add = [&](const Json &side, const std::string &direction) {
		PromSeries s;
		s.labels = {{"target", o->str("file")}};
		if (d && !d->str("name").empty())
			s.labels.push_back({"device", d->str("name")});
		s.labels.push_back({"direction", direction});
		s.labels.push_back({"pattern", o->str("mode")});
		s.labels.push_back({"block_size", format("%.0f", o->num("block_size"))});
		s.labels.push_back({"depth", format("%.0f", o->num("queue_depth", 1))});
		s.labels.push_back({"threads", format("%.0f", t->num("threads", o->num("threads")))});
		s.bytes_per_second = side.num("bytes_per_second");
		s.iops = side.num("iops");
		s.quantiles = prom_quantiles(side.find("latency_ns", Json::Type::object));
		if (const Json *lat = side.find("latency_ns", Json::Type::object)) {
			s.count = side.num("ops");
			s.sum_seconds = lat->num("mean") * s.count / 1e9;
		}
		s.verified = verified;
		out.push_back(s);
	};
	const Json *reads = t->find("read", Json::Type::object), *writes = t->find("write", Json::Type::object);
	if (reads && writes) {
		add(*reads, "read");
		add(*writes, "write");
	} else {
		add(*t, o->str("op"));
	}
}

// A quick suite's rows: a series each, labelled with the test's name.
void prom_suite(const Json &doc, std::vector<PromSeries> &out)
{
	const Json *q = doc.find("quick", Json::Type::object), *suite = doc.find("suite", Json::Type::array);
	if (!q || !suite)
		return;
	// The directory given, not the test file in it (sdb-quick.PID: a new
	// name, and so a new series, every run).
	std::string quick_dir = q->str("file");
	std::size_t slash = quick_dir.find_last_of('/');
	if (quick_dir.compare(slash == std::string::npos ? 0 : slash + 1, 10, "sdb-quick.") == 0)
		quick_dir = slash == std::string::npos ? "." : slash == 0 ? "/" : quick_dir.substr(0, slash);
	for (const Json &row : suite->items) {
		const Json *m = row.find("median", Json::Type::object);
		if (!m)
			continue;
		PromSeries s;
		s.labels = {{"target", quick_dir},
			    {"direction", row.str("op")},
			    {"pattern", row.str("mode")},
			    {"block_size", format("%.0f", row.num("block_size"))},
			    {"depth", format("%.0f", row.num("queue_depth", 1))},
			    {"threads", format("%.0f", row.num("threads", 1))},
			    {"test", row.str("name")}};
		s.bytes_per_second = m->num("bytes_per_second");
		s.iops = m->num("iops");
		if (const Json *p99 = m->find("p99_ns", Json::Type::number))
			s.quantiles.push_back({"0.99", p99->number / 1e9});
		s.verified = m->num("delivered") >= 0.9;
		out.push_back(s);
	}
}

// The exposition text of a document; empty when it holds no result (a
// comparison, a run that never started).
std::string prom_text(const Json &doc)
{
	std::vector<PromSeries> series;
	prom_suite(doc, series);
	if (series.empty())
		prom_total(doc, series);
	if (series.empty())
		return "";
	double when = doc.num("start_unix", doc.find("total", Json::Type::object)
						    ? doc.find("total", Json::Type::object)->num("start_unix")
						    : 0);
	std::string text = std::string(prom_mark) + " " + doc.str("version") + "\n";
	auto gauge = [&](const char *name, const char *help) {
		text += format("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	};
	gauge("sdb_bytes_per_second", "Bytes moved per second over the timed window (a suite's row: the median run).");
	for (const PromSeries &s : series)
		text += "sdb_bytes_per_second" + prom_labels(s) + " " + format("%.10g", s.bytes_per_second) + "\n";
	gauge("sdb_iops", "I/Os completed per second over the timed window.");
	for (const PromSeries &s : series)
		text += "sdb_iops" + prom_labels(s) + " " + format("%.10g", s.iops) + "\n";
	// Latency is a summary: quantiles, and where the document has them
	// the count of I/Os timed and their sum (mean x count).
	text += "# HELP sdb_latency_seconds Latency of one I/O at a quantile, from every thread's histogram.\n"
		"# TYPE sdb_latency_seconds summary\n";
	for (const PromSeries &s : series) {
		for (const auto &[q, v] : s.quantiles)
			text += "sdb_latency_seconds" + prom_labels(s, "quantile", q) + " " + format("%.9g", v) + "\n";
		if (!s.quantiles.empty() && s.count > 0)
			text += "sdb_latency_seconds_sum" + prom_labels(s) + " " + format("%.9g", s.sum_seconds) + "\n" +
				"sdb_latency_seconds_count" + prom_labels(s) + " " + format("%.0f", s.count) + "\n";
	}
	gauge("sdb_verified", "1 when the device's own counters saw at least 90% of the bytes sdb claims, else 0.");
	for (const PromSeries &s : series)
		text += "sdb_verified" + prom_labels(s) + (s.verified ? " 1\n" : " 0\n");
	gauge("sdb_run_timestamp_seconds", "When the run started, in Unix seconds.");
	text += format("sdb_run_timestamp_seconds %.6f\n", when);
	gauge("sdb_info", "The sdb that wrote these metrics, and the host.");
	text += "sdb_info{version=\"" + prom_label(doc.str("version")) + "\",host=\"" + prom_label(doc.str("host")) +
		"\"} 1\n";
	return text;
}

// FILE.sdb-tmp, written whole and synced, then renamed over FILE
// (replace_whole): the collector sees the old metrics or the new.
Error write_prom(const std::string &path, const std::string &doc_text)
{
	Json doc;
	if (Error e = parse_json(doc_text, "--prom", doc, json_unbounded))	// sdb's own, just made
		return e;
	std::string text = prom_text(doc);
	if (text.empty())
		return runtime_error("--prom %s: the run has no result to write", path.c_str());
	return replace_whole("--prom", path, text, "prom");
}

} // namespace
