// sweep: --sweep, latency against load.  A closed-loop run at the given
// -q and -j finds the maximum IOPS; then ten open-loop runs (--rate, see
// pace.h) offer 10%, 20% .. 100% of it, each -t seconds (3 by default),
// each from the device as any run is (its own plan, eviction, final
// fdatasync), the lightest twice.  The knee (knee.h) is where p99 rises
// past twice the light load's and its noise, and stays: where queueing
// begins; none where the maximum was not the device's.
// Offers run_sweep() and explain_sweep() to its row, sweep_mode.
#pragma once

#include "base.h"
#include "json.h"
#include "context.h"
#include "options.h"
#include "stats.h"
#include "pace.h"
#include "knee.h"
#include "plan.h"
#include "buffer.h"
#include "worker.h"
#include "run.h"
#include "checks.h"
#include "measure.h"
#include "report.h"
#include "document.h"
#include "explain.h"
#include "html.h"

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr unsigned sweep_steps = 10;		// 10%, 20% .. 100% of the maximum
constexpr double sweep_default_seconds = 3;	// per step without -t: twelve runs in about 45 s

double sweep_seconds(const Options &o) { return o.time_limit > 0 ? o.time_limit : sweep_default_seconds; }

// One run of the sweep: the closed loop, or a step at a rate.
struct SweepRun {
	std::string what;		// describe_run() of its plan
	Histogram latency;
	double iops = 0, bytes_per_second = 0, seconds = 0;
	std::uint64_t bytes = 0, ops = 0;
	std::optional<RateOutcome> rate;
	std::vector<std::string> warnings;	// the target's and plausibility's (the maximum's: the verdict's too)
	std::string options_json;		// json_options() of its plan
	std::string held;			// why its rate was not the device's (a throttle, a quota, others), or ""
	Error error;
	bool interrupted = false;
};

// Why a run's rate was not the device's, from its verdict: a block I/O
// throttle, a CPU quota or a stop held it, or another process shared the
// device; "" when none did.
std::string held_by(const Verdict &v, double seconds)
{
	if (v.limit == "throttle" && v.io_throttle)
		return "the maximum was a throttle's (" + throttle_words(*v.io_throttle) + ")";
	if (v.limit == "cpu" && quota_bound(v, seconds))
		return "the maximum was a CPU quota's (" + quota_words(v) + ")";
	if (v.limit == "stopped")
		return "sdb was " + v.limit_why;
	if (shared(v))
		return format("%s was shared (%s not sdb's)", v.device.name.c_str(), format_bytes(*v.other_bytes).c_str());
	return "";
}

// One run of the sweep through measure(); the maximum (verdict: true)
// keeps the verdict's warnings too, the steps their rate's outcome.
SweepRun sweep_run(const Options &opt, Waiter &waiter, const RunId &id, bool verdict)
{
	SweepRun out;
	Measurement m;
	MeasureHow how;
	how.one_of_many = true;
	measure(opt, waiter, id, how, m);
	out.error = m.error;
	out.interrupted = m.interrupted;
	if (!m.started)
		return out;
	const Execution &ex = m.ex;
	out.what = describe_run(m.plan);
	out.options_json = json_options(m.plan);
	out.warnings = m.early;
	for (auto &w : ex.shared.workers)
		out.latency.merge(w->latency);
	out.bytes = ex.totals.bytes;
	out.ops = ex.totals.ops;
	out.seconds = ex.totals.wall;
	out.bytes_per_second = rate(out.bytes, out.seconds);
	out.iops = rate(out.ops, out.seconds);
	out.rate = m.rate;
	if (m.verdict)
		out.held = held_by(*m.verdict, ex.totals.wall);
	out.warnings.insert(out.warnings.end(), m.warnings.begin(), m.warnings.end());
	if (verdict)
		out.warnings.insert(out.warnings.end(), m.verdict_warnings.begin(), m.verdict_warnings.end());
	return out;
}

// A step's options: the sweep's test at share of the maximum, all
// threads together (--rate is per thread).
Options step_options(const Options &opt, double maximum, unsigned step)
{
	Options o = opt;
	o.sweep = false;
	o.html.clear();
	o.prom.clear();
	o.time_limit = sweep_seconds(opt);
	if (step > 0)
		o.rate = Rate{maximum * step / sweep_steps / opt.threads, false};
	return o;
}

SweepStep step_of(const SweepRun &r)
{
	SweepStep s;
	s.offered = r.rate ? r.rate->offered : 0;
	s.achieved = r.rate ? r.rate->achieved : r.iops;
	s.p50_ns = r.latency.percentile(0.5);
	s.p99_ns = r.latency.percentile(0.99);
	s.p999_ns = r.latency.percentile(0.999);
	s.met = r.rate && r.rate->met;
	s.behind_seconds = r.rate ? r.rate->behind_seconds : 0;
	return s;
}

