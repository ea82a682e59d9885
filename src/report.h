// report: the human report of a run (Report, print_human), the timeline
// and its sparkline, a sequential write's cliff in words.  The JSON
// document of the same Report is document.h's; the way out to stdout and
// stderr (printed, deliver, emit_warnings) is signals.h's.
#pragma once

#include "base.h"
#include "signals.h"
#include "json.h"
#include "options.h"
#include "stats.h"
#include "spread.h"
#include "pts.h"
#include "plan.h"
#include "pace.h"
#include "worker.h"
#include "device.h"
#include "run.h"
#include "checks.h"
#include "verify.h"
#include "cliff.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Point {
	double t;
	double bytes_per_second;
	std::uint64_t ios = 0;		// the I/Os that ended in the step
	std::uint64_t p50_ns = 0, p99_ns = 0;	// their latency (LiveHistogram's buckets); 0 with none
};

// A step's latency counts, added up sample by sample, into a point.
class StepLatency {
public:
	StepLatency() : counts_(LiveHistogram::buckets, 0) {}

	void add(const IntervalLatency &l)
	{
		for (auto [bucket, n] : l) {
			counts_[bucket] += n;
			ios_ += n;
		}
	}

	// Into the point, then start over.
	void close(Point &p)
	{
		p.ios = ios_;
		p.p50_ns = LiveHistogram::percentile(counts_, 0.5);
		p.p99_ns = LiveHistogram::percentile(counts_, 0.99);
		std::fill(counts_.begin(), counts_.end(), 0);
		ios_ = 0;
	}

private:
	std::vector<std::uint64_t> counts_;
	std::uint64_t ios_ = 0;
};

// Raw 0.1 s samples folded into steps of at least `step` seconds.  Bytes
// count when an I/O completes, so a step shorter than a few I/Os would
// swing between zero and a burst: see timeline_step().  A last step
// shorter than a full one is kept when over half of one, and takes every
// byte and I/O after the full steps (tail: the I/Os that ended after the
// last sample).
std::vector<Point> make_timeline(const std::vector<Sample> &samples, double seconds, std::uint64_t total, double step,
				 const IntervalLatency &tail = {})
{
	std::vector<Point> points;
	StepLatency latency;
	Sample last{0, 0};
	std::size_t i = 0;
	for (; i < samples.size() && samples[i].t <= seconds; i++) {
		const Sample &s = samples[i];
		latency.add(s.latency);
		if (s.t - last.t >= step * 0.999) {
			points.push_back({s.t, rate(s.bytes - last.bytes, s.t - last.t)});
			latency.close(points.back());
			last = s;
		}
	}
	for (; i < samples.size(); i++)
		latency.add(samples[i].latency);
	latency.add(tail);
	if (seconds - last.t > step / 2 || points.empty()) {
		points.push_back({seconds, rate(total - std::min(total, last.bytes), seconds - last.t)});
		latency.close(points.back());
	}
	return points;
}

// JSON: about a twentieth of the run, 0.1 s to 1 s (so about a sample a
// second for long runs); the sparkline: a twentieth, however long.  Either
// way at least three times the longest mean I/O time of a thread, and a
// whole number of the run's samples (period: the seconds each spans).
double timeline_step(double seconds, double io_seconds, bool sparkline, double period)
{
	double step = std::round(seconds / 20 * 10) / 10;
	step = sparkline ? std::max(step, 0.1) : std::clamp(step, 0.1, 1.0);
	step = std::max(step, 3 * io_seconds);
	return std::max(1.0, std::ceil(step / period - 1e-6)) * period;
}

std::string sparkline(const std::vector<Point> &points, double lo, double hi)
{
	static const char *const bars[] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
	std::string s;
	for (const Point &p : points) {
		int level = hi > lo ? static_cast<int>((p.bytes_per_second - lo) / (hi - lo) * 7.999) : 7;
		s += bars[std::clamp(level, 0, 7)];
	}
	return s;
}

// When the last third runs well below the first (a write cache filling
// up, thermal throttling): the burst rate, when it fell, the sustained rate.
std::string cliff(const std::vector<Point> &points)
{
	std::size_t n = points.size(), third = n / 3;
	if (third < 2)
		return "";
	double first = 0, last = 0;
	for (std::size_t i = 0; i < third; i++) {
		first += points[i].bytes_per_second;
		last += points[n - 1 - i].bytes_per_second;
	}
	first /= static_cast<double>(third);
	last /= static_cast<double>(third);
	if (!(last < first * 0.7))
		return "";
	double fell = points.back().t;
	for (std::size_t i = 0; i < n; i++)
		if (points[i].bytes_per_second < (first + last) / 2) {
			fell = i ? points[i - 1].t : 0;
			break;
		}
	return format("Rate fell: %s for the first %.1f s, then %s sustained", format_rate(first).c_str(), fell,
		      format_rate(last).c_str());
}

