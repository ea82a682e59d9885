// plain: the plain run (-w, -r or -M, once or --runs N times, through
// measure()) and -T alone (the memory ceiling and nothing else).  Offers run_plain() and
// run_memory_only() to their row, memory_mode and plain_mode, and
// run_series(), runs back to back and their report, to --steady.
#pragma once

#include "base.h"
#include "signals.h"
#include "options.h"
#include "plan.h"
#include "buffer.h"
#include "run.h"
#include "checks.h"
#include "measure.h"
#include "report.h"
#include "document.h"
#include "outputs.h"
#include "repeat.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

// -T alone: the memory ceiling and nothing else.
int run_memory_only(const Options &opt, std::FILE *out)
{
	Report r;
	r.memory = time_memory(opt.block_size ? opt.block_size : MiB);
	if (r.memory->bytes == 0) {
		print_error(runtime_error("-T: cannot allocate memory for the timing buffers"));
		return exit_runtime;
	}
	r.warnings = memory_warnings(*r.memory);
	emit_warnings(r.warnings);
	opt.json ? print_json(out, r) : print_memory(out, *r.memory);
	return exit_ok;
}

// --html's page and --prom's metrics of the run's JSON document, as
// --json prints it.
Error report_outputs(const Options &opt, const Report &report)
{
	return write_outputs(opt, printed([&](std::FILE *mem) { print_json(mem, report); }));
}

// What a finished run holds that its report does not need, let go: the
// buffers (N runs hold one run's memory), the plan's locks, its O_EXCL hold
// on a block device and each worker's descriptor (the next run takes them
// as this did).
void release_run(Measurement &m)
{
	m.buffers.clear();
	m.plan.locks.clear();
	m.plan.exclusive = Fd();
	for (auto &w : m.ex.shared.workers)
		w->fd = Fd();
}

// Say the warnings not said yet: a repeated run says each once.
void emit_new(const std::vector<std::string> &warnings, std::vector<std::string> &said)
{
	std::vector<std::string> fresh;
	for (const std::string &w : warnings)
		if (std::find(said.begin(), said.end(), w) == said.end()) {
			fresh.push_back(w);
			said.push_back(w);
		}
	emit_warnings(fresh);
}

// How run_series() repeats a run and says what the runs came to.  most:
// runs at most; done: after each run, whether the series is complete
// (given every run's figures so far); finished: called as each run ends
// (--steady's row per round); summary: picks the run whose report is the
// document's and adds what the series found to it, told how the series
// ended (a signal or an error cut it short: its last run's report is then
// the one shown).
enum class SeriesEnd { whole, interrupted, failed };
struct RunSeries {
	unsigned most = 1;
	std::function<bool(const std::vector<RunFigures> &)> done;
	std::function<void(const std::vector<RunFigures> &)> finished;
	std::function<std::size_t(std::vector<RunFigures> &, SeriesEnd, Report &)> summary;
};

