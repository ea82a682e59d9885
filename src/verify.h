// verify: --verify after the run.  Which units a write left to check
// (Written), the untimed read-back of every thread's region, the threads'
// tallies added up (VerifySummary), and how a bad unit is named.
#pragma once

#include "base.h"
#include "json.h"
#include "pattern.h"
#include "plan.h"
#include "buffer.h"
#include "worker.h"
#include "loops.h"
#include "run.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace {

// --verify after a write: which units of a thread's region it left to be
// checked, and the number of the last write to each where that is known.
// Sequential writes number their I/Os in offset order, pass after pass, so
// with -t the last write to each block is known and an earlier pass's unit
// found there is stale (the last write was lost); random writes are checked
// for any write of this run.  A time-based random write cut short in its
// first pass checks only the blocks it wrote (the permutation replayed).
struct Written {
	std::uint64_t end = 0;		// units at [0,end) of the region
	std::uint64_t block_size = 0, blocks = 0, last_io = 0;
	bool numbered = false;		// sequential: write_of() is known
	std::vector<bool> only;		// random, first pass cut short: the blocks written

	bool has(std::uint64_t at) const { return only.empty() || only[at / block_size]; }
	std::optional<std::uint64_t> write_of(std::uint64_t at) const
	{
		if (!numbered)
			return std::nullopt;
		std::uint64_t b = at / block_size, pass = last_io / blocks, pos = last_io % blocks;
		return (b <= pos ? pass : pass - 1) * blocks + b;
	}
};

Written written_by(const Worker &w)
{
	const Target &t = *w.target;
	Written r;
	r.block_size = w.plan->block_size;
	if (!w.plan->opt.random) {
		r.blocks = (t.size + r.block_size - 1) / r.block_size;
		r.numbered = w.ops > 0;
		r.last_io = w.ops - 1;
		r.end = w.ops >= r.blocks ? t.size : w.ops * r.block_size;
		return r;
	}
	r.blocks = t.size / r.block_size;
	r.end = r.blocks * r.block_size;
	if (w.ops < r.blocks) {	// a laid-out file may still hold older data below its old size
		r.only.assign(r.blocks, false);
		Offsets<true> offsets(t, r.block_size, order_seed(w));
		std::uint64_t offset;
		std::size_t len;
		for (std::uint64_t i = 0; i < w.ops && offsets.next(offset, len); i++)
			r.only[offset / r.block_size] = true;
	}
	return r;
}

// The thread's target opened again to read it back: O_DIRECT where it
// takes it, else buffered; evicted either way (some file systems turn
// O_DIRECT into buffered I/O), and on fuseblk the device's cache too.
Error reopen_for_check(const Worker &w, bool direct, Fd &fd)
{
	const Target &t = *w.target;
	fd = Fd(open(t.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (t.follow ? 0 : O_NOFOLLOW) | (direct ? O_DIRECT : 0)));
	if (!fd)
		return sys_error(errno, "open: %s (--verify read-back)", t.path.c_str());
	struct stat st {};
	if (fstat(fd.get(), &st) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (identity_of(st) != (w.created ? *w.created : t.id))
		return runtime_error("%s changed during the run: not reading it back (--verify)", t.path.c_str());
	posix_fadvise(fd.get(), static_cast<off_t>(t.base), static_cast<off_t>(t.size), POSIX_FADV_DONTNEED);
	if (!w.plan->backing_device.empty())
		flush_device(w.plan->backing_device);
	return {};
}

// Read the thread's region back and check every unit the write left,
// untimed, in 1 MiB reads; done: bytes read so far, for the progress line.
Error read_back(Worker &w, std::atomic<std::uint64_t> &done)
{
	const Target &t = *w.target;
	const Written written = written_by(w);
	w.verify = VerifyTally{};
	w.verify.seed = w.plan->verify_seed;
	w.verify.seeded = true;
	w.verify.file = unit_file(w);
	const std::size_t chunk = MiB;
	Buffer buffer;
	if (Error e = buffer.allocate(chunk))
		return e;
	Fd fd;
	bool direct = reopen_for_check(w, true, fd).status == exit_ok;
	if (!direct)
		if (Error e = reopen_for_check(w, false, fd))
			return e;
	for (std::uint64_t pos = 0; pos < written.end && !g_stop.raised();) {
		std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, written.end - pos));
		std::uint64_t failed_at = t.base + pos;
		ssize_t n = transfer<false>(fd.get(), buffer.data(), len, t.base + pos, failed_at);
		if (n == -EINVAL && direct) {	// O_DIRECT refused after all: buffered
			direct = false;
			if (Error e = reopen_for_check(w, false, fd))
				return e;
			continue;
		}
		if (n < 0)
			return sys_error(static_cast<int>(-n), "read: %s at offset %" PRIu64 " (--verify read-back)",
					 t.path.c_str(), failed_at);
		if (static_cast<std::size_t>(n) < len)
			return runtime_error("%s ends at offset %" PRIu64 ", before the end of what was written (--verify read-back)",
					     t.path.c_str(), t.base + pos + static_cast<std::uint64_t>(n));
		for (std::size_t at = 0; at < len; at += verify_unit)
			if (written.has(pos + at))
				w.verify.check(buffer.data() + at, t.base + pos + at, written.write_of(pos + at));
		pos += len;
		done.store(pos, std::memory_order_relaxed);
	}
	return {};
}

