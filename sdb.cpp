// sdb - Simple Disk Benchmark: how fast does this file or device really
// stream data?  See sdb.1 for the user's view, HACKING.md for the
// developer's, and LICENSE for the terms.
//
// The one translation unit: `g++ sdb.cpp` builds sdb.  Its modules are the
// headers of src/, included here in wings: the ground floor, the command
// line, the engine, the report, the offline wing, the modes.  Each module
// includes only earlier ones and compiles alone (make check-modules, which
// also holds the offline wing away from the engine), and keeps its code in
// an anonymous namespace.  Start reading at run(), below: it picks
// the mode (--merge, --compare, --hosts, --probe, --sweep, --explain, --quick, -T alone,
// or a run).
// Errors travel up as Error values (base.h) and the mode that ran prints
// its one line (print_error) and returns its exit status; a worker records
// its error with fail() (loops.h), which stops every thread.  The tests
// reach the modules without a second copy: tests/unit/MODULE.cpp includes
// src/MODULE.h, and tests/fuzz_parse.cpp includes this file with
// SDB_NO_MAIN.

// The ground floor: what every mode shares, standing on nothing else.
#include "src/base.h"	// Error and its printing, SIZE, IEC formats, clocks, Fd
#include "src/signals.h"	// the stop flag, signals (SignalScope, Waiter), printed/deliver, stdout's errno
#include "src/sys.h"	// sysfs, the mount table, other processes, a cgroup's memory room
#include "src/json.h"	// the JSON writer's pieces and a small JSON reader
#include "src/profiles.h"	// the quick suite's table of CrystalDiskMark's tests
#include "src/pace.h"	// --rate: the rate, the due-time schedule, whether the load was met
#include "src/stats.h"	// Permutation, Histogram and its JSON keys, LiveHistogram, MixChooser, Sample

// The command line.
#include "src/options.h"	// Options, usage_text, parse_args(), -f's %h and %r

// The engine: a plan run against its target, and checked.
#include "src/pattern.h"	// the --verify unit: header, body, classify_unit
#include "src/guard.h"	// what sdb may touch: kernel file systems, other users of a file, locks
#include "src/plan.h"	// targets, sizes, alignment, safety: make_plan()
#include "src/buffer.h"	// aligned huge-page buffers, the -R fill
#include "src/uring.h"	// Ring: io_uring through raw syscalls
#include "src/worker.h"	// Worker: open, lay out, evict, the ring: prepare() before the barrier
#include "src/loops.h"	// the timed loops at depth 1 and N, pass ends, --ramp, the final fdatasync
#include "src/device.h"	// the block device under the target, counters, holes, link
#include "src/stack.h"	// the stack below the device, sdb's own I/O, CPU quotas
#include "src/run.h"	// barrier, supervisor, Totals: execute()
#include "src/checks.h"	// memory ceiling, warnings, the Verdict: judge()
#include "src/verify.h"	// --verify's read-back and its summary

// The report: a run in words and JSON.
#include "src/cliff.h"	// a sequential write's cliff (a write cache); --quick=flash's cap, its stop at the cliff, its words
#include "src/report.h"	// the human report, the timeline, the cliff in words
#include "src/document.h"	// the JSON document of a run

// The offline wing: saved documents only (make check-modules holds it to the
// ground floor and options).
#include "src/fleet.h"	// many hosts together: skew, overlap, stragglers, launcher warnings
#include "src/load.h"	// saved --json documents read back: pdsh, srun, Ansible; histograms lifted
#include "src/merge.h"	// --merge: saved documents merged into one report
#include "src/compare.h"	// --compare: two results, test by test, with 95% intervals
#include "src/hosts.h"	// --hosts: the run on every host over ssh, merged
#include "src/charts.h"	// the SVG primitives: lines, a latency histogram, bars with whiskers
#include "src/html.h"	// --html: the page of a run, a suite, a merge or a comparison

// The modes that run plans.
#include "src/quick.h"	// --quick: the suite, its table and JSON
#include "src/explain.h"	// --explain: fio command lines
#include "src/probe.h"	// --probe: is all of the claimed capacity real?
#include "src/sweep.h"	// --sweep: latency against load, the maximum, ten steps, the knee

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
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

// A mode's page (--html FILE), drawn from the JSON document the mode made
// (none: it made no report); the mode's status, or the page's error.
int with_page(const Options &opt, int status, const std::string &doc)
{
	if (opt.html.empty() || doc.empty())
		return status;
	if (Error e = write_html(opt.html, doc)) {
		print_error(e);
		return status ? status : e.status;
	}
	return status;
}

