// checks: what a run's numbers are worth.  The memory ceiling (-T and the
// cheap copy check), warnings on the target before the run and on the
// numbers after it, and the Verdict: the device's counters against the
// bytes claimed (sdb's own share of them, others' at every level of the
// stack below), busy time, and what limited the run, each cause from a
// check listed in device.evidence: memory, a stop, a block I/O throttle,
// the device, the link, a CPU quota or the CPU, the rate, latency, or
// unknown (judge); syncs faster than the device can make data stable;
// whether --rate's load was met (rate_outcome).
#pragma once

#include "base.h"
#include "options.h"
#include "pace.h"
#include "plan.h"
#include "buffer.h"
#include "device.h"
#include "worker.h"
#include "throttle.h"
#include "stack.h"
#include "stops.h"
#include "run.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <linux/magic.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct MemoryRates {
	double memset_bps = 0, memcpy_bps = 0, memmove_bps = 0;
	std::uint64_t bytes = 0;
	unsigned tries = 0;	// copy_ceiling: measurements made (more when one came out low)
};

// The fastest pass of op over `bytes`, repeated for at least min_seconds:
// it is a ceiling, and right after a run the mean of the passes ranged
// 13-18 GiB/s where the fastest was 19 every time.  A signal (through
// waiter) ends it early.
// clock: now_ns, or thread_cpu_ns (worker.h) for a rate per CPU second,
// which a thread descheduled meanwhile (a busy machine, a CPU quota)
// cannot make look slow.
template <typename Op>
double best_rate(std::uint64_t bytes, double min_seconds, Waiter *waiter, Op op, std::int64_t (*clock)() = now_ns)
{
	double best = 0;
	std::int64_t start = clock(), now = start;
	while (now - start < min_seconds * 1e9 || best == 0) {
		if (waiter && waiter->interrupted())	// stop at once, not after every operation
			return best;
		std::int64_t before = now;
		op();
		now = clock();
		if (now > before)
			best = std::max(best, rate(bytes, (now - before) / 1e9));
	}
	return best;
}

// memcpy from [src, src+bytes) to [dst, ...), per CPU second: the ceiling
// a read or write that "moves" data through memory cannot beat.
MemoryRates time_copy(char *src, char *dst, std::uint64_t bytes, double min_seconds)
{
	MemoryRates m;
	m.bytes = bytes;
	volatile char sink = 0;
	m.memcpy_bps =
		best_rate(bytes, min_seconds, nullptr, [&] { std::memcpy(dst, src, bytes); sink = dst[1]; }, thread_cpu_ns);
	return m;
}

// -T's three rates over [src, src+bytes) and [dst, ...); dst needs 64
// bytes beyond bytes (memmove shifts by a cache line).
MemoryRates time_memory_ops(char *src, char *dst, std::uint64_t bytes, double min_seconds, Waiter *waiter)
{
	MemoryRates m;
	m.bytes = bytes;
	volatile char sink = 0;
	m.memcpy_bps = best_rate(bytes, min_seconds, waiter, [&] { std::memcpy(dst, src, bytes); sink = dst[1]; });
	m.memset_bps = best_rate(bytes, min_seconds, waiter,
				 [&] { std::memset(src, static_cast<int>(sink), bytes); sink = src[bytes / 2]; });
	m.memmove_bps = best_rate(bytes, min_seconds, waiter, [&] { std::memmove(dst + 64, dst, bytes); sink = dst[65]; });
	return m;
}

// The last-level cache: the size of CPU 0's highest-level data or unified
// cache, 0 when sysfs does not say.
std::uint64_t last_level_cache()
{
	std::string dir = sysfs("/devices/system/cpu/cpu0/cache/index");
	unsigned top = 0;
	std::uint64_t bytes = 0;
	for (unsigned i = 0; i < 64; i++) {
		std::string index = dir + std::to_string(i);
		std::string type = read_line(index + "/type");
		if (type.empty())
			break;
		unsigned level = static_cast<unsigned>(std::strtoul(read_line(index + "/level").c_str(), nullptr, 10));
		std::uint64_t size = parse_size(read_line(index + "/size")).value_or(0);
		if (type == "Instruction" || level < top)
			continue;
		bytes = level > top ? size : std::max(bytes, size);
		top = level;
	}
	return bytes;
}

// Bytes the memory ceiling copies: four times the last-level cache, since
// a copy the cache holds measures the cache (on a CPU with 32 MiB of L3,
// 16 MiB ran at 36 GiB/s, 128 MiB at 19); at least 64 MiB and at least
// at_least; its two buffers within a quarter of the available memory.
std::uint64_t copy_size(std::uint64_t llc, std::uint64_t available, std::uint64_t at_least)
{
	std::uint64_t bytes = std::max({4 * llc, 64 * MiB, at_least});
	return std::min(bytes, std::max<std::uint64_t>(available / 8, MiB));
}

// A copy the last-level cache holds measures the cache: said when the
// memory at hand (a cgroup, ulimit -v) allowed no larger one.
std::vector<std::string> memory_warnings(const MemoryRates &m)
{
	std::uint64_t llc = last_level_cache();
	if (m.bytes >= 4 * llc)
		return {};
	return {format("-T copied only %s (all the memory limit allows), less than 4 x the %s last-level cache: "
		       "these are cache rates, above what memory sustains", format_bytes(m.bytes).c_str(),
		       format_bytes(llc).c_str())};
}

// -T: the memory ceiling over copy_size() (the block size if larger), each
// operation for at least 0.2 s.
MemoryRates time_memory(std::uint64_t block_size, Waiter *waiter = nullptr)
{
	std::uint64_t bytes = copy_size(last_level_cache(), available_memory(), block_size);
	Buffer a, b;
	if (a.allocate(bytes) || b.allocate(bytes + 64))
		return {};	// nothing timed: bytes 0 says so
	return time_memory_ops(a.data(), b.data(), bytes, 0.2, waiter);
}

// What the cheap ceiling copies: the last-level cache's size, at least
// 16 MiB and at most 64 MiB.  Source and destination together are twice
// the cache, so the rate is near memory's, if a little above: the ceiling
// errs high, and a warning resting on it is never a copy's bad luck.
std::uint64_t ceiling_size(std::uint64_t llc)
{
	return std::clamp<std::uint64_t>(llc, 16 * MiB, 64 * MiB);
}