void print_sweep_header(std::FILE *out, const Options &opt, const SweepRun &max)
{
	std::fprintf(out, "sdb %s: sweep of %s: %s\n", SDB_VERSION, max.what.c_str(), printable(opt.file).c_str());
	std::fprintf(out, "Maximum (closed loop): %s IOPS, %s, latency p50 %s, p99 %s\n", format_count(max.iops).c_str(),
		     format_rate(max.bytes_per_second).c_str(), format_ns(max.latency.percentile(0.5)).c_str(),
		     format_ns(max.latency.percentile(0.99)).c_str());
	std::fprintf(out, "%6s %12s %12s %10s %10s %10s  %s\n", "load", "offered IOPS", "achieved", "p50", "p99", "p99.9",
		     "met");
}

void print_sweep_row(std::FILE *out, unsigned step, const SweepStep &s)
{
	std::fprintf(out, "%5u%% %12s %12s %10s %10s %10s  %s\n", step * 100 / sweep_steps, format_count(s.offered).c_str(),
		     format_count(s.achieved).c_str(), format_ns(s.p50_ns).c_str(), format_ns(s.p99_ns).c_str(),
		     format_ns(s.p999_ns).c_str(), s.met ? "yes" : "no");
	std::fflush(out);
}

std::string json_sweep_step(const SweepStep &s)
{
	return format("{\"offered\": %s, \"achieved\": %s, \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
		      ", \"p999_ns\": %" PRIu64 ", \"met\": %s, \"behind_seconds\": %s}",
		      json_number(s.offered).c_str(), json_number(s.achieved).c_str(), s.p50_ns, s.p99_ns, s.p999_ns,
		      json_bool(s.met).c_str(), json_number(s.behind_seconds).c_str());
}

std::string json_knee(const std::optional<Knee> &k)
{
	if (!k)
		return "null";
	return format("{\"iops\": %s, \"share\": %s, \"p99_ns\": %" PRIu64 "}", json_number(k->iops).c_str(),
		      json_number(k->share).c_str(), k->p99_ns);
}

std::string json_ns_list(const std::vector<std::uint64_t> &v)
{
	std::string s = "[";
	for (std::size_t i = 0; i < v.size(); i++)
		s += format("%s%" PRIu64, i ? ", " : "", v[i]);
	return s + "]";
}

// The sweep's document: the closed-loop run as "total" (the maximum), the
// steps, the light load's p99s, the knee.
std::string sweep_json(const std::string &target, const SweepRun &max, const std::vector<SweepStep> &steps,
		       const std::vector<std::uint64_t> &light, const KneeFinding &knee, const std::vector<std::string> &warnings,
		       bool interrupted)
{
	std::string doc = format("{\"version\": %s, \"host\": %s,\n \"context\": %s", json_string(SDB_VERSION).c_str(),
				 json_string(short_host_name()).c_str(), json_context(target).c_str());
	if (!max.options_json.empty()) {
		doc += ",\n \"options\": " + max.options_json;
		doc += format(",\n \"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %s, "
			      "\"bytes_per_second\": %s, \"iops\": %s, \"latency_ns\": %s}",
			      max.bytes, max.ops, json_number(max.seconds).c_str(), json_number(max.bytes_per_second).c_str(),
			      json_number(max.iops).c_str(), json_latency(max.latency).c_str());
	}
	doc += ",\n \"sweep\": [";
	for (std::size_t i = 0; i < steps.size(); i++)
		doc += (i ? ",\n  " : "\n  ") + json_sweep_step(steps[i]);
	doc += "]";
	doc += ",\n \"light_p99_ns\": " + json_ns_list(light);
	doc += ",\n \"knee\": " + json_knee(knee.knee);
	doc += ",\n \"warnings\": " + json_warnings(warnings);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	return doc;
}

void keep_warnings(std::vector<std::string> &all, const std::vector<std::string> &more)
{
	for (const std::string &w : more)
		if (std::find(all.begin(), all.end(), w) == all.end())
			all.push_back(w);
}