// What the reports print: the plan, and its execution once it ran (none
// for -T alone).
struct Report {
	const Plan *plan = nullptr;
	const Execution *ex = nullptr;
	std::optional<MemoryRates> memory;
	std::optional<Environment> env;
	std::optional<Verdict> verdict;
	std::optional<VerifySummary> verify;	// --verify, when the check ran
	double fill_seconds = -1;	// -R, for the header
	std::vector<std::string> warnings;
	std::string error;		// the run's one-line error, if it failed after starting
	bool header_shown = false;	// run_header() went to the terminal before the run
	bool series_cut = false;	// a signal ended a series (--runs, --steady) between its runs
	std::vector<RunFigures> runs;	// --runs N: every run's figures; the report is the median run's
	std::optional<Steady> steady;	// --steady: the rounds and the PTS test; the report is a round's
};

// --runs: the bytes per second, IOPS or p99 of every run.
template <typename F>
std::vector<double> run_values(const std::vector<RunFigures> &runs, F value)
{
	std::vector<double> v;
	for (const RunFigures &f : runs)
		if (std::optional<double> x = value(f))
			v.push_back(*x);
	return v;
}

std::optional<double> bps_figure(const RunFigures &f) { return f.bytes_per_second; }
std::optional<double> iops_figure(const RunFigures &f) { return f.iops; }
std::optional<double> p99_figure(const RunFigures &f) { return f.p99_ns; }

// "1.29 GiB/s (1.08 - 1.44; 95% interval 1.12 - 1.43)": a median, its
// range and its interval, in the median's unit (divisor, name).
std::string spread_words(const Spread &s, double unit, const char *name, int decimals)
{
	std::string text = format("%.*f %s (%.*f - %.*f", decimals, s.median / unit, name, decimals, s.min / unit, decimals,
				  s.max / unit);
	if (s.ci95_low)
		text += format("; 95%% interval %.*f - %.*f", decimals, std::max(0.0, *s.ci95_low) / unit, decimals,
			       *s.ci95_high / unit);
	return text + ")";
}

// The unit format_rate() or format_ns() gives a value, as a divisor and a name.
std::pair<double, std::string> unit_of(const std::string &formatted)
{
	static const std::pair<const char *, double> units[] = {{"GiB/s", GiB}, {"MiB/s", MiB}, {"KiB/s", KiB}, {"ns", 1},
								  {"us", 1e3},  {"ms", 1e6},  {"s", 1e9}};
	std::string name = formatted.substr(formatted.rfind(' ') + 1);
	for (const auto &[n, d] : units)
		if (name == n)
			return {d, name};
	return {1, name};
}

// --runs N: a line per run, then the medians with their spread.
void print_runs(std::FILE *out, const std::vector<RunFigures> &runs, bool latency)
{
	std::fprintf(out, "Runs: %zu, back to back; the report above is the median run's\n", runs.size());
	for (std::size_t i = 0; i < runs.size(); i++) {
		const RunFigures &f = runs[i];
		std::fprintf(out, "  Run %2zu: %.6f seconds -> %s, %.2f IOPS%s%s\n", i + 1, f.seconds,
			     format_rate(f.bytes_per_second).c_str(), f.iops,
			     latency && f.p99_ns ? format(", p99 %s", format_ns(static_cast<std::uint64_t>(*f.p99_ns)).c_str()).c_str() : "",
			     f.median ? "  (the median run)" : "");
	}
	Spread bps = spread_of(run_values(runs, bps_figure));
	auto [rate_unit, rate_name] = unit_of(format_rate(bps.median));
	std::fprintf(out, "Median: %s, %s", spread_words(bps, rate_unit, rate_name.c_str(), 2).c_str(),
		     spread_words(spread_of(run_values(runs, iops_figure)), 1, "IOPS", 2).c_str());
	if (std::vector<double> p99 = run_values(runs, p99_figure); latency && !p99.empty()) {
		Spread s = spread_of(p99);
		auto [ns_unit, ns_name] = unit_of(format_ns(static_cast<std::uint64_t>(s.median)));
		std::fprintf(out, ", p99 %s", spread_words(s, ns_unit, ns_name.c_str(), 1).c_str());
	}
	std::fputs("\n", out);
}

// CPU time of the whole process (all threads, the kernel's io-wq workers
// among them) during the window, and per I/O: ns_per_io from the seconds
// (-1 with no I/O), cycles_per_io from the PMU where it was counted.
struct CpuTime {
	double user = 0, system = 0;
	double ns_per_io = -1;
	std::optional<double> cycles_per_io;
};