// The cheap ceiling behind the "faster than memory" warning: memcpy of
// ceiling_size() bytes between the halves of the I/O buffer when it is
// large enough (already faulted in), else of a scratch buffer, for 20 ms
// of CPU time.  against: the rate it is to be compared with; while the
// ceiling comes out below it, it is measured again (three times more at
// most) and the best kept, so that a warning never rests on a ceiling a
// repeat would have raised.
MemoryRates copy_ceiling(Buffer &io, double against)
{
	std::uint64_t bytes = ceiling_size(last_level_cache());
	Buffer scratch;
	char *src = io.data();
	if (io.size() / 2 < bytes + 64) {
		if (scratch.allocate(2 * bytes + 64))
			return {};
		src = scratch.data();
	}
	char *dst = src == io.data() ? io.data() + io.size() / 2 : src + bytes;
	MemoryRates best;
	while (best.tries < 4 && (best.tries == 0 || best.memcpy_bps < against)) {
		MemoryRates m = time_copy(src, dst, bytes, 0.02);
		m.tries = best.tries + 1;
		m.memcpy_bps = std::max(m.memcpy_bps, best.memcpy_bps);
		best = m;
	}
	return best;
}

// The fastest thread's rate: what plausibility() holds against the ceiling.
double fastest_thread(const Shared &s)
{
	double most = 0;
	for (auto &w : s.workers)
		most = std::max(most, rate(w->bytes, (w->end_ns - w->start_ns) / 1e9));
	return most;
}

// zram returns a page it stores as "same-filled" (zeros, say) and a page
// never written without reading any stored data: a read of them measures
// nothing but the kernel.  mm_stat's first field is the bytes of data
// stored, same-filled pages included (Linux 6.18: 64 MiB of zeros written
// read 67108864 there), its sixth the same-filled pages.
struct ZramUse {
	std::uint64_t disk = 0, stored = 0, same = 0;	// bytes
};

std::optional<ZramUse> zram_use(const std::string &disk)
{
	ZramUse z;
	unsigned long long stored = 0, same = 0, skip = 0;
	std::string stat = read_line(sysfs("/block/" + disk + "/mm_stat"));
	if (std::sscanf(stat.c_str(), "%llu %llu %llu %llu %llu %llu", &stored, &skip, &skip, &skip, &skip, &same) != 6)
		return std::nullopt;
	z.disk = std::strtoull(read_line(sysfs("/block/" + disk + "/disksize")).c_str(), nullptr, 10);
	z.stored = stored;
	z.same = same * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	return z;
}

// A read from zram that would mostly return pages zram does not store: for
// the device itself, the part of the range read that its stored bytes
// cannot fill (at least that much of it is same-filled or never written;
// a range written with -R and read back is not told to write it first);
// for a file on it, the same-filled pages against the bytes the read
// covers.
std::string zram_read_warning(const Plan &plan, const std::string &disk)
{
	std::optional<ZramUse> z = zram_use(disk);
	if (!z || z->disk == 0)
		return "";
	const Target &t = plan.targets[0];
	if (t.kind == Kind::block) {
		std::uint64_t from = UINT64_MAX, to = 0;	// the span the threads' regions read
		for (const Target &x : plan.targets) {
			from = std::min(from, x.base);
			to = std::max(to, x.base + x.size);
		}
		std::uint64_t range = std::min(z->disk, to - std::min(from, to));
		std::uint64_t data = z->stored - std::min(z->stored, z->same);	// mm_stat's bytes stored count same-filled pages too
		std::uint64_t hollow = range - std::min(range, data);
		if (range == 0 || hollow * 10 <= range)
			return "";
		return format("at least %.0f%% of the %s read from %s (%s) is same-filled pages (zeros) or never written: "
			      "zram returns them without reading stored data; write the range with -R first",
			      100.0 * hollow / range, format_bytes(range).c_str(), disk.c_str(), format_bytes(hollow).c_str());
	}
	std::uint64_t covered = 0;
	for (const Target &x : plan.targets)
		covered += x.existing > x.base ? std::min(x.size, x.existing - x.base) : 0;
	if (z->same * 10 <= covered)
		return "";
	return format("%s holds %s of same-filled pages (zeros), in this file or another: up to %.0f%% of the %s read "
		      "may return without reading stored data", disk.c_str(), format_bytes(z->same).c_str(),
		      std::min(100.0, 100.0 * z->same / std::max<std::uint64_t>(covered, 1)), format_bytes(covered).c_str());
}

// Memory block devices: the target itself, or under its file's file system.
void memory_target_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Options &o = plan.opt;
	const Target &t = plan.targets[0];
	if (t.kind == Kind::chr)
		return;
	std::string disk = disk_name(plan.fs_dev);
	std::string backing = memory_backing(disk);
	if (backing.empty())
		return;
	w.push_back(format("%s %s %s (%s), a memory-backed block device: this measures memory, not a disk",
			   t.path.c_str(), t.kind == Kind::block ? "is" : "is on", disk.c_str(), backing.c_str()));
	if (disk.compare(0, 4, "zram") != 0)
		return;
	std::string hollow = is_write(o) ? "" : zram_read_warning(plan, disk);
	if (!hollow.empty())
		w.push_back(hollow);
}

// -D on a file whose file system says it cannot do direct I/O there.
void direct_io_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Target &t = plan.targets[0];
	if (!plan.opt.direct || t.kind != Kind::file)
		return;
	std::string doubt = direct_io_doubt(t.path);
	if (!doubt.empty())
		w.push_back(format("-D may be buffered I/O on %s (%s): reads are still evicted first", t.path.c_str(),
				   doubt.c_str()));
}

// FUSE: O_DIRECT and eviction reach the FUSE file, not what its daemon reads.
void fuse_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Target &t = plan.targets[0];
	if (!fuse_fs(plan.fs_type) || plan.opt.cached || t.kind == Kind::block || t.kind == Kind::chr)
		return;
	std::string what = format("%s is on FUSE (%s): -D and cache eviction stop at the FUSE file, and the daemon "
				  "may read through its own cache", t.path.c_str(),
				  mounted_fs_type(plan.fs_dev, plan.fs_type).c_str());
	if (!plan.backing_device.empty())
		what += format("; its block device %s is flushed (BLKFLSBUF) before reads and after each pass",
			       plan.backing_device.c_str());
	else if (plan.backing_error)
		what += format(": flushing its block device failed (BLKFLSBUF: %s), read numbers may come from the "
			       "daemon's or the device's cache", std::strerror(plan.backing_error));
	else
		what += ": read numbers may come from the daemon's cache";
	w.push_back(what);
}

