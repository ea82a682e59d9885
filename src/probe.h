// probe: --probe, the fake-capacity check.  Writes --verify units (see
// pattern.h) at a spread of offsets over the claimed size, reads each back
// with the caches out of the way, and bisects to the size that keeps its
// data: the claimed size, the real one, how the rest fails (misplaced with
// the wrap period, zeros, corrupt).  Saves and restores every unit it
// overwrites unless --destructive; writes at most 0.1% of the target or
// 64 MiB.  Offers run_probe() to its row, probe_mode.
#pragma once

#include "base.h"
#include "json.h"
#include "options.h"
#include "pattern.h"
#include "plan.h"
#include "buffer.h"
#include "run.h"
#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// What a probe found.
struct ProbeResult {
	std::uint64_t claimed = 0;	// bytes the target says it has, in whole units
	std::uint64_t real = 0;		// bytes from 0 known to keep their data
	std::uint64_t resolution = 0;	// the first bad unit lies in [real, real + resolution)
	UnitKind kind = UnitKind::good;	// how the first bad unit failed; good: none did
	std::uint64_t period = 0;	// misplaced: the offsets wrap around every period bytes
	std::uint64_t units = 0, written = 0, read = 0;	// units tested; bytes written and read
	double write_seconds = 0, read_seconds = 0, seconds = 0;
	bool restored = false;		// every saved unit written back and read back intact
	bool direct = true;		// O_DIRECT; else buffered, evicted before every read
};

// The most a probe writes: 0.1% of the target, at most 64 MiB, in units.
std::uint64_t probe_budget(std::uint64_t claimed)
{
	return std::min<std::uint64_t>(claimed / 1000, 64 * MiB) / verify_unit;
}

// One probe of one target: the units it wrote (each saved first unless
// destructive), and the steps that write, read and restore them.
class Prober {
public:
	Prober(Fd fd, bool block, std::uint64_t seed, bool destructive, ProbeResult &r)
		: fd_(std::move(fd)), block_(block), seed_(seed), destructive_(destructive), r_(r)
	{
	}

	Error setup(const std::string &path)
	{
		path_ = path;
		return unit_.allocate(verify_unit);
	}

	// What unit `at` holds, kept to be written back (once per unit, and
	// before any write that could land on it: see probe()).
	Error save(std::uint64_t at)
	{
		if (destructive_ || std::any_of(saved_.begin(), saved_.end(), [&](const auto &s) { return s.first == at; }))
			return {};
		if (Error e = transfer_at(at, false))
			return e;
		saved_.emplace_back(at, std::string(unit_.data(), verify_unit));
		return {};
	}

	// Unit `at` written with the pattern, what was there saved first.
	Error put(std::uint64_t at)
	{
		if (Error e = save(at))
			return e;
		written_at_.push_back(at);
		write_unit(unit_.data(), seed_, 0, at, writes_++);	// file 0: the probe has one target
		std::int64_t start = now_ns();
		Error e = transfer_at(at, true);
		r_.write_seconds += (now_ns() - start) / 1e9;
		r_.written += verify_unit;
		return e;
	}

	// What is at unit `at` now: its kind for the last write there; found:
	// the offset its header names; counted among the units tested.
	// Everything written is made durable and the caches above the device
	// dropped first.
	Error get(std::uint64_t at, UnitKind &kind, std::uint64_t &found)
	{
		if (Error e = settle())
			return e;
		std::int64_t start = now_ns();
		if (Error e = transfer_at(at, false))
			return e;
		r_.read_seconds += (now_ns() - start) / 1e9;
		r_.read += verify_unit;
		r_.units++;
		std::optional<std::uint64_t> last;
		for (std::size_t i = written_at_.size(); i-- > 0;)
			if (written_at_[i] == at) {
				last = i;
				break;
			}
		kind = classify_unit(unit_.data(), seed_, 0, at, last, found);
		return {};
	}

	// Every saved unit back where it was, last saved first: a device that
	// wraps around every `period` bytes (0: none) keeps several offsets in
	// one place, and the first of them saved holds what was really there.
	// Then each is read back against what its place held.
	Error restore(std::uint64_t period)
	{
		if (destructive_)
			return {};
		for (std::size_t i = saved_.size(); i-- > 0;) {
			std::memcpy(unit_.data(), saved_[i].second.data(), verify_unit);
			if (Error e = transfer_at(saved_[i].first, true))
				return e;
		}
		if (Error e = settle())
			return e;
		auto place = [period](std::uint64_t at) { return period ? at % period : at; };
		for (const auto &unit : saved_) {
			const std::uint64_t at = unit.first;
			if (Error e = transfer_at(at, false))
				return e;
			auto first = std::find_if(saved_.begin(), saved_.end(), [&](const auto &s) { return place(s.first) == place(at); });
			if (std::memcmp(unit_.data(), first->second.data(), verify_unit) != 0)
				return {};	// restored stays false: the report says so
		}
		r_.restored = true;
		return {};
	}

