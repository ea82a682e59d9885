// document: the JSON document of a run (print_json) and its pieces: the
// options, each thread, the totals and their sides, --rate's outcome, the
// CPU, the device and its stack, the timeline, the cliff (the histogram's
// keys, json_latency and json_histogram, are stats.h's).  Its Report and the figures in it are report.h's, the same the
// human report prints.
#pragma once

#include "base.h"
#include "json.h"
#include "context.h"
#include "options.h"
#include "stats.h"
#include "plan.h"
#include "pace.h"
#include "worker.h"
#include "device.h"
#include "run.h"
#include "checks.h"
#include "verify.h"
#include "cliff.h"
#include "report.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

std::string json_cliff(const Report &r)
{
	std::optional<Cliff> c = write_cliff(r);
	if (!c)
		return "null";
	return format("{\"offset\": %" PRIu64 ", \"seconds\": %s, \"before_bytes_per_second\": %s, "
		      "\"after_bytes_per_second\": %s, \"page_cache\": %s}", c->offset, json_number(c->seconds).c_str(),
		      json_number(c->before).c_str(), json_number(c->after).c_str(), json_string_or_null(c->page_cache).c_str());
}

// --rate's options key: ", \"rate\": I/Os per second per thread", or nothing (a closed loop's options are as they were).
std::string rate_option(const Plan &p)
{
	if (!(p.opt.rate.per_second > 0))
		return "";
	return format(", \"rate\": %s", json_number(ios_per_second(p.opt.rate, p.block_size)).c_str());
}

std::string json_options(const Plan &p)
{
	const Options &o = p.opt;
	return format("{\"op\": \"%s\", \"mode\": \"%s\", \"file\": %s, \"block_size\": %" PRIu64
		      ", \"size\": %" PRIu64 ", \"threads\": %u, \"time_limit\": %s, \"direct\": %s, \"sync\": %s, "
		      "\"random_buffer\": %s, \"cached\": %s, \"queue_depth\": %u, \"mix\": %s, \"fsync\": %s, \"ramp\": %s, \"verify\": %s%s}",
		      is_mix(o) ? "mix" : is_write(o) ? "write" : "read", o.random ? "rand" : "seq", json_string(o.file).c_str(), p.block_size,
		      p.targets.empty() ? 0 : p.targets[0].size, o.threads,
		      o.time_limit > 0 ? json_number(o.time_limit).c_str() : "null", json_bool(o.direct).c_str(),
		      json_bool(o.sync).c_str(), json_bool(o.random_buffer).c_str(), json_bool(o.cached).c_str(),
		      o.queue_depth, is_mix(o) ? std::to_string(o.mix).c_str() : "null",
		      o.fsync_every ? std::to_string(o.fsync_every).c_str() : "null",
		      o.ramp > 0 ? json_number(o.ramp).c_str() : "null", json_bool(o.verify).c_str(),
		      rate_option(p).c_str());
}

// --rate's ", \"service_ns\": {...}" after a latency_ns (the same keys);
// a closed loop has none, and its document stays as it was.
std::string json_service(const Histogram &h);

std::string json_service(const Histogram &h) { return ", \"service_ns\": " + json_latency(h); }

// --fsync's ", \"sync\": {...}" in the total: every thread's fdatasyncs,
// their histogram, and whether their p99 is under etcd's 10 ms (null
// where no fdatasync was made: nothing was measured to judge).
std::string json_total_sync(const std::optional<Histogram> &h)
{
	if (!h)
		return "";
	return format(", \"sync\": {\"ops\": %" PRIu64 ", \"latency_ns\": %s, \"histogram\": %s, \"etcd_met\": %s}", h->count(),
		      json_latency(*h).c_str(), json_histogram(*h).c_str(),
		      h->count() ? json_bool(meets_etcd(*h)).c_str() : "null");
}

// A mix's side: {"bytes", "ops", "bytes_per_second", "iops", "latency_ns",
// "histogram"}: the side's own buckets, which --merge adds up per side.
std::string json_side(std::uint64_t bytes, std::uint64_t ops, double secs, const Histogram &latency)
{
	return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"bytes_per_second\": %s, \"iops\": %s, "
		      "\"latency_ns\": %s, \"histogram\": %s}", bytes, ops, json_number(rate(bytes, secs)).c_str(),
		      json_number(rate(ops, secs)).c_str(), json_latency(latency).c_str(), json_histogram(latency).c_str());
}

