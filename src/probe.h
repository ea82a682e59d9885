// probe: --probe, the fake-capacity check.  Writes --verify units (see
// pattern.h) at a spread of offsets over the claimed size, reads each back
// with the caches out of the way, and bisects to the size that keeps its
// data: the claimed size, the real one, how the rest fails (misplaced with
// the wrap period, zeros, corrupt).  Unless --destructive, saves every
// unit it overwrites in an undo journal (journal.h) before the write, and
// restores all of them after; writes at most 0.1% of the target or
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
#include "journal.h"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
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
	Restored restore;		// what the restore did, unit by unit
	bool interrupted = false;	// a signal ended it before a verdict
	std::uint64_t planned = 0;	// units the probe meant to test at least (the spread)
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

	// The unit buffer, and (unless destructive) the journal at
	// journal_path, made before anything is written.
	Error setup(const std::string &path, const std::string &journal_path, const JournalHead &head)
	{
		path_ = path;
		if (Error e = unit_.allocate(verify_unit))
			return e;
		return destructive_ ? Error{} : journal_.create(journal_path, head);
	}
	Journal &journal() { return journal_; }

	// What unit `at` holds, kept to be written back (once per unit, and
	// before any write that could land on it: see probe()).
	Error save(std::uint64_t at)
	{
		if (destructive_ || std::any_of(saved_.begin(), saved_.end(), [&](const SavedUnit &s) { return s.at == at; }))
			return {};
		if (Error e = transfer_at(at, false))
			return e;
		if (Error e = journal_.append(at, unit_.data()))
			return e;
		saved_.push_back({at, std::string(unit_.data(), verify_unit)});
		return {};
	}

	// Unit `at` written with the pattern, what was there saved first.
	Error put(std::uint64_t at)
	{
		if (Error e = save(at))
			return e;
		if (Error e = journal_.sync())	// durable before the write it undoes
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

	// Every saved unit back where it was (restore_units: all of them, past
	// any that fails, each read back); a clean restore removes the journal.
	void restore(std::uint64_t period)
	{
		if (destructive_)
			return;
		r_.restore = restore_units(fd_.get(), saved_, unit_.data(), [&] {
			posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
			if (block_)
				flush_device(path_);
		}, period);
		r_.restored = r_.restore.clean();
		if (r_.restored)
			journal_.remove();
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
	Journal journal_;
	std::vector<SavedUnit> saved_;
	std::vector<std::uint64_t> written_at_;
	std::uint64_t writes_ = 0;
};

// Unit 0, every power of two below `units`, and the last unit.
std::vector<std::uint64_t> probe_spread(std::uint64_t units)
{
	std::vector<std::uint64_t> spread = {0};
	for (std::uint64_t u = 1; u < units; u *= 2)
		spread.push_back(u);
	if (spread.back() != units - 1)
		spread.push_back(units - 1);
	return spread;
}

// Can a probe of `claimed` bytes test its spread and one more unit within
// its budget?  Asked before anything is written.
Error probe_fits(std::uint64_t claimed)
{
	std::size_t need = probe_spread(std::max<std::uint64_t>(claimed / verify_unit, 1)).size() + 1;
	if (need > probe_budget(claimed))
		return runtime_error("--probe: %s is too small to probe within 0.1%% of it (%zu of %" PRIu64 " units needed)",
				     format_bytes(claimed).c_str(), need, probe_budget(claimed));
	return {};
}

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
	std::vector<std::uint64_t> spread = probe_spread(units);
	r.planned = spread.size();
	if (Error e = probe_fits(r.claimed))
		return e;
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

// The Capacity line's verdict, or why there is none.
std::string probe_verdict(const ProbeResult &r, const std::string &error)
{
	if (r.interrupted)
		return format("interrupted after %" PRIu64 " of at least %" PRIu64 " units: no verdict", r.units, r.planned);
	if (!error.empty())
		return format("no verdict: the probe stopped after %" PRIu64 " units tested, at an error (below)", r.units);
	if (r.kind == UnitKind::good)
		return format("all %s keep their data", format_bytes(r.claimed).c_str());
	return format("FAKE: %s of the %s claimed keep their data%s; %s", format_bytes(r.real).c_str(),
		      format_bytes(r.claimed).c_str(),
		      r.resolution ? format(" (the end lies within %s past that)", format_bytes(r.resolution).c_str()).c_str() : "",
		      probe_kind_words(r).c_str());
}

void print_probe_human(std::FILE *out, const std::string &path, const ProbeResult &r, bool destructive,
		       const std::string &error, bool wrote)
{
	std::fprintf(out, "sdb %s probe: %s, %s claimed%s\n", SDB_VERSION, printable(path).c_str(),
		     format_bytes(r.claimed).c_str(), r.direct ? ", O_DIRECT" : ", buffered (no O_DIRECT), evicted before reads");
	std::fprintf(out, "Probe: %" PRIu64 " units of 4 KiB tested, %s written (%.3f%% of it), in %.3f s; "
		     "writes %s, reads %s\n", r.units, format_bytes(r.written).c_str(),
		     100.0 * static_cast<double>(r.written) / static_cast<double>(std::max<std::uint64_t>(r.claimed, 1)),
		     r.seconds, format_rate(rate(r.written, r.write_seconds)).c_str(),
		     format_rate(rate(r.read, r.read_seconds)).c_str());
	std::fprintf(out, "Capacity: %s\n", probe_verdict(r, error).c_str());
	if (destructive)
		std::fprintf(out, "Restored: nothing (--destructive): the units written stay\n");
	else if (!wrote)
		std::fprintf(out, "Restored: nothing to restore: nothing was written\n");
	else if (r.restored)
		std::fprintf(out, "Restored: all %zu units overwritten are back as they were\n", r.restore.units);
	else
		std::fprintf(out, "Restored: NOT all: %zu of %zu units did not come back (below); the journal is kept\n",
			     r.restore.failures.size(), r.restore.units);
}

void print_probe_json(std::FILE *out, const std::string &path, const ProbeResult &r, bool destructive,
		      const std::string &error, const std::string &journal)
{
	const char *kind = r.interrupted ? "interrupted" : !error.empty() ? "error"
			 : r.kind == UnitKind::good ? "ok" : unit_kind_names[static_cast<int>(r.kind)];
	std::string doc = format("{\"version\": %s, \"host\": %s, \"options\": {\"op\": \"probe\", \"file\": %s, "
				 "\"destructive\": %s},\n \"probe\": {\"claimed_bytes\": %" PRIu64 ", \"real_bytes\": %" PRIu64
				 ", \"resolution_bytes\": %" PRIu64 ", \"kind\": \"%s\", \"period\": %s, \"units\": %" PRIu64
				 ", \"bytes_written\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"seconds\": %s"
				 ", \"write_bytes_per_second\": %s, \"read_bytes_per_second\": %s, \"direct\": %s, \"restored\": %s"
				 ", \"restore_failures\": %s, \"journal\": %s}",
				 json_string(SDB_VERSION).c_str(), json_string(short_host_name()).c_str(),
				 json_string(path).c_str(), json_bool(destructive).c_str(), r.claimed, r.real, r.resolution, kind,
				 r.period ? std::to_string(r.period).c_str() : "null", r.units, r.written, r.read,
				 json_number(r.seconds).c_str(), json_number(rate(r.written, r.write_seconds)).c_str(),
				 json_number(rate(r.read, r.read_seconds)).c_str(), json_bool(r.direct).c_str(),
				 json_bool(r.restored).c_str(), restore_failures_json(r.restore).c_str(),
				 journal.empty() ? "null" : json_string(journal).c_str());
	if (!error.empty())
		doc += ",\n \"error\": " + json_string(error);
	doc += format(",\n \"warnings\": [],\n \"interrupted\": %s}\n", json_bool(r.interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// Where this probe's journal goes: --journal PATH, else a new name in
// default_journal_dir().  Never on the target's own file system (a file's
// st_dev) or on the block device probed (its st_rdev): the journal must
// survive what it undoes.
Error probe_journal_path(const Options &opt, const Target &t, const struct stat &st, std::string &path)
{
	dev_t avoid = t.kind == Kind::block ? st.st_rdev : st.st_dev;
	if (!opt.journal.empty()) {
		struct stat d {};
		if (stat(dirname_of(opt.journal).c_str(), &d) == 0 && d.st_dev == avoid)
			return usage_error("--journal %s: on %s%s: the journal must survive what it undoes", opt.journal.c_str(),
					   t.kind == Kind::block ? "" : "the file system of ", t.path.c_str());
		path = opt.journal;
		return {};
	}
	std::string dir;
	if (Error e = default_journal_dir(avoid, dir))
		return e;
	std::string base = t.path.substr(t.path.find_last_of('/') == std::string::npos ? 0 : t.path.find_last_of('/') + 1);
	for (char &c : base)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
			c = '_';
	std::time_t now = std::time(nullptr);
	char when[32];
	std::strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
	path = format("%s/probe-%s-%s-%d.journal", dir.c_str(), base.c_str(), when, static_cast<int>(getpid()));
	return {};
}

// sdb --probe -f TARGET: the plan's checks as for a write (a block device
// needs --force and must not be in use; a file not sdb's needs --force),
// the journal made, then the probe, the restore of every unit, the
// report (also when the probe stopped at an error).  Exit 1 when the
// capacity is fake, the probe failed or the restore did (the journal then
// kept); 128 + N on signal N (after the restore).
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
	if (Error e = probe_fits(r.claimed)) {
		print_error(e);
		return e.status;
	}
	Fd fd;
	Error error = open_for_probe(t, fd, r.direct);
	struct stat st {};
	if (!error && fstat(fd.get(), &st) != 0)
		error = sys_error(errno, "fstat: %s", t.path.c_str());
	std::string journal;
	if (!error && !opt.destructive)
		if (Error e = probe_journal_path(opt, t, st, journal)) {
			print_error(e);
			return e.status;
		}
	JournalHead head{t.path, r.claimed, t.kind == Kind::block,
			 static_cast<std::uint64_t>(t.kind == Kind::block ? st.st_rdev : st.st_dev),
			 static_cast<std::uint64_t>(st.st_ino)};
	Prober prober(std::move(fd), t.kind == Kind::block, seed, opt.destructive, r);
	if (!error)
		error = prober.setup(t.path, journal, head);
	if (!error && !journal.empty())
		std::fprintf(stderr, "sdb: --probe: the undo journal is %s; if this probe is cut short, "
			     "sdb --restore %s puts back what it overwrote\n", printable(journal).c_str(),
			     shell_quote(journal).c_str());
	std::int64_t start = now_ns();
	if (!error)
		error = probe(prober, r, [&] { return scope.waiter.stopped("during --probe"); });
	r.interrupted = scope.waiter.received() != 0;
	const bool wrote = prober.writes() > 0;
	if (wrote)
		prober.restore(r.period);
	r.seconds = (now_ns() - start) / 1e9;
	if (!wrote && prober.journal().is_open())
		prober.journal().remove();
	const std::string why = r.interrupted || !error ? "" : error.msg;
	std::string text = printed([&](std::FILE *mem) {
		opt.json ? print_probe_json(mem, t.path, r, opt.destructive, why, r.restored ? "" : journal)
			 : print_probe_human(mem, t.path, r, opt.destructive, why, wrote);
	});
	int status = deliver(out, text, scope.waiter);
	if (error && !r.interrupted)
		print_error(error);
	if (wrote && !opt.destructive && !r.restored)
		print_error(runtime_error("--probe: %s: %zu of %zu units it overwrote did not come back (%s); the journal is "
					  "kept: sdb --restore %s", t.path.c_str(), r.restore.failures.size(), r.restore.units,
					  restore_failures_text(r.restore).c_str(), shell_quote(journal).c_str()));
	if (status)
		return status;
	if (r.interrupted)
		return scope.waiter.exit_status();
	if (error)
		return error.status;
	if (wrote && !opt.destructive && !r.restored)
		return exit_runtime;
	return r.kind == UnitKind::good ? exit_ok : exit_runtime;
}

// --probe's rules: it chooses its own I/O, so only -f, --force, --journal,
// --json and -v go with it (and --destructive), and it needs -f.
Error check_probe(const Options &o)
{
	for (const std::string &g : o.given) {
		std::string name = g.substr(0, g.find('='));
		if (name != "--probe" && name != "--destructive" && name != "--file" && name != "--force" &&
		    name != "--json" && name != "--verbose" && name != "--journal")
			return usage_error("--probe and %s: the probe chooses its own I/O (-f, --force, --journal, --json, "
					   "-v only)", name.c_str());
	}
	if (o.file.empty())
		return usage_error("--probe needs -f FILE: the device or file to check");
	return {};
}

const Mode probe_mode = {"--probe", [](const Options &o) { return o.probe; }, check_probe,
			 [](const Options &o, std::FILE *out, std::string *) { return run_probe(o, out); }};

} // namespace