// A read through a buffered loop device whose backing file sdb may not
// evict: that file's page cache can serve the read.
void loop_backing_warnings(const Plan &plan, std::vector<std::string> &w)
{
	if (!plan.loop_backing_error.empty())
		w.push_back(format("the backing file %s: its page cache cannot be evicted, so reads may come from it "
				   "(run as root, or losetup --direct-io=on)", plan.loop_backing_error.c_str()));
}

// What the target is, said before the run starts (and kept for the report):
// a user can stop a long run that cannot measure what it seems to.
std::vector<std::string> target_warnings(const Plan &plan)
{
	std::vector<std::string> w;
	memory_target_warnings(plan, w);
	direct_io_warnings(plan, w);
	fuse_warnings(plan, w);
	loop_backing_warnings(plan, w);
	if (std::string hollow = hollow_warning(plan); !hollow.empty())
		w.push_back(hollow);
	return w;
}

// A file on tmpfs or ramfs.  Only files: a device node's file system is
// devtmpfs (TMPFS_MAGIC), which says nothing about the device.
bool on_memory_fs(const Plan &plan)
{
	Kind kind = plan.targets[0].kind;
	return (kind == Kind::file || kind == Kind::missing) && memory_fs(plan.fs_type);
}

bool compressing_fs(const Plan &plan)
{
	return plan.fs_type == BTRFS_SUPER_MAGIC || plan.fs_type == 0x2fc12fc1 || plan.fs_type == 0xf2f52010;
}

// The file system level that stores an all-zero buffer for less than it
// is, as its mount options or the file's attribute say: btrfs mounted
// with compress (or the file made +c), f2fs with compress_algorithm, ZFS
// (compression is on by default); zram, the target or under its file
// system, which keeps a page of zeros as a flag.  "" where none is seen.
std::string zero_shrinker(const Plan &plan)
{
	if (std::string disk = disk_name(plan.fs_dev); memory_backing(disk).compare(0, 4, "zram") == 0)
		return disk + " stores pages of zeros as nothing";
	if (!compressing_fs(plan) || plan.targets[0].kind == Kind::block)
		return "";
	if (plan.fs_type == 0x2fc12fc1)
		return "ZFS may compress it";
	std::optional<Mount> m = mount_holding(plan.targets[0].path);
	std::string options = m ? m->options : "";
	for (std::string_view opt : {"compress", "compress-force", "compress_algorithm"})
		for (std::size_t at = options.find(opt); at != std::string::npos; at = options.find(opt, at + 1))
			if ((at == 0 || options[at - 1] == ',') && at + opt.size() < options.size() &&
			    options[at + opt.size()] == '=') {
				std::size_t end = options.find(',', at);
				return format("%s compresses it (%s)", fs_name(plan.fs_type).c_str(),
					      options.substr(at, end == std::string::npos ? end : end - at).c_str());
			}
	int flags = 0;
	int fd = open(plan.targets[0].path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool attr = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_COMPR_FL);
	if (fd >= 0)
		close(fd);
	return attr ? format("%s compresses it (the file's c attribute)", fs_name(plan.fs_type).c_str()) : "";
}

// Numbers that would mislead, said in words; who starts the memory
// ceiling's sentence ("SEQ1M Q8T1: ", a suite's run).
std::vector<std::string> plausibility(const Plan &plan, const Shared &s, const MemoryRates *mem, const std::string &who = "")
{
	std::vector<std::string> w;
	const Options &o = plan.opt;
	const Target &t0 = plan.targets[0];
	if (on_memory_fs(plan))
		w.push_back(format("%s is on %s: this measures memory, not a disk", t0.path.c_str(),
				   fs_name(plan.fs_type).c_str()));
	struct stat st {};
	if (t0.kind == Kind::chr && total_done(s) > 0 && stat(t0.path.c_str(), &st) == 0 && harmless_char_device(st.st_rdev))
		w.push_back(format("%s has no device behind it: this measures the %s system call, not a device",
				   t0.path.c_str(), is_write(o) ? "write" : "read"));
	if (!is_write(o) && !o.direct && !o.cached && on_memory_fs(plan))
		w.push_back("the page cache cannot be evicted on a memory file system: reads come from memory");
	for (auto &wk : s.workers) {
		if (wk->eof_at)
			w.push_back(format("%s: end of file at offset %" PRIu64 ", before the %s %s (%s)",
					   wk->target->path.c_str(), *wk->eof_at, format_bytes(wk->target->size).c_str(),
					   wk->target->sized_by_mark ? "its --verify write left" : "asked for",
					   wk->passes > 1 ? "the file shrank during the run" : "the file is shorter than that"));
		if (wk->cached_before >= 0 && wk->cached_before < 0.9)
			w.push_back(format("%s: %.0f%% was in the page cache before this --cached run: the rest came from the device",
					   wk->target->path.c_str(), wk->cached_before * 100));
		if (wk->resident > 0.02 && !on_memory_fs(plan))
			w.push_back(format("%s: %.0f%% of the file stayed in the page cache after eviction: reads may come from memory",
					   wk->target->path.c_str(), wk->resident * 100));
		if (mem && mem->memcpy_bps > 0 && !o.cached && !on_memory_fs(plan) && t0.kind != Kind::chr) {
			double secs = (wk->end_ns - wk->start_ns) / 1e9;
			double bps = rate(wk->bytes, secs);
			if (bps > mem->memcpy_bps)
				w.push_back(format("%sthread %u ran at %s, faster than this machine copies memory (%s): that is a cache, not the device",
						   who.c_str(), wk->id, format_rate(bps).c_str(), format_rate(mem->memcpy_bps).c_str()));
		}
	}
	return w;
}

// One level of the stack in the verdict (JSON device.stack): what a
// device saw in the test's direction and its share of the bytes claimed.
// One check the verdict made, what it found, and the figure it saw
// (JSON device.evidence): a cause is named only where its check found it.
struct Evidence {
	std::string check;		// "busy", "others", "stack", "throttle", "cpu quota", "cpu", "stopped", ...
	bool found = false;		// the check explains (part of) the rate, or found a fault
	std::string figure;		// what it saw, in words with its number
};

struct Level {
	std::string name, path;
	bool measured = false;		// counters read at both ends
	std::uint64_t bytes = 0;
	double delivered = 0;		// a mix: the lesser of its sides' shares
	std::uint64_t other_bytes = 0;	// below the top: what it moved, either way, beyond what the level
					// above sent it (another process's, or its file system's metadata)
	std::string reason;		// not measured: why
};