CpuTime cpu_time(const RunResult &r, std::uint64_t ops)
{
	auto secs = [](const timeval &tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
	CpuTime c;
	c.user = secs(r.usage_after.ru_utime) - secs(r.usage_before.ru_utime);
	c.system = secs(r.usage_after.ru_stime) - secs(r.usage_before.ru_stime);
	if (ops == 0)
		return c;
	c.ns_per_io = (c.user + c.system) * 1e9 / static_cast<double>(ops);
	const std::optional<std::uint64_t> &a = r.counters_before.cycles, &b = r.counters_after.cycles;
	if (a && b && *b >= *a)
		c.cycles_per_io = static_cast<double>(*b - *a) / static_cast<double>(ops);
	return c;
}

// -v: "CPU per I/O: 3.10 us, 8512 cycles".
std::string cpu_per_io_line(const CpuTime &c)
{
	if (c.ns_per_io < 0)
		return "CPU per I/O: - (no I/O)";
	return format("CPU per I/O: %.2f us, %s", c.ns_per_io / 1e3,
		      c.cycles_per_io ? format("%.0f cycles", *c.cycles_per_io).c_str()
				      : "cycles unavailable (no readable PMU)");
}

std::string describe_run(const Plan &p)
{
	const Options &o = p.opt;
	std::string flags;
	if (o.direct) flags += ", O_DIRECT";
	if (o.sync) flags += ", O_SYNC";
	if (o.cached) flags += ", cached";
	if (o.queue_depth > 1) flags += format(", queue depth %u", o.queue_depth);
	if (o.fsync_every) flags += format(", fdatasync every %u write%s", o.fsync_every, o.fsync_every == 1 ? "" : "s");
	if (o.ramp > 0) flags += format(", %g s ramp first (not counted)", o.ramp);
	if (o.rate.per_second > 0)
		flags += format(", open loop at %s IOPS per thread", format_count(ios_per_second(o.rate, p.block_size)).c_str());
	std::string limit = o.time_limit > 0 ? format(", %g s per thread%s", o.time_limit,
						      p.bounded_read ? " at most (a device read without -s or -t)" : "") : "";
	std::string size = p.targets.empty() ? "" : format_bytes(p.targets[0].size) + " per thread";
	for (const Target &t : p.targets)
		if (t.size != p.targets[0].size)
			size = "sizes per thread differ (each file's own)";
	std::string op = is_mix(o) ? format("mix %u%% read", o.mix) : is_write(o) ? "write" : "read";
	return format("%s %s, %s blocks, %s, %u thread%s%s%s", op.c_str(),
		      o.random ? "rand" : "seq", format_bytes(p.block_size).c_str(), size.c_str(), o.threads,
		      o.threads == 1 ? "" : "s", limit.c_str(), flags.c_str());
}

void print_memory(std::FILE *out, const MemoryRates &m)
{
	std::fprintf(out, "Memory (%s): memset %s, memcpy %s, memmove %s\n", format_bytes(m.bytes).c_str(),
		     format_rate(m.memset_bps).c_str(), format_rate(m.memcpy_bps).c_str(),
		     format_rate(m.memmove_bps).c_str());
}

// Where sdb's huge-page buffer is why it beats dd and fio: an O_DIRECT
// block that fits in one request of the device (max_sectors_kb), from
// 4 KiB pages has more segments than the device takes in one request, so
// theirs are split, and from sdb's buffer (all of it on 2 MiB pages) has
// few enough, so sdb's is not; "" elsewhere.
std::string huge_page_note(const Plan &p, const Environment &e)
{
	const std::uint64_t pages = (p.block_size + 4095) / 4096, huge = (p.block_size + 2 * MiB - 1) / (2 * MiB) + 1;
	if (!p.opt.direct || !e.buffer_bytes || e.buffer_huge < e.buffer_bytes || !e.max_segments || !e.max_request ||
	    p.block_size > e.max_request || pages <= e.max_segments || huge > e.max_segments)
		return "";
	return format("Huge pages: a %s request from 4 KiB pages (fio's and dd's buffers) has %" PRIu64 " segments, more "
		      "than %s takes (%u), and is split; from sdb's huge pages it is not (fio matches with --iomem=shmhuge "
		      "and vm.nr_hugepages reserved)", format_bytes(p.block_size).c_str(), pages, e.device.c_str(), e.max_segments);
}

void print_environment(std::FILE *out, const Report &r)
{
	const Environment &e = *r.env;
	std::fprintf(out, "Host: %s, %s\n", e.host.c_str(), e.kernel.c_str());
	std::fprintf(out, "Target: %s on %s, device %s, scheduler %s, blocks %s/%s bytes (logical/physical), rotational %s\n",
		     printable(r.plan->targets[0].path).c_str(), e.fs.c_str(), e.device.c_str(),
		     e.scheduler.empty() ? "-" : e.scheduler.c_str(), e.logical_block.empty() ? "-" : e.logical_block.c_str(),
		     e.physical_block.empty() ? "-" : e.physical_block.c_str(), e.rotational.empty() ? "-" : e.rotational.c_str());
	if (r.plan->opt.direct)
		std::fprintf(out, "O_DIRECT alignment: %u bytes (from %s)\n", r.plan->dio_align,
			     r.plan->dio_align_source.c_str());
	std::fprintf(out, "Buffer: %s x %u, %s in huge pages\n", format_bytes(e.buffer_bytes).c_str(),
		     r.plan->buffers, format_bytes(e.buffer_huge).c_str());
	if (std::string note = huge_page_note(*r.plan, e); !note.empty())
		std::fprintf(out, "%s\n", note.c_str());
}

// --rate: the issue-to-completion time, apart from the latency.
std::string service_summary(const Histogram &h)
{
	return format("service (issue to completion) min %s, avg %s, p99 %s, max %s", format_ns(h.min()).c_str(),
		      format_ns(h.mean()).c_str(), format_ns(h.percentile(0.99)).c_str(), format_ns(h.max()).c_str());
}

// A mix's side: "read  70.1%: 12.00 MiB/s, 3072.00 IOPS, latency ...".
void print_side(std::FILE *out, const char *name, std::uint64_t bytes, std::uint64_t ops, std::uint64_t all_ops,
		double secs, const Histogram &latency)
{
	std::fprintf(out, "           %-5s %5.1f%%: %s, %.2f IOPS, %s\n", name,
		     all_ops ? 100.0 * static_cast<double>(ops) / static_cast<double>(all_ops) : 0.0,
		     format_rate(rate(bytes, secs)).c_str(), rate(ops, secs), latency_summary(latency).c_str());
}

// A thread's window too short to quote: under 1 s or under 100 I/Os.
bool short_window(const Worker &w)
{
	return (w.end_ns - w.start_ns) < 1000000000 || w.ops < 100;
}

// A short window's words at the end of its Thread line: how many I/Os in
// how long, and (where one run was asked for, not --runs or --steady's
// rounds) how to get a number to quote.
std::string short_words(const Worker &w, const Options &o)
{
	if (!short_window(w) || w.ops == 0)
		return "";
	return format(" (a short run: %" PRIu64 " I/O%s in %.2f s%s)", w.ops, w.ops == 1 ? "" : "s",
		      (w.end_ns - w.start_ns) / 1e9, o.runs >= 2 || !o.steady.empty() ? "" : "; --runs 5 for a number to quote");
}

void print_thread(std::FILE *out, const Worker &w, const Options &o, bool latency)
{
	double secs = (w.end_ns - w.start_ns) / 1e9;
	std::fprintf(out, "Thread %2u (CPU: %2d%s): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops%s\n", w.id, w.cpu,
		     w.pinned ? ", pinned" : "", secs, format_rate(rate(w.bytes, secs)).c_str(), rate(w.ops, secs), w.ops,
		     short_words(w, o).c_str());
	if (latency)
		std::fprintf(out, "           %s\n", latency_summary(w.latency).c_str());
	if (w.read_latency) {
		print_side(out, "read", w.read_bytes, w.read_ops, w.ops, secs, *w.read_latency);
		print_side(out, "write", w.write_bytes, w.write_ops, w.ops, secs, *w.write_latency);
	}
	if (const auto &h = w.service_latency)	// --rate: the latency above counts from the due time
		std::fprintf(out, "           %s\n", service_summary(*h).c_str());
	if (const auto &h = w.sync_latency)	// the numbers etcd's guidance asks for: p99 under 10 ms
		std::fprintf(out, "           Sync: %" PRIu64 " fdatasync, mean %s, p99 %s, p99.9 %s, max %s\n", h->count(),
			     format_ns(h->mean()).c_str(), format_ns(h->percentile(0.99)).c_str(),
			     format_ns(h->percentile(0.999)).c_str(), format_ns(h->max()).c_str());
}

// One side of a mix (&Worker::read_latency or write_latency), every thread's.
Histogram side_latency(const Shared &s, std::optional<Histogram> Worker::*side)
{
	Histogram h;
	for (auto &w : s.workers)
		h.merge(*((*w).*side));
	return h;
}

// Every thread's latency together: the Total's percentiles, which no
// mean of the threads' percentiles gives.
Histogram total_latency(const Shared &s)
{
	Histogram h;
	for (auto &w : s.workers)
		h.merge(w->latency);
	return h;
}

// --rate: every thread's service time together (as total_latency).
Histogram total_service(const Shared &s)
{
	Histogram h;
	for (auto &w : s.workers)
		if (w->service_latency)
			h.merge(*w->service_latency);
	return h;
}

// --fsync: every thread's fdatasyncs together; none without --fsync.
std::optional<Histogram> total_sync(const Shared &s)
{
	std::optional<Histogram> h;
	for (auto &w : s.workers)
		if (w->sync_latency)
			(h ? *h : h.emplace()).merge(*w->sync_latency);
	return h;
}

// etcd's disk guidance: the 99th percentile of its WAL's fdatasync under
// 10 ms.  Said after --fsync's sync distribution, met or not.
constexpr std::uint64_t etcd_sync_p99_ns = 10'000'000;

bool meets_etcd(const Histogram &syncs) { return syncs.count() && syncs.percentile(0.99) < etcd_sync_p99_ns; }

std::string etcd_words(const Histogram &syncs)
{
	return format("etcd: fdatasync p99 %s, %s etcd's 10 ms for its write-ahead log: %s",
		      format_ns(syncs.percentile(0.99)).c_str(), meets_etcd(syncs) ? "under" : "not under",
		      meets_etcd(syncs) ? "met" : "NOT met");
}

void print_rate(std::FILE *out, const RateOutcome &r)
{
	std::fprintf(out, "Rate: %s IOPS offered, %s achieved (%.1f%%), at most %.3f s behind the schedule: %s\n",
		     format_count(r.offered).c_str(), format_count(r.achieved).c_str(),
		     r.offered > 0 ? r.achieved / r.offered * 100 : 0.0, r.behind_seconds,
		     r.met ? "the load was met" : "the load was NOT met");
}

// The bounds of the distribution's lines: 1-2-5 steps of nanoseconds
// from below min to above max, or decades, or two decades a line, the
// first of these to need at most 8 lines.
std::vector<std::uint64_t> latency_bounds(std::uint64_t min, std::uint64_t max)
{
	const std::vector<std::vector<std::uint64_t>> steps = {{1, 2, 5}, {1}, {1}};
	for (std::size_t k = 0; k < steps.size(); k++) {
		std::vector<std::uint64_t> all;
		for (std::uint64_t decade = 1; decade <= UINT64_MAX / 100; decade *= k == 2 ? 100 : 10)
			for (std::uint64_t m : steps[k])
				all.push_back(decade * m);
		auto first = std::upper_bound(all.begin(), all.end(), std::max<std::uint64_t>(min, 1)) - 1;
		auto last = std::upper_bound(all.begin(), all.end(), max);
		if (last == all.end() || last - first <= 8 || k + 1 == steps.size())
			return {first, last + (last != all.end())};
	}
	return {};
}

// The text report's latency distribution: a line per range of
// latency_bounds() with a bar of # for its share of the I/Os (40 for all;
// a dot for a share too small for one), and where p50, p99 and p99.9
// fall.  Empty without samples.
std::vector<std::string> latency_bars(const Histogram &h)
{
	std::vector<std::string> lines;
	if (h.count() == 0)
		return lines;
	std::vector<std::uint64_t> bounds = latency_bounds(h.min(), h.max());
	std::vector<std::uint64_t> counts(bounds.size() - 1, 0);
	for (unsigned i = 0; i < Histogram::buckets; i++)
		if (std::uint64_t n = h.at(i)) {
			std::uint64_t v = std::clamp(Histogram::midpoint(i), h.min(), h.max());
			std::size_t line = static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
			counts[std::clamp<std::size_t>(line, 1, counts.size()) - 1] += n;
		}
	const std::pair<const char *, std::uint64_t> marks[] = {
		{"p50", h.percentile(0.5)}, {"p99", h.percentile(0.99)}, {"p99.9", h.percentile(0.999)}};
	for (std::size_t l = 0; l < counts.size(); l++) {
		double share = static_cast<double>(counts[l]) / static_cast<double>(h.count());
		int width = static_cast<int>(std::lround(share * 40));
		std::string marked;
		for (auto [name, ns] : marks)
			if (ns >= bounds[l] && (ns < bounds[l + 1] || l + 1 == counts.size()))
				marked += std::string(" ") + name;
		std::string bar = width || !counts[l] ? std::string(static_cast<std::size_t>(width), '#') : ".";
		lines.push_back(format("%9s - %-9s %-40s %5.1f%%%s", format_ns(bounds[l]).c_str(), format_ns(bounds[l + 1]).c_str(),
				       bar.c_str(), share * 100, marked.c_str()));
	}
	return lines;
}

// A mix's two sides over all threads.
void print_total_sides(std::FILE *out, const Report &r)
{
	const Totals &t = r.ex->totals;
	print_side(out, "read", t.read_bytes, t.read_ops, t.ops, t.wall, side_latency(r.ex->shared, &Worker::read_latency));
	print_side(out, "write", t.write_bytes, t.write_ops, t.ops, t.wall,
		   side_latency(r.ex->shared, &Worker::write_latency));
}

// "limited by the device", with the evidence where it adds some.
std::string describe_limit(const Verdict &v)
{
	if (v.limit == "unknown")
		return v.limit_why.empty() ? "limit unknown" : "limit unknown (" + v.limit_why + ")";
	if (v.limit == "stopped")	// "stopped or frozen 2.00 s of 4.00 s (1 time)"
		return v.limit_why;
	std::string what = v.limit == "cpu" ? "the CPU" : v.limit == "device" || v.limit == "link" || v.limit == "throttle" ? "the " + v.limit : v.limit;
	if (v.limit == "device" || v.limit_why.empty())
		return "limited by " + what;
	return "limited by " + what + " (" + v.limit_why + ")";
}

// With -v: what the device is and what it sits on.
void print_device_detail(std::FILE *out, const Device &d)
{
	if (d.stats.empty())
		return;
	std::string detail = d.path;
	if (!d.alias.empty())
		detail += " (" + d.alias + ")";
	auto list = [](const std::vector<std::string> &v) {
		std::string s;
		for (const std::string &x : v)
			s += (s.empty() ? "" : ", ") + x;
		return s;
	};
	if (!d.slaves.empty())
		detail += ", over " + list(d.slaves);
	if (!(d.disks.size() == 1 && d.disks[0] == d.name))
		detail += ", disk" + std::string(d.disks.size() == 1 ? " " : "s ") + list(d.disks);
	if (!d.backing_file.empty())
		detail += ", backing file " + printable(d.backing_file);
	if (d.loop_dio)
		detail += *d.loop_dio ? " (direct I/O)" : " (buffered, loop/dio 0: its page cache may serve reads)";
	if (!d.overlay_layer.empty())
		detail += ", overlayfs " + printable(d.overlay_layer);
	detail += d.link ? format(", link %s: %s", d.link->how.c_str(), format_rate(d.link->bytes_per_second).c_str())
			 : ", no link ceiling in sysfs";
	detail += format(", write cache %s, FUA %s", d.write_cache.empty() ? "unknown" : d.write_cache.c_str(),
			 !d.fua ? "unknown" : *d.fua ? "yes" : "no");
	if (!d.paravirtual.empty())
		detail += format(", paravirtual (%s): the host's cache may sit below it", d.paravirtual.c_str());
	std::fprintf(out, "Device detail: %s\n", detail.c_str());
}

// With -v: each level of the stack below the device, what it saw.
void print_stack_detail(std::FILE *out, const Verdict &v)
{
	for (std::size_t i = 1; i < v.stack.size(); i++) {
		const Level &l = v.stack[i];
		if (l.measured)
			std::fprintf(out, "Below: %s, %s (%.0f%% of the claim)\n", l.name.c_str(),
				     format_bytes(l.bytes).c_str(), l.delivered * 100);
		else
			std::fprintf(out, "Below: uncounted: %s\n", l.reason.c_str());
		if (i - 1 < v.below.size())
			print_device_detail(out, v.below[i - 1]);
	}
}

// What else the Device line says: a level below that saw less than the
// device, and the bytes that were not sdb's when they are over 10%.
std::string verdict_extras(const Verdict &v)
{
	std::string s;
	int weakest = weakest_level(v);
	if (weakest > 0) {
		const Level &l = v.stack[static_cast<std::size_t>(weakest)];
		s += l.measured ? format(", below it %s saw %s (%.0f%%)", l.name.c_str(), format_bytes(l.bytes).c_str(),
					 l.delivered * 100)
				: std::string(", below it uncounted");
	}
	if (v.other_bytes && v.claimed && *v.other_bytes * 10 > v.claimed)
		s += format(", %s by %s", format_bytes(*v.other_bytes).c_str(), v.others);
	return s;
}

// "1.00 GiB read", or for a mix each side against its own claim: "700 MiB
// read of 700 MiB claimed (100%), 300 MiB written of 300 MiB claimed (100%)".
std::string device_bytes(const Options &o, const Verdict &v)
{
	if (!is_mix(o))
		return format_bytes(v.bytes) + (is_write(o) ? " written" : " read");
	auto share = [](std::uint64_t seen, std::uint64_t claimed) {
		return claimed ? format(" (%.0f%%)", 100.0 * static_cast<double>(seen) / static_cast<double>(claimed)) : "";
	};
	return format("%s read of %s claimed%s, %s written of %s claimed%s", format_bytes(v.read_bytes).c_str(),
		      format_bytes(v.read_claimed).c_str(), share(v.read_bytes, v.read_claimed).c_str(),
		      format_bytes(v.write_bytes).c_str(), format_bytes(v.write_claimed).c_str(),
		      share(v.write_bytes, v.write_claimed).c_str());
}

// The verdict in one line: what the device saw of the bytes claimed, how
// busy it was, and what limited the run.
void print_verdict(std::FILE *out, const Report &r)
{
	const Verdict &v = *r.verdict;
	if (v.measured && is_mix(r.plan->opt))
		std::fprintf(out, "Device: %s, %s%s, busy %.0f%%: %s\n", v.device.name.c_str(), device_bytes(r.plan->opt, v).c_str(),
			     verdict_extras(v).c_str(), v.busy * 100, describe_limit(v).c_str());
	else if (v.measured)
		std::fprintf(out, "Device: %s, %s of %s claimed (%.0f%%)%s, busy %.0f%%: %s\n", v.device.name.c_str(),
			     device_bytes(r.plan->opt, v).c_str(), format_bytes(v.claimed).c_str(), v.delivered * 100,
			     verdict_extras(v).c_str(), v.busy * 100, describe_limit(v).c_str());
	else
		std::fprintf(out, "Device: %s%sunverifiable: %s; %s\n", v.device.name.c_str(),
			     v.device.name.empty() ? "" : ", ", v.reason.c_str(), describe_limit(v).c_str());
	if (r.env) {
		print_device_detail(out, v.device);
		print_stack_detail(out, v);
	}
}

// A real-time instant as the local clock shows it, to the microsecond:
// "2025-11-30 12:00:00.250081 +0100".
std::string format_unix(std::int64_t ns)
{
	time_t secs = static_cast<time_t>(ns / 1000000000);
	tm local {};
	char date[64] = "?", zone[16] = "";
	if (localtime_r(&secs, &local)) {
		std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &local);
		std::strftime(zone, sizeof zone, "%z", &local);
	}
	return format("%s.%06ld %s", date, static_cast<long>(ns % 1000000000 / 1000), zone);
}