	std::uint64_t writes() const { return writes_; }

private:
	Error transfer_at(std::uint64_t at, bool write)
	{
		ssize_t n = write ? pwrite(fd_.get(), unit_.data(), verify_unit, static_cast<off_t>(at))
				  : pread(fd_.get(), unit_.data(), verify_unit, static_cast<off_t>(at));
		if (n < 0)
			return sys_error(errno, "%s: %s at offset %" PRIu64 " (--probe)", write ? "write" : "read", path_.c_str(), at);
		if (static_cast<std::size_t>(n) != verify_unit)
			return runtime_error("%s: a short %s at offset %" PRIu64 " (--probe)", path_.c_str(), write ? "write" : "read",
					     at);
		return {};
	}
	// Durable, and no cache between sdb and the device holds the answer:
	// the page cache (evicted; O_DIRECT passes it anyway) and a block
	// device's own buffer cache (BLKFLSBUF, root only).
	Error settle()
	{
		if (fdatasync(fd_.get()) != 0 && errno != EINVAL)
			return sys_error(errno, "fdatasync: %s (--probe)", path_.c_str());
		posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
		if (block_)
			flush_device(path_);
		return {};
	}

	Fd fd_;
	const bool block_;
	const std::uint64_t seed_;
	const bool destructive_;
	ProbeResult &r_;
	std::string path_;
	Buffer unit_;
	std::vector<std::pair<std::uint64_t, std::string>> saved_;
	std::vector<std::uint64_t> written_at_;
	std::uint64_t writes_ = 0;
};

// The probe itself.  First unit 0 and every power of two below the claimed
// size, written in that order and read back: a device that ignores high
// address bits (the usual fake) maps each offset at or past its real size
// P onto offset 0, so unit 0 and those offsets read back the last of them
// written: the wrap period is the first of them that is not its own.  Then
// a bisection between the last unit known good and the first known bad
// (or the last unit, when nothing failed) finds the first unit that does
// not keep its data, as far as the budget goes.  stop(): a signal came.
template <typename Stop>
Error probe(Prober &p, ProbeResult &r, Stop stop)
{
	const std::uint64_t units = r.claimed / verify_unit;
	const std::uint64_t budget = probe_budget(r.claimed);
	std::vector<std::uint64_t> spread = {0};
	for (std::uint64_t u = 1; u < units; u *= 2)
		spread.push_back(u);
	if (spread.back() != units - 1)
		spread.push_back(units - 1);
	if (spread.size() + 1 > budget)
		return runtime_error("--probe: %s is too small to probe within 0.1%% of it (%s of %s units needed)",
				     format_bytes(r.claimed).c_str(), std::to_string(spread.size() + 1).c_str(),
				     std::to_string(budget).c_str());
	for (std::uint64_t u : spread)	// all saved before any is written: on a device that wraps,
		if (Error e = p.save(u * verify_unit))	// a write lands on another's place
			return e;
	for (std::uint64_t u : spread) {
		if (Error e = p.put(u * verify_unit))
			return e;
		if (Error e = stop())
			return e;
	}
	std::uint64_t good = 0, bad = units;	// unit indices: good keeps its data, bad does not
	bool any_good = false;
	UnitKind bad_kind = UnitKind::good;
	for (std::uint64_t u : spread) {
		UnitKind kind;
		std::uint64_t found = 0;
		if (Error e = p.get(u * verify_unit, kind, found))
			return e;
		if (kind == UnitKind::good) {
			if (u < bad && (!any_good || u > good))
				good = u, any_good = true;
			continue;
		}
		bool alias = found % verify_unit == 0 && std::find(spread.begin(), spread.end(), found / verify_unit) != spread.end();
		if (u == 0 && kind == UnitKind::misplaced && alias && found > 0) {	// the last alias written
			r.period = r.period ? std::min(r.period, found) : found;
			continue;
		}
		if (u > 0 && kind == UnitKind::misplaced && (u & (u - 1)) == 0)
			r.period = r.period ? std::min(r.period, u * verify_unit) : u * verify_unit;
		if (u < bad)
			bad = u, bad_kind = kind;
	}
	if (r.period) {	// all at or past the period is misplaced, whatever its unit read as
		bad = std::min(bad, r.period / verify_unit);
		bad_kind = UnitKind::misplaced;
	}
	if (bad == 0 || !any_good) {	// unit 0 itself keeps nothing
		r.kind = bad_kind == UnitKind::good ? UnitKind::corrupt : bad_kind;
		r.real = 0;
		r.resolution = verify_unit;
		return {};
	}
	good = std::min(good, bad - 1);
	while (bad - good > 1 && p.writes() < budget) {
		std::uint64_t mid = good + (bad - good) / 2;
		if (Error e = p.put(mid * verify_unit))
			return e;
		UnitKind kind;
		std::uint64_t found = 0;
		if (Error e = p.get(mid * verify_unit, kind, found))
			return e;
		if (kind == UnitKind::good) {
			good = mid;
		} else {
			bad = mid;
			if (!r.period)
				bad_kind = kind;
		}
		if (Error e = stop())
			return e;
	}
	r.real = (good + 1) * verify_unit;
	r.resolution = (bad - good - 1) * verify_unit;
	r.kind = bad >= units ? UnitKind::good : bad_kind;
	if (r.kind == UnitKind::stale)
		r.kind = UnitKind::corrupt;
	if (r.kind == UnitKind::good)
		r.real = r.claimed, r.resolution = 0;
	return {};
}