// --sweep: the maximum, the ten steps (a row each as it ends), the knee.
int run_sweep(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	// Everything for stdout goes through deliver(); once a piece is cut
	// short (a signal, the reader gone), cut is its status, nothing more
	// is written, and the sweep stops.
	int cut = 0;
	auto say = [&](const std::string &text) {
		if (!cut)
			cut = deliver(out, text, scope.waiter);
		return !cut;
	};
	std::vector<std::string> warnings;
	SweepRun max = sweep_run(step_options(opt, 0, 0), scope.waiter, {0, "sweep: the maximum  "}, true);
	Error error = max.error;
	bool interrupted = max.interrupted;
	keep_warnings(warnings, max.warnings);
	if (!error && !interrupted && !(max.iops > 0))
		error = runtime_error("--sweep: the closed-loop run did no I/O (%s): nothing to sweep", opt.file.c_str());
	if (!error && !interrupted && !opt.json)
		say(printed([&](std::FILE *mem) { print_sweep_header(mem, opt, max); }));
	std::vector<SweepStep> steps;
	std::vector<std::uint64_t> light;	// the lightest load's p99, run twice: its spread is the noise
	std::string held = max.held;
	for (unsigned k = 1; k <= sweep_steps && !error && !interrupted && !cut; k++) {
		for (unsigned rep = 0; rep < (k == 1 ? 2 : 1) && !error && !interrupted; rep++) {
			RunId id{rep ? sweep_steps + 1 : k, format("sweep: %u%%%s  ", k * 100 / sweep_steps, rep ? " again" : "")};
			SweepRun r = sweep_run(step_options(opt, max.iops, k), scope.waiter, id, false);
			error = r.error;
			interrupted = r.interrupted;
			keep_warnings(warnings, r.warnings);
			if (error || interrupted)	// a cut-short step would bend the curve
				break;
			if (held.empty() && !r.held.empty())
				held = format("at %u%%, ", k * 100 / sweep_steps) + r.held;
			SweepStep step = step_of(r);
			if (k == 1)
				light.push_back(step.p99_ns);
			if (rep)	// the light load again: its p99 is the noise's measure, not a row
				continue;
			steps.push_back(step);
			if (!opt.json)
				say(printed([&](std::FILE *mem) { print_sweep_row(mem, k, steps.back()); }));
		}
	}
	KneeFinding knee = find_knee(steps, light, max.iops, held);
	if (knee.warn)
		keep_warnings(warnings, {"--sweep: " + knee.why});
	emit_warnings(warnings);
	const bool planned = !max.options_json.empty();	// else nothing ran: the error alone
	std::string doc = sweep_json(opt.file, max, steps, light, knee, warnings, interrupted);
	if (opt.json && planned)
		say(doc);
	else if (!steps.empty())
		say(format("Knee: %s\n", knee.knee || !knee.warn ? knee_words(knee).c_str() : "none (see the warning)"));
	if (interrupted && !opt.json)
		say("Interrupted: the rows above are what finished\n");
	if (cut) {	// as a run's: no page of a report cut short
		if (error && cut != 128 + SIGPIPE)
			print_error(error);
		return cut;
	}
	if ((!opt.html.empty() || !opt.prom.empty()) && planned)
		if (Error e = write_outputs(opt, doc); e && !error)
			error = e;
	if (error) {
		print_error(error);
		return error.status;
	}
	return interrupted ? scope.waiter.exit_status() : exit_ok;
}

// --sweep --explain: the closed-loop run, then the steps as fio lines
// whose --rate_iops is a share of MAX, the IOPS per job the first line
// measured (fio's rate_iops is per job, as sdb's --rate is per thread).
int explain_sweep(const Options &opt, std::FILE *out)
{
	Plan plan;
	if (Error e = make_plan(step_options(opt, 0, 0), plan)) {
		print_error(e);
		return e.status;
	}
	Options r = plan.opt;
	r.block_size = plan.block_size;
	r.size = plan.targets[0].size;
	std::fprintf(out, "# sdb --sweep: the first line finds the maximum; set MAX to its IOPS%s, then run the ten steps\n",
		     opt.threads > 1 ? format(" divided by %u (per job)", opt.threads).c_str() : "");
	std::fprintf(out, "# fio's latencies at --rate_iops count from each I/O's issue (sdb's service time), not from "
		     "when it was due\n");
	if (fio_pages_differ(r))
		std::fputs(fio_pages_note, out);
	const std::string line = fio_command(r, "sdb-max", files_of(plan));
	std::fprintf(out, "%s\n", line.c_str());
	for (unsigned k = 1; k <= sweep_steps; k++)
		std::fprintf(out, "%s --rate_iops=$((MAX * %u / %u))\n",
			     fio_command(r, format("sdb-%u", k * 100 / sweep_steps), files_of(plan)).c_str(), k, sweep_steps);
	return exit_ok;
}

// --sweep's rules: twelve runs of one test, each at its own rate (so
// nothing that makes one run of many); --explain's too when explained.
// With --quick, the suite's rules, which --sweep breaks.
Error check_sweep(const Options &o)
{
	if (o.quick)
		return check_quick(o);
	if (o.op == Options::Op::none)
		return usage_error("--sweep: needs a test: -w, -r or -M");
	if (o.rate.per_second > 0)
		return usage_error("--sweep and --rate: the sweep sets its own rates (10%% to 100%% of the maximum)");
	if (o.start_at_ns)
		return usage_error("--sweep and --start-at: a start time is for one run; the sweep is twelve");
	if (o.verify)
		return usage_error("--sweep and --verify: twelve runs would rewrite what is checked; verify a -w run alone");
	return o.explain ? check_explain(o) : check_test(o);
}

const Mode sweep_mode = {"--sweep", [](const Options &o) { return o.sweep; }, check_sweep,
			 [](const Options &o, std::FILE *out, std::string *) {
				 return o.explain ? explain_sweep(o, out) : run_sweep(o, out);
			 }};

} // namespace