// When the timed window opened (the barrier, or the end of a --ramp), and
// with --start-at how long after its time the barrier opened.
std::string describe_start(const RunResult &r, const Options &o)
{
	std::string s = format("Started at %s (Unix %s)", format_unix(r.start_unix_ns).c_str(),
			       json_unix(r.start_unix_ns).c_str());
	if (o.ramp > 0)
		s += format(", the end of the %g s ramp", o.ramp);
	if (o.start_at_ns)
		s += format("%s %s after --start-at's %s", o.ramp > 0 ? " begun" : ",",
			    format_ns(static_cast<std::uint64_t>(r.start_late_ns)).c_str(), json_unix(o.start_at_ns).c_str());
	return s;
}

// The header line's word on the data: what a write's buffer holds, and
// that --verify's pattern is made, or its check done, inside the timing.
std::string data_content(const Options &o)
{
	if (o.verify)
		return is_write(o) ? ", --verify pattern made per I/O (timed)" : ", each 4 KiB checked as read (timed)";
	return !writes_target(o) ? "" : o.random_buffer ? ", random buffer" : ", zero buffer";
}
// The report's first line: what ran, on what.
std::string run_header(const Plan &p)
{
	return format("sdb %s: %s%s: %s\n", SDB_VERSION, describe_run(p).c_str(), data_content(p.opt).c_str(),
		      printable(p.opt.file).c_str());
}

