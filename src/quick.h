// quick: --quick[=PROFILE].  CrystalDiskMark's tests on one incompressible
// test file, each written and then read --runs times for -t seconds,
// reported as medians with their ranges (run_quick); --quick=flash first
// writes to the cliff (cliff.h) and runs its rows on what that wrote.
// Its row: quick_mode.
#pragma once

#include "base.h"
#include "json.h"
#include "context.h"
#include "profiles.h"
#include "options.h"
#include "stats.h"
#include "spread.h"
#include "plan.h"
#include "buffer.h"
#include "uring.h"
#include "worker.h"
#include "device.h"
#include "run.h"
#include "checks.h"
#include "measure.h"
#include "report.h"
#include "cdm.h"
#include "document.h"
#include "cliff.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace {

constexpr unsigned quick_default_runs = 3;
constexpr double quick_default_seconds = 5;

unsigned quick_runs(const Options &o) { return o.runs ? o.runs : quick_default_runs; }
double quick_seconds(const Options &o) { return o.time_limit > 0 ? o.time_limit : quick_default_seconds; }

// "SEQ1M Q8T1", "RND4K Q32T16": CrystalDiskMark's names.
std::string quick_name(const QuickTest &t)
{
	std::uint64_t b = t.block_size;
	std::string size = b % MiB == 0 ? format("%" PRIu64 "M", b / MiB) : format("%" PRIu64 "K", b / KiB);
	std::string mix = t.mix >= 0 ? format(" mix %d/%d", t.mix, 100 - t.mix) : "";
	return format("%s%s Q%uT%u%s", t.random ? "RND" : "SEQ", size.c_str(), t.depth, t.threads, mix.c_str());
}

std::string quick_test_list(const QuickProfile &p)
{
	std::string list;
	for (const QuickTest &t : p.tests)
		list += (list.empty() ? "" : ", ") + quick_name(t);
	return list;
}

struct QuickRun {
	double bytes_per_second = 0, iops = 0, seconds = 0;
	Histogram latency;
	double delivered = -1;		// the device's share of the bytes; -1: not counted
	std::string causes;		// under 0.90: what may have served the rest
};

// One test in one direction: "SEQ1M Q8T1 read".
struct QuickRow {
	QuickTest test;
	bool write;
	std::string name;
	std::vector<QuickRun> runs;
};

// The rows of a profile in order, each test written and then read (the
// read finds what its write left).  Without io_uring, the I/Os a test keeps
// in flight come from as many threads at depth 1: the same load on the
// device, more CPU; notes says so.
std::vector<QuickRow> quick_rows(const QuickProfile &p, bool uring, std::vector<std::string> &notes)
{
	std::vector<QuickRow> rows;
	for (const QuickTest &asked : p.tests) {
		QuickTest t = asked;
		if (t.depth > 1 && !uring) {
			t = {asked.random, asked.block_size, 1, asked.depth * asked.threads, asked.mix, asked.to_cliff};
			notes.push_back(format("io_uring is not available: %s runs as %s (%u threads at depth 1)",
					       quick_name(asked).c_str(), quick_name(t).c_str(), t.threads));
		}
		if (t.mix >= 0)	// a mix both writes and reads: one row
			rows.push_back({t, true, quick_name(t), {}});
		else
			for (bool write : {true, false})
				rows.push_back({t, write, quick_name(t) + (write ? " write" : " read"), {}});
	}
	return rows;
}

struct QuickFile {
	std::string path;
	bool device = false;		// a block device: never created or removed
	bool created = false;		// sdb made it, so sdb removes it
	Identity id;			// of the file sdb made, or of the device
	Fd held;			// open from start to end: the suite's lock on its target, and
					// for a file sdb made, what proves it is still that file
	bool direct = true;
	std::string buffered_why;	// why not O_DIRECT
	std::uint64_t size = 0;		// the rows' region (--quick=flash: the write to the cliff's, once it ran)
	std::uint64_t cap = 0;		// --quick=flash: the most the write to the cliff writes
	std::string why;		// how the size was chosen
};

