// merge: --merge FILE....  sdb's --json documents read back (load_run),
// merged (merge_runs: bytes over the union of the windows, the rate where
// all ran, percentiles from the merged histograms) and reported, human or
// JSON (report_merged).
#pragma once

#include "base.h"
#include "json.h"
#include "options.h"
#include "stats.h"
#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

// Standard input or a file, whole; documents are small (a histogram bucket
// per line at most), so anything over 256 MiB is not one.
Error read_input(const std::string &file, std::string &text)
{
	Fd owned;
	int fd = 0;
	if (file != "-") {
		owned = Fd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
		if (!owned)
			return sys_error(errno, "%s", printable(file).c_str());
		fd = owned.get();
	}
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sys_error(errno, "%s", input_name(file).c_str());
		if (n == 0)
			return {};
		text.append(chunk, static_cast<std::size_t>(n));
		if (text.size() > 256 * MiB)
			return runtime_error("%s: over 256 MiB: not an sdb result", input_name(file).c_str());
	}
}

// One input to a merge: a document (--merge) or a host's run (--hosts).
struct HostRun {
	std::string source;		// the file, or HOST[:PATH]
	std::string host;		// the document's "host"
	Json options;
	unsigned threads = 0;
	std::uint64_t bytes = 0, ops = 0;
	double seconds = 0;
	bool windowed = false;		// start_unix and end_unix given
	double start_unix = 0, end_unix = 0;
	bool histogram = false;		// latency: the threads' merged histograms
	Histogram latency;
	std::optional<std::uint64_t> p99;	// a single thread's p99 without a histogram
	struct Step {
		double end_unix, seconds, bytes_per_second;
	};
	std::vector<Step> timeline;	// only with timeline[].unix
	bool mix = false;		// -M: total.read and total.write given
	std::uint64_t side_bytes[2] = {0, 0}, side_ops[2] = {0, 0};	// [0]: reads, [1]: writes
	bool interrupted = false;
	std::vector<std::string> warnings;
	std::string error;
};

// A document's count or size as an integer: one below 1 or past what 64
// bits hold (foreign or damaged JSON) is 0, never a conversion out of range.
std::uint64_t json_whole(double v) { return v >= 1 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; }

// [[low, high, count], ...] into h: every bucket must be one of sdb's.
Error add_histogram(const Json &buckets, Histogram &h, const std::string &name)
{
	for (const Json &b : buckets.items) {
		bool ok = b.type == Json::Type::array && b.items.size() == 3;
		for (std::size_t k = 0; ok && k < 3; k++)
			ok = b.items[k].type == Json::Type::number && b.items[k].number >= 0 &&
			     b.items[k].number == std::floor(b.items[k].number) && b.items[k].number < 1.8e19;
		if (!ok)
			return runtime_error("%s: a histogram bucket is not [low_ns, high_ns, count]", name.c_str());
		auto low = static_cast<std::uint64_t>(b.items[0].number), high = static_cast<std::uint64_t>(b.items[1].number);
		unsigned i = Histogram::index(low);
		if (Histogram::low(i) != low || Histogram::high(i) != high)
			return runtime_error("%s: histogram bucket [%" PRIu64 ", %" PRIu64 "] is not one of sdb's buckets",
					     name.c_str(), low, high);
		h.add_bucket(i, static_cast<std::uint64_t>(b.items[2].number));
	}
	return {};
}