void print_verify(std::FILE *out, const Report &r)
{
	if (!r.verify) {
		std::fprintf(out, "Verify: not read back: the write did not finish\n");
		return;
	}
	const VerifySummary &v = *r.verify;
	std::string how = v.read_back ? format("read back in %.3f s (%s, untimed)", v.seconds,
					       format_rate(rate(v.bytes, v.seconds)).c_str())
				      : std::string("checked as read");
	if (!v.bad) {
		std::fprintf(out, "Verify: %" PRIu64 " units of 4 KiB %s: %s\n", v.units, how.c_str(),
			     v.complete ? "all as written" : "none bad before the interruption, the rest unchecked");
		return;
	}
	std::string kinds;
	const std::uint64_t counts[] = {v.kinds[1], v.kinds[2], v.kinds[3] + v.kinds[4], v.kinds[5]};
	const char *names[] = {"zeros", "misplaced", "corrupt", "missing"};
	for (int k = 0; k < 4; k++)
		if (counts[k])
			kinds += format("%s%" PRIu64 " %s", kinds.empty() ? "" : ", ", counts[k], names[k]);
	std::fprintf(out, "Verify: %" PRIu64 " units of 4 KiB %s: %" PRIu64 " bad (%s), %s\n", v.units, how.c_str(), v.bad,
		     kinds.c_str(), describe_first_bad(v).c_str());
}