// Every test needs a block in flight per slot and thread, even where
// io_uring is missing and the slots become threads: 8 x 1 MiB for SEQ1M Q8T1.
Error check_quick_size(const QuickFile &q, const QuickProfile &p)
{
	std::uint64_t least = 0;
	for (const QuickTest &t : p.tests)
		least = std::max<std::uint64_t>(least, t.block_size * t.depth * t.threads);
	if (q.size < least)
		return usage_error("--quick -s %s: the %s profile needs at least %s (its largest test's blocks in flight)",
				   format_bytes(q.size).c_str(), p.name, format_bytes(least).c_str());
	return {};
}

// The test file: PATH itself (a new file or a block device), or a new file
// in the directory PATH.  Never an existing file: the suite removes its
// file at the end, and must not remove one it did not make.
Error choose_quick_file(const Options &o, QuickFile &q)
{
	struct stat st {};
	bool exists = stat(o.file.c_str(), &st) == 0;
	std::string dir = dirname_of(o.file);
	q.path = o.file;
	if (exists && S_ISDIR(st.st_mode)) {
		dir = o.file;
		q.path = format("%s/sdb-quick.%d", o.file.c_str(), static_cast<int>(getpid()));
	} else if (exists && S_ISBLK(st.st_mode)) {
		q.device = true;
	} else if (exists) {
		return usage_error("--quick -f %s: the file exists; --quick makes (and removes) its own test file: "
				   "give a directory or a new file name", o.file.c_str());
	}
	if (q.device) {
		std::uint64_t capacity;
		if (Error e = block_device_size(q.path, capacity))
			return e;
		q.size = o.size ? o.size : std::min(4 * GiB, capacity / MiB * MiB);
		q.why = o.size ? "set by -s" : "4 GiB, or the whole device if smaller";
		if (writes_to_cliff(*o.profile)) {
			q.cap = q.size = flash_cap(capacity, o.size);
			q.why = o.size ? "the write to the cliff stops at -s" :
				format("the write to the cliff stops at the device's size or 32 GiB: %s", format_bytes(q.cap).c_str());
			q.size = flash_region(q.cap);
		}
		if (std::max(q.size, q.cap) > capacity)
			return runtime_error("%s: short device: %s", q.path.c_str(), format_bytes(capacity).c_str());
		return check_quick_size(q, *o.profile);
	}
	struct statvfs vfs {};
	if (statvfs(dir.c_str(), &vfs) != 0)
		return sys_error(errno, "%s", dir.c_str());
	std::uint64_t free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
	if (writes_to_cliff(*o.profile)) {
		q.cap = flash_cap(free_bytes / 17 * 16, o.size);
		q.why = o.size ? "the write to the cliff stops at -s" :
			format("the write to the cliff stops at 16/17 of the free space or 32 GiB: %s; %s free",
			       format_bytes(q.cap).c_str(), format_bytes(free_bytes).c_str());
		q.size = flash_region(q.cap);
	} else if (o.size) {
		q.size = o.size;
		q.why = "set by -s";
	} else {
		// 1 GiB at least, 4 GiB (past the DRAM cache of most drives)
		// where that leaves three quarters of the free space alone.
		q.size = free_bytes >= 16 * GiB ? 4 * GiB : GiB;
		q.why = format("%s: at least 1 GiB, 4 GiB where 16 GiB are free, to outgrow drive caches; %s free",
			       format_bytes(q.size).c_str(), format_bytes(free_bytes).c_str());
	}
	std::uint64_t largest = std::max(q.size, q.cap);
	if (largest > max_offset)
		return usage_error("--quick -s %s: larger than the largest possible file offset (8 EiB)",
				   format_bytes(largest).c_str());
	if (vfs.f_blocks > 0 && largest > free_bytes / 17 * 16)	// room to spare; ramfs counts no blocks
		return runtime_error("%s: %s free, the %s test file does not fit (use -s)", dir.c_str(),
				     format_bytes(free_bytes).c_str(), format_bytes(largest).c_str());
	return check_quick_size(q, *o.profile);
}

