// explain: --explain.  The same I/O as fio command lines, for a plain run
// (explain_run) or each quick-suite test (explain_quick), so that anyone
// can run fio beside sdb on the same file.
#pragma once

#include "base.h"
#include "options.h"
#include "plan.h"
#include "buffer.h"
#include "quick.h"
#include "steady.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>


namespace {

// --explain: the same I/O as fio job options, so that anyone can run fio
// beside sdb on the same file.  Defaults that already match are left out
// (fio's random map visits each block once per pass, as sdb's permutation
// does; fadvise_hint gives the same readahead advice).

// One word for a POSIX shell: as it is where nothing in it is special.
std::string shell_word(const std::string &s)
{
	if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") ==
				  std::string::npos)
		return s;
	return shell_quote(s);
}

// fio splits filename at ':' (a list of files) unless it is escaped.
std::string fio_path(const std::string &path)
{
	std::string escaped;
	for (char c : path)
		escaped += c == ':' ? std::string("\\:") : std::string(1, c);
	return escaped;
}

// fio's sizes are 1024-based by default (kb_base=1024): 4k, 1m, 1g.
std::string fio_size(std::uint64_t bytes)
{
	if (bytes % GiB == 0)
		return format("%" PRIu64 "g", bytes / GiB);
	if (bytes % MiB == 0)
		return format("%" PRIu64 "m", bytes / MiB);
	if (bytes % KiB == 0)
		return format("%" PRIu64 "k", bytes / KiB);
	return format("%" PRIu64, bytes);
}

// fio takes whole seconds, or a unit: 0.2 s is 200ms.
std::string fio_seconds(double seconds)
{
	if (seconds == std::floor(seconds))
		return format("%.0f", seconds);
	return format("%.0fms", std::max(1.0, std::round(seconds * 1000)));
}

// The fio command for one sdb run.  o: block_size and size resolved, size
// per thread.  sdb's final fdatasync is fio's end_fsync; its eviction before
// reads is invalidate; -R's stamped blocks are close to scramble_buffers.
std::string fio_command(const Options &o, const std::string &name, Files files)
{
	bool write = writes_target(o);
	std::vector<std::string> args = {"fio", "--name=" + name};
	if (files == Files::per_thread)
		args.push_back("--filename_format=" + fio_path(o.file) + ".$jobnum");	// sdb's FILE.0 .. FILE.N-1
	else
		args.push_back("--filename=" + fio_path(o.file));
	if (is_mix(o)) {
		args.push_back(o.random ? "--rw=randrw" : "--rw=rw");
		args.push_back(format("--rwmixread=%u", o.mix));
	} else {
		args.push_back(format("--rw=%s%s", o.random ? "rand" : "", write ? "write" : "read"));
	}
	args.push_back("--bs=" + fio_size(o.block_size));
	args.push_back("--size=" + fio_size(o.size));
	if (o.threads > 1) {
		args.push_back(format("--numjobs=%u", o.threads));
		if (files == Files::regions)
			args.push_back("--offset_increment=" + fio_size(o.size));
		args.push_back("--group_reporting");
	}
	args.push_back("--thread");
	args.push_back(o.queue_depth > 1 ? "--ioengine=io_uring" : "--ioengine=psync");
	args.push_back(format("--iodepth=%u", o.queue_depth));
	args.push_back(format("--direct=%d", o.direct ? 1 : 0));
	if (o.sync)
		args.push_back("--sync=1");
	if (o.time_limit > 0) {
		args.push_back("--runtime=" + fio_seconds(o.time_limit));
		args.push_back("--time_based");
	}
	if (o.ramp > 0)
		args.push_back("--ramp_time=" + fio_seconds(o.ramp));
	if (o.fsync_every)
		args.push_back(format("--fdatasync=%u", o.fsync_every));
	if (o.rate.per_second > 0)	// per job, as sdb's is per thread; fio's default rate_process=linear is sdb's
		args.push_back(o.rate.bytes ? format("--rate=%.0f", o.rate.per_second)
					    : format("--rate_iops=%.0f", std::max(1.0, std::round(o.rate.per_second))));
	if (write && !o.cached)
		args.push_back("--end_fsync=1");
	args.push_back(format("--invalidate=%d", o.cached ? 0 : 1));
	if (write)
		args.push_back(o.random_buffer ? "--scramble_buffers=1" : "--zero_buffers");
	if (write && o.verify)
		args.push_back("--verify=crc32c");	// fio's own pattern, read back after the write
	std::string line;
	for (const std::string &a : args)
		line += (line.empty() ? "" : " ") + shell_word(a);
	return line;
}