// A sequential write's cliff, over the time every thread ran.
std::optional<Cliff> write_cliff(const Report &r)
{
	const Options &o = r.plan->opt;
	if (!is_write(o) || o.random)
		return std::nullopt;
	const Totals &t = r.ex->totals;
	std::optional<Cliff> c = find_cliff(r.ex->result.samples, std::min(t.together, t.io));
	// A buffered write's dirty pages are held to a memory cgroup's limit:
	// a fall near it (from a tenth of it, where a v2 cgroup's dirty ratio
	// starts writeback, to half again, as the cgroup holds more than sdb's
	// pages) is the page cache filling, not the device's cache.
	if (c && !o.direct && !o.sync)
		if (std::optional<MemoryLimit> m = memory_limit();
		    m && c->offset >= m->bytes / 10 && c->offset <= m->bytes + m->bytes / 2)
			c->page_cache = format("%s %s in %s", m->file.c_str(), format_bytes(m->bytes).c_str(), m->dir.c_str());
	return c;
}

// The cliff in words: a write cache's size, or the memory cgroup whose
// limit held a buffered write's dirty pages.
std::string cliff_words(const Cliff &c)
{
	std::string fell = format("the rate fell after %s written (%.2f s), from %s to %s", format_bytes(c.offset).c_str(),
				  c.seconds, format_rate(c.before).c_str(), format_rate(c.after).c_str());
	if (!c.page_cache.empty())
		return format("Page cache: %s: the memory cgroup's limit (%s) holds sdb's dirty pages, not a write cache "
			      "(-D writes past it)", fell.c_str(), c.page_cache.c_str());
	return format("Write cache: %s: a write cache of about %s", fell.c_str(), about_bytes(c.offset).c_str());
}

