// measure: the one way a plan is run.  Plan, buffers (-T's memory ceiling
// before them), execute, --verify's read-back, then every check of the
// numbers: the target's warnings, the verdict, the memory ceiling where a rate is suspicious, the
// plausibility and verdict warnings, --rate's outcome.  The plain run, the
// quick suite and the sweep call measure() and differ only in what they
// show of it: the plain run all of it; the quick suite its verdict per row
// (a median over the runs, as quick.h words it); the sweep the verdict of
// its maximum, the closed-loop run, whose rate it reports.
#pragma once

#include "base.h"
#include "signals.h"
#include "options.h"
#include "stats.h"
#include "pace.h"
#include "plan.h"
#include "buffer.h"
#include "run.h"
#include "checks.h"
#include "verify.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

// How a mode runs its plans.  ours: the file the mode made (the quick
// suite's, which the plan may reuse); files: how threads share it;
// enough: what ends the run early; ceiling: the memory ceiling the mode
// keeps between its runs (none: each run its own); one_of_many: a signal
// before the run starts ends it as one during a run (the quick suite and
// the sweep end as a whole, with what ran), not as an error; ready: called
// with the plan and the early warnings just before the threads start.
struct MeasureHow {
	const Identity *ours = nullptr;
	Files files = Files::per_thread;
	Enough enough;
	std::optional<MemoryRates> *ceiling = nullptr;
	bool one_of_many = false;
	std::function<void(const Plan &, const std::vector<std::string> &early)> ready;
};

// One run and what sdb checked of it.  Not copied: the report points into it.
struct Measurement {
	Plan plan;
	std::vector<std::unique_ptr<Buffer>> buffers;
	double fill_seconds = -1;	// -R's fill
	Execution ex;
	std::optional<MemoryRates> memory;	// -T's, or the cheap ceiling this run was held against
	std::vector<std::string> early;		// said before the run: the target's, a launcher's, -T's; a late start
	std::optional<Verdict> verdict;		// when any I/O ran
	std::optional<VerifySummary> verify;	// --verify, when the check ran
	std::optional<RateOutcome> rate;	// --rate
	std::vector<std::string> warnings;	// on the numbers: plausibility's, the memory ceiling's among them
	std::vector<std::string> verdict_warnings;	// the verdict's: too few bytes reached the device, ...
	Error error;			// what ended it: before the run, in it, or --verify's bad units
	bool started = false;		// the threads were started (ex holds a run)
	bool interrupted = false;	// a signal ended it

	Measurement() = default;
	Measurement(const Measurement &) = delete;
	Measurement &operator=(const Measurement &) = delete;
};

// A run's label as the start of a sentence: "SEQ1M Q8T1: ".
std::string label_prefix(const std::string &label)
{
	std::string s = label.substr(0, label.find_last_not_of(" :") + 1);
	return s.empty() ? s : s + ": ";
}

// Run opt once, as how says, into m; m.error is also returned.
Error measure(const Options &opt, Waiter &waiter, const RunId &id, const MeasureHow &how, Measurement &m)
{
	Plan &plan = m.plan;
	m.error = make_plan(opt, plan, how.ours, how.files);
	if (!m.error && opt.timing) {
		m.memory = time_memory(plan.block_size, &waiter);
		if (m.memory->bytes == 0)
			m.error = runtime_error("-T: cannot allocate memory for the timing buffers");
		else if (waiter.received())
			m.error = waiter.interruption("while timing memory (-T)");
		else
			m.early = memory_warnings(*m.memory);
	}
	if (!m.error)
		m.error = allocate_buffers(plan, m.buffers, [&](const char *when) { return waiter.stopped(when); },
					   m.fill_seconds);
	if (m.error && how.one_of_many && waiter.received()) {
		m.error = {};
		m.interrupted = true;
	}
	if (m.error || m.interrupted)
		return m.error;

	std::vector<std::string> first = target_warnings(plan);
	for (std::string &w : launcher_warnings(opt))	// a relative --start-at under srun or mpirun
		first.push_back(std::move(w));
	m.early.insert(m.early.begin(), first.begin(), first.end());
	if (how.ready)
		how.ready(plan, m.early);
	Execution &ex = m.ex;
	ex.enough = how.enough;
	m.started = true;
	execute(plan, id, m.buffers, waiter, ex);
	m.interrupted = ex.result.interrupted;
	if (ex.result.start_late_ns > 1000000000) {	// told at once, kept with the early warnings
		std::vector<std::string> late = {
			start_late_warning(opt.start_at_ns, ex.result.ready_unix_ns, ex.result.start_late_ns)};
		emit_warnings(late);
		m.early.push_back(late[0]);
	}
	if (opt.verify)
		m.verify = check_written(plan, ex, waiter);
	m.error = ex.error;
	if (!m.error && m.verify && m.verify->bad && !m.interrupted)
		m.error = verify_failure(*m.verify);
	if (!ran_any(ex.shared))	// no warnings about a run that never happened
		return m.error;

	m.verdict = judge(plan, ex);
	m.rate = rate_outcome(plan, ex);
	// The memory ceiling: -T's, else the mode's or this run's cheap one,
	// measured when the rate is suspicious() and no ceiling held so far is
	// above the fastest thread (the best of the two kept).
	std::optional<MemoryRates> &held = opt.timing || !how.ceiling ? m.memory : *how.ceiling;
	const double fastest = fastest_thread(ex.shared);
	if (!opt.timing && suspicious(plan, *m.verdict, rate(ex.totals.bytes, ex.totals.wall)) &&
	    (!held || fastest > held->memcpy_bps)) {
		MemoryRates c = copy_ceiling(*m.buffers[0], fastest);
		if (!held || c.memcpy_bps > held->memcpy_bps)
			held = c;
	}
	if (&held != &m.memory)
		m.memory = held;
	m.warnings = plausibility(plan, ex.shared, m.memory ? &*m.memory : nullptr, label_prefix(id.label));
	m.verdict_warnings = verdict_warnings(plan, *m.verdict);
	return m.error;
}

} // namespace