// What a run's numbers are worth, against the device's counters.
struct Verdict {
	Device device;
	bool measured = false;		// counters read at both ends
	std::uint64_t claimed = 0;	// bytes the threads report
	std::uint64_t bytes = 0;	// bytes the device saw in the test's direction (a mix: both)
	std::uint64_t read_bytes = 0, read_claimed = 0, write_bytes = 0, write_claimed = 0;	// a mix's sides
	double delivered = 0;		// bytes / claimed; a mix: the lesser of its sides' shares
	double busy = 0;		// io_ticks over the wall time, at most 1
	std::string limit;		// "memory", "stopped", "throttle", "device", "link", "cpu", "rate", "latency"
					// or "unknown"
	std::string limit_why;		// the evidence, in words
	bool confirmed = false;		// the device saw at least 90% of the bytes claimed
	std::string reason;		// why not confirmed ("" when it is)
	std::string causes;		// delivered under 0.90: what may have served the rest
	std::vector<Level> stack;	// the target's device first, then each level below it
	std::vector<Device> below;	// the devices of those levels
	std::optional<std::uint64_t> own;	// sdb's own bytes in the test's direction (/proc/self/io)
	std::optional<std::uint64_t> other_bytes;	// the device's bytes that were not sdb's, both ways
	const char *others = "other processes";	// who they may be: "metadata or other processes" on a file system
	Throttled throttle;		// a CPU quota's throttling during the run
	std::optional<ThrottleUse> io_throttle;	// the block I/O limit the run came closest to
	StopClock stops;		// the time sdb was stopped or frozen in the window
	std::vector<Evidence> evidence;	// every check made, in order (find_limit)
	std::uint64_t sync_median_ns = 0;	// --fsync: the median fdatasync; -S: the median write
	std::uint64_t write_median_ns = 0;	// --fsync: the median write between them
};

// The largest share of its own wall time a thread spent on a CPU, and
// which thread.
double busiest_thread(const Shared &s, unsigned &id)
{
	double most = 0;
	for (auto &w : s.workers) {
		double share = w->end_ns > w->start_ns ? static_cast<double>(w->cpu_ns) / (w->end_ns - w->start_ns) : 0;
		if (share > most) {
			most = share;
			id = w->id;
		}
	}
	return most;
}

// The level below the target's device that saw least of the claim, or
// none (-1) when every level saw at least what the top did.
int weakest_level(const Verdict &v)
{
	int weakest = -1;
	double least = v.stack.empty() ? v.delivered : v.stack[0].delivered;
	for (std::size_t i = 1; i < v.stack.size(); i++) {
		double share = v.stack[i].measured ? v.stack[i].delivered : 0;
		if (share < least) {
			least = share;
			weakest = static_cast<int>(i);
		}
	}
	return weakest;
}

// A CPU quota held the run back: its cgroup was throttled for at least 5%
// of the run's wall time (a few periods at the start are noise).
bool quota_bound(const Verdict &v, double seconds)
{
	return v.throttle.quota && v.throttle.periods > 0 && v.throttle.ns >= 0.05 * seconds * 1e9;
}

// The quota in words: which cgroup, how much CPU it grants, how long it held sdb.
std::string quota_words(const Verdict &v)
{
	const CpuQuota &q = *v.throttle.quota;
	return format("the CPU quota of cgroup %s (%s: %.2f CPU) throttled sdb %" PRIu64 " times, %.2f s in all; "
		      "more -q or -j cannot go faster", q.dir.c_str(), q.how.c_str(), q.cpus, v.throttle.periods,
		      v.throttle.ns / 1e9);
}

// A file system whose files are stored compressed, so that a read of them
// reads fewer bytes from the device than it returns, with no cache at all:
// squashfs always, erofs as made with -z (the usual image).
std::string compressed_fs(const Plan &plan)
{
	if (plan.targets[0].kind == Kind::block)
		return "";
	if (plan.fs_type == SQUASHFS_MAGIC)
		return "squashfs, which stores its files compressed";
	if (plan.fs_type == 0xe0f5e1e2)	// EROFS_SUPER_MAGIC_V1
		return "erofs, which stores its files compressed (unless made without -z)";
	return "";
}

// The device's bytes that were not sdb's are over 10% of the claim: the
// device was shared, and its busy time and rate are not sdb's alone.
bool shared(const Verdict &v)
{
	return v.measured && v.other_bytes && v.claimed && *v.other_bytes * 10 > v.claimed;
}

// The first level below the target's device that moved over 10% of the
// claim beyond what came down to it, or none (-1).
int shared_level(const Verdict &v)
{
	for (std::size_t i = 1; i < v.stack.size(); i++)
		if (v.stack[i].measured && v.claimed && v.stack[i].other_bytes * 10 > v.claimed)
			return static_cast<int>(i);
	return -1;
}

// Who shared the stack, in words: the target's device, or the first level
// below it that moved over 10% of the claim beyond what came down to it;
// "" when none did.
std::string sharing(const Verdict &v)
{
	if (shared(v))
		return format("%s was shared: %s not sdb's", v.device.name.c_str(), format_bytes(*v.other_bytes).c_str());
	if (int i = shared_level(v); i > 0) {
		const Level &l = v.stack[static_cast<std::size_t>(i)];
		return format("%s, below %s, was shared: %s that did not come through %s", l.name.c_str(),
			      v.stack[static_cast<std::size_t>(i) - 1].name.c_str(), format_bytes(l.other_bytes).c_str(),
			      v.stack[static_cast<std::size_t>(i) - 1].name.c_str());
	}
	return "";
}

// sdb was stopped or frozen for at least 5% of the window.
bool stopped(const Verdict &v, double seconds)
{
	return v.stops.stopped_ns > 0 && v.stops.stopped_ns >= 0.05 * seconds * 1e9;
}

// A block I/O limit held the run: the limited device ran at 85% of it or
// more (a throttle lets a burst through at its start, so a short run can
// go past it).
bool throttle_bound(const Verdict &v)
{
	return v.io_throttle && v.io_throttle->share >= 0.85;
}

std::string throttle_words(const ThrottleUse &u)
{
	const IoLimit &l = u.limit;
	std::string did = l.iops ? format("%.0f IOPS", u.rate) : format_rate(u.rate);
	return format("%s did %s: %.0f%% of the %s", u.device.c_str(), did.c_str(), u.share * 100, limit_words(l).c_str());
}

// The level below the target's device that is memory (a loop device over
// zram, or over a file on tmpfs), or none.
const Device *memory_below(const Verdict &v)
{
	for (const Device &d : v.below)
		if (!d.memory.empty())
			return &d;
	return nullptr;
}

std::string memory_below_words(const Verdict &v, const Device &m)
{
	return format("%s is backed by memory: %s (%s)", v.device.name.c_str(), m.name.c_str(), m.memory.c_str());
}