// The Timeline's p99 line: each step's p99 as a sparkline (the steps with
// no I/O ended left out), between its lowest and highest.
void print_p99_timeline(std::FILE *out, const Report &r, double step)
{
	const Totals &t = r.ex->totals;
	std::vector<Point> p99;
	for (const Point &pt : make_timeline(r.ex->result.samples, t.io, t.bytes, step, r.ex->result.tail_latency))
		if (pt.ios)
			p99.push_back({pt.t, static_cast<double>(pt.p99_ns)});
	if (p99.size() < 2)
		return;
	auto [lo, hi] = std::minmax_element(p99.begin(), p99.end(),
					    [](const Point &a, const Point &b) { return a.bytes_per_second < b.bytes_per_second; });
	std::fprintf(out, "p99 latency: %s  min %s, max %s\n", sparkline(p99, lo->bytes_per_second, hi->bytes_per_second).c_str(),
		     format_ns(static_cast<std::uint64_t>(lo->bytes_per_second)).c_str(),
		     format_ns(static_cast<std::uint64_t>(hi->bytes_per_second)).c_str());
}

void print_human(std::FILE *out, const Report &r)
{
	const Plan &p = *r.plan;
	const Options &o = p.opt;
	if (r.env)
		print_environment(out, r);
	if (r.memory && o.timing)
		print_memory(out, *r.memory);
	if (!r.header_shown)
		std::fputs(run_header(p).c_str(), out);
	if (r.fill_seconds >= 0) {
		std::uint64_t filled = p.slot_stride * p.slots * p.buffers;
		std::fprintf(out, "Buffer filled from /dev/urandom: %s in %.3f s (%s)\n", format_bytes(filled).c_str(),
			     r.fill_seconds, format_rate(rate(filled, r.fill_seconds)).c_str());
	}
	const Totals &t = r.ex->totals;
	if (o.start_at_ns || r.env)
		std::fprintf(out, "%s\n", describe_start(r.ex->result, o).c_str());
	for (auto &w : r.ex->shared.workers)
		if (w->cached_before >= 0)
			std::fprintf(out, "Cached before the run: %.0f%% of %s%s\n", w->cached_before * 100,
				     w->target->path.c_str(), o.threads > 1 ? format(" (thread %u)", w->id).c_str() : "");
		else if (o.cached && !is_write(o) && w->target->kind == Kind::file)
			std::fprintf(out, "Cached before the run: unknown for %s (no cachestat(2), and mincore(2) is not told the "
				     "truth for a file this user may not write)\n", w->target->path.c_str());
	for (auto &w : r.ex->shared.workers)
		if (w->laid_out)
			std::fprintf(out, "Laid out %s to %s before the %s (untimed)\n", printable(w->target->path).c_str(),
				     format_bytes(w->target->size).c_str(), is_mix(o) ? "mix" : "random writes");
	const bool latency = o.random || o.fsync_every || is_mix(o) || o.rate.per_second > 0;	// where latency is shown
	for (auto &w : r.ex->shared.workers)
		print_thread(out, *w, o, latency);
	if (o.threads > 1)
		std::fprintf(out, "Total (%u threads): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops, %s\n", o.threads,
			     t.wall, format_rate(rate(t.bytes, t.wall)).c_str(), rate(t.ops, t.wall), t.ops,
			     format_bytes(t.bytes).c_str());
	if (o.threads > 1 && latency)
		std::fprintf(out, "           %s\n", latency_summary(total_latency(r.ex->shared)).c_str());
	if (o.threads > 1 && o.rate.per_second > 0)
		std::fprintf(out, "           %s\n", service_summary(total_service(r.ex->shared)).c_str());
	if (o.threads > 1 && is_mix(o))
		print_total_sides(out, r);
	if (std::optional<RateOutcome> rate = rate_outcome(p, *r.ex))
		print_rate(out, *rate);
	if (latency) {
		Histogram all = total_latency(r.ex->shared);
		std::vector<std::string> bars = latency_bars(all);
		if (!bars.empty())
			std::fprintf(out, "Latency distribution (%" PRIu64 " I/Os):\n", all.count());
		for (const std::string &line : bars)
			std::fprintf(out, "  %s\n", line.c_str());
	}
	if (std::optional<Histogram> syncs = total_sync(r.ex->shared); syncs && syncs->count()) {
		std::vector<std::string> bars = latency_bars(*syncs);	// the syncs', apart from the writes' above
		std::fprintf(out, "Sync distribution (%" PRIu64 " fdatasync):\n", syncs->count());
		for (const std::string &line : bars)
			std::fprintf(out, "  %s\n", line.c_str());
		std::fprintf(out, "%s\n", etcd_words(*syncs).c_str());
	}
	if (r.verdict)
		print_verdict(out, r);
	if (o.verify)
		print_verify(out, r);
	if (t.wall - t.io > 0.05 * t.wall && t.wall - t.io >= 0.01)
		std::fprintf(out, "Final fdatasync: %.3f s of the %.3f s timed (%s)\n", t.wall - t.io, t.wall,
			     o.direct ? "the device flushing its write cache"
				      : "what the page cache held when the last write returned");
	double step = timeline_step(t.io, t.longest_io, true, r.ex->result.sample_period);
	if (t.wall >= 2 && t.io >= 2 * step) {
		auto points = make_timeline(r.ex->result.samples, t.io, t.bytes, step);
		double lo = points[0].bytes_per_second, hi = lo;
		for (const Point &pt : points) {
			lo = std::min(lo, pt.bytes_per_second);
			hi = std::max(hi, pt.bytes_per_second);
		}
		std::fprintf(out, "Timeline: %s  min %s, max %s%s\n", sparkline(points, lo, hi).c_str(),
			     format_rate(lo).c_str(), format_rate(hi).c_str(),
			     o.ramp > 0 ? format(", from the end of the %g s ramp", o.ramp).c_str() : "");
		if (latency)
			print_p99_timeline(out, r, step);
		while (!points.empty() && points.back().t > t.together + step / 2)
			points.pop_back();
		std::string fell = cliff(points);
		if (!fell.empty())
			std::fprintf(out, "%s\n", fell.c_str());
	}
	if (std::optional<Cliff> c = write_cliff(r))
		std::fprintf(out, "%s\n", cliff_words(*c).c_str());
	CpuTime cpu = cpu_time(r.ex->result, t.ops);
	std::fprintf(out, "CPU: %.2f s user, %.2f s system\n", cpu.user, cpu.system);
	if (r.env)
		std::fprintf(out, "%s\n", cpu_per_io_line(cpu).c_str());
	if (r.runs.size() >= 2)
		print_runs(out, r.runs, latency);
	if (r.steady) {
		const Steady &s = *r.steady;
		if (s.reported && s.rounds[*s.reported].median)
			std::fprintf(out, "The report above is round %zu's, the steady window's median\n", *s.reported + 1);
		else if (s.reported)
			std::fprintf(out, "The report above is round %zu's, the last\n", *s.reported + 1);
		else
			std::fprintf(out, "The report above is round %zu's, cut short and not counted\n", s.rounds.size() + 1);
		for (const std::string &line : steady_lines(*r.steady))
			std::fprintf(out, "%s\n", line.c_str());
	}
	if (r.ex->result.interrupted || r.series_cut)
		std::fprintf(out, "Interrupted: the results above are partial\n");
}

} // namespace
