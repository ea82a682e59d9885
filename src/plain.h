// plain: the plain run (-w, -r or -M once, through measure()) and -T
// alone (the memory ceiling and nothing else).  Offers run_plain() and
// run_memory_only() to their row, memory_mode and plain_mode.
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
#include "html.h"

#include <csignal>
#include <cstdio>
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

// --html FILE: the page of the run's JSON document, as --json prints it.
Error html_report(const std::string &path, const Report &report)
{
	return write_html(path, printed([&](std::FILE *mem) { print_json(mem, report); }));
}

// One run: measure(), saying the target's warnings (and on a terminal
// what runs) before it starts, then the report, on stdout and in --html's
// page.  Returns the exit status.
int run_plain(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	Report report;
	MeasureHow how;
	how.ready = [&](const Plan &plan, const std::vector<std::string> &early) {
		emit_warnings(early);
		// On a terminal, what runs is said before it runs (-v and -T
		// print more before that line, at the end).
		if (!opt.json && !opt.verbose && !opt.timing && isatty(fileno(out))) {
			std::fputs(run_header(plan).c_str(), out);
			std::fflush(out);
			report.header_shown = true;
		}
	};
	Measurement m;
	Error error = measure(opt, scope.waiter, RunId{}, how, m);
	if (!m.started) {
		print_error(error);
		return error.status;
	}
	const Execution &ex = m.ex;
	const RunResult &result = ex.result;
	report.plan = &m.plan;
	report.ex = &ex;
	report.fill_seconds = m.fill_seconds;
	report.verify = m.verify;
	report.verdict = m.verdict;
	if (opt.timing)
		report.memory = m.memory;
	if (opt.verbose)
		report.env = describe(m.plan, *m.buffers[0]);
	report.warnings = m.warnings;
	report.warnings.insert(report.warnings.end(), m.verdict_warnings.begin(), m.verdict_warnings.end());
	if (m.rate && !m.rate->met)
		report.warnings.push_back(rate_warning(*m.rate));
	emit_warnings(report.warnings);
	report.warnings.insert(report.warnings.begin(), m.early.begin(), m.early.end());
	report.error = error.msg;
	if (ran_any(ex.shared) || result.interrupted) {
		std::string text = printed([&](std::FILE *mem) { opt.json ? print_json(mem, report) : print_human(mem, report); });
		if (int status = deliver(out, text, scope.waiter)) {
			if (error && status != 128 + SIGPIPE)
				print_error(error);
			return status;
		}
		if (!opt.html.empty())
			if (Error e = html_report(opt.html, report); e && !error)
				error = e;
	}
	if (error) {
		print_error(error);
		return error.status;
	}
	return result.interrupted ? scope.waiter.exit_status() : exit_ok;
}

const Mode memory_mode = {"-T", [](const Options &o) { return o.op == Options::Op::none; }, check_test,
			  [](const Options &o, std::FILE *out, std::string *) { return run_memory_only(o, out); }};

const Mode plain_mode = {"-w, -r, -M", [](const Options &) { return true; }, check_test,
			 [](const Options &o, std::FILE *out, std::string *) { return run_plain(o, out); }};

} // namespace