// Options for one test in one direction on the test file; a test's
// threads share the file, each in its own region.
Options quick_options(const Options &o, const QuickFile &q, const QuickTest &t, bool write)
{
	Options r;
	r.op = t.mix >= 0 ? Options::Op::mix : write ? Options::Op::write : Options::Op::read;
	r.mix = t.mix >= 0 ? static_cast<unsigned>(t.mix) : 0;
	r.random = t.random;
	r.file = q.path;
	r.block_size = t.block_size;
	r.threads = t.threads;
	r.size = q.size / t.threads / t.block_size * t.block_size;
	r.time_limit = quick_seconds(o);
	r.queue_depth = t.depth;
	r.direct = q.direct;
	r.random_buffer = true;
	r.force = o.force;
	r.json = o.json;
	if (t.to_cliff && write) {	// once, up to the cap (or the cliff); O_SYNC where no O_DIRECT,
		r.size = q.cap / MiB * MiB;	// or the page cache would fill before the drive's
		r.time_limit = 0;
		r.sync = !q.direct;
	}
	return r;
}

// The layout: one sequential pass of 1 MiB writes over the whole file
// (--quick=flash: the write to the cliff, which lays out what it writes).
Options layout_options(const Options &o, const QuickFile &q)
{
	if (writes_to_cliff(*o.profile))
		return quick_options(o, q, o.profile->tests[0], true);
	Options r = quick_options(o, q, {false, MiB, 1, 1}, true);
	r.time_limit = 0;
	return r;
}

bool io_uring_works()
{
	Ring ring;
	return !ring.setup(4, 0, 1);
}

// One run of one test as it ended: its numbers, the warnings it raised,
// whether a signal cut it short, and the error that ended it, if any.
struct QuickOutcome {
	QuickRun run;
	std::uint64_t bytes = 0;		// what it moved
	std::optional<Cliff> cliff;		// a sequential write's
	std::vector<std::string> warnings;
	bool interrupted = false;
	Error error;
};

// One run of one test, through measure(), and the numbers kept.  ceiling:
// the memory ceiling the suite keeps between its runs (measure() says when
// it is measured); nullptr for the layout, whose own is measured and whose
// warnings the rows give.
QuickOutcome quick_run(const Options &opt, const Identity *ours, Waiter &waiter, const RunId &id,
		       std::optional<MemoryRates> *ceiling, const Enough &enough = {})
{
	QuickOutcome out;
	Measurement m;
	MeasureHow how;
	how.ours = ours;
	how.files = Files::regions;
	how.enough = enough;
	how.ceiling = ceiling;
	how.one_of_many = true;
	measure(opt, waiter, id, how, m);
	out.error = m.error;
	out.interrupted = m.interrupted;
	if (!m.started)
		return out;
	const Execution &ex = m.ex;
	out.bytes = ex.totals.bytes;
	if (is_write(opt) && !opt.random)
		out.cliff = find_cliff(ex.result.samples, std::min(ex.totals.together, ex.totals.io));
	QuickRun &run = out.run;
	for (auto &w : ex.shared.workers)
		run.latency.merge(w->latency);
	run.seconds = ex.totals.wall;
	run.bytes_per_second = rate(ex.totals.bytes, run.seconds);
	run.iops = rate(ex.totals.ops, run.seconds);
	if (m.verdict) {
		run.delivered = m.verdict->measured && m.verdict->claimed ? m.verdict->delivered : -1;
		run.causes = m.verdict->causes;
	}
	out.warnings = m.warnings;
	return out;
}