// --fsync's syncs: {"ops", "latency_ns"}; null without --fsync.
std::string json_sync(const std::optional<Histogram> &h)
{
	if (!h)
		return "null";
	return format("{\"ops\": %" PRIu64 ", \"latency_ns\": %s}", h->count(), json_latency(*h).c_str());
}

std::string json_thread(const Worker &w)
{
	double secs = (w.end_ns - w.start_ns) / 1e9;
	std::string cached_before = w.cached_before >= 0 ? json_number(w.cached_before) : "null";
	return format("{\"id\": %u, \"file\": %s, \"cpu\": %d, \"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
		      ", \"passes\": %u, \"seconds\": %s, \"sync_seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s"
		      ", \"latency_ns\": %s%s, \"cached_before\": %s, \"sync\": %s, \"read\": %s, \"write\": %s"
		      ", \"histogram\": %s}",
		      w.id, json_string(w.target->path).c_str(), w.cpu, w.bytes, w.ops, w.passes, json_number(secs).c_str(),
		      json_number(w.loop_end_ns ? (w.end_ns - w.loop_end_ns) / 1e9 : 0).c_str(),
		      json_number(rate(w.bytes, secs)).c_str(), json_number(rate(w.ops, secs)).c_str(),
		      json_latency(w.latency).c_str(), w.service_latency ? json_service(*w.service_latency).c_str() : "",
		      cached_before.c_str(), json_sync(w.sync_latency).c_str(),
		      w.read_latency ? json_side(w.read_bytes, w.read_ops, secs, *w.read_latency).c_str() : "null",
		      w.write_latency ? json_side(w.write_bytes, w.write_ops, secs, *w.write_latency).c_str() : "null",
		      json_histogram(w.latency).c_str());
}

// The total's read and write sides: null unless a mix.
std::string json_total_sides(const Report &r)
{
	const Totals &t = r.ex->totals;
	if (!is_mix(r.plan->opt))
		return "\"read\": null, \"write\": null";
	return "\"read\": " + json_side(t.read_bytes, t.read_ops, t.wall, side_latency(r.ex->shared, &Worker::read_latency)) +
	       ", \"write\": " + json_side(t.write_bytes, t.write_ops, t.wall, side_latency(r.ex->shared, &Worker::write_latency));
}

// --rate: {"offered", "achieved", "met", "behind_seconds"}.
std::string json_rate(const RateOutcome &r)
{
	return format("{\"offered\": %s, \"achieved\": %s, \"met\": %s, \"behind_seconds\": %s}",
		      json_number(r.offered).c_str(), json_number(r.achieved).c_str(), json_bool(r.met).c_str(),
		      json_number(r.behind_seconds).c_str());
}

std::string json_memory(const MemoryRates &m)
{
	return format("{\"memset\": %s, \"memcpy\": %s, \"memmove\": %s, \"bytes\": %" PRIu64 "}",
		      json_number(m.memset_bps).c_str(), json_number(m.memcpy_bps).c_str(),
		      json_number(m.memmove_bps).c_str(), m.bytes);
}

std::string json_environment(const Report &r)
{
	const Environment &e = *r.env;
	return format("{\"host\": %s, \"kernel\": %s, \"filesystem\": %s, \"device\": %s, \"scheduler\": %s, "
		      "\"logical_block_size\": %s, \"physical_block_size\": %s, \"rotational\": %s, \"dio_align\": %u, "
		      "\"buffer_bytes\": %" PRIu64 ", \"buffer_huge_page_bytes\": %" PRIu64 ", \"max_segments\": %s}",
		      json_string(e.host).c_str(), json_string(e.kernel).c_str(), json_string(e.fs).c_str(),
		      json_string(e.device).c_str(), json_string(e.scheduler).c_str(),
		      json_string(e.logical_block).c_str(), json_string(e.physical_block).c_str(),
		      json_string(e.rotational).c_str(), r.plan->dio_align, e.buffer_bytes, e.buffer_huge,
		      e.max_segments ? std::to_string(e.max_segments).c_str() : "null");
}

// device.stack: the target's device first, then each level below it
// (other_bytes: a level below's, beyond what the level above sent it).
std::string json_stack(const Verdict &v)
{
	std::string s = "[";
	for (const Level &l : v.stack)
		s += format("%s{\"name\": %s, \"path\": %s, \"bytes\": %s, \"delivered\": %s, \"other_bytes\": %s}",
			    s.size() > 1 ? ", " : "", json_string_or_null(l.name).c_str(), json_string_or_null(l.path).c_str(),
			    l.measured ? std::to_string(l.bytes).c_str() : "null",
			    l.measured && v.claimed ? json_number(l.delivered).c_str() : "null",
			    l.measured && &l != &v.stack[0] ? std::to_string(l.other_bytes).c_str() : "null");
	return s + "]";
}

