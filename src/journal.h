// journal: --probe's undo journal, and the restore that reads it.  Before
// the probe overwrites a unit it appends the unit's original bytes (with
// its offset and a checksum) to a new file and makes them durable
// (Journal); a restore (restore_units) writes every unit back, last saved
// first, goes on past a unit that fails, and reads each back against its
// original: only a clean restore removes the journal.  sdb --restore
// JOURNAL (run_restore, restore_mode's run) does the same for a probe that
// a crash, a kill -9 or a power loss cut short.  The journal lives apart
// from a probed block device (default_journal_dir); see sdb.1 FILES.
#pragma once

#include "base.h"
#include "json.h"
#include "options.h"
#include "pattern.h"
#include "plan.h"
#include "buffer.h"
#include "signals.h"

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr char journal_magic[] = "sdb probe journal 1\n";

// What a journal was made for: the target's path as given, its size, and
// which inode (a file) or device number (a block device) it was.
struct JournalHead {
	std::string target;
	std::uint64_t claimed = 0;
	bool block = false;
	std::uint64_t dev = 0, ino = 0;	// a file's st_dev and st_ino; a block device's st_rdev in dev
};

struct SavedUnit {
	std::uint64_t at = 0;
	std::string data;	// verify_unit bytes
};

// FNV-1a over a unit: enough to tell a torn or damaged record.
std::uint64_t unit_checksum(const char *p, std::size_t n)
{
	std::uint64_t h = 1469598103934665603ULL;
	for (std::size_t i = 0; i < n; ++i)
		h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
	return h;
}