// Every check the limit is chosen from, in the order find_limit() tries
// them, with what each saw.
void gather_evidence(const Plan &plan, const Shared &s, double seconds, Verdict &v)
{
	const Options &o = plan.opt;
	auto add = [&](const char *check, bool found, std::string figure) { v.evidence.push_back({check, found, figure}); };
	bool memory = o.cached || on_memory_fs(plan);
	const Device *below = memory_below(v);
	add("memory", memory || below || !v.device.memory.empty(),
	    o.cached ? "--cached: the page cache, by request"
	    : memory ? fs_name(plan.fs_type) + " keeps files in memory"
	    : !v.device.memory.empty() ? "overlayfs's " + v.device.overlay_layer + " is on " + v.device.memory
	    : below ? memory_below_words(v, *below) : "the target is not in memory");
	if (!v.stops.measurable)
		add("stopped", false, "not measurable: no /proc/thread-self/schedstat");
	else
		add("stopped", stopped(v, seconds), format("stopped or frozen %.2f s of %.2f s (%u time%s)",
							    v.stops.stopped_ns / 1e9, seconds, v.stops.stops,
							    v.stops.stops == 1 ? "" : "s"));
	if (v.io_throttle)
		add("throttle", throttle_bound(v), throttle_words(*v.io_throttle));
	else
		add("throttle", false, v.device.stats.empty() ? "no block device to limit"
							      : "no blkio throttle or io.max over sdb on the stack's devices");
	if (v.measured)
		add("busy", v.busy >= 0.9, format("%s busy %.0f%% of the window", v.device.name.c_str(), v.busy * 100));
	if (v.measured && v.other_bytes)
		add("others", shared(v), format("%s moved %s that were not sdb's (%.0f%% of the claim)", v.device.name.c_str(),
					       format_bytes(*v.other_bytes).c_str(),
					       v.claimed ? 100.0 * static_cast<double>(*v.other_bytes) / static_cast<double>(v.claimed) : 0));
	for (std::size_t i = 1; i < v.stack.size(); i++) {
		const Level &l = v.stack[i];
		bool others = l.measured && v.claimed && l.other_bytes * 10 > v.claimed;
		add("stack", l.measured ? l.delivered < 0.9 || others : true,
		    l.measured ? format("%s, below %s, saw %s (%.0f%% of the claim)%s", l.name.c_str(), v.stack[i - 1].name.c_str(),
					format_bytes(l.bytes).c_str(), l.delivered * 100,
					l.other_bytes ? format(" and moved %s that did not come through %s",
							       format_bytes(l.other_bytes).c_str(), v.stack[i - 1].name.c_str()).c_str()
						      : "")
			       : format("uncounted: %s", l.reason.c_str()));
	}
	if (v.device.link)
		add("link", rate(v.measured ? v.bytes : v.claimed, seconds) >= 0.9 * v.device.link->bytes_per_second,
		    format("%s at most (%s)", format_rate(v.device.link->bytes_per_second).c_str(), v.device.link->how.c_str()));
	if (v.throttle.quota)
		add("cpu quota", quota_bound(v, seconds), quota_words(v));
	else
		add("cpu quota", false, "no CPU quota over sdb throttled it");
	unsigned id = 0;
	double cpu = busiest_thread(s, id);
	add("cpu", cpu >= 0.9, format("thread %u was on a CPU %.0f%% of its time", id, std::min(cpu, 1.0) * 100));
	if (std::string z = compressed_fs(plan); !z.empty() && v.measured && !writes_target(o))
		add("compression", v.delivered < 0.9, format("%s: %s read %.0f%% of the bytes sdb read", z.c_str(),
							      v.device.name.c_str(), v.delivered * 100));
	if (writes_target(o) && !o.random_buffer && plan.targets[0].kind != Kind::chr) {	// the zero buffer
		std::string z = zero_shrinker(plan);
		std::string took = v.measured ? format("%s took %.0f%% of the bytes sdb wrote", v.device.name.c_str(),
						       v.delivered * 100) : "";
		add("compression", !z.empty(),
		    !z.empty() ? "zeros written, and " + z + (took.empty() ? "" : "; " + took)
			       : "zeros written; no level sdb sees compresses them" + (took.empty() ? "" : "; " + took));
	}
}

// The first limit that applies: memory, stopped, throttle, device, link,
// cpu, rate, latency; unknown where no counters rule out the device, where
// the device did not see the bytes (its latency then says nothing about
// the rate), or where others shared it.  Each from its check's evidence.
void find_limit(const Plan &plan, const Shared &s, double seconds, Verdict &v)
{
	const Options &o = plan.opt;
	gather_evidence(plan, s, seconds, v);
	auto found = [&](const char *check) {
		for (const Evidence &e : v.evidence)
			if (e.check == check && e.found)
				return &e;
		return static_cast<const Evidence *>(nullptr);
	};
	if (o.cached || on_memory_fs(plan) || !v.device.memory.empty()) {
		v.limit = "memory";
		v.limit_why = o.cached ? "the page cache, by request"
			      : on_memory_fs(plan) ? fs_name(plan.fs_type) + " keeps files in memory"
						   : "overlayfs's " + v.device.overlay_layer + " is on " + v.device.memory;
		if (quota_bound(v, seconds))
			v.limit = "cpu", v.limit_why = quota_words(v);
	} else if (const Device *m = memory_below(v)) {
		v.limit = "memory";
		v.limit_why = memory_below_words(v, *m);
		if (quota_bound(v, seconds))
			v.limit = "cpu", v.limit_why = quota_words(v);
	} else if (const Evidence *e = found("stopped")) {
		v.limit = "stopped";
		v.limit_why = e->figure;
	} else if (throttle_bound(v)) {
		v.limit = "throttle";
		v.limit_why = throttle_words(*v.io_throttle) + "; more -q or -j cannot go faster";
	} else if (found("busy") && weakest_level(v) < 0 && sharing(v).empty()) {	// busy, alone, not serving a cache below
		v.limit = "device";
		v.limit_why = "busy for the whole run";
	} else if (const Evidence *e = found("link")) {
		v.limit = "link";
		v.limit_why = e->figure;
	} else if (quota_bound(v, seconds)) {
		v.limit = "cpu";
		v.limit_why = quota_words(v);
	} else if (const Evidence *e = found("cpu")) {
		v.limit = "cpu";
		v.limit_why = e->figure;
	} else if (v.confirmed && o.rate.per_second > 0) {	// an open loop waits for its schedule, by request
		v.limit = "rate";
		v.limit_why = "--rate: the offered load, by request";
	} else if (std::string who = sharing(v); !who.empty()) {
		v.limit = "unknown";
		v.limit_why = who;
	} else if (v.confirmed) {	// the device saw the bytes, was idle at times, and nothing else was full
		v.limit = "latency";
		v.limit_why = format("%u I/O%s in flight per thread, %u thread%s: -q or -j may go faster", o.queue_depth,
				     o.queue_depth == 1 ? "" : "s", o.threads, o.threads == 1 ? "" : "s");
	} else {
		v.limit = "unknown";
	}
}


