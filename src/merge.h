// merge: --merge FILE....  The documents load.h reads back, merged
// (merge_runs: bytes over the union of the windows, the rate where all
// ran, percentiles from the merged histograms, the fleet view of fleet.h,
// the fleet's steady state of --steady results) and reported, human or
// JSON (report_merged).
#pragma once

#include "base.h"
#include "signals.h"
#include "json.h"
#include "context.h"
#include "options.h"
#include "stats.h"
#include "fleet.h"
#include "load.h"
#include "pts.h"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

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
	bool side_latency_known = false;	// a mix whose every input gave each side's histogram
	Histogram side_latency[2];		// then those, added up
	Fleet fleet;				// skew, overlap, stragglers, the worst p99
	struct FleetSteady {			// --steady results: the fleet is steady when every host is
		bool present = false;		// some input is a --steady result
		std::string variable;		// the first such input's
		std::size_t steady_hosts = 0;
		std::vector<std::string> not_steady;	// the inputs that are not (or are not --steady results)
		std::optional<double> value;	// every host steady: the windows' averages summed (bw, iops) or the highest (lat)
	} steady;
	std::vector<std::string> warnings;
};

// The fleet's steady state: every input a --steady result of the same
// variable and steady; then its figure, the hosts' window averages added
// up (a rate or IOPS; the highest for a latency).
Merged::FleetSteady fleet_steady(const std::vector<HostRun> &runs, std::vector<std::string> &warnings)
{
	Merged::FleetSteady f;
	for (const HostRun &r : runs)
		if (r.steady.present && !f.present) {
			f.present = true;
			f.variable = r.steady.variable;
		}
	if (!f.present)
		return f;
	double sum = 0, highest = 0;
	for (const HostRun &r : runs) {
		if (!r.steady.present)
			warnings.push_back(r.source + ": not a --steady result: the fleet is not judged steady");
		else if (r.steady.variable != f.variable)
			warnings.push_back(r.source + ": steady in " + printable(r.steady.variable) + ", not " + printable(f.variable) +
					   ": the fleet is not judged steady");
		else if (r.steady.steady) {
			f.steady_hosts++;
			sum += r.steady.average;
			highest = std::max(highest, r.steady.average);
			continue;
		}
		f.not_steady.push_back(r.source);
	}
	if (f.not_steady.empty())
		f.value = f.variable == "lat" ? highest : sum;
	return f;
}

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
			if (values.size() < 400)
				values += (i ? ", " : "") + text;
		}
		if (differ)
			out.push_back(format("options differ: %s is %s%s (in input order)", k.c_str(), values.c_str(),
					     values.size() >= 400 ? ", ..." : ""));
	}
	return out;
}

// The warnings about single inputs: older or other sdb, no histograms,
// interrupted, failed, the device's verdict.
void input_warnings(const std::vector<HostRun> &runs, std::vector<std::string> &w)
{
	for (const HostRun &r : runs) {
		if (!r.version.empty() && r.version != SDB_VERSION)
			w.push_back(r.source + ": written by sdb " + printable(r.version) + ", this is sdb " SDB_VERSION
				    ": its fields may mean something else");
		if (!r.histogram)
			w.push_back(r.source + ": no latency histograms (an older sdb?): its latency is left out of the merged percentiles");
		if (r.interrupted)
			w.push_back(r.source + ": interrupted: its results are partial");
		if (!r.error.empty())
			w.push_back(r.source + ": failed after it started: " + r.error);
		if (r.device.present && !r.device.verified && !r.device.reason.empty())
			w.push_back(r.source + ": its device verdict failed: " + printable(r.device.reason));
	}
}