// Create the test file (O_EXCL, marked as sdb's, known by its identity
// from now on) and find out whether it takes O_DIRECT: opening it with the
// flag tells whether it is refused; FUSE and statx tell whether it would be
// honoured.  Where not, the suite runs buffered with eviction rather than
// record O_DIRECT that was buffered I/O.
Error probe_direct(QuickFile &q, bool keep)
{
	if (!q.device) {
		Fd made(open(q.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
		struct stat st {};
		if (!made || fstat(made.get(), &st) != 0)
			return sys_error(errno, "open: %s", q.path.c_str());
		fsetxattr(made.get(), owner_xattr, "1", 1, 0);
		q.id = identity_of(st);
		q.created = true;
		q.held = std::move(made);
		if (!keep)
			g_cleanup = {q.path.c_str(), q.held.get()};
		if (Error e = lock_target(q.held.get(), q.path, true)) {
			remove_if_same(q.path.c_str(), q.held.get());
			g_cleanup = {};
			return e;
		}
	}
	Fd fd(open(q.path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_DIRECT));
	if (!fd && errno == EINVAL) {
		q.direct = false;
		q.buffered_why = "open refuses it";
		return {};
	}
	if (!fd) {
		Error e = sys_error(errno, "open: %s", q.path.c_str());
		if (q.created)
			remove_if_same(q.path.c_str(), q.held.get());
		g_cleanup = {};
		return e;
	}
	struct statfs sfs {};
	if (!q.device && fstatfs(fd.get(), &sfs) == 0 && fuse_fs(static_cast<std::uint32_t>(sfs.f_type)))
		q.buffered_why = "FUSE: the daemon may read through its own cache";
	else if (!q.device)
		q.buffered_why = direct_io_doubt(q.path);
	q.direct = q.buffered_why.empty();
	return {};
}

template <typename F>
Spread spread(const QuickRow &row, F value)
{
	std::vector<double> v;
	for (const QuickRun &r : row.runs)
		v.push_back(value(r));
	return spread_of(v);
}

double p99_of(const QuickRun &r) { return static_cast<double>(r.latency.percentile(0.99)); }
double bps_of(const QuickRun &r) { return r.bytes_per_second; }
double iops_of(const QuickRun &r) { return r.iops; }
double delivered_of(const QuickRun &r) { return r.delivered; }

// Every run of the row had the device's counters behind it.
bool row_counted(const QuickRow &row)
{
	for (const QuickRun &r : row.runs)
		if (r.delivered < 0)
			return false;
	return !row.runs.empty();
}

// A row whose median run reached the device with under 90% of its bytes.
std::string row_shortfall(const QuickRow &row)
{
	double share = spread(row, delivered_of).median;
	if (!row_counted(row) || share >= 0.9)
		return "";
	return format("%s: the device saw %.0f%% of the bytes claimed (median of %zu runs); likely causes: %s",
		      row.name.c_str(), share * 100, row.runs.size(), row.runs.back().causes.c_str());
}

void print_quick_header(std::FILE *out, const Options &opt, const QuickFile &q, const Plan &plan, std::size_t rows)
{
	std::string fs = q.device ? "block device" : mounted_fs_type(plan.fs_dev, plan.fs_type);
	std::string device;
	queue_dir(plan.fs_dev, device);
	std::fprintf(out, "sdb %s quick suite: %s (%s, device %s, %s)\n", SDB_VERSION, printable(q.path).c_str(), fs.c_str(),
		     device.empty() ? "-" : device.c_str(),
		     q.direct ? format("O_DIRECT, alignment %u bytes", plan.dio_align).c_str()
			      : format("buffered: O_DIRECT not supported (%s), caches evicted", q.buffered_why.c_str()).c_str());
	std::fprintf(out, "Profile %s (%s): %s, each written, then read\n", opt.profile->name, opt.profile->about,
		     quick_test_list(*opt.profile).c_str());
	std::fprintf(out, "Test file: %s\n", q.why.c_str());
	unsigned runs = quick_runs(opt);
	if (writes_to_cliff(*opt.profile))
		std::fprintf(out, "About %.0f s after the write to the cliff (at most %s): %zu rows x %u run%s x %g s\n",
			     (rows - 1) * runs * (quick_seconds(opt) + 0.2), format_bytes(q.cap).c_str(), rows - 1, runs,
			     runs == 1 ? "" : "s", quick_seconds(opt));
	else
		std::fprintf(out, "About %.0f s: %zu rows x %u run%s x %g s, after laying out %s\n",
			     rows * runs * (quick_seconds(opt) + 0.2), rows, runs, runs == 1 ? "" : "s", quick_seconds(opt),
			     format_bytes(q.size).c_str());
}

// The runs a row makes: --runs, but one for the write to the cliff.
unsigned runs_of(const QuickRow &row, unsigned runs)
{
	return row.test.to_cliff && row.write ? 1 : runs;
}

void print_quick_heading(std::FILE *out)
{
	std::fprintf(out, "%-19s %10s %-23s %10s %-21s %11s %7s\n", "Test", "MiB/s", " (min - max)", "IOPS", " (min - max)",
		     "p99 latency", "Device");
}

void print_quick_row(std::FILE *out, const QuickRow &row, unsigned runs)
{
	Spread b = spread(row, bps_of), i = spread(row, iops_of), l = spread(row, p99_of), d = spread(row, delivered_of);
	std::string p99 = row.test.random ? format_ns(static_cast<std::uint64_t>(l.median)) : "-";
	std::string device = row_counted(row) ? format("%.0f%%", d.median * 100) : "-";
	std::fprintf(out, "%-19s %10.2f %-23s %10.0f %-21s %11s %7s%s%s\n", row.name.c_str(), b.median / MiB,
		     format(" (%.2f - %.2f)", b.min / MiB, b.max / MiB).c_str(), i.median,
		     format(" (%.0f - %.0f)", i.min, i.max).c_str(), p99.c_str(), device.c_str(),
		     row_shortfall(row).empty() ? "" : "  [under 90%: not the device]",
		     row.runs.size() < runs_of(row, runs) ?
			     format("  [%zu of %u runs]", row.runs.size(), runs_of(row, runs)).c_str() : "");
}

// The write to the cliff in words, then how the rows were summed up.
// CrystalDiskMark shows the best of its runs; a median hides one lucky
// (cached, idle-moment) run, and the range shows that it happened.
void print_quick_footer(std::FILE *out, std::size_t rows, unsigned runs, const FlashWrite &flash)
{
	if (flash.ran)
		std::fprintf(out, "%s\n", flash_words(flash).c_str());
	if (rows == 0)
		return;
	if (runs == 1)
		std::fprintf(out, "One run per test (--runs 1): no median, no range\n");
	else
		std::fprintf(out, "Median of %u runs (slowest - fastest)%s; CrystalDiskMark shows its fastest run\n", runs,
			     flash.ran ? ", the write to the cliff once" : "");
}

void print_quick_table(std::FILE *out, const std::vector<QuickRow> &rows, unsigned runs, const FlashWrite &flash)
{
	print_quick_heading(out);
	for (const QuickRow &row : rows)
		print_quick_row(out, row, runs);
	print_quick_footer(out, rows.size(), runs, flash);
}

std::string json_spread(const QuickRow &row, double Spread::*which)
{
	Spread b = spread(row, bps_of), i = spread(row, iops_of), l = spread(row, p99_of), d = spread(row, delivered_of);
	return format("{\"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %.0f, \"delivered\": %s}",
		      json_number(b.*which).c_str(), json_number(i.*which).c_str(), l.*which,
		      row_counted(row) ? json_number(d.*which).c_str() : "null");
}

std::string json_quick_run(const QuickRun &run)
{
	return format("{\"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %" PRIu64
		      ", \"latency_ns\": %s, \"delivered\": %s}",
		      json_number(run.seconds).c_str(), json_number(run.bytes_per_second).c_str(),
		      json_number(run.iops).c_str(), run.latency.percentile(0.99), json_latency(run.latency).c_str(),
		      run.delivered >= 0 ? json_number(run.delivered).c_str() : "null");
}

std::string json_quick_row(const QuickRow &row, const char *profile)
{
	std::string doc = format("{\"profile\": %s, \"name\": %s, \"op\": \"%s\", \"mode\": \"%s\", \"block_size\": %" PRIu64
				 ", \"queue_depth\": %u, \"threads\": %u,\n   \"median\": %s, \"min\": %s, \"max\": %s,\n   \"runs\": [",
				 json_string(profile).c_str(), json_string(row.name).c_str(),
				 row.test.mix >= 0 ? "mix" : row.write ? "write" : "read",
				 row.test.random ? "rand" : "seq", row.test.block_size, row.test.depth, row.test.threads,
				 json_spread(row, &Spread::median).c_str(), json_spread(row, &Spread::min).c_str(),
				 json_spread(row, &Spread::max).c_str());
	for (std::size_t i = 0; i < row.runs.size(); i++)
		doc += (i ? ", " : "") + json_quick_run(row.runs[i]);
	return doc + "]}";
}

void print_quick_json(std::FILE *out, const Options &opt, const QuickFile &q, const std::vector<QuickRow> &rows,
		      const std::vector<std::string> &warnings, bool interrupted, bool kept, const FlashWrite &flash)
{
	std::string doc = format("{\"version\": %s, \"host\": %s,\n \"context\": %s,\n \"quick\": {\"profile\": %s, \"file\": %s, \"size\": %" PRIu64
				 ", \"size_reason\": %s, \"direct\": %s, \"time_per_run\": %s, \"runs\": %u, \"kept\": %s},\n \"suite\": [",
				 json_string(SDB_VERSION).c_str(), json_string(short_host_name()).c_str(), json_context(q.path).c_str(),
				 json_string(opt.profile->name).c_str(),
				 json_string(q.path).c_str(), q.size, json_string(q.why).c_str(), json_bool(q.direct).c_str(),
				 json_number(quick_seconds(opt)).c_str(), quick_runs(opt), json_bool(kept).c_str());
	for (std::size_t r = 0; r < rows.size(); r++)
		doc += (r ? ",\n  " : "\n  ") + json_quick_row(rows[r], opt.profile->name);
	doc += "],\n ";
	if (writes_to_cliff(*opt.profile))
		doc += json_flash(flash) + ",\n ";
	doc += "\"warnings\": " + json_warnings(warnings);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// The write to the cliff is over: the rows after it use what it wrote.
Error after_cliff(const Options &opt, QuickFile &q, const QuickOutcome &o, FlashWrite &flash)
{
	flash = {true, q.cap, o.bytes, o.run.seconds, o.run.bytes_per_second, o.cliff};
	q.size = flash_region(o.bytes);
	if (Error e = check_quick_size(q, *opt.profile))
		return runtime_error("%s: the write to the cliff wrote only %s, too little for the rows after it",
				     q.path.c_str(), format_bytes(o.bytes).c_str());
	return {};
}

// Run every row --runs times (the write to the cliff once), in order,
// until the end, an error or a signal; rows that finished no run are
// dropped.  live (a terminal): takes each row's line as it finishes, and
// says false when stdout cut it short, which ends the suite.
Error run_quick_rows(const Options &opt, QuickFile &q, Waiter &waiter, std::vector<QuickRow> &rows,
		     std::vector<std::string> &warnings, bool &interrupted, FlashWrite &flash,
		     const std::function<bool(const std::string &)> &live)
{
	Error error;
	std::optional<MemoryRates> ceiling;
	for (QuickRow &row : rows) {
		const bool to_cliff = row.test.to_cliff && row.write;
		const unsigned runs = runs_of(row, quick_runs(opt));
		for (unsigned i = 0; i < runs && !error && !interrupted; i++) {
			RunId id{i, to_cliff ? row.name + " to the cliff: " :	// each run its own random order
				 format("%s, run %u of %u: ", row.name.c_str(), i + 1, runs)};
			QuickOutcome o = quick_run(quick_options(opt, q, row.test, row.write), q.held ? &q.id : nullptr,
						   waiter, id, &ceiling, to_cliff ? Enough(cliff_settled) : Enough());
			for (const std::string &w : o.warnings)
				if (std::find(warnings.begin(), warnings.end(), w) == warnings.end())
					warnings.push_back(w);
			error = o.error;
			interrupted = o.interrupted;
			if (!error && !interrupted && to_cliff)
				error = after_cliff(opt, q, o, flash);
			if (!error && !interrupted)	// a cut-short run would skew the median
				row.runs.push_back(std::move(o.run));
		}
		if (std::string shortfall = row_shortfall(row); !shortfall.empty())
			warnings.push_back(shortfall);
		if (live && !row.runs.empty() && !live(printed([&](std::FILE *mem) { print_quick_row(mem, row, runs); }))) {
			interrupted = true;
			break;
		}
	}
	rows.erase(std::remove_if(rows.begin(), rows.end(), [](const QuickRow &r) { return r.runs.empty(); }), rows.end());
	return error;
}

// The test file removed at the end, but only while its path still names
// the file sdb made: one renamed onto it during the suite stays, and a
// warning says so.
Error remove_test_file(const QuickFile &q, std::vector<std::string> &warnings)
{
	int err = remove_if_same(q.path.c_str(), q.held.get());
	if (err == ESTALE)
		warnings.push_back(q.path + " is no longer the test file sdb made (something was renamed onto it): left in place");
	if (err && err != ENOENT && err != ESTALE)
		return sys_error(err, "unlink: %s", q.path.c_str());
	return {};
}

// Lay out, run the profile's rows, report, remove the file.  doc, for
// --html: the JSON document, made with or without --json.
// The rows as CrystalDiskMark shows them: each one's medians, the mean
// latency in microseconds.
std::vector<CdmRow> cdm_rows(const std::vector<QuickRow> &rows)
{
	std::vector<CdmRow> out;
	for (const QuickRow &row : rows) {
		if (row.runs.empty())
			continue;
		CdmRow c;
		c.random = row.test.random;
		c.block_size = row.test.block_size;
		c.depth = row.test.depth;
		c.threads = row.test.threads;
		c.mix = row.test.mix;
		c.write = row.write;
		c.bytes_per_second = spread(row, bps_of).median;
		c.iops = spread(row, iops_of).median;
		c.mean_us = spread(row, [](const QuickRun &r) { return static_cast<double>(r.latency.mean()) / 1e3; }).median;
		out.push_back(c);
	}
	return out;
}

int run_quick(const Options &opt, std::FILE *out, std::string *doc = nullptr)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	// Everything for stdout goes through deliver(); once a piece is cut
	// short (a signal, the reader gone), cut is its status, nothing more
	// is written, and the suite stops.
	int cut = 0;
	auto say = [&](const std::string &text) {
		if (!cut)
			cut = deliver(out, text, scope.waiter);
		return !cut;
	};
	QuickFile q;
	if (Error e = choose_quick_file(opt, q)) {
		print_error(e);
		return e.status;
	}
	// Check every rule a write must pass (--force, devices in use, sizes)
	// before creating anything.
	Plan check;
	Options layout_opt = layout_options(opt, q);
	Error error = make_plan(layout_opt, check, nullptr, Files::regions);
	check.exclusive.reset();	// each test claims the device itself
	if (!error && q.device && !check.locks.empty()) {	// the check's lock, the suite's from now on
		q.held = std::move(check.locks[0]);
		q.id = check.targets[0].id;
	}
	if (!error)
		error = probe_direct(q, opt.keep);
	if (error) {
		print_error(error);
		return error.status;
	}
	layout_opt.direct = q.direct;
	std::vector<std::string> warnings;
	std::vector<QuickRow> rows = quick_rows(*opt.profile, io_uring_works(), warnings);
	const bool table = !opt.json && !opt.cdm;	// sdb's own words around the rows
	if (table)
		say(printed([&](std::FILE *mem) { print_quick_header(mem, opt, q, check, rows.size()); }));

	std::vector<std::string> early = target_warnings(check);
	emit_warnings(early);
	if (!q.direct)
		warnings.push_back("O_DIRECT is not supported on " + q.path + " (" + q.buffered_why +
				   "): buffered I/O, caches evicted before reads");
	bool interrupted = cut != 0;
	if (!interrupted && !writes_to_cliff(*opt.profile)) {	// the write to the cliff lays out what it writes
		QuickOutcome laid = quick_run(layout_opt, q.held ? &q.id : nullptr, scope.waiter, {0, "laying out  "}, nullptr);
		error = laid.error;	// its warnings are the rows' to give
		interrupted = laid.interrupted;
		if (!error && !interrupted && table)
			interrupted = !say(format("Laid out %s of random data in %.2f s (%s)\n\n", format_bytes(q.size).c_str(),
						  laid.run.seconds, format_rate(laid.run.bytes_per_second).c_str()));
	}
	// On a terminal each row shows as it finishes; else the table at the end.
	const bool live = table && isatty(fileno(out));
	FlashWrite flash;
	if (!error && !interrupted && live)
		interrupted = !say(printed(print_quick_heading));
	if (!error && !interrupted) {
		error = run_quick_rows(opt, q, scope.waiter, rows, warnings, interrupted, flash,
				       live ? std::function<bool(const std::string &)>(say) : nullptr);
	} else {
		rows.clear();
	}

	bool kept = opt.keep || !q.created;
	g_cleanup = {};
	if (opt.keep && q.created && names_same(q.path.c_str(), q.held.get()) != 0) {
		kept = false;	// what sdb made is gone with its name; the file there now is not sdb's
		warnings.push_back(q.path + " is no longer the test file sdb made (something was renamed onto it or removed it): "
					    "nothing kept");
	}
	if (!kept)
		if (Error e = remove_test_file(q, warnings); e && !error)
			error = e;
	emit_warnings(warnings);
	warnings.insert(warnings.begin(), early.begin(), early.end());
	if ((opt.json || doc) && !cut) {
		std::string text = printed(
			[&](std::FILE *mem) { print_quick_json(mem, opt, q, rows, warnings, interrupted, kept, flash); });
		if (opt.json)
			say(text);
		if (doc && !cut)
			*doc = std::move(text);
	}
	if (opt.cdm)
		say(printed([&](std::FILE *mem) {
			print_cdm(mem, cdm_rows(rows), opt.profile->name,
				  format("%s (x%u) [%s]", format_bytes(q.size).c_str(), quick_runs(opt), printable(opt.file).c_str()),
				  quick_seconds(opt), quick_runs(opt));
			if (interrupted)
				std::fprintf(mem, "Interrupted: the rows above are what finished\n");
		}));
	else if (!opt.json)
		say(printed([&](std::FILE *mem) {
			if (live)
				print_quick_footer(mem, rows.size(), quick_runs(opt), flash);
			else
				print_quick_table(mem, rows, quick_runs(opt), flash);
			if (opt.keep && q.created && kept)
				std::fprintf(mem, "Kept %s\n", printable(q.path).c_str());
			if (interrupted)
				std::fprintf(mem, "Interrupted: the rows above are what finished\n");
		}));
	if (cut) {	// as a run's: no page of a report cut short
		if (doc)
			doc->clear();
		if (error && cut != 128 + SIGPIPE)
			print_error(error);
		return cut;
	}
	if (error) {
		print_error(error);
		return error.status;
	}
	return interrupted ? scope.waiter.exit_status() : exit_ok;
}

// --quick's rules: the suite sets its own tests, so no option that makes
// one goes with it, and it needs -f PATH.
Error check_quick(const Options &o)
{
	if (o.start_at_ns)
		return usage_error("--start-at and --quick: a start time is for one run (-w, -r or -M)");
	if (o.file.empty())
		return usage_error("--quick needs -f PATH: a directory, or a new file name");
	if (o.cdm && (o.json || o.explain))
		return usage_error("--cdm and %s: one layout on standard output", o.json ? "--json" : "--explain");
	const struct {
		bool given;
		const char *name;
	} fixed[] = {
		{o.op == Options::Op::write, "-w"}, {o.op == Options::Op::read, "-r"}, {o.random, "-m"},
		{o.block_size != 0, "-b"}, {o.threads != 1, "-j"}, {o.queue_depth != 1, "-q"}, {o.direct, "-D"},
		{o.sync, "-S"}, {o.cached, "--cached"}, {o.timing, "-T"}, {o.verbose, "-v"},
		{o.op == Options::Op::mix, "-M"}, {o.fsync_every != 0, "--fsync"}, {o.ramp > 0, "--ramp"}, {o.verify, "--verify"},
		{o.rate.per_second > 0, "--rate"}, {o.sweep, "--sweep"},
	};
	for (const auto &f : fixed)
		if (f.given)
			return usage_error("--quick and %s: the quick suite sets its own tests", f.name);
	return {};
}

const Mode quick_mode = {"--quick", [](const Options &o) { return o.quick; }, check_quick, run_quick};

} // namespace