// What may have served the bytes the device did not see, for this target.
std::string likely_causes(const Plan &plan, double hollow)
{
	const Options &o = plan.opt;
	std::vector<std::string> c;
	if (hollow > 0.01)
		c.push_back(format("holes or unwritten extents (%.0f%% of the range: write it first with -w -R)", hollow * 100));
	if (fuse_fs(plan.fs_type))
		c.push_back("a FUSE cache (the daemon's own, or the page cache of its device)");
	std::string zeros = writes_target(o) && !o.random_buffer ? zero_shrinker(plan) : "";
	if (!zeros.empty())	// the cause, found: nothing else to guess
		return "the all-zero buffer, and " + zeros + "; use -R";
	if (std::string z = compressed_fs(plan); !z.empty() && !writes_target(o))	// the cause, found: not a cache
		c.push_back("compression: " + z);
	else if (writes_target(o) && !o.random_buffer)
		c.push_back("compression or deduplication of the all-zero buffer (use -R)");
	else if (compressing_fs(plan))
		c.push_back("compression or deduplication by the file system");
	if (!is_write(o) && compressed_fs(plan).empty())
		c.push_back(o.direct ? "the page cache, where the file system turns O_DIRECT into buffered I/O"
				     : "the page cache (pages it kept despite the eviction)");
	if (writes_target(o))
		c.push_back("a cache the final fdatasync did not reach");
	std::string s;
	for (const std::string &x : c)
		s += (s.empty() ? "" : "; ") + x;
	return s;
}

// A mix: the reads against the device's reads, the writes against its
// writes, each on its own (a surplus of one side must not hide a shortfall
// of the other); delivered is the lesser share of a side that claimed any.
void judge_mix(const Totals &t, const DiskDelta &d, Verdict &v)
{
	v.read_bytes = d.read_bytes;
	v.write_bytes = d.write_bytes;
	v.read_claimed = t.read_bytes;
	v.write_claimed = t.write_bytes;
	v.bytes = d.read_bytes + d.write_bytes;
	v.delivered = 0;
	bool first = true;
	for (auto [seen, claimed] : {std::pair{d.read_bytes, t.read_bytes}, std::pair{d.write_bytes, t.write_bytes}}) {
		if (!claimed)
			continue;
		double share = static_cast<double>(seen) / static_cast<double>(claimed);
		v.delivered = first ? share : std::min(v.delivered, share);
		first = false;
	}
}

// The share of a claim that a device's delta covers in the test's
// direction; a mix: each side against its own claim, the lesser share.
double level_share(const Options &o, const Totals &t, std::uint64_t read, std::uint64_t written)
{
	auto share = [](std::uint64_t seen, std::uint64_t claimed) {
		return static_cast<double>(seen) / static_cast<double>(claimed);
	};
	if (!is_mix(o))
		return t.bytes ? share(is_write(o) ? written : read, t.bytes) : 0;
	double least = -1;
	if (t.read_bytes)
		least = share(read, t.read_bytes);
	if (t.write_bytes)
		least = least < 0 ? share(written, t.write_bytes) : std::min(least, share(written, t.write_bytes));
	return std::max(least, 0.0);
}

// sdb's own share of the device's bytes (its process I/O accounting, with
// a FUSE daemon's that serves it): the rest is other processes' or the
// file system's own (metadata, the journal), which sdb's accounting does
// not hold.  Delivery is judged on sdb's share where it is known.
void judge_own(const Plan &plan, const Execution &ex, const DiskDelta &d, Verdict &v)
{
	const Options &o = plan.opt;
	std::optional<ProcIo> own = own_delta(ex.result.counters_before.own, ex.result.counters_after.own);
	if (!own)
		return;
	std::uint64_t own_read = own->read_bytes;
	// each block sdb writes reaches as many devices as the file system keeps copies (a btrfs mirror)
	std::uint64_t own_write = (own->write_bytes - std::min(own->write_bytes, own->cancelled_write_bytes)) * ex.device.copies;
	std::uint64_t read = std::min(d.read_bytes, own_read), written = std::min(d.write_bytes, own_write);
	v.own = is_mix(o) ? read + written : is_write(o) ? written : read;
	v.other_bytes = d.read_bytes - read + d.write_bytes - written;	// both ways: a writer shares a read's device
	v.delivered = level_share(o, ex.totals, read, written);
	if (plan.targets[0].kind != Kind::block)
		v.others = "metadata or other processes";
}

// Each level below the target's device: what it saw, against the claim,
// and what it moved beyond what the level above sent it (top: the target's
// device's delta), in either direction: others' I/O at that level.
void judge_stack(const Plan &plan, const Execution &ex, const DiskDelta &top, Verdict &v)
{
	const Watch &w = ex.result.watch;
	DiskDelta above = top;
	for (std::size_t i = 0; i < w.below.size(); i++) {
		const Device &dev = w.below[i];
		Level l{dev.name, dev.path, false, 0, 0, 0, dev.reason};
		std::optional<DiskDelta> d;
		if (i < ex.result.counters_before.below.size() && i < ex.result.counters_after.below.size())
			d = disk_delta(ex.result.counters_before.below[i], ex.result.counters_after.below[i]);
		if (d) {
			l.measured = true;
			l.bytes = is_mix(plan.opt) ? d->read_bytes + d->write_bytes
						   : is_write(plan.opt) ? d->write_bytes : d->read_bytes;
			l.delivered = level_share(plan.opt, ex.totals, d->read_bytes, d->write_bytes);
			std::uint64_t copies = std::max(1u, dev.copies);	// a mirror below writes each block that many times
			l.other_bytes = d->read_bytes - std::min(d->read_bytes, above.read_bytes) + d->write_bytes -
					std::min(d->write_bytes, above.write_bytes * copies);
			above = *d;
		} else if (l.reason.empty()) {
			l.reason = format("the counters of %s could not be read at both ends", dev.name.c_str());
		}
		v.stack.push_back(l);
		v.below.push_back(dev);
	}
}