// A warning several inputs share (the zero buffer, say) once, naming them all.
void shared_warnings(const std::vector<HostRun> &runs, std::vector<std::string> &out)
{
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
		out.push_back(w.second + " warned: " + w.first);
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
	m.side_latency_known = m.mix && std::all_of(runs.begin(), runs.end(), [](const HostRun &r) { return r.side_histograms; });
	std::vector<FleetHost> fleet;
	for (const HostRun &r : runs) {
		for (int k = 0; m.mix && k < 2; k++) {
			m.side_bytes[k] += r.side_bytes[k];
			m.side_ops[k] += r.side_ops[k];
			if (m.side_latency_known)
				for (const auto &b : r.side_latency[k])
					m.side_latency[k].add_bucket(b.first, b.second);
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
			for (const auto &b : r.latency)
				m.latency.add_bucket(b.first, b.second);
			m.with_latency++;
		}
		fleet.push_back({r.source, rate(r.bytes, r.seconds), r.p99, r.start_unix, r.end_unix});
	}
	input_warnings(runs, m.warnings);
	if (m.mix && !m.side_latency_known)
		for (const HostRun &r : runs)
			if (!r.side_histograms)
				m.warnings.push_back(r.source + ": no histograms of its reads and writes apart (an older sdb?): "
							     "the merged reads' and writes' latency is not given");
	shared_warnings(runs, m.warnings);
	m.seconds = m.end_unix - m.start_unix;
	if (last->start_unix - first->start_unix > 0.1)
		m.warnings.push_back(format("starts %.3f s apart (%s first, %s last): the rate while all ran is the one to compare",
					    last->start_unix - first->start_unix, first->source.c_str(), last->source.c_str()));
	m.fleet = judge_fleet(fleet);
	m.steady = fleet_steady(runs, m.warnings);
	m.warnings.insert(m.warnings.end(), m.fleet.warnings.begin(), m.fleet.warnings.end());
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
	std::string rank = r.rank ? format(" rank %" PRIu64, *r.rank) : "";
	if (!files)
		return r.source + rank;
	return (r.host.empty() ? "?" : printable(r.host)) + rank + " (" + r.source + ")";
}

// A host's verdict, as its own Device line gives it, in a few words.
std::string device_words(const HostRun::DeviceView &d)
{
	if (!d.present)
		return "device -";
	std::string name = d.name.empty() ? "device" : "device " + printable(d.name);
	if (!d.delivered)
		return name + ": unverifiable" + (d.reason.empty() ? "" : " (" + printable(d.reason) + ")") + ", limit " +
		       printable(d.limit);
	return format("%s: %.0f%% delivered%s, limit %s", name.c_str(), *d.delivered * 100, d.verified ? "" : " (not confirmed)",
		      printable(d.limit).c_str());
}

// The steady-state lines of a merge of --steady results: the fleet's
// verdict, then each host's window or "not steady".
void print_fleet_steady(std::FILE *out, const std::vector<HostRun> &runs, const Merged::FleetSteady &f, std::size_t failed,
			bool files)
{
	const std::string name = steady_variable_name(f.variable);
	if (f.value)
		std::fprintf(out, "Steady state (SNIA PTS 2.0, %s): the fleet is steady: every %s is; its windows' averages %s %s\n",
			     name.c_str(), files ? "result" : "host", f.variable == "lat" ? "are at most" : "add up to",
			     steady_value(f.variable, *f.value).c_str());
	else
		std::fprintf(out, "Steady state (SNIA PTS 2.0, %s): the fleet is not steady: %zu of %zu %s %s not\n", name.c_str(),
			     f.not_steady.size(), runs.size() + failed, files ? "results" : "hosts", f.not_steady.size() == 1 ? "is" : "are");
	for (const HostRun &r : runs) {
		const HostRun::SteadyView &v = r.steady;
		std::string words = !v.present		       ? "not a --steady result"
				    : v.variable != f.variable ? "steady state in " + printable(v.variable)
				    : v.fleet  ? (v.steady ? "a steady fleet, " + steady_value(v.variable, v.average) : "a fleet not steady")
				    : v.steady ? format("steady in rounds %zu-%zu, average %s", v.first, v.last,
							steady_value(v.variable, v.average).c_str())
					       : format("not steady in %zu round%s", v.rounds, v.rounds == 1 ? "" : "s");
		if (v.steady && v.left_at)
			words += format("; left steady state at round %zu", *v.left_at);
		std::fprintf(out, "  %s: %s\n", run_label(r, files).c_str(), words.c_str());
	}
}