// A document into a HostRun.  Foreign JSON (not sdb's) is an error that
// names the key it lacks.
Error load_run(const Json &doc, const std::string &file, HostRun &r)
{
	std::string name = input_name(file);
	if (doc.type != Json::Type::object)
		return runtime_error("%s: not an sdb result (not a JSON object); --merge reads sdb --json output",
				     name.c_str());
	for (const char *key : {"version", "options", "total"})
		if (!doc.find(key))
			return runtime_error("%s: not an sdb result (no \"%s\"); --merge reads sdb --json output", name.c_str(),
					     key);
	const Json *total = doc.find("total", Json::Type::object);
	const Json *options = doc.find("options", Json::Type::object);
	if (!total || !options || !total->find("bytes", Json::Type::number) || !total->find("seconds", Json::Type::number))
		return runtime_error("%s: not an sdb result (no total bytes and seconds); --merge reads sdb --json output",
				     name.c_str());
	r.options = *options;
	r.host = doc.str("host");
	r.bytes = json_whole(total->num("bytes"));
	r.ops = json_whole(total->num("ops"));
	r.seconds = std::max(0.0, total->num("seconds"));
	const Json *sides[2] = {total->find("read", Json::Type::object), total->find("write", Json::Type::object)};
	r.mix = sides[0] && sides[1];
	for (int k = 0; r.mix && k < 2; k++) {
		r.side_bytes[k] = json_whole(sides[k]->num("bytes"));
		r.side_ops[k] = json_whole(sides[k]->num("ops"));
	}
	const Json *threads = doc.find("threads", Json::Type::array);
	r.threads = threads ? static_cast<unsigned>(threads->items.size())
			    : static_cast<unsigned>(json_whole(total->num("threads", options->num("threads", 1))));
	if (threads) {	// a run's document: the threads' histograms
		r.histogram = !threads->items.empty();
		for (const Json &t : threads->items) {
			const Json *h = t.find("histogram", Json::Type::array);
			if (!h) {
				r.histogram = false;
				break;
			}
			if (Error e = add_histogram(*h, r.latency, name))
				return e;
		}
		const Json *lat = threads->items.size() == 1 ? threads->items[0].find("latency_ns", Json::Type::object) : nullptr;
		if (lat && lat->find("p99", Json::Type::number))
			r.p99 = json_whole(lat->num("p99"));
	} else if (const Json *h = total->find("histogram", Json::Type::array)) {	// a merged document
		r.histogram = true;
		if (Error e = add_histogram(*h, r.latency, name))
			return e;
	}
	if (!r.histogram)
		r.latency = Histogram();
	const Json *start = doc.find("start_unix", Json::Type::number), *end = doc.find("end_unix", Json::Type::number);
	if (!start)
		start = total->find("start_unix", Json::Type::number), end = total->find("end_unix", Json::Type::number);
	if (start && end && end->number >= start->number) {
		r.windowed = true;
		r.start_unix = start->number;
		r.end_unix = end->number;
	}
	if (const Json *tl = doc.find("timeline", Json::Type::array)) {
		double last_t = 0;
		for (const Json &p : tl->items) {
			if (!p.find("unix", Json::Type::number)) {
				r.timeline.clear();
				break;
			}
			double t = p.num("t");
			r.timeline.push_back({p.num("unix"), std::max(0.0, t - last_t), p.num("bytes_per_second")});
			last_t = t;
		}
	}
	r.interrupted = doc.flag("interrupted");
	if (const Json *w = doc.find("warnings", Json::Type::array))
		for (const Json &s : w->items)
			if (s.type == Json::Type::string)
				r.warnings.push_back(s.text);
	r.error = doc.str("error");
	return {};
}

// What a merge adds up to.
struct Merged {
	unsigned threads = 0;
	std::uint64_t bytes = 0, ops = 0;
	double start_unix = 0, end_unix = 0;	// the union of the windows
	double seconds = 0;
	bool together = false;			// a window in which all ran
	double together_start = 0, together_end = 0, together_bytes = 0;
	bool from_timelines = true;		// together_bytes from every timeline (else some at their mean rate)
	Histogram latency;
	unsigned with_latency = 0;		// inputs whose histograms are in latency
	bool mix = false;			// every input a mix (-M): its reads and writes apart
	std::uint64_t side_bytes[2] = {0, 0}, side_ops[2] = {0, 0};	// [0]: reads, [1]: writes
	std::vector<std::string> warnings;
};