// sdb's O_DIRECT buffers from 256 KiB up sit on huge pages (see Buffer), fio's on
// 4 KiB pages: a device that takes fewer segments per request than a block
// has pages (virtio: 254) splits fio's O_DIRECT requests and not sdb's.
// On a virtio disk here that halved fio's SEQ1M Q1T1 reads; with
// --iomem=shmhuge fio read as fast as sdb.
bool fio_pages_differ(const Options &o) { return o.direct && o.block_size >= huge_page / 8; }

constexpr char fio_pages_note[] =
	"# fio's buffers are 4 KiB pages, sdb's huge pages from 256 KiB blocks: where a device takes fewer segments "
	"per request (virtio: 254), fio's O_DIRECT requests are split and sdb's are not; with huge pages reserved "
	"(vm.nr_hugepages), add --iomem=shmhuge\n";

// "SEQ1M Q8T1 read" -> "SEQ1M-Q8T1-read": one shell word.
std::string fio_job_name(std::string name)
{
	std::replace(name.begin(), name.end(), ' ', '-');
	return name;
}

// --quick --explain: the file and rows the suite would use, as fio lines,
// without creating the file.  Whether O_DIRECT is honoured is only known
// from the file itself; FUSE is known from the directory.
int explain_quick(const Options &opt, std::FILE *out)
{
	QuickFile q;
	Plan check;
	Error error = choose_quick_file(opt, q);
	if (!error)
		error = make_plan(layout_options(opt, q), check, nullptr, Files::regions);
	if (error) {
		print_error(error);
		return error.status;
	}
	q.direct = !fuse_fs(check.fs_type);
	std::vector<std::string> notes;
	std::vector<QuickRow> rows = quick_rows(*opt.profile, io_uring_works(), notes);
	unsigned runs = quick_runs(opt);
	const bool to_cliff = writes_to_cliff(*opt.profile);
	std::fprintf(out, "# sdb --quick=%s on %s (%s): %zu fio lines, in sdb's order; sdb runs each %s and "
		     "reports the median\n", opt.profile->name, printable(q.path).c_str(), q.why.c_str(), rows.size(),
		     runs == 1 ? "once" : format("%u times%s", runs, to_cliff ? " (the first once)" : "").c_str());
	if (to_cliff)
		std::fprintf(out, "# sdb stops the first write once the rate fell for good (the write cache's cliff) and "
			     "runs the rest on at most 1 GiB of what it wrote; fio has no such stop and writes all of --size. "
			     "Remove the file afterwards.\n");
	else
		std::fprintf(out, "# sdb first writes the whole file with random data; fio lays out what a job lacks itself. "
			     "Remove the file afterwards.\n");
	if (!q.direct)
		std::fprintf(out, "# FUSE: sdb runs buffered here, with caches evicted before reads\n");
	for (const std::string &n : notes)
		std::fprintf(out, "# %s\n", n.c_str());
	std::string lines;
	bool pages_differ = false;
	for (const QuickRow &row : rows) {
		Options r = quick_options(opt, q, row.test, row.write);
		pages_differ |= fio_pages_differ(r);
		lines += fio_command(r, fio_job_name(row.name), Files::regions);
		lines += '\n';
	}
	if (pages_differ)
		std::fputs(fio_pages_note, out);
	std::fputs(lines.c_str(), out);
	return exit_ok;
}