void print_merged_human(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m,
			const std::vector<FailedHost> &failed, bool files)
{
	std::fprintf(out, "sdb %s: %zu %s merged: %s%s\n", SDB_VERSION, runs.size(),
		     files ? (runs.size() == 1 ? "result" : "results") : (runs.size() == 1 ? "host" : "hosts"),
		     describe_options(runs[0].options).c_str(),
		     std::any_of(m.warnings.begin(), m.warnings.end(),
				 [](const std::string &w) { return w.rfind("options differ", 0) == 0; })
			     ? " (options differ: see the warnings)"
			     : "");
	for (const HostRun &r : runs) {
		bool straggler = std::find(m.fleet.stragglers.begin(), m.fleet.stragglers.end(), r.source) != m.fleet.stragglers.end();
		std::fprintf(out, "Host %s: %u thread%s, %.6f seconds -> %s, %.2f IOPS, p99 %s; %s%s%s\n",
			     run_label(r, files).c_str(), r.threads, r.threads == 1 ? "" : "s", r.seconds,
			     format_rate(rate(r.bytes, r.seconds)).c_str(), rate(r.ops, r.seconds),
			     r.p99 ? format_ns(*r.p99).c_str() : "-", device_words(r.device).c_str(),
			     r.interrupted ? " (interrupted)" : "", straggler ? " (straggler)" : "");
	}
	for (const FailedHost &f : failed)
		std::fprintf(out, "Host %s: failed: %s\n", printable(f.label).c_str(), one_line(f.error).c_str());
	std::fprintf(out, "Total (%zu %s%s, %u thread%s): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops, %s\n",
		     runs.size(), files ? "result" : "host", runs.size() == 1 ? "" : "s", m.threads, m.threads == 1 ? "" : "s", m.seconds,
		     format_rate(rate(m.bytes, m.seconds)).c_str(), rate(m.ops, m.seconds), m.ops,
		     format_bytes(m.bytes).c_str());
	for (int k = 0; m.mix && k < 2; k++)	// as a mix's own Total gives them, with each side's merged latency where known
		std::fprintf(out, "           %s  %5.1f%%: %s, %.2f IOPS%s\n", k ? "write" : "read ",
			     m.ops ? 100.0 * static_cast<double>(m.side_ops[k]) / static_cast<double>(m.ops) : 0.0,
			     format_rate(rate(m.side_bytes[k], m.seconds)).c_str(), rate(m.side_ops[k], m.seconds),
			     m.side_latency_known ? (", " + latency_summary(m.side_latency[k])).c_str() : "");
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
	if (runs.size() > 1) {
		std::string names;
		for (const std::string &s : m.fleet.stragglers)
			if (names.size() < 400)
				names += (names.empty() ? "" : ", ") + s;
		std::fprintf(out, "Fleet: start skew %s, windows overlap %.1f%%, worst p99 %s%s, stragglers: %s\n",
			     format_ns(static_cast<std::uint64_t>(m.fleet.start_skew * 1e9)).c_str(), m.fleet.overlap * 100,
			     m.fleet.worst_p99 ? format_ns(*m.fleet.worst_p99).c_str() : "-",
			     m.fleet.worst_p99 ? (" (" + m.fleet.worst + ")").c_str() : "", names.empty() ? "none" : names.c_str());
	}
	if (m.steady.present)
		print_fleet_steady(out, runs, m.steady, failed.size(), files);
}