// device.evidence: every check the verdict made, what it found and saw.
std::string json_evidence(const Verdict &v)
{
	std::string s = "[";
	for (const Evidence &e : v.evidence)
		s += format("%s{\"check\": %s, \"found\": %s, \"figure\": %s}", s.size() > 1 ? ", " : "",
			    json_string(e.check).c_str(), json_bool(e.found).c_str(), json_string(e.figure).c_str());
	return s + "]";
}

std::string json_device(const Verdict &v)
{
	const Device &d = v.device;
	std::string link = d.link ? format("{\"kind\": %s, \"bytes_per_second\": %s}", json_string(d.link->kind).c_str(),
					   json_number(d.link->bytes_per_second).c_str())
				  : "null";
	// The reason says why the device did not confirm the run, and names
	// a CPU quota, a block I/O throttle or a stop that limited it.
	std::string reason = v.reason;
	if ((v.limit == "cpu" && v.throttle.quota) || v.limit == "throttle" || v.limit == "stopped")
		reason += (reason.empty() ? "" : "; ") + v.limit_why;
	return format("{\"name\": %s, \"path\": %s, \"bytes\": %s, \"delivered\": %s, \"busy\": %s, \"limit\": %s, "
		      "\"link\": %s, \"verified\": %s, \"reason\": %s, \"stack\": %s, \"other_bytes\": %s, "
		      "\"write_cache\": %s, \"fua\": %s, \"evidence\": %s}",	// "verified": confirmed, as SPEC.md names it
		      json_string_or_null(d.stats.empty() ? "" : d.name).c_str(),
		      json_string_or_null(d.stats.empty() ? "" : d.path).c_str(),
		      v.measured ? std::to_string(v.bytes).c_str() : "null",
		      v.measured && v.claimed ? json_number(v.delivered).c_str() : "null",
		      v.measured ? json_number(v.busy).c_str() : "null", json_string(v.limit).c_str(), link.c_str(),
		      json_bool(v.confirmed).c_str(), json_string_or_null(reason).c_str(), json_stack(v).c_str(),
		      v.other_bytes ? std::to_string(*v.other_bytes).c_str() : "null",
		      json_string_or_null(d.stats.empty() ? "" : d.write_cache).c_str(),
		      d.fua && !d.stats.empty() ? json_bool(*d.fua).c_str() : "null", json_evidence(v).c_str());
}

// The last thread's end on the real-time clock: the start plus the wall
// time measured on the monotonic one, so that a clock step cannot bend it.
std::int64_t end_unix_ns(const RunResult &r, const Totals &t)
{
	return r.start_unix_ns + std::llround(t.wall * 1e9);
}

// --runs N: ",\n \"runs\": [...], \"summary\": {...}", each run's total and
// the spread of bytes per second, IOPS and p99 over them.
std::string json_runs(const std::vector<RunFigures> &runs)
{
	std::string doc = ",\n \"runs\": [";
	for (std::size_t i = 0; i < runs.size(); i++) {
		const RunFigures &f = runs[i];
		doc += format("%s{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %s, \"bytes_per_second\": %s, "
			      "\"iops\": %s, \"p99_ns\": %s, \"median\": %s}",
			      i ? ",\n  " : "\n  ", f.bytes, f.ops, json_number(f.seconds).c_str(),
			      json_number(f.bytes_per_second).c_str(), json_number(f.iops).c_str(),
			      f.p99_ns ? json_number(*f.p99_ns).c_str() : "null", json_bool(f.median).c_str());
	}
	auto spread_json = [](const std::vector<double> &v) {
		if (v.empty())
			return std::string("null");
		Spread s = spread_of(v);
		auto opt = [](const std::optional<double> &x) { return x ? json_number(*x) : std::string("null"); };
		return format("{\"median\": %s, \"min\": %s, \"max\": %s, \"ci95_low\": %s, \"ci95_high\": %s}",
			      json_number(s.median).c_str(), json_number(s.min).c_str(), json_number(s.max).c_str(),
			      opt(s.ci95_low).c_str(), opt(s.ci95_high).c_str());
	};
	doc += format("],\n \"summary\": {\"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %s}",
		      spread_json(run_values(runs, bps_figure)).c_str(), spread_json(run_values(runs, iops_figure)).c_str(),
		      spread_json(run_values(runs, p99_figure)).c_str());
	return doc;
}