// --verify, all threads together.
struct VerifySummary {
	std::uint64_t units = 0, bad = 0, kinds[unit_kinds] = {};
	std::uint64_t bytes = 0;	// read to check them
	double seconds = 0;		// -w: the read-back's; -r: the run's, which checked as it read
	bool read_back = false;		// -w: read back after the run; -r: checked as read
	bool complete = true;		// false: a signal stopped it, the rest is unchecked
	const Worker *first = nullptr;	// the first thread (by id) with a bad unit
};

// "the first at offset N of FILE: misplaced (...)", for the report and the error.
std::string describe_first_bad(const VerifySummary &v)
{
	const VerifyTally &t = v.first->verify;
	std::string what;
	switch (t.first_kind) {
	case UnitKind::zeros: what = "zeros (a lost write)"; break;
	case UnitKind::misplaced:
		if (t.first_file != t.file)
			what = format("misplaced (the data thread %u wrote into its own file: files swapped or copied?)",
				      t.first_file);
		else
			what = format("misplaced (the data written for offset %" PRIu64 ": the device wraps around)",
				      t.first_found);
		break;
	case UnitKind::stale:
		what = "corrupt (a whole unit of an earlier write or another run: the last write was lost)";
		break;
	case UnitKind::missing: what = "missing (the file ends there, before what was written: truncated)"; break;
	default: what = "corrupt"; break;
	}
	return format("the first at offset %" PRIu64 " of %s: %s", t.first_offset, printable(v.first->target->path).c_str(),
		      what.c_str());
}

std::string json_verify(const std::optional<VerifySummary> &verify)
{
	if (!verify)
		return "null";
	const VerifySummary &v = *verify;
	std::string first = "null";
	if (v.first) {
		const VerifyTally &t = v.first->verify;
		bool elsewhere = t.first_kind == UnitKind::misplaced;
		first = format("{\"file\": %s, \"offset\": %" PRIu64 ", \"kind\": \"%s\", \"found_offset\": %s}",
			       json_string(v.first->target->path).c_str(), t.first_offset,
			       unit_kind_names[static_cast<int>(t.first_kind)],
			       elsewhere ? std::to_string(t.first_found).c_str() : "null");
	}
	return format("{\"units\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"kinds\": {\"zeros\": %" PRIu64
		      ", \"misplaced\": %" PRIu64 ", \"corrupt\": %" PRIu64 ", \"missing\": %" PRIu64
		      "}, \"first_bad\": %s, \"read_back\": %s, \"complete\": %s, \"seconds\": %s, \"bytes_per_second\": %s}",
		      v.units, v.bad, v.kinds[1], v.kinds[2], v.kinds[3] + v.kinds[4], v.kinds[5], first.c_str(),
		      json_bool(v.read_back).c_str(), json_bool(v.complete).c_str(), json_number(v.seconds).c_str(),
		      json_number(rate(v.bytes, v.seconds)).c_str());
}