// A merged mix's reads (k = 0) or writes (1) over the union of the
// windows, as a run's total.read and total.write: the latency from the
// side's histograms added up, null where an input had none (an older
// sdb); not a mix: null.
std::string merged_side(const Merged &m, int k)
{
	if (!m.mix)
		return "null";
	return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"bytes_per_second\": %s, \"iops\": %s, "
		      "\"latency_ns\": %s, \"histogram\": %s}",
		      m.side_bytes[k], m.side_ops[k], json_number(rate(m.side_bytes[k], m.seconds)).c_str(),
		      json_number(rate(m.side_ops[k], m.seconds)).c_str(),
		      m.side_latency_known ? json_latency(m.side_latency[k]).c_str() : "null",
		      m.side_latency_known ? json_histogram(m.side_latency[k]).c_str() : "null");
}

std::string json_host(const HostRun &r)
{
	std::string s = format("{\"source\": %s, \"host\": %s, \"rank\": %s, \"threads\": %u, \"start_unix\": %s, \"end_unix\": %s, "
			       "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %s, "
			       "\"bytes_per_second\": %s, \"iops\": %s}, \"latency_ns\": %s, \"device\": ",
			       json_string(r.source).c_str(), json_string_or_null(r.host).c_str(),
			       r.rank ? std::to_string(*r.rank).c_str() : "null", r.threads,
			       r.windowed ? json_number(r.start_unix).c_str() : "null",
			       r.windowed ? json_number(r.end_unix).c_str() : "null", r.bytes, r.ops, json_number(r.seconds).c_str(),
			       json_number(rate(r.bytes, r.seconds)).c_str(), json_number(rate(r.ops, r.seconds)).c_str(),
			       r.histogram ? r.latency_json.c_str() : "null");
	s += r.device.present ? r.device.json : "null";	// appended, not through format(): the histogram is most of it
	s += ", \"histogram\": ";
	s += r.histogram ? json_buckets(r.latency) : "null";
	s += ", \"steady\": " + (r.steady.present ? r.steady.json : std::string("null"));
	s += format(", \"interrupted\": %s, \"error\": %s}", json_bool(r.interrupted).c_str(), json_string_or_null(r.error).c_str());
	return s;
}

// The merged document's "fleet_steady": null unless some input is a --steady result.
std::string json_fleet_steady(const Merged::FleetSteady &f)
{
	if (!f.present)
		return "null";
	return format("{\"variable\": %s, \"steady\": %s, \"steady_hosts\": %zu, \"not_steady\": %s, \"value\": %s}",
		      json_string(f.variable).c_str(), json_bool(f.value.has_value()).c_str(), f.steady_hosts,
		      json_warnings(f.not_steady).c_str(), f.value ? json_number(*f.value).c_str() : "null");
}

std::string json_fleet(const std::vector<HostRun> &runs, const Merged &m)
{
	if (runs.empty())
		return "{\"start_skew\": null, \"overlap\": null, \"stragglers\": [], \"worst_p99_ns\": null}";
	return format("{\"start_skew\": %s, \"overlap\": %s, \"stragglers\": %s, \"worst_p99_ns\": %s}",
		      json_number(m.fleet.start_skew).c_str(), json_number(m.fleet.overlap).c_str(),
		      json_warnings(m.fleet.stragglers).c_str(),
		      m.fleet.worst_p99 ? std::to_string(*m.fleet.worst_p99).c_str() : "null");
}