// The target opened for the probe: O_DIRECT where it takes it (else
// buffered, evicted before every read), checked to be what the plan
// checked.
Error open_for_probe(const Target &t, Fd &fd, bool &direct)
{
	int flags = O_RDWR | O_CLOEXEC | O_NOCTTY | (t.follow ? 0 : O_NOFOLLOW);
	direct = true;
	fd = Fd(open(t.path.c_str(), flags | O_DIRECT));
	if (!fd && errno == EINVAL) {
		direct = false;
		fd = Fd(open(t.path.c_str(), flags));
	}
	if (!fd)
		return sys_error(errno, "open: %s", t.path.c_str());
	struct stat st {};
	if (fstat(fd.get(), &st) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (identity_of(st) != t.id)
		return runtime_error("%s changed while sdb was starting: refusing to probe it", t.path.c_str());
	return {};
}

std::string probe_kind_words(const ProbeResult &r)
{
	switch (r.kind) {
	case UnitKind::misplaced:
		return r.period ? format("misplaced past it: the offsets wrap around every %s", format_bytes(r.period).c_str())
				: "misplaced past it (another offset's data)";
	case UnitKind::zeros: return "zeros past it: the writes are lost";
	default: return "corrupt past it";
	}
}

void print_probe_human(std::FILE *out, const std::string &path, const ProbeResult &r, bool destructive)
{
	std::fprintf(out, "sdb %s probe: %s, %s claimed%s\n", SDB_VERSION, printable(path).c_str(),
		     format_bytes(r.claimed).c_str(), r.direct ? ", O_DIRECT" : ", buffered (no O_DIRECT), evicted before reads");
	std::fprintf(out, "Probe: %" PRIu64 " units of 4 KiB tested, %s written (%.3f%% of it), in %.3f s; "
		     "writes %s, reads %s\n", r.units, format_bytes(r.written).c_str(),
		     100.0 * static_cast<double>(r.written) / static_cast<double>(std::max<std::uint64_t>(r.claimed, 1)),
		     r.seconds, format_rate(rate(r.written, r.write_seconds)).c_str(),
		     format_rate(rate(r.read, r.read_seconds)).c_str());
	if (r.kind == UnitKind::good)
		std::fprintf(out, "Capacity: all %s keep their data\n", format_bytes(r.claimed).c_str());
	else
		std::fprintf(out, "Capacity: FAKE: %s of the %s claimed keep their data%s; %s\n",
			     format_bytes(r.real).c_str(), format_bytes(r.claimed).c_str(),
			     r.resolution ? format(" (the end lies within %s past that)", format_bytes(r.resolution).c_str()).c_str()
					  : "",
			     probe_kind_words(r).c_str());
	if (destructive)
		std::fprintf(out, "Restored: nothing (--destructive): the units written stay\n");
	else
		std::fprintf(out, "Restored: %s\n", r.restored ? "every unit overwritten is back as it was"
							       : "NOT all units came back as they were");
}

void print_probe_json(std::FILE *out, const std::string &path, const ProbeResult &r, bool destructive,
		      const std::string &error, bool interrupted)
{
	const char *kind = r.kind == UnitKind::good ? "ok" : unit_kind_names[static_cast<int>(r.kind)];
	std::string doc = format("{\"version\": %s, \"host\": %s, \"options\": {\"op\": \"probe\", \"file\": %s, "
				 "\"destructive\": %s},\n \"probe\": {\"claimed_bytes\": %" PRIu64 ", \"real_bytes\": %" PRIu64
				 ", \"resolution_bytes\": %" PRIu64 ", \"kind\": \"%s\", \"period\": %s, \"units\": %" PRIu64
				 ", \"bytes_written\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"seconds\": %s"
				 ", \"write_bytes_per_second\": %s, \"read_bytes_per_second\": %s, \"direct\": %s, \"restored\": %s}",
				 json_string(SDB_VERSION).c_str(), json_string(short_host_name()).c_str(),
				 json_string(path).c_str(), json_bool(destructive).c_str(), r.claimed, r.real, r.resolution, kind,
				 r.period ? std::to_string(r.period).c_str() : "null", r.units, r.written, r.read,
				 json_number(r.seconds).c_str(), json_number(rate(r.written, r.write_seconds)).c_str(),
				 json_number(rate(r.read, r.read_seconds)).c_str(), json_bool(r.direct).c_str(),
				 json_bool(r.restored).c_str());
	if (!error.empty())
		doc += ",\n \"error\": " + json_string(error);
	doc += format(",\n \"warnings\": [],\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// sdb --probe -f TARGET: the plan's checks as for a write (a block device
// needs --force and must not be in use; a file not sdb's needs --force),
// then the probe, the restore, the report.  Exit 1 when the capacity is
// fake (or the restore failed), 130 on Ctrl-C (after the restore).
int run_probe(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	Options po;
	po.op = Options::Op::write;
	po.file = opt.file;
	po.force = opt.force;
	po.block_size = po.size = verify_unit;	// plan only: the probe's I/O is its own
	Plan plan;
	if (Error e = make_plan(po, plan)) {
		print_error(e);
		return e.status;
	}
	const Target &t = plan.targets[0];
	if (t.kind != Kind::file && t.kind != Kind::block) {
		print_error(usage_error("--probe: %s is %s: a block device or a file is probed", t.path.c_str(),
					t.kind == Kind::missing ? "missing" : "a character device"));
		return exit_usage;
	}
	ProbeResult r;
	r.claimed = t.existing / verify_unit * verify_unit;
	std::uint64_t seed = 0;
	if (getrandom(&seed, sizeof seed, 0) != sizeof seed) {
		print_error(sys_error(errno, "--probe: cannot read a seed from /dev/urandom"));
		return exit_runtime;
	}
	Fd fd;
	Error error = open_for_probe(t, fd, r.direct);
	Prober prober(std::move(fd), t.kind == Kind::block, seed, opt.destructive, r);
	if (!error)
		error = prober.setup(t.path);
	std::int64_t start = now_ns();
	if (!error)
		error = probe(prober, r, [&] { return scope.waiter.stopped("during --probe"); });
	bool interrupted = scope.waiter.received() != 0;
	if (prober.writes() > 0)
		if (Error e = prober.restore(r.period); e && !error)
			error = e;
	r.seconds = (now_ns() - start) / 1e9;
	if (!error || interrupted) {
		std::string text = printed([&](std::FILE *mem) {
			opt.json ? print_probe_json(mem, t.path, r, opt.destructive, interrupted ? "" : error.msg, interrupted)
				 : print_probe_human(mem, t.path, r, opt.destructive);
		});
		if (int status = deliver(out, text, scope.waiter)) {	// cut short: its status
			if (!interrupted && !opt.destructive && !r.restored && status != 128 + SIGPIPE)
				print_error(runtime_error("--probe: %s: the units it overwrote did not all read back as they were",
							  t.path.c_str()));
			return status;
		}
	}
	if (interrupted)
		return scope.waiter.exit_status();
	if (error) {
		print_error(error);
		return error.status;
	}
	if (!opt.destructive && !r.restored) {
		print_error(runtime_error("--probe: %s: the units it overwrote did not all read back as they were",
					  t.path.c_str()));
		return exit_runtime;
	}
	return r.kind == UnitKind::good ? exit_ok : exit_runtime;
}

// --probe's rules: it chooses its own I/O, so only -f, --force, --json and
// -v go with it (and --destructive), and it needs -f.
Error check_probe(const Options &o)
{
	for (const std::string &g : o.given) {
		std::string name = g.substr(0, g.find('='));
		if (name != "--probe" && name != "--destructive" && name != "--file" && name != "--force" &&
		    name != "--json" && name != "--verbose")
			return usage_error("--probe and %s: the probe chooses its own I/O (-f, --force, --json, -v only)",
					   name.c_str());
	}
	if (o.file.empty())
		return usage_error("--probe needs -f FILE: the device or file to check");
	return {};
}

const Mode probe_mode = {"--probe", [](const Options &o) { return o.probe; }, check_probe,
			 [](const Options &o, std::FILE *out, std::string *) { return run_probe(o, out); }};

} // namespace