// What a level below may have kept from its device: a buffered loop
// device's backing file's page cache; memory, for a backing file on tmpfs.
std::string level_cause(const Verdict &v, int level)
{
	const Device &above = level == 1 ? v.device : v.below[static_cast<std::size_t>(level) - 2];
	const Level &l = v.stack[static_cast<std::size_t>(level)];
	if (!l.measured)
		return format("%s's backing file %s is not on a block device it can be counted on", above.name.c_str(),
			      above.backing_file.c_str());
	return format("the page cache of %s's backing file %s%s", above.name.c_str(), above.backing_file.c_str(),
		      above.loop_dio == std::optional<bool>(false) ? " (a buffered loop device, loop/dio 0)" : "");
}

// The stack's verdict over the top's: bytes a level below did not see
// were not delivered (served from its backing file's page cache).
void judge_levels(Verdict &v)
{
	int weakest = weakest_level(v);
	if (weakest < 0)
		return;
	const Level &l = v.stack[static_cast<std::size_t>(weakest)];
	v.delivered = l.measured ? l.delivered : 0;
	v.confirmed = v.claimed > 0 && v.delivered >= 0.9;
	if (v.confirmed)
		return;
	v.reason = l.measured ? format("%s, below %s, saw %.0f%% of the bytes claimed", l.name.c_str(),
				       v.device.name.c_str(), l.delivered * 100)
			      : format("%s: %s", v.device.name.c_str(), l.reason.c_str());
	v.causes = level_cause(v, weakest) + (v.causes.empty() ? "" : "; " + v.causes);
}

// The medians a sync's durability is judged on: --fsync's fdatasyncs
// against the writes between them; -S: every write is a sync.
void judge_syncs(const Plan &plan, const Shared &s, Verdict &v)
{
	const Options &o = plan.opt;
	if (!writes_target(o) || (!o.fsync_every && !o.sync))
		return;
	Histogram syncs, writes;
	for (auto &w : s.workers) {
		if (w->sync_latency)
			syncs.merge(*w->sync_latency);
		writes.merge(w->write_latency ? *w->write_latency : w->latency);
	}
	v.write_median_ns = writes.count() ? writes.percentile(0.5) : 0;
	v.sync_median_ns = o.fsync_every ? (syncs.count() ? syncs.percentile(0.5) : 0) : v.write_median_ns;
}

// The device a sync's data must reach to be stable: the bottom of the stack.
const Device &bottom_device(const Verdict &v)
{
	return v.below.empty() || v.below.back().stats.empty() ? v.device : v.below.back();
}

// Syncs faster than the device can make data stable: a rotational disk
// cannot write a block and its metadata in under ~1 ms (a revolution at
// 15000 rpm is 4 ms), and on any device a flush that costs nothing beyond
// a write has reached no stable medium the write did not.  Not where the
// stack ends in memory (a loop over tmpfs or zram): there no flush makes
// data stable, the memory warning says so, and the two medians are equal
// but for noise, so the check would come and go between runs.
std::string sync_warning(const Plan &plan, const Verdict &v)
{
	const Device &d = bottom_device(v);
	if (!v.measured || !v.sync_median_ns || d.stats.empty() || memory_below(v))	// memory: said by its own warning
		return "";
	const char *what = plan.opt.fsync_every ? "fdatasync" : "O_SYNC write (-S)";
	std::string cache = format("write cache %s, FUA %s", d.write_cache.empty() ? "unknown" : d.write_cache.c_str(),
				   !d.fua ? "unknown" : *d.fua ? "yes" : "no");
	std::string why;
	if (d.rotational == std::optional<bool>(true) && v.sync_median_ns < 1000000)
		why = format("%s is rotational, and no spinning disk makes data stable in under ~1 ms", d.name.c_str());
	else if (plan.opt.fsync_every && v.write_median_ns && v.sync_median_ns <= v.write_median_ns)
		why = format("no slower than the median write (%s)", format_ns(v.write_median_ns).c_str());
	if (why.empty())
		return "";
	return format("the median %s took %s on %s (%s): %s; the flush may stop in a volatile cache%s",
		      what, format_ns(v.sync_median_ns).c_str(), d.name.c_str(), cache.c_str(), why.c_str(),
		      d.paravirtual.empty() ? "" : format(" (%s: the host's cache may sit below it)", d.paravirtual.c_str()).c_str());
}

// The block I/O limit over sdb the run came closest to, on the target's
// device or a level below, by each device's counters over the window.
std::optional<ThrottleUse> io_throttle_use(const Plan &plan, const Execution &ex)
{
	const RunResult &r = ex.result;
	if (r.watch.limits.empty())
		return std::nullopt;
	std::vector<DeviceWork> work = device_work(r.stat_files, r.stats_before, r.stats_after);
	for (std::size_t i = 0; i < r.watch.below.size() && i < r.counters_before.below.size() &&
				i < r.counters_after.below.size(); i++)
		for (const DeviceWork &w : device_work(r.watch.below[i].stats, r.counters_before.below[i], r.counters_after.below[i]))
			work.push_back(w);
	bool mix = is_mix(plan.opt);
	return closest_limit(r.watch.limits, work, ex.totals.wall, mix || !is_write(plan.opt), mix || is_write(plan.opt));
}

// Device bytes against claimed bytes, busy time, and the limit.  seconds:
// the run's wall time, the window's start to the last thread's end.
Verdict judge(const Plan &plan, const Execution &ex)
{
	const Device &device = ex.device;
	const double seconds = ex.totals.wall;
	Verdict v;
	v.device = device;
	v.claimed = ex.totals.bytes;
	std::optional<DiskDelta> d = disk_delta(ex.result.stats_before, ex.result.stats_after);
	if (plan.opt.cached) {
		v.reason = "page cache by request (--cached)";
	} else if (!device.reason.empty()) {
		v.reason = device.reason;
	} else if (!d) {
		v.reason = format("the counters of %s could not be read at both ends", device.name.c_str());
	} else {
		v.measured = true;
		v.bytes = is_write(plan.opt) ? d->write_bytes : d->read_bytes;
		v.delivered = v.claimed ? static_cast<double>(v.bytes) / static_cast<double>(v.claimed) : 0;
		if (is_mix(plan.opt))
			judge_mix(ex.totals, *d, v);
		v.busy = seconds > 0 ? std::min(1.0, d->busy_ms / 1e3 / seconds) : 0;
		if (v.claimed)
			judge_own(plan, ex, *d, v);
		v.confirmed = v.claimed > 0 && v.delivered >= 0.9;
		if (v.claimed == 0)
			v.reason = "nothing was claimed";
		else if (!v.confirmed && v.own)
			v.reason = format("the device saw %.0f%% of the bytes claimed from sdb itself", v.delivered * 100);
		else if (!v.confirmed)
			v.reason = format("the device saw %.0f%% of the bytes claimed", v.delivered * 100);
		if (!v.confirmed && v.claimed)
			v.causes = likely_causes(plan, hollow_share(plan));
		v.stack.push_back(Level{device.name, device.path, true, v.bytes, v.delivered, 0, ""});
		judge_stack(plan, ex, *d, v);
		if (v.claimed)
			judge_levels(v);
	}
	v.throttle = throttled(ex.result.watch, ex.result.counters_before, ex.result.counters_after);
	v.io_throttle = io_throttle_use(plan, ex);
	v.stops = ex.result.stops;
	judge_syncs(plan, ex.shared, v);
	find_limit(plan, ex.shared, seconds, v);
	return v;
}