// The bytes a run moved in [a, b] of Unix time: from its timeline where
// it has one with Unix times, else at its mean rate over its window.
double bytes_between(const HostRun &r, double a, double b, bool &from_timeline)
{
	auto overlap = [&](double lo, double hi) { return std::max(0.0, std::min(hi, b) - std::max(lo, a)); };
	if (r.timeline.empty()) {
		from_timeline = false;
		double len = r.end_unix - r.start_unix;
		return len > 0 ? static_cast<double>(r.bytes) * overlap(r.start_unix, r.end_unix) / len : 0;
	}
	double sum = 0;
	for (const HostRun::Step &s : r.timeline)
		sum += s.bytes_per_second * overlap(s.end_unix - s.seconds, s.end_unix);
	return sum;
}

// The option keys whose values differ between the inputs (not "file":
// every host has its own).
std::vector<std::string> options_differ(const std::vector<HostRun> &runs)
{
	std::vector<std::string> out;
	std::vector<std::string> keys;
	for (const HostRun &r : runs)
		for (const auto &m : r.options.members)
			if (m.first != "file" && std::find(keys.begin(), keys.end(), m.first) == keys.end())
				keys.push_back(m.first);
	for (const std::string &k : keys) {
		std::string first, values;
		bool differ = false;
		for (std::size_t i = 0; i < runs.size(); i++) {
			const Json *v = runs[i].options.find(k);
			std::string text = v ? json_dump(*v) : "(none)";
			if (i == 0)
				first = text;
			differ = differ || text != first;
			values += (i ? ", " : "") + text;
		}
		if (differ)
			out.push_back(format("options differ: %s is %s (in input order)", k.c_str(), values.c_str()));
	}
	return out;
}

Merged merge_runs(std::vector<HostRun> &runs)
{
	Merged m;
	if (runs.empty())
		return m;
	m.warnings = options_differ(runs);
	// Documents without a window (an older sdb) are taken to start with
	// the earliest of the others, as threads of one run do.
	double earliest = 0;
	bool any = false;
	for (const HostRun &r : runs)
		if (r.windowed) {
			earliest = any ? std::min(earliest, r.start_unix) : r.start_unix;
			any = true;
		}
	for (HostRun &r : runs)
		if (!r.windowed) {
			r.start_unix = earliest;
			r.end_unix = earliest + r.seconds;
			if (any)
				m.warnings.push_back(r.source + ": no start_unix/end_unix (an older sdb): taken to start with the earliest");
		}
	m.start_unix = runs[0].start_unix;
	m.end_unix = runs[0].end_unix;
	m.together_start = runs[0].start_unix;
	m.together_end = runs[0].end_unix;
	const HostRun *first = &runs[0], *last = &runs[0];
	m.mix = std::all_of(runs.begin(), runs.end(), [](const HostRun &r) { return r.mix; });
	for (const HostRun &r : runs) {
		for (int k = 0; m.mix && k < 2; k++) {
			m.side_bytes[k] += r.side_bytes[k];
			m.side_ops[k] += r.side_ops[k];
		}
		m.threads += r.threads;
		m.bytes += r.bytes;
		m.ops += r.ops;
		m.start_unix = std::min(m.start_unix, r.start_unix);
		m.end_unix = std::max(m.end_unix, r.end_unix);
		m.together_start = std::max(m.together_start, r.start_unix);
		m.together_end = std::min(m.together_end, r.end_unix);
		first = r.start_unix < first->start_unix ? &r : first;
		last = r.start_unix > last->start_unix ? &r : last;
		if (r.histogram) {
			m.latency.merge(r.latency);
			m.with_latency++;
		} else {
			m.warnings.push_back(r.source + ": no latency histograms (an older sdb?): its latency is left out of the merged percentiles");
		}
		if (r.interrupted)
			m.warnings.push_back(r.source + ": interrupted: its results are partial");
		if (!r.error.empty())
			m.warnings.push_back(r.source + ": failed after it started: " + r.error);
	}
	// A warning several inputs share (the zero buffer, say) once, naming them all.
	std::vector<std::pair<std::string, std::string>> warned;	// text, sources
	for (const HostRun &r : runs)
		for (const std::string &w : r.warnings) {
			auto it = std::find_if(warned.begin(), warned.end(), [&](const auto &x) { return x.first == w; });
			if (it == warned.end())
				warned.push_back({w, r.source});
			else if (it->second.size() < 200)
				it->second += ", " + r.source;
		}
	for (const auto &w : warned)
		m.warnings.push_back(w.second + " warned: " + w.first);
	m.seconds = m.end_unix - m.start_unix;
	if (last->start_unix - first->start_unix > 0.1)
		m.warnings.push_back(format("starts %.3f s apart (%s first, %s last): the rate while all ran is the one to compare",
					    last->start_unix - first->start_unix, first->source.c_str(), last->source.c_str()));
	m.together = runs.size() > 1 && m.together_end > m.together_start;
	if (runs.size() == 1) {
		m.together = m.seconds > 0;
		m.together_bytes = static_cast<double>(m.bytes);
	} else if (m.together) {
		for (const HostRun &r : runs)
			m.together_bytes += bytes_between(r, m.together_start, m.together_end, m.from_timelines);
	}
	return m;
}