// Where a journal goes when --journal is not given: $XDG_STATE_HOME/sdb,
// else ~/.local/state/sdb, else /var/tmp; the first that exists or can be
// made and is not on `avoid` (the target's file system or block device).
Error default_journal_dir(dev_t avoid, std::string &dir)
{
	std::vector<std::string> candidates;
	if (const char *x = std::getenv("XDG_STATE_HOME"); x && *x == '/')
		candidates.push_back(std::string(x) + "/sdb");
	if (const char *h = std::getenv("HOME"); h && *h == '/')
		candidates.push_back(std::string(h) + "/.local/state/sdb");
	candidates.push_back("/var/tmp");
	for (const std::string &c : candidates) {
		for (std::size_t i = 1; (i = c.find('/', i)) != std::string::npos; ++i)
			mkdir(c.substr(0, i).c_str(), 0700);
		mkdir(c.c_str(), 0700);
		struct stat st {};
		if (stat(c.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && access(c.c_str(), W_OK) == 0 &&
		    st.st_dev != avoid) {
			dir = c;
			return {};
		}
	}
	return runtime_error("--probe: no place for the undo journal ($XDG_STATE_HOME/sdb, ~/.local/state/sdb, /var/tmp): "
			     "give --journal PATH on another file system");
}

// The undo journal being written: a header, then one record per unit
// saved ('U', offset, checksum, the bytes), appended as each is saved and
// made durable (sync) before the first write that needs it.
class Journal {
public:
	Error create(const std::string &path, const JournalHead &head)
	{
		path_ = path;
		fd_ = Fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
		if (!fd_)
			return sys_error(errno, "--probe: the undo journal %s", path.c_str());
		std::string h = journal_magic;
		h += format("claimed %" PRIu64 " block %d dev %" PRIu64 " ino %" PRIu64 "\ntarget %zu\n", head.claimed,
			    head.block ? 1 : 0, head.dev, head.ino, head.target.size());
		h += head.target + "\n";
		if (Error e = put(h))
			return e;
		if (Error e = sync())
			return e;
		Fd dir(::open(dirname_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));	// the name durable too
		if (dir)
			fsync(dir.get());
		return {};
	}
	Error append(std::uint64_t at, const char *unit)
	{
		std::string rec(1, 'U');
		std::uint64_t sum = unit_checksum(unit, verify_unit);
		rec.append(reinterpret_cast<const char *>(&at), sizeof at);
		rec.append(reinterpret_cast<const char *>(&sum), sizeof sum);
		rec.append(unit, verify_unit);
		return put(rec);
	}
	Error sync()
	{
		if (dirty_ && fdatasync(fd_.get()) != 0)
			return sys_error(errno, "--probe: fdatasync: the undo journal %s", path_.c_str());
		dirty_ = false;
		return {};
	}
	const std::string &path() const { return path_; }
	bool is_open() const { return static_cast<bool>(fd_); }
	void remove()
	{
		fd_ = Fd();
		unlink(path_.c_str());
	}

private:
	Error put(const std::string &bytes)
	{
		std::size_t done = 0;
		while (done < bytes.size()) {
			ssize_t n = write(fd_.get(), bytes.data() + done, bytes.size() - done);
			if (n <= 0)
				return sys_error(n < 0 ? errno : ENOSPC, "--probe: write: the undo journal %s", path_.c_str());
			done += static_cast<std::size_t>(n);
		}
		dirty_ = true;
		return {};
	}
	Fd fd_;
	std::string path_;
	bool dirty_ = false;
};

// A journal read back: its head and every whole record whose checksum
// holds; `damaged`: records that did not (a torn last one is not counted:
// a crash while it was appended, before the unit it saves was written).
Error read_journal(const std::string &path, JournalHead &head, std::vector<SavedUnit> &units, std::size_t &damaged)
{
	Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
	if (!fd)
		return sys_error(errno, "--restore: %s", path.c_str());
	std::string text;
	char chunk[1 << 16];
	for (ssize_t n; (n = read(fd.get(), chunk, sizeof chunk)) != 0;) {
		if (n < 0)
			return sys_error(errno, "--restore: read: %s", path.c_str());
		text.append(chunk, static_cast<std::size_t>(n));
	}
	const std::size_t magic = sizeof journal_magic - 1;
	int block = 0, used = 0;
	std::size_t name = 0;
	if (text.compare(0, magic, journal_magic) != 0 ||
	    std::sscanf(text.c_str() + magic, "claimed %" SCNu64 " block %d dev %" SCNu64 " ino %" SCNu64 "\ntarget %zu\n%n",
			&head.claimed, &block, &head.dev, &head.ino, &name, &used) != 5 || used == 0 ||
	    magic + static_cast<std::size_t>(used) + name + 1 > text.size())
		return runtime_error("--restore: %s is not an sdb probe journal", path.c_str());
	head.block = block != 0;
	std::size_t at = magic + static_cast<std::size_t>(used);
	head.target = text.substr(at, name);
	at += name + 1;
	const std::size_t record = 1 + 8 + 8 + verify_unit;
	damaged = 0;
	for (; at + record <= text.size(); at += record) {
		SavedUnit u;
		std::uint64_t sum = 0;
		std::memcpy(&u.at, text.data() + at + 1, 8);
		std::memcpy(&sum, text.data() + at + 9, 8);
		u.data = text.substr(at + 17, verify_unit);
		if (text[at] != 'U' || unit_checksum(u.data.data(), verify_unit) != sum || u.at % verify_unit) {
			damaged++;
			continue;
		}
		units.push_back(std::move(u));
	}
	return {};
}

// What a restore did: each unit's offset that did not come back, and why.
struct Restored {
	std::size_t units = 0;	// distinct offsets to put back
	std::vector<std::pair<std::uint64_t, std::string>> failures;
	bool clean() const { return failures.empty(); }
};

// Every saved unit written back to fd, last saved first (on a device that
// wraps, several offsets share a place, and the first saved holds what was
// really there), past any that fails; then made durable, the caches
// dropped (evict(): the page cache and a block device's buffer cache), and
// each offset read back against what its place held when it was first
// saved: with a wrap `period` (0: none known), offsets a period apart are
// one place.  A unit whose write failed but that reads back as it was is
// restored: its bytes are what matters.  `unit`: an aligned buffer of
// verify_unit bytes.
template <typename Evict>
Restored restore_units(int fd, const std::vector<SavedUnit> &saved, char *unit, Evict evict, std::uint64_t period)
{
	auto place = [period](std::uint64_t at) { return period ? at % period : at; };
	Restored r;
	std::vector<std::string> write_error(saved.size());
	for (std::size_t i = saved.size(); i-- > 0;) {
		std::memcpy(unit, saved[i].data.data(), verify_unit);
		ssize_t n = pwrite(fd, unit, verify_unit, static_cast<off_t>(saved[i].at));
		if (n != static_cast<ssize_t>(verify_unit))
			write_error[i] = n < 0 ? std::strerror(errno) : "a short write";
	}
	std::string sync_error = fdatasync(fd) != 0 && errno != EINVAL ? std::strerror(errno) : "";
	evict();
	for (std::size_t i = 0; i < saved.size(); ++i) {
		bool first = true;
		for (std::size_t j = 0; j < i && first; ++j)
			first = saved[j].at != saved[i].at;
		if (!first)
			continue;
		r.units++;
		std::size_t origin = 0;
		while (place(saved[origin].at) != place(saved[i].at))
			origin++;
		ssize_t n = pread(fd, unit, verify_unit, static_cast<off_t>(saved[i].at));
		if (n == static_cast<ssize_t>(verify_unit) && std::memcmp(unit, saved[origin].data.data(), verify_unit) == 0)
			continue;
		std::string why = n < 0 ? std::string("read back: ") + std::strerror(errno)
			: n != static_cast<ssize_t>(verify_unit) ? "read back: a short read"
								 : "it reads back different";
		for (std::size_t j = 0; j < saved.size(); ++j)
			if (saved[j].at == saved[i].at && !write_error[j].empty())
				why = "write: " + write_error[j] + "; " + why;
		if (!sync_error.empty())
			why += "; fdatasync: " + sync_error;
		r.failures.emplace_back(saved[i].at, why);
	}
	return r;
}

// The failures in one line, at most eight named.
std::string restore_failures_text(const Restored &r)
{
	std::string s;
	for (std::size_t i = 0; i < r.failures.size() && i < 8; ++i)
		s += format("%soffset %" PRIu64 ": %s", i ? "; " : "", r.failures[i].first, r.failures[i].second.c_str());
	if (r.failures.size() > 8)
		s += format("; and %zu more", r.failures.size() - 8);
	return s;
}

std::string restore_failures_json(const Restored &r)
{
	std::string s = "[";
	for (std::size_t i = 0; i < r.failures.size(); ++i)
		s += format("%s{\"offset\": %" PRIu64 ", \"error\": %s}", i ? ", " : "", r.failures[i].first,
			    json_string(r.failures[i].second).c_str());
	return s + "]";
}

// sdb --restore JOURNAL: the journal's units back on the target it names,
// which must still be what it was (the same file, or a block device of
// the same size) and pass a write's checks (nobody using it); then a
// clean restore removes the journal.  Exit 0 when every unit reads back as
// it was, 1 otherwise (the journal kept).
int run_restore(const Options &opt, std::FILE *out)
{
	SignalScope scope;	// a Ctrl-C waits for the restore: stopping it halfway would lose what it protects
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	JournalHead head;
	std::vector<SavedUnit> units;
	std::size_t damaged = 0;
	if (Error e = read_journal(opt.restore, head, units, damaged)) {
		print_error(e);
		return e.status;
	}
	Options po;
	po.op = Options::Op::write;
	po.file = head.target;
	po.force = true;	// the journal is the permission; in-use targets stay refused
	po.block_size = po.size = verify_unit;
	Plan plan;
	if (Error e = make_plan(po, plan)) {
		print_error(runtime_error("--restore %s: %s", opt.restore.c_str(), e.msg.c_str()));
		return exit_runtime;
	}
	const Target &t = plan.targets[0];
	bool same = head.block ? t.kind == Kind::block && t.existing / verify_unit * verify_unit == head.claimed
			       : t.kind == Kind::file && t.id.dev == head.dev && t.id.ino == head.ino;
	if (!same) {
		print_error(runtime_error("--restore %s: %s is not the %s the journal was made for; nothing written",
					  opt.restore.c_str(), head.target.c_str(), head.block ? "device" : "file"));
		return exit_runtime;
	}
	Fd fd(open(t.path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY | O_DIRECT | (t.follow ? 0 : O_NOFOLLOW)));
	if (!fd && errno == EINVAL)
		fd = Fd(open(t.path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY | (t.follow ? 0 : O_NOFOLLOW)));
	if (!fd) {
		print_error(sys_error(errno, "--restore: open: %s", t.path.c_str()));
		return exit_runtime;
	}
	Buffer unit;
	if (Error e = unit.allocate(verify_unit)) {
		print_error(e);
		return e.status;
	}
	Restored r = restore_units(fd.get(), units, unit.data(), [&] {
		posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
		if (head.block)
			flush_device(t.path);
	}, 0);
	bool clean = r.clean() && damaged == 0;
	std::string text = printed([&](std::FILE *mem) {
		if (opt.json) {
			std::fprintf(mem, "{\"version\": %s, \"host\": %s, \"options\": {\"op\": \"restore\", \"journal\": %s, "
				     "\"file\": %s},\n \"restore\": {\"units\": %zu, \"restored\": %zu, \"damaged_records\": %zu, "
				     "\"failures\": %s, \"journal_removed\": %s},\n \"warnings\": [],\n \"interrupted\": false}\n",
				     json_string(SDB_VERSION).c_str(), json_string(short_host_name()).c_str(),
				     json_string(opt.restore).c_str(), json_string(t.path).c_str(), r.units,
				     r.units - r.failures.size(), damaged, restore_failures_json(r).c_str(), json_bool(clean).c_str());
			return;
		}
		std::fprintf(mem, "sdb %s restore: %s onto %s\n", SDB_VERSION, printable(opt.restore).c_str(),
			     printable(t.path).c_str());
		std::fprintf(mem, "Restored: %zu of %zu units read back as they were%s\n", r.units - r.failures.size(), r.units,
			     clean ? "; the journal is removed" : "");
	});
	if (clean)
		unlink(opt.restore.c_str());
	if (int status = deliver(out, text, scope.waiter))
		return status;
	if (!r.clean())
		print_error(runtime_error("--restore: %s: %zu of %zu units not restored (%s); the journal is kept",
					  t.path.c_str(), r.failures.size(), r.units, restore_failures_text(r).c_str()));
	if (damaged)
		print_error(runtime_error("--restore: %s: %zu records damaged (their checksums do not hold): those units "
					  "could not be restored; the journal is kept", opt.restore.c_str(), damaged));
	return clean ? exit_ok : exit_runtime;
}

// --restore's rules: the journal says what and where; only --json and -v
// go with it.
Error check_restore(const Options &o)
{
	for (const std::string &g : o.given) {
		std::string name = g.substr(0, g.find('='));
		if (name != "--restore" && name != "--json" && name != "--verbose")
			return usage_error("--restore and %s: the journal says what to write where (--json, -v only)", name.c_str());
	}
	return {};
}

const Mode restore_mode = {"--restore", [](const Options &o) { return !o.restore.empty(); }, check_restore,
			   [](const Options &o, std::FILE *out, std::string *) { return run_restore(o, out); }};

} // namespace