void print_json(std::FILE *out, const Report &r)
{
	std::string doc = format("{\"version\": %s, \"host\": %s,\n \"context\": %s", json_string(SDB_VERSION).c_str(),
				 json_string(short_host_name()).c_str(), json_context(r.plan ? r.plan->opt.file : "").c_str());
	std::string launcher, rank = launcher_rank(launcher);	// under srun or mpirun: which rank wrote it, for --merge
	if (!launcher.empty() && !rank.empty() && rank.size() < 10 && rank.find_first_not_of("0123456789") == std::string::npos)
		doc += ", \"rank\": " + rank;
	if (r.plan && r.ex) {
		const Totals &t = r.ex->totals;
		const RunResult &run = r.ex->result;
		doc += ",\n \"options\": " + json_options(*r.plan);
		doc += format(",\n \"start_unix\": %s, \"end_unix\": %s, \"start_late\": %s",
			      json_unix(run.start_unix_ns).c_str(), json_unix(end_unix_ns(run, t)).c_str(),
			      json_number(run.start_late_ns / 1e9).c_str());
		doc += ",\n \"threads\": [";
		for (std::size_t i = 0; i < r.ex->shared.workers.size(); i++)
			doc += (i ? ",\n  " : "\n  ") + json_thread(*r.ex->shared.workers[i]);
		doc += format("],\n \"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
			      ", \"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"latency_ns\": %s%s%s, %s}",
			      t.bytes, t.ops, json_number(t.wall).c_str(), json_number(rate(t.bytes, t.wall)).c_str(),
			      json_number(rate(t.ops, t.wall)).c_str(), json_latency(total_latency(r.ex->shared)).c_str(),
			      r.plan->opt.rate.per_second > 0 ? json_service(total_service(r.ex->shared)).c_str() : "",
			      json_total_sync(total_sync(r.ex->shared)).c_str(), json_total_sides(r).c_str());
		if (std::optional<RateOutcome> rate = rate_outcome(*r.plan, *r.ex))	// only with --rate: a closed
			doc += ",\n \"rate\": " + json_rate(*rate);				// loop's document is as it was
		CpuTime cpu = cpu_time(r.ex->result, t.ops);
		doc += format(",\n \"cpu\": {\"user_seconds\": %s, \"system_seconds\": %s, \"ns_per_io\": %s, \"cycles_per_io\": %s}",
			      json_number(cpu.user).c_str(), json_number(cpu.system).c_str(),
			      cpu.ns_per_io < 0 ? "null" : json_number(cpu.ns_per_io).c_str(),
			      cpu.cycles_per_io ? json_number(*cpu.cycles_per_io).c_str() : "null");
		if (r.verdict)
			doc += ",\n \"device\": " + json_device(*r.verdict);
		if (r.plan->opt.verify)
			doc += ",\n \"verify\": " + json_verify(r.verify);
		double step = timeline_step(t.io, t.longest_io, false, run.sample_period);
		doc += ",\n \"timeline_step\": " + json_number(step) + ",\n \"timeline\": [";
		auto points = make_timeline(run.samples, t.io, t.bytes, step, run.tail_latency);
		for (std::size_t i = 0; i < points.size(); i++) {
			const Point &pt = points[i];
			doc += format("%s{\"t\": %s, \"unix\": %s, \"bytes_per_second\": %s, \"p50_ns\": %s, \"p99_ns\": %s}",
				      i ? ", " : "", json_number(pt.t).c_str(),
				      json_unix(run.start_unix_ns + std::llround(pt.t * 1e9)).c_str(),
				      json_number(pt.bytes_per_second).c_str(),
				      pt.ios ? std::to_string(pt.p50_ns).c_str() : "null",
				      pt.ios ? std::to_string(pt.p99_ns).c_str() : "null");
		}
		doc += "]";
		doc += ",\n \"cliff\": " + json_cliff(r);
	}
	if (r.runs.size() >= 2)
		doc += json_runs(r.runs);
	if (r.steady)
		doc += ",\n \"steady\": " + json_steady(*r.steady);
	if (r.memory)
		doc += ",\n \"memory\": " + json_memory(*r.memory);
	if (r.env)
		doc += ",\n \"environment\": " + json_environment(r);
	doc += ",\n \"warnings\": " + json_warnings(r.warnings);
	if (!r.error.empty())
		doc += ",\n \"error\": " + json_string(r.error);
	doc += format(",\n \"interrupted\": %s}\n", json_bool((r.ex && r.ex->result.interrupted) || r.series_cut).c_str());
	std::fputs(doc.c_str(), out);
}

} // namespace