// The header's account of the test, from the first input's options.
std::string describe_options(const Json &o)
{
	std::string s = o.str("op");
	if (o.find("mix", Json::Type::number))	// -M: as the run's own header says it
		s += format(" %g%% read", o.num("mix"));
	s += " " + o.str("mode");
	if (o.find("block_size", Json::Type::number))
		s += ", " + format_bytes(json_whole(o.num("block_size"))) + " blocks";
	if (o.find("size", Json::Type::number))
		s += ", " + format_bytes(json_whole(o.num("size"))) + " per thread";
	if (o.num("time_limit") > 0)
		s += format(", %g s per thread", o.num("time_limit"));
	if (o.flag("direct")) s += ", O_DIRECT";
	if (o.flag("sync")) s += ", O_SYNC";
	if (o.flag("cached")) s += ", cached";
	if (o.num("queue_depth", 1) > 1) s += format(", queue depth %.0f", o.num("queue_depth"));
	if (o.num("fsync") > 0) s += format(", fdatasync every %g write%s", o.num("fsync"), o.num("fsync") == 1 ? "" : "s");
	if (o.num("ramp") > 0) s += format(", %g s ramp first (not counted)", o.num("ramp"));
	if (o.flag("verify")) s += ", --verify";
	return s;
}

std::string run_label(const HostRun &r, bool files)
{
	if (!files)
		return r.source;
	return (r.host.empty() ? "?" : printable(r.host)) + " (" + r.source + ")";
}