// The merged document; with no input merged, still one valid document
// (hosts: the failed ones, total: zeros, the errors, interrupted).  Handed
// to emit() in pieces, a host at a time (10000 hosts' histograms are
// 100 MB), until emit() says to stop (false: stdout cut it short).
template <typename Emit>
void merged_json(Emit emit, const std::vector<HostRun> &runs, const Merged &m, const std::vector<FailedHost> &failed,
		 const std::vector<std::string> &errors, bool interrupted)
{
	std::string doc = format("{\"version\": %s,\n \"context\": %s", json_string(SDB_VERSION).c_str(),
				 json_context("").c_str());
	doc += ",\n \"options\": " + (runs.empty() ? std::string("{}") : json_dump(runs[0].options));
	doc += ",\n \"hosts\": [";
	for (std::size_t i = 0; i < runs.size(); i++) {
		doc += (i ? ",\n  " : "\n  ") + json_host(runs[i]);
		if (!emit(doc))
			return;
		doc.clear();
	}
	for (std::size_t i = 0; i < failed.size(); i++)
		doc += format("%s{\"source\": %s, \"host\": %s, \"exit\": %s, \"error\": %s}", runs.size() + i ? ",\n  " : "\n  ",
			      json_string(failed[i].label).c_str(), json_string(failed[i].label).c_str(),
			      failed[i].exit >= 0 ? std::to_string(failed[i].exit).c_str() : "null",
			      json_string(failed[i].error).c_str());
	std::string together = "null";
	if (m.together)
		together = format("{\"start_unix\": %s, \"end_unix\": %s, \"seconds\": %s, \"bytes\": %.0f, "
				  "\"bytes_per_second\": %s, \"from\": \"%s\"}",
				  json_number(m.together_start).c_str(), json_number(m.together_end).c_str(),
				  json_number(m.together_end - m.together_start).c_str(), m.together_bytes,
				  json_number(m.together_bytes / (m.together_end - m.together_start)).c_str(),
				  m.from_timelines ? "timeline" : "mean");
	std::string window = runs.empty() ? "null" : json_number(m.start_unix), window_end = runs.empty() ? "null" : json_number(m.end_unix);
	doc += format("],\n \"total\": {\"hosts\": %zu, \"threads\": %u, \"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
		      ", \"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"start_unix\": %s, \"end_unix\": %s, "
		      "\"all_running\": %s, \"read\": %s, \"write\": %s, \"latency_ns\": %s,\n  \"histogram\": %s}",
		      runs.size(), m.threads, m.bytes, m.ops, json_number(m.seconds).c_str(),
		      json_number(rate(m.bytes, m.seconds)).c_str(), json_number(rate(m.ops, m.seconds)).c_str(),
		      window.c_str(), window_end.c_str(), together.c_str(),
		      merged_side(m, 0).c_str(), merged_side(m, 1).c_str(),
		      m.with_latency ? json_latency(m.latency).c_str() : "null", json_histogram(m.latency).c_str());
	doc += ",\n \"fleet\": " + json_fleet(runs, m);
	doc += ",\n \"fleet_steady\": " + json_fleet_steady(m.steady);
	doc += ",\n \"warnings\": " + json_warnings(m.warnings);
	doc += ",\n \"errors\": " + json_warnings(errors);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	emit(doc);
}

void print_merged_json(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m,
		       const std::vector<FailedHost> &failed, const std::vector<std::string> &errors, bool interrupted)
{
	merged_json([&](const std::string &piece) { return std::fputs(piece.c_str(), out), true; }, runs, m, failed, errors,
		    interrupted);
}