// --steady --explain: fio's nearest, and how it differs.  fio's
// steadystate= holds one criterion over ss_dur seconds of 1 s samples: the
// largest deviation from the mean (bw, iops) or the least-squares slope in
// percent of the mean per second (bw_slope, iops_slope).  PTS holds both a
// range and a slope rule over five rounds; the slope one is the nearer:
// |slope| x 4 rounds <= 10% of the average is 2.5% a round, 2.5/T % a second.
std::string fio_steady(const Options &opt, double round_seconds, unsigned most, std::FILE *out)
{
	const std::string v = steady_variable(opt);
	std::fprintf(out, "# --steady: sdb runs rounds of %g s (at most %u) and stops when the last five have a range "
		     "of at most 20%% of their average and a least-squares excursion of at most 10%%; fio's steadystate= "
		     "holds one rule over 1 s samples, here the slope one (2.5%% of the average a round)%s\n",
		     round_seconds, most, v == "lat" ? "; fio has no latency criterion, so this is its IOPS one" : "");
	return format("--steadystate=%s_slope:%s%% --ss_dur=%s", v == "bw" ? "bw" : "iops",
		      format("%.3g", 2.5 / round_seconds).c_str(), fio_seconds(5 * round_seconds).c_str());
}

// -w/-r/-M --explain: the run make_plan would start, as one fio line
// (--steady: its longest run, and first its precondition's).
int explain_run(const Options &given, std::FILE *out)
{
	const bool steady = !given.steady.empty();
	const Options opt = steady ? round_options(given) : given;
	Plan plan;
	if (Error e = make_plan(opt, plan)) {
		print_error(e);
		return e.status;
	}
	std::string steady_args;
	if (steady) {
		const unsigned most = given.rounds ? given.rounds : pts_default_rounds;
		steady_args = " " + fio_steady(given, opt.time_limit, most, out);
		plan.opt.time_limit = opt.time_limit * most;
		if (given.precondition) {
			Options pre = precondition_options(given, plan);
			pre.block_size = precondition_block;
			std::fprintf(out, "%s --loops=2\n", fio_command(pre, "precondition", files_of(plan)).c_str());
		}
	}
	Options r = plan.opt;
	r.block_size = plan.block_size;
	r.size = plan.targets[0].size;
	if (opt.timing)
		std::fprintf(out, "# -T (the memory ceiling) has no fio equivalent\n");
	if (opt.verify)
		std::fprintf(out, "# --verify: fio checks only its own pattern (--verify=crc32c, read back after a write); "
			     "neither tool can check the other's\n");
	if (opt.rate.per_second > 0)
		std::fprintf(out, "# fio's latencies at a rate count from each I/O's issue (sdb's service time), not from "
			     "when it was due\n");
	if (fio_pages_differ(r))
		std::fputs(fio_pages_note, out);
	std::fprintf(out, "%s%s\n", fio_command(r, "sdb", files_of(plan)).c_str(), steady_args.c_str());
	return exit_ok;
}

// --explain's rules: fio command lines, of a test or of the quick suite.
Error check_explain(const Options &o)
{
	if (o.json)
		return usage_error("--explain and --json: the explanation is fio command lines, not JSON");
	if (o.op == Options::Op::none && !o.quick)
		return usage_error("--explain: needs -w, -r, -M or --quick, a test to explain");
	if (o.start_at_ns)
		return usage_error("--start-at and --explain: a start time is for one run (-w, -r or -M)");
	return o.quick ? check_quick(o) : check_test(o);
}

// --explain and -T alone print with stdio: they block no signal (no
// SignalScope: nothing runs that a signal must stop first), so INT or
// TERM ends them at once even on a blocked stdout, as any program.
const Mode explain_mode = {"--explain", [](const Options &o) { return o.explain; }, check_explain,
			   [](const Options &o, std::FILE *out, std::string *) {
				   return o.quick ? explain_quick(o, out) : explain_run(o, out);
			   }};

} // namespace