void print_merged_human(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m, bool files)
{
	std::fprintf(out, "sdb %s: %zu %s merged: %s%s\n", SDB_VERSION, runs.size(),
		     files ? (runs.size() == 1 ? "result" : "results") : (runs.size() == 1 ? "host" : "hosts"),
		     describe_options(runs[0].options).c_str(),
		     std::any_of(m.warnings.begin(), m.warnings.end(),
				 [](const std::string &w) { return w.rfind("options differ", 0) == 0; })
			     ? " (options differ: see the warnings)"
			     : "");
	for (const HostRun &r : runs) {
		std::string p99 = r.histogram ? format_ns(r.latency.percentile(0.99)) : r.p99 ? format_ns(*r.p99) : "-";
		std::fprintf(out, "Host %s: %u thread%s, %.6f seconds -> %s, %.2f IOPS, p99 %s%s\n", run_label(r, files).c_str(),
			     r.threads, r.threads == 1 ? "" : "s", r.seconds, format_rate(rate(r.bytes, r.seconds)).c_str(),
			     rate(r.ops, r.seconds), p99.c_str(), r.interrupted ? " (interrupted)" : "");
	}
	std::fprintf(out, "Total (%zu %s%s, %u thread%s): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops, %s\n",
		     runs.size(), files ? "result" : "host", runs.size() == 1 ? "" : "s", m.threads, m.threads == 1 ? "" : "s", m.seconds,
		     format_rate(rate(m.bytes, m.seconds)).c_str(), rate(m.ops, m.seconds), m.ops,
		     format_bytes(m.bytes).c_str());
	for (int k = 0; m.mix && k < 2; k++)	// as a mix's own Total gives them, without latency (its histogram is of both sides)
		std::fprintf(out, "           %s  %5.1f%%: %s, %.2f IOPS\n", k ? "write" : "read ",
			     m.ops ? 100.0 * static_cast<double>(m.side_ops[k]) / static_cast<double>(m.ops) : 0.0,
			     format_rate(rate(m.side_bytes[k], m.seconds)).c_str(), rate(m.side_ops[k], m.seconds));
	if (runs.size() > 1) {
		if (m.together)
			std::fprintf(out, "All running: %.6f seconds -> %s (%s)\n", m.together_end - m.together_start,
				     format_rate(m.together_bytes / (m.together_end - m.together_start)).c_str(),
				     m.from_timelines ? "from the timelines" : "some at their mean rate: no timeline times");
		else
			std::fprintf(out, "All running: never (the windows do not overlap)\n");
	}
	if (m.with_latency)
		std::fprintf(out, "Latency (merged histograms, %" PRIu64 " I/Os): min %s, avg %s, p50 %s, p99 %s, p99.9 %s, max %s\n",
			     m.latency.count(), format_ns(m.latency.min()).c_str(), format_ns(m.latency.mean()).c_str(),
			     format_ns(m.latency.percentile(0.5)).c_str(), format_ns(m.latency.percentile(0.99)).c_str(),
			     format_ns(m.latency.percentile(0.999)).c_str(), format_ns(m.latency.max()).c_str());
}

// A merged mix's reads (k = 0) or writes (1) over the union of the
// windows, as a run's total.read and total.write but for the latency,
// whose histogram the documents keep for both sides together; else null.
std::string merged_side(const Merged &m, int k)
{
	if (!m.mix)
		return "null";
	return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"bytes_per_second\": %s, \"iops\": %s}",
		      m.side_bytes[k], m.side_ops[k], json_number(rate(m.side_bytes[k], m.seconds)).c_str(),
		      json_number(rate(m.side_ops[k], m.seconds)).c_str());
}