// Whether zram's counters vouch for a run on it: a read of stored pages
// decompresses or copies each one, and a write of random bytes compresses
// each, so neither can outrun memcpy.  zram's two ways to look fast, reads
// of same-filled or unwritten pages and writes of a zero buffer, have
// warnings of their own (zram_read_warning(), memory_target_warnings()).
bool zram_vouches(const Plan &plan, const std::string &disk)
{
	const Options &o = plan.opt;
	if (memory_backing(disk).compare(0, 4, "zram") != 0)
		return false;
	if (writes_target(o) && !o.random_buffer)
		return false;
	return is_write(o) || (zram_use(disk) && zram_read_warning(plan, disk).empty());
}

// A rate worth checking against the memory ceiling: over 1 GiB/s, and not
// vouched for by the device's counters, which a memory-backed device (brd,
// pmem; zram only as zram_vouches() says) cannot do.  The check costs a copy
// of twice the last-level cache, and memory the process never touched
// before: 30 ms on a quiet machine, 150-200 ms in a VM whose host hands out
// each fresh page late, which the quick check's verdict and zram spare.
bool suspicious(const Plan &plan, const Verdict &v, double bytes_per_second)
{
	std::string disk = disk_name(plan.fs_dev);
	bool vouched = v.confirmed && (memory_backing(disk).empty() || zram_vouches(plan, disk));
	return !plan.opt.cached && !vouched && bytes_per_second > 1.0 * GiB;
}

// --rate: the offered load, all threads together, against what ran (the
// achieved rate over the window up to the last I/O's return, so that a
// final fdatasync does not count as I/O not issued); none without --rate.
std::optional<RateOutcome> rate_outcome(const Plan &p, const Execution &ex)
{
	if (!(p.opt.rate.per_second > 0))
		return std::nullopt;
	std::int64_t behind = 0;
	for (auto &w : ex.shared.workers)
		behind = std::max(behind, w->behind_ns);
	const double threads = static_cast<double>(ex.shared.workers.size());
	return judge_rate(ios_per_second(p.opt.rate, p.block_size) * threads, rate(ex.totals.ops, ex.totals.io),
			  behind / 1e9);
}

// The warnings a verdict adds: too few bytes reached the device; or none
// could be counted behind a FUSE or network file system, which caches.
std::vector<std::string> verdict_warnings(const Plan &plan, const Verdict &v)
{
	std::vector<std::string> w;
	const char *op = is_mix(plan.opt) ? "read and written" : is_write(plan.opt) ? "written" : "read";
	int weakest = weakest_level(v);
	const Level &seen = weakest < 0 || v.stack.empty() ? Level{v.device.name, "", true, v.own.value_or(v.bytes), v.delivered, 0, ""}
							   : v.stack[static_cast<std::size_t>(weakest)];
	if (v.measured && v.claimed && !v.confirmed)
		w.push_back(format("%s saw %s %s of the %s claimed%s (%.0f%%); likely causes: %s", seen.name.c_str(),
				   format_bytes(seen.bytes).c_str(), op, format_bytes(v.claimed).c_str(),
				   weakest < 0 && v.own ? " from sdb" : "", v.delivered * 100, v.causes.c_str()));
	std::string zeros = zero_shrinker(plan);	// said once: in the short count's causes, or here
	if (!zeros.empty() && writes_target(plan.opt) && !plan.opt.random_buffer && !(v.measured && v.claimed && !v.confirmed))
		w.push_back(format("the buffer is all zeros and %s: the rate is not the device's for real data; use -R",
				   zeros.c_str()));
	if (shared(v))	// one line, the figure first
		w.push_back(format("%s on %s were not sdb's (%.0f%% of the %s claimed; %s): the device was shared, "
				   "the rate is a lower bound", format_bytes(*v.other_bytes).c_str(), v.device.name.c_str(),
				   100.0 * static_cast<double>(*v.other_bytes) / static_cast<double>(v.claimed),
				   format_bytes(v.claimed).c_str(), v.others));
	if (int i = shared_level(v); i > 0 && !shared(v)) {	// the same line, for a level below
		const Level &l = v.stack[static_cast<std::size_t>(i)];
		w.push_back(format("%s on %s, below %s, were not sdb's (%.0f%% of the %s claimed; another process's, "
				   "or its file system's metadata): the device was shared, the rate is a lower bound",
				   format_bytes(l.other_bytes).c_str(), l.name.c_str(),
				   v.stack[static_cast<std::size_t>(i) - 1].name.c_str(),
				   100.0 * static_cast<double>(l.other_bytes) / static_cast<double>(v.claimed),
				   format_bytes(v.claimed).c_str()));
	}
	if (const Device *m = memory_below(v))
		w.push_back(format("%s: this measures memory, not a disk", memory_below_words(v, *m).c_str()));
	if (!v.device.memory.empty())
		w.push_back(format("overlayfs's %s is on %s: this measures memory, not a disk", v.device.overlay_layer.c_str(),
				   v.device.memory.c_str()));
	if (v.limit == "stopped")
		w.push_back(format("sdb was %s: kill -STOP, a frozen cgroup or a paused container or VM; "
				   "the rates count that time, they are not the device's", v.limit_why.c_str()));
	if (std::string sync = sync_warning(plan, v); !sync.empty())
		w.push_back(sync);
	std::string type = mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (!v.measured && !plan.opt.cached && !v.device.reason.empty() && (fuse_fs(plan.fs_type) || network_fs(type)))
		w.push_back(format("unverifiable: %s; its numbers may come from the %s's cache", v.device.reason.c_str(),
				   fuse_fs(plan.fs_type) ? "FUSE daemon" : "client"));
	return w;
}

} // namespace