// --verify after a write: every thread's region read back at once, one
// thread each, with Ctrl-C and a progress line as during the run.
Error read_all_back(const Plan &plan, Execution &ex, Waiter &waiter, VerifySummary &v)
{
	auto &workers = ex.shared.workers;
	const std::size_t n = workers.size();
	std::vector<std::atomic<std::uint64_t>> done(n);
	std::vector<Error> errors(n);
	std::atomic<std::size_t> finished{0};
	auto job = [&](std::size_t i) {
		errors[i] = read_back(*workers[i], done[i]);
		if (errors[i])
			g_stop.raise();
		finished++;
		ex.shared.gate.poke();
	};
	auto read_so_far = [&] {
		std::uint64_t sum = 0;
		for (auto &d : done)
			sum += d.load(std::memory_order_relaxed);
		return sum;
	};
	for (auto &d : done)
		d.store(0);
	std::int64_t start = now_ns();
	std::vector<std::thread> threads;
	for (std::size_t i = 0; i < n; i++) {
		try {
			threads.emplace_back(job, i);
		} catch (const std::system_error &) {	// no thread to be had: this one reads
			job(i);
		}
	}
	const bool tty = progress_terminal(plan.opt);
	bool drawn = false;
	while (finished.load() < n) {
		waiter.wait(250, ex.result.interrupted);
		double elapsed = (now_ns() - start) / 1e9;
		if (tty && elapsed >= 1) {
			std::uint64_t bytes = read_so_far();
			std::fprintf(stderr, "\rVerifying: %s of %s  %s  %.1f s\033[K", format_bytes(bytes).c_str(),
				     format_bytes(planned_bytes(plan)).c_str(), format_rate(rate(bytes, elapsed)).c_str(), elapsed);
			drawn = true;
		}
	}
	for (auto &th : threads)
		th.join();
	if (drawn)
		std::fprintf(stderr, "\r\033[K");
	v.seconds = (now_ns() - start) / 1e9;
	v.bytes = read_so_far();
	for (Error &e : errors)
		if (e)
			return e;
	return {};
}

// A -r that reached the end of its file before the end of its region: the
// units from the file's end on are missing (the file is shorter than -s,
// or than its --verify write left: verify_xattr).  A partial last unit
// counts as missing: what was written there is not all there.
void count_missing(Worker &w)
{
	const Target &t = *w.target;
	struct stat st {};
	std::uint64_t end = stat(t.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size)
										    : *w.eof_at;
	end = std::max(std::min(end, *w.eof_at), t.base) / verify_unit * verify_unit;
	if (end < t.base + t.size)
		w.verify.missing(end, (t.base + t.size - end) / verify_unit);
}

// After a --verify write that finished, its files say how far it wrote
// (verify_xattr), for a later --verify read; a device keeps no mark.
void mark_verified(const Worker &w)
{
	const Target &t = *w.target;
	if (t.kind != Kind::file && t.kind != Kind::missing)
		return;
	std::string end = std::to_string(t.base + written_by(w).end);
	setxattr(t.path.c_str(), verify_xattr, end.data(), end.size(), 0);	// where it fails, the read checks what it finds
}

// --verify: the threads' checks added up; after a write, read back first.
// Nothing after a write that failed or was interrupted: what it left is
// not what it meant to write.  A -r checked as it read, inside the run.
std::optional<VerifySummary> check_written(const Plan &plan, Execution &ex, Waiter &waiter)
{
	VerifySummary v;
	if (is_write(plan.opt)) {
		if (ex.error || ex.result.interrupted)
			return std::nullopt;
		v.read_back = true;
		for (auto &w : ex.shared.workers)
			mark_verified(*w);
		ex.error = read_all_back(plan, ex, waiter, v);
		v.complete = !ex.result.interrupted;
	} else {
		for (auto &w : ex.shared.workers)
			if (w->eof_at && !ex.result.interrupted)
				count_missing(*w);
		v.complete = !ex.result.interrupted;
		v.seconds = ex.totals.wall;
		v.bytes = ex.totals.bytes;
	}
	for (auto &w : ex.shared.workers) {
		const VerifyTally &t = w->verify;
		v.units += t.units;
		v.bad += t.bad;
		for (int k = 0; k < unit_kinds; k++)
			v.kinds[k] += t.kinds[k];
		if (t.bad && !v.first)
			v.first = w.get();
	}
	return v;
}

Error verify_failure(const VerifySummary &v)
{
	return runtime_error("--verify: %" PRIu64 " of %" PRIu64 " units of 4 KiB bad; %s", v.bad, v.units,
			     describe_first_bad(v).c_str());
}

} // namespace