void print_merged_json(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m,
		       const std::vector<std::string> &errors, bool interrupted)
{
	std::string doc = format("{\"version\": %s", json_string(SDB_VERSION).c_str());
	doc += ",\n \"options\": " + (runs.empty() ? std::string("{}") : json_dump(runs[0].options));
	doc += ",\n \"hosts\": [";
	for (std::size_t i = 0; i < runs.size(); i++) {
		const HostRun &r = runs[i];
		doc += format("%s{\"source\": %s, \"host\": %s, \"threads\": %u, \"start_unix\": %s, \"end_unix\": %s, "
			      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %s, "
			      "\"bytes_per_second\": %s, \"iops\": %s}, \"latency_ns\": %s, \"histogram\": %s, \"interrupted\": %s, "
			      "\"error\": %s}",
			      i ? ",\n  " : "\n  ", json_string(r.source).c_str(), json_string_or_null(r.host).c_str(), r.threads,
			      r.windowed ? json_number(r.start_unix).c_str() : "null",
			      r.windowed ? json_number(r.end_unix).c_str() : "null", r.bytes, r.ops,
			      json_number(r.seconds).c_str(), json_number(rate(r.bytes, r.seconds)).c_str(),
			      json_number(rate(r.ops, r.seconds)).c_str(), r.histogram ? json_latency(r.latency).c_str() : "null",
			      r.histogram ? json_histogram(r.latency).c_str() : "null", json_bool(r.interrupted).c_str(), json_string_or_null(r.error).c_str());
	}
	std::string together = "null";
	if (m.together)
		together = format("{\"start_unix\": %s, \"end_unix\": %s, \"seconds\": %s, \"bytes\": %.0f, "
				  "\"bytes_per_second\": %s, \"from\": \"%s\"}",
				  json_number(m.together_start).c_str(), json_number(m.together_end).c_str(),
				  json_number(m.together_end - m.together_start).c_str(), m.together_bytes,
				  json_number(m.together_bytes / (m.together_end - m.together_start)).c_str(),
				  m.from_timelines ? "timeline" : "mean");
	doc += format("],\n \"total\": {\"hosts\": %zu, \"threads\": %u, \"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
		      ", \"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"start_unix\": %s, \"end_unix\": %s, "
		      "\"all_running\": %s, \"read\": %s, \"write\": %s, \"latency_ns\": %s,\n  \"histogram\": %s}",
		      runs.size(), m.threads, m.bytes, m.ops, json_number(m.seconds).c_str(),
		      json_number(rate(m.bytes, m.seconds)).c_str(), json_number(rate(m.ops, m.seconds)).c_str(),
		      json_number(m.start_unix).c_str(), json_number(m.end_unix).c_str(), together.c_str(),
		      merged_side(m, 0).c_str(), merged_side(m, 1).c_str(),
		      m.with_latency ? json_latency(m.latency).c_str() : "null", json_histogram(m.latency).c_str());
	doc += ",\n \"warnings\": " + json_warnings(m.warnings);
	doc += ",\n \"errors\": " + json_warnings(errors);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// The merged report of what loaded; the errors (one line each) were
// printed already.
void report_merged(std::FILE *out, std::vector<HostRun> &runs, const std::vector<std::string> &errors, bool json,
		   bool files, bool interrupted)
{
	if (runs.empty())
		return;
	Merged m = merge_runs(runs);
	emit_warnings(m.warnings);
	json ? print_merged_json(out, runs, m, errors, interrupted) : print_merged_human(out, runs, m, files);
	if (interrupted && !json)
		std::fprintf(out, "Interrupted: the results above are partial\n");
	flush_output(out);
}

// sdb --merge FILE...: every input that loads is merged; each that does
// not is one error line, and the exit status is 1.
int run_merge(const Options &opt, std::FILE *out)
{
	std::vector<HostRun> runs;
	std::vector<std::string> errors;
	auto failed = [&](const Error &e) {
		print_error(e);
		errors.push_back(e.msg);
	};
	for (const std::string &file : opt.merge_files) {
		std::string text;
		if (Error e = read_input(file, text)) {
			failed(e);
			continue;
		}
		// A file may hold several documents one after another: FILE#2 is
		// the second.
		JsonParser parser(text);
		std::vector<HostRun> found;
		Json doc;
		bool foreign = false;
		while (!foreign && parser.parse_next(doc)) {
			HostRun r;
			r.source = input_name(file);
			if (Error e = load_run(doc, r.source, r)) {
				failed(e);
				foreign = true;
			}
			found.push_back(std::move(r));
			doc = Json();
		}
		if (foreign)
			continue;
		if (!*parser.what() && found.empty()) {
			failed(runtime_error("%s: empty: no sdb result in it", input_name(file).c_str()));
			continue;
		}
		if (*parser.what()) {
			failed(json_syntax_error(file, parser));
			continue;
		}
		for (std::size_t i = 0; found.size() > 1 && i < found.size(); i++)
			found[i].source += format("#%zu", i + 1);
		for (HostRun &r : found)
			runs.push_back(std::move(r));
	}
	report_merged(out, runs, errors, opt.json, true, false);
	// A run that failed after it started (a bad --verify, an I/O error) is
	// merged and warned about, and fails the merge as --hosts fails.
	bool any_failed = std::any_of(runs.begin(), runs.end(), [](const HostRun &r) { return !r.error.empty(); });
	return errors.empty() && !any_failed ? exit_ok : exit_runtime;
}

} // namespace