// The merged report of what loaded; the errors (one line each) were
// printed already.  With --json a document always, merged or not.  doc,
// for --html: the merged document, made with or without --json.  The
// report goes to out (stdout) through deliver(), the JSON a MiB at a time
// (the document is not held whole): 0 when it went out, else deliver()'s
// status (cut short).
int report_merged(std::FILE *out, Waiter &waiter, std::vector<HostRun> &runs, const std::vector<FailedHost> &failed,
		  const std::vector<std::string> &errors, bool json, bool files, bool interrupted, std::string *doc = nullptr)
{
	if (runs.empty() && !json)
		return 0;
	Merged m = merge_runs(runs);
	if (m.steady.present)	// a host with no result is not steady, nor then the fleet
		for (const FailedHost &f : failed) {
			m.steady.not_steady.push_back(f.label);
			m.steady.value.reset();
		}
	emit_warnings(m.warnings);
	if (doc)
		*doc = printed([&](std::FILE *mem) { print_merged_json(mem, runs, m, failed, errors, interrupted); });
	if (json && doc)
		return deliver(out, *doc, waiter);
	int status = 0;
	if (json) {	// delivered a MiB at a time, as stdout's buffer took it
		std::string pending;
		merged_json([&](const std::string &piece) {
			pending += piece;
			if (pending.size() < MiB)
				return true;
			status = deliver(out, pending, waiter);
			pending.clear();
			return !status;
		}, runs, m, failed, errors, interrupted);
		return status || pending.empty() ? status : deliver(out, pending, waiter);
	}
	return deliver(out, printed([&](std::FILE *mem) {
		print_merged_human(mem, runs, m, failed, files);
		if (interrupted)
			std::fprintf(mem, "Interrupted: the results above are partial\n");
	}), waiter);
}

// Where nothing was merged (--merge, --hosts): --html's page and --prom's
// metrics, each named as not written (why: "no input gave a result"), not
// a file silently missing.
void say_unwritten(const Options &opt, const char *why)
{
	for (const std::string *path : {&opt.html, &opt.prom})
		if (!path->empty())
			print_error(runtime_error("%s: %s: not written", printable(*path).c_str(), why));
}

// sdb --merge FILE...: every input that loads is merged; each that does
// not is one error line, and the exit status is 1.  Ctrl-C while an input
// is read (a pipe from a fleet tool) merges what was read: exit 128+n.
// doc, for --html: the merged document.
int run_merge(const Options &opt, std::FILE *out, std::string *doc = nullptr)
{
	std::vector<HostRun> runs;
	std::vector<std::string> errors;
	Seen seen;
	SignalScope scope;	// Ctrl-C while an input is read, or while stdout is blocked
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	auto failed = [&](const Error &e) {
		print_error(e);
		errors.push_back(e.msg);
	};
	for (const std::string &f : opt.merge_files)	// a directory adds its files: none is an error, not an empty merge
		if (f != "-" && expand_inputs({f}).empty())
			failed(runtime_error("%s: a directory with no file in it: nothing to merge", printable(f).c_str()));
	load_in_order(expand_inputs(opt.merge_files), scope.waiter, [&](LoadedFile &f) {
		if (f.error) {
			failed(f.error);
			return;
		}
		for (HostRun &r : f.found) {
			if (Error e = admit(r, runs, seen))
				failed(e);
			else
				runs.push_back(std::move(r));
		}
	});
	const int received = scope.waiter.received();
	if (runs.empty())
		say_unwritten(opt, "no input gave a result");
	if (int status = report_merged(out, scope.waiter, runs, {}, errors, opt.json, true, received != 0, doc)) {
		if (doc)
			doc->clear();	// as a run's: no page of a report cut short
		return status;
	}
	if (received)
		return 128 + received;
	// A run that failed after it started (a bad --verify, an I/O error) is
	// merged and warned about, and fails the merge as --hosts fails.
	bool any_failed = std::any_of(runs.begin(), runs.end(), [](const HostRun &r) { return !r.error.empty(); });
	return errors.empty() && !any_failed ? exit_ok : exit_runtime;
}

// --merge's rules: it reads results and runs nothing, so only --json and
// --html go with it, and it needs the documents.
Error check_merge(const Options &o)
{
	for (const std::string &g : o.given) {
		std::string name = g.substr(0, g.find('='));
		if (name != "--merge" && name != "--json" && name != "--html" && name != "--prom")
			return usage_error("--merge and %s: --merge reads saved results, it runs nothing", name.c_str());
	}
	if (o.merge_files.empty())
		return usage_error("--merge: needs FILE... (sdb --json documents; - for standard input)");
	return {};
}

const Mode merge_mode = {"--merge", [](const Options &o) { return o.merge; }, check_merge, run_merge};

} // namespace