// The runs of a series back to back: measure(), saying the target's
// warnings (and on a terminal what runs) before the first starts, then the
// report (the run series.summary picks, with every run's warnings), on
// stdout and in --html's page.  A run that fails or is interrupted ends the
// series there.  --start-at starts the first run only.  Returns the exit
// status.
int run_series(const Options &given, std::FILE *out, SignalScope &scope, const RunSeries &series)
{
	Options opt = given;
	std::vector<std::unique_ptr<Measurement>> ms;
	std::vector<Report> reports;
	std::vector<RunFigures> figures;
	std::vector<std::string> said, all_warnings;
	bool header_shown = false;
	bool cut = false;	// a signal while the next run got ready: the series was interrupted, not failed
	Error error;
	for (unsigned i = 0; i < series.most && !error; i++) {
		MeasureHow how;
		how.ready = [&](const Plan &plan, const std::vector<std::string> &early) {
			emit_new(early, said);
			// On a terminal, what runs is said before it runs (-v and -T
			// print more before that line, at the end).
			if (!header_shown && !opt.json && !opt.verbose && !opt.timing && isatty(fileno(out))) {
				std::fputs(run_header(plan).c_str(), out);
				std::fflush(out);
				header_shown = true;
			}
		};
		auto m = std::make_unique<Measurement>();
		error = measure(opt, scope.waiter, RunId{}, how, *m);
		if (!m->started) {
			if (ms.empty()) {
				print_error(error);
				return error.status;
			}
			cut = scope.waiter.received() != 0;
			if (cut)
				error = {};
			break;	// the runs so far are reported (then the error, where one stopped it)
		}
		Report report;
		report.plan = &m->plan;
		report.ex = &m->ex;
		report.fill_seconds = m->fill_seconds;
		report.verify = m->verify;
		report.verdict = m->verdict;
		if (opt.timing)
			report.memory = m->memory;
		if (opt.verbose)
			report.env = describe(m->plan, *m->buffers[0]);
		release_run(*m);
		report.warnings = m->warnings;
		report.warnings.insert(report.warnings.end(), m->verdict_warnings.begin(), m->verdict_warnings.end());
		if (m->rate && !m->rate->met)
			report.warnings.push_back(rate_warning(*m->rate));
		emit_new(report.warnings, said);
		report.warnings.insert(report.warnings.begin(), m->early.begin(), m->early.end());
		for (const std::string &w : report.warnings)
			if (std::find(all_warnings.begin(), all_warnings.end(), w) == all_warnings.end())
				all_warnings.push_back(w);
		report.error = error.msg;
		figures.push_back(figures_of(m->ex));
		reports.push_back(std::move(report));
		ms.push_back(std::move(m));
		opt.start_at_ns = 0;
		if (ms.back()->ex.result.interrupted)
			break;
		if (series.finished)
			series.finished(figures);
		if (series.done && series.done(figures))
			break;
	}
	const SeriesEnd end = ms.back()->ex.result.interrupted || cut ? SeriesEnd::interrupted
			      : error			     ? SeriesEnd::failed
							     : SeriesEnd::whole;
	std::size_t pick = series.summary(figures, end, reports.back());
	Report &report = reports[pick];
	if (pick != reports.size() - 1) {	// what the summary added, to the report shown
		report.runs = std::move(reports.back().runs);
		report.steady = std::move(reports.back().steady);
	}
	const Execution &ex = ms[pick]->ex;
	report.header_shown = header_shown;
	report.series_cut = cut;
	if (figures.size() >= 2)
		report.warnings = all_warnings;
	if (ran_any(ex.shared) || ex.result.interrupted || cut) {
		std::string text = printed([&](std::FILE *mem) { opt.json ? print_json(mem, report) : print_human(mem, report); });
		if (int status = deliver(out, text, scope.waiter)) {
			if (error && status != 128 + SIGPIPE)
				print_error(error);
			return status;
		}
		if (!opt.html.empty() || !opt.prom.empty())
			if (Error e = report_outputs(opt, report); e && !error)
				error = e;
	}
	if (error) {
		print_error(error);
		return error.status;
	}
	return ex.result.interrupted || cut ? scope.waiter.exit_status() : exit_ok;
}

// One run, or --runs N of them: the report is the median run's (one run:
// that run's), with a line per run and the spread.
int run_plain(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	RunSeries series;
	series.most = opt.runs ? opt.runs : 1;
	series.summary = [&](std::vector<RunFigures> &runs, SeriesEnd end, Report &last) -> std::size_t {
		if (end != SeriesEnd::whole || runs.size() != series.most || runs.size() < 2)
			return runs.size() - 1;
		std::size_t m = mark_median(runs);
		last.runs = runs;
		return m;
	};
	return run_series(opt, out, scope, series);
}

const Mode memory_mode = {"-T", [](const Options &o) { return o.op == Options::Op::none; }, check_test,
			  [](const Options &o, std::FILE *out, std::string *) { return run_memory_only(o, out); }};

const Mode plain_mode = {"-w, -r, -M", [](const Options &) { return true; }, check_test,
			 [](const Options &o, std::FILE *out, std::string *) { return run_plain(o, out); }};

} // namespace