// The program proper; returns the exit status.  Order: plan (every check
// that needs no file to be touched), buffers, workers (prepare, barrier,
// timed loop), then the report.
[[maybe_unused]] int run(const Options &opt, std::FILE *out)
{
	std::signal(SIGXFSZ, SIG_IGN);	// past RLIMIT_FSIZE: an EFBIG error to report, not a kill
	raise_fd_limit();
	std::string doc;	// --html's: the mode's JSON document
	std::string *page = opt.html.empty() ? nullptr : &doc;
	if (opt.merge)
		return with_page(opt, run_merge(opt, out, page), doc);
	if (opt.compare)
		return with_page(opt, run_compare(opt, out, page), doc);
	if (!opt.hosts.empty())
		return with_page(opt, run_hosts(opt, out, page), doc);
	if (opt.probe)
		return run_probe(opt, out);
	if (opt.sweep)
		return opt.explain ? explain_sweep(opt, out) : run_sweep(opt, out);
	// --explain and -T alone print with stdio: they block no signal (no
	// SignalScope: nothing runs that a signal must stop first), so INT or
	// TERM ends them at once even on a blocked stdout, as any program.
	if (opt.explain)
		return opt.quick ? explain_quick(opt, out) : explain_run(opt, out);
	if (opt.quick)
		return with_page(opt, run_quick(opt, out, page), doc);
	if (opt.op == Options::Op::none)
		return run_memory_only(opt, out);
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}

	Plan plan;
	Report report;
	Error error = make_plan(opt, plan);
	std::vector<std::unique_ptr<Buffer>> buffers;
	if (!error && opt.timing) {
		report.memory = time_memory(plan.block_size, &scope.waiter);
		if (report.memory->bytes == 0)
			error = runtime_error("-T: cannot allocate memory for the timing buffers");
		else if (scope.waiter.received())
			error = scope.waiter.interruption("while timing memory (-T)");
		else
			report.warnings = memory_warnings(*report.memory);
	}
	if (!error)
		error = allocate_buffers(plan, buffers, [&](const char *when) { return scope.waiter.stopped(when); },
					 report.fill_seconds);
	if (error) {
		print_error(error);
		return error.status;
	}

	std::vector<std::string> early = target_warnings(plan);
	for (std::string &w : launcher_warnings(opt))	// a relative --start-at under srun or mpirun
		early.push_back(std::move(w));
	early.insert(early.end(), report.warnings.begin(), report.warnings.end());	// -T's
	emit_warnings(early);
	// On a terminal, what runs is said before it runs (-v and -T print
	// more before that line, at the end).
	if (!opt.json && !opt.verbose && !opt.timing && isatty(fileno(out))) {
		std::fputs(run_header(plan).c_str(), out);
		std::fflush(out);
		report.header_shown = true;
	}
	Execution ex;
	execute(plan, RunId{}, buffers, scope.waiter, ex);
	if (ex.result.start_late_ns > 1000000000) {	// told at once, kept with the early warnings
		std::vector<std::string> late = {
			start_late_warning(opt.start_at_ns, ex.result.ready_unix_ns, ex.result.start_late_ns)};
		emit_warnings(late);
		early.push_back(late[0]);
	}
	if (opt.verify)
		report.verify = check_written(plan, ex, scope.waiter);
	const Shared &shared = ex.shared;
	const RunResult &result = ex.result;
	error = ex.error;
	if (!error && report.verify && report.verify->bad && !result.interrupted)
		error = verify_failure(*report.verify);

	report.plan = &plan;
	report.ex = &ex;
	if (opt.verbose)
		report.env = describe(plan, *buffers[0]);
	if (ran_any(shared)) {	// no warnings about a run that never happened
		report.verdict = judge(plan, ex);
		if (!report.memory && suspicious(plan, *report.verdict, rate(ex.totals.bytes, ex.totals.wall)))
			report.memory = copy_ceiling(*buffers[0], fastest_thread(shared));
		report.warnings = plausibility(plan, shared, report.memory ? &*report.memory : nullptr);
		for (std::string &w : verdict_warnings(plan, *report.verdict))
			report.warnings.push_back(std::move(w));
		if (std::optional<RateOutcome> r = rate_outcome(plan, ex); r && !r->met)
			report.warnings.push_back(rate_warning(*r));
	}
	if (!opt.timing)
		report.memory.reset();
	emit_warnings(report.warnings);
	report.warnings.insert(report.warnings.begin(), early.begin(), early.end());
	report.error = error.msg;
	if (ran_any(shared) || result.interrupted) {
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

// Parse, then help, version or run(); every byte meant for stdout must
// have arrived there, or the exit status says it did not.
[[maybe_unused]] int sdb_main(int argc, char *argv[])
{
	Parsed p = parse_args(argc, argv);
	if (p.error) {
		print_error(p.error);
		return p.error.status;
	}
	if (!isatty(1))	// the report leaves in one write, whose errno is kept
		std::setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
	int status = exit_ok;
	if (p.action == Action::help)
		std::fputs(usage_text, stdout);
	else if (p.action == Action::version)
		std::puts("sdb " SDB_VERSION);
	else
		status = run(p.opt, stdout);
	flush_output(stdout);
	if ((g_output_errno || std::ferror(stdout)) && status < 128) {	// not when a signal (SIGPIPE) ended it
		print_error(sys_error(g_output_errno ? g_output_errno : EIO, "write: standard output"));
		return exit_runtime;
	}
	return status;
}

} // namespace

#ifndef SDB_NO_MAIN
int main(int argc, char *argv[])
{
	try {
		return sdb_main(argc, argv);
	} catch (const std::bad_alloc &) {	// a message without allocating
		std::fputs("sdb: out of memory\n", stderr);
		return exit_runtime;
	}
}
#endif

