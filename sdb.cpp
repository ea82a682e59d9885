// sdb - Simple Disk Benchmark: how fast does this file or device really
// stream data?  See sdb.1 for the user's view, HACKING.md for the
// developer's, and LICENSE for the terms.
//
// The one translation unit: `g++ sdb.cpp` builds sdb.  Its modules are the
// headers of src/, included here in wings: the ground floor, the command
// line, the engine, the report, the offline wing, the modes.  Each module
// includes only earlier ones and compiles alone (make check-modules, which
// also holds the offline wing away from the engine), and keeps its code in
// an anonymous namespace.  Start reading at modes[], below: each mode
// module exports one row (Mode, options.h), its name, when it is chosen,
// its option rules and its run; run() runs the first row chosen.
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
#include "src/spread.h"	// median, range and 95% interval of repeated values; a repeated run's figures
#include "src/pts.h"	// SNIA PTS's steady-state test over rounds, and its words
#include "src/context.h"	// where a result came from: host, command line, kernel, target, device

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
#include "src/throttle.h"	// blkio throttles and io.max over sdb, on the device or below it
#include "src/stack.h"	// the stack below the device, sdb's own I/O, CPU quotas, the I/O limits
#include "src/stops.h"	// the time sdb was stopped or frozen during its window
#include "src/run.h"	// barrier, supervisor, Totals: execute()
#include "src/checks.h"	// memory ceiling, warnings, the Verdict: judge()
#include "src/verify.h"	// --verify's read-back and its summary
#include "src/measure.h"	// measure(): the one way a plan is run, and every check of it

// The report: a run in words and JSON.
#include "src/cliff.h"	// a sequential write's cliff (a write cache); --quick=flash's cap, its stop at the cliff, its words
#include "src/report.h"	// the human report, the timeline, the cliff in words
#include "src/document.h"	// the JSON document of a run
#include "src/cdm.h"	// the quick suite in CrystalDiskMark's Save Text layout (--cdm)

// The offline wing: saved documents only (make check-modules holds it to the
// ground floor and options).
#include "src/fleet.h"	// many hosts together: skew, overlap, stragglers, launcher warnings
#include "src/load.h"	// saved --json documents read back: pdsh, srun, Ansible; histograms lifted
#include "src/merge.h"	// --merge: saved documents merged into one report
#include "src/compare.h"	// --compare: two results, test by test, with 95% intervals
#include "src/hosts.h"	// --hosts: the run on every host over ssh, merged
#include "src/charts.h"	// the SVG primitives: lines, a latency histogram, bars with whiskers
#include "src/html.h"	// --html: the page of a run, a suite, a merge or a comparison
#include "src/prom.h"	// --prom: a result as Prometheus metrics for node_exporter's textfile collector

// The modes that run plans.
#include "src/outputs.h"	// the page's and metrics' paths, checked before any I/O (the overwrite rule), and their writing
#include "src/repeat.h"	// --runs N of a plain run: each run's figures, the median one
#include "src/plain.h"	// the plain run (-w, -r, -M), a series of runs, and -T alone
#include "src/quick.h"	// --quick: the suite, its table and JSON
#include "src/steady.h"	// --steady: rounds until SNIA PTS steady state; --precondition
#include "src/explain.h"	// --explain: fio command lines
#include "src/journal.h"	// --probe's undo journal; --restore: a cut-short probe's units put back
#include "src/probe.h"	// --probe: is all of the claimed capacity real?
#include "src/knee.h"	// --sweep's knee from evidence: the light load twice, a rise that stays
#include "src/sweep.h"	// --sweep: latency against load, the maximum, ten steps, the knee

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace {

// The modes, in the order they are chosen: the first whose chosen() says
// so runs.  --merge, --compare, --restore and --probe run no test; --hosts, --sweep
// and --explain come before --quick and the plain run, which they run or
// explain (--explain explains --steady too, which comes next).
const Mode *const modes[] = {
	&compare_mode, &merge_mode, &restore_mode, &probe_mode, &hosts_mode, &sweep_mode, &explain_mode, &steady_mode, &quick_mode, &memory_mode, &plain_mode,
};

const Mode &chosen_mode(const Options &opt)
{
	for (const Mode *m : modes)
		if (m->chosen(opt))
			return *m;
	return plain_mode;
}

// The options' rules: every command line's (check_given), then its mode's.
Error check_modes(const Options &opt)
{
	if (Error e = check_given(opt))
		return e;
	return chosen_mode(opt).check(opt);
}

// A mode's page and metrics (--html FILE, --prom FILE), drawn from the JSON
// document the mode made (none: it made no report, or wrote them itself);
// the mode's status, or the first output's error.
int with_page(const Options &opt, int status, const std::string &doc)
{
	if ((opt.html.empty() && opt.prom.empty()) || doc.empty())
		return status;
	if (Error e = write_outputs(opt, doc)) {
		print_error(e);
		return status ? status : e.status;
	}
	return status;
}

// The chosen mode, run; returns the exit status.
[[maybe_unused]] int run(const Options &opt, std::FILE *out)
{
	std::signal(SIGXFSZ, SIG_IGN);	// past RLIMIT_FSIZE: an EFBIG error to report, not a kill
	raise_fd_limit();
	if (Error e = check_outputs(opt)) {
		print_error(e);
		return e.status;
	}
	std::string doc;	// --html's and --prom's: the mode's JSON document
	const bool outputs = !opt.html.empty() || !opt.prom.empty();
	return with_page(opt, chosen_mode(opt).run(opt, out, outputs ? &doc : nullptr), doc);
}

// Parse, then help, version or run(); every byte meant for stdout must
// have arrived there, or the exit status says it did not.
[[maybe_unused]] int sdb_main(int argc, char *argv[])
{
	// A closed standard descriptor would be the next one that open()
	// returns (an eventfd, a target), and the report or an error would be
	// written into it: each is taken by /dev/null, and a closed stdout,
	// where the report was to go, ends sdb before anything runs.
	bool stdout_closed = false;
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			stdout_closed = stdout_closed || fd == 1;
			if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
				return exit_runtime;
		}
	if (stdout_closed) {
		print_error(runtime_error("standard output is closed: nowhere to write the report"));
		return exit_runtime;
	}
	record_invocation(argc, argv);
	Parsed p = parse_args(argc, argv, check_modes);
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

