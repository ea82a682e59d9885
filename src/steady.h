// steady: --steady, one workload in rounds of -t seconds until SNIA PTS
// steady state (pts.h's test over the last five rounds), or --rounds N of
// them; --precondition's sequential writes of twice the target before
// round 1.  The rounds are a series of plain runs (run_series, plain.h):
// each round is measured, checked and reported as a plain run is, and the
// report is the window's median round's (without a steady window, or cut
// short, the last round's), with the test beside it.
#pragma once

#include "base.h"
#include "signals.h"
#include "options.h"
#include "spread.h"
#include "pts.h"
#include "plan.h"
#include "measure.h"
#include "report.h"
#include "plain.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr double steady_round_seconds = 60;	// -t not given
constexpr std::uint64_t precondition_block = 128 * KiB;

// --steady's variable: as given, else bandwidth sequential and IOPS random.
std::string steady_variable(const Options &o)
{
	return o.steady != "auto" ? o.steady : o.random ? "iops" : "bw";
}

double steady_figure(const std::string &variable, const RunFigures &f)
{
	return variable == "bw" ? f.bytes_per_second : variable == "iops" ? f.iops : f.mean_ns.value_or(0);
}

// A round: the workload as given, for -t seconds (default 60).
Options round_options(const Options &o)
{
	Options r = o;
	if (r.time_limit <= 0)
		r.time_limit = steady_round_seconds;
	return r;
}

// The precondition's run: sequential 128 KiB writes of random bytes over
// what the rounds touch (one stream over the whole of a block device; each
// thread's file), at the rounds' queue depth, direct and sync as they are.
Options precondition_options(const Options &o, const Plan &rounds)
{
	Options p = o;
	p.op = Options::Op::write;
	p.mix = 0;
	p.random = false;
	p.block_size = precondition_block;
	p.time_limit = 0;
	p.ramp = 0;
	p.rate = Rate{};
	p.verify = false;
	p.random_buffer = true;
	p.fsync_every = 0;
	p.steady.clear();
	const Target &t = rounds.targets[0];
	if (t.kind == Kind::block) {
		p.threads = 1;
		p.size = t.existing;	// a pass's last write is shorter where 128 KiB does not divide it
	} else {
		p.size = t.size;
	}
	return p;
}

// Two passes of the precondition's writes; what they wrote and how long it
// took, into s.  On a terminal or not, the plan and the first pass's rate
// are said as they come (the longest the run can take).
Error precondition(const Options &pre, SignalScope &scope, std::FILE *out, bool words, Steady &s)
{
	Steady::Precondition done;
	for (int pass = 0; pass < 2; pass++) {
		Measurement m;
		MeasureHow how;
		how.one_of_many = true;
		if (Error e = measure(pre, scope.waiter, RunId{0, "precondition: "}, how, m))
			return Error{e.status, "--precondition: " + e.msg};
		if (m.interrupted || m.ex.result.interrupted)
			return scope.waiter.interruption("during --precondition");
		done.bytes += m.ex.totals.bytes;
		done.seconds += m.ex.totals.wall;
		if (words && pass == 0) {
			std::fprintf(out, "Precondition: pass 1 of 2, %s in %.1f s (%s); about %.1f s more\n",
				     format_bytes(m.ex.totals.bytes).c_str(), m.ex.totals.wall,
				     format_rate(rate(m.ex.totals.bytes, m.ex.totals.wall)).c_str(), m.ex.totals.wall);
			std::fflush(out);
		}
	}
	s.precondition = done;
	return {};
}

std::string duration_words(double seconds)
{
	if (seconds < 120)
		return format("%.0f s", seconds);
	if (seconds < 7200)
		return format("%.0f min", seconds / 60);
	return format("%.1f h", seconds / 3600);
}

int run_steady(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	const Options round = round_options(opt);
	Steady s;
	s.variable = steady_variable(opt);
	s.round_seconds = round.time_limit;
	s.all_rounds = opt.rounds != 0;
	s.most = opt.rounds ? opt.rounds : pts_default_rounds;
	const bool words = !opt.json;
	// Every plan is made, and so every refusal said, before any I/O.
	Plan rounds_plan;
	Options pre;
	if (Error e = make_plan(round, rounds_plan)) {
		print_error(e);
		return e.status;
	}
	s.whole_device = rounds_plan.targets[0].kind == Kind::block;
	if (opt.precondition)
		pre = precondition_options(opt, rounds_plan);
	rounds_plan = Plan();	// its locks, let go: each run takes its own
	if (opt.precondition) {
		Plan check;
		if (Error e = make_plan(pre, check)) {
			print_error(Error{e.status, "--precondition: " + e.msg});
			return e.status;
		}
	}
	if (words) {
		std::fprintf(out, "Steady state: rounds of %g s until SNIA PTS steady state in %s, %s %u rounds (%s%s)%s\n",
			     round.time_limit, steady_variable_name(s.variable).c_str(), s.all_rounds ? "all" : "at most",
			     s.most, duration_words(s.most * (round.time_limit + round.ramp)).c_str(),
			     s.all_rounds ? "" : " at most",
			     opt.precondition ? format(", after writing %s twice (the precondition)",
						       format_bytes(pre.size * pre.threads).c_str()).c_str() : "");
		std::fflush(out);
	}
	Options rounds = round;
	if (opt.precondition) {
		if (Error e = precondition(pre, scope, out, words, s)) {
			print_error(e);
			return e.status;
		}
		rounds.start_at_ns = 0;	// --start-at started the precondition
	}
	RunSeries series;
	series.most = s.most;
	series.finished = [&](const std::vector<RunFigures> &runs) {
		s.rounds = runs;
		s.values.push_back(steady_figure(s.variable, runs.back()));
		if (words) {
			std::fputs(steady_row(s, runs.size() - 1).c_str(), out);
			std::fflush(out);
		}
	};
	series.done = [&](const std::vector<RunFigures> &runs) {
		return !s.all_rounds && runs.size() >= pts_window_rounds && pts_window(s.values, runs.size() - 1).steady;
	};
	// The window's median round by the variable is the report (a series
	// cut short: its last run's, which may be the round that was cut short
	// and has no row).
	series.summary = [&](std::vector<RunFigures> &runs, SeriesEnd end, Report &last) -> std::size_t {
		s.interrupted = end == SeriesEnd::interrupted;
		s.failed = end == SeriesEnd::failed;
		s.rounds = runs;
		s.values.resize(std::min(s.values.size(), runs.size()));	// an interrupted round has no row
		s.rounds.resize(s.values.size());
		s.pts = pts_test(s.values);
		std::size_t pick = runs.size() - 1;
		if (pick < s.rounds.size())
			s.reported = pick;
		if (s.pts.window && end == SeriesEnd::whole) {
			std::vector<std::size_t> order;
			for (std::size_t i = s.pts.window->first; i <= s.pts.window->last; i++)
				order.push_back(i);
			std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.values[a] < s.values[b]; });
			pick = order[order.size() / 2];
			s.rounds[pick].median = true;
			s.reported = pick;
		}
		last.steady = s;
		return pick;
	};
	return run_series(rounds, out, scope, series);
}

// --steady's rules, then a test's.
Error check_steady(const Options &o)
{
	if (o.op == Options::Op::none)
		return usage_error("--steady: needs a workload to round: -w, -r or -M");
	return check_test(o);
}

const Mode steady_mode = {"--steady", [](const Options &o) { return !o.steady.empty(); }, check_steady,
			  [](const Options &o, std::FILE *out, std::string *) { return run_steady(o, out); }};

} // namespace
