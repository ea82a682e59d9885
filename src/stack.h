// stack: where the bytes end up and whose they are.  The levels below the
// target's device (a loop device's backing file's device, btrfs's devices,
// a memory or FUSE level, and so on down: stack_below), sdb's own I/O
// (/proc/self/io, with the FUSE daemons that serve the target:
// fuse_daemons), the CPU quotas of sdb's cgroup and its ancestors (their
// throttling counters: cpu_quotas), the block I/O limits on the stack's
// devices (throttle.h), and the CPU cycles of sdb's threads where the PMU
// is readable (cycle_counter).  A Watch says what to read, read_counters()
// reads it where the timed window opens and after the last thread ends
// (run.h), and the checks judge on the deltas.
#pragma once

#include "base.h"
#include "plan.h"
#include "device.h"
#include "throttle.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <linux/magic.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace {

// The level a loop device's backing file sits on: the block device it is
// (a loop over /dev/zram0), the devices of the btrfs it is on (all of
// them: btrfs's st_dev is anonymous), or its file system's device; a
// backing file on no block device is a level named by its file system
// ("tmpfs", "fuse.sshfs"), uncounted, with the reason, and memory for
// tmpfs and ramfs.
Device backing_level(const Device &at)
{
	struct stat st {};
	Device below;
	if (stat(at.backing_file.c_str(), &st) != 0) {
		below.name = "?";
		below.reason = format("the backing file %s of %s cannot be found", at.backing_file.c_str(), at.name.c_str());
		return below;
	}
	bool block = S_ISBLK(st.st_mode);
	struct statfs sf {};
	std::uint32_t type = statfs(at.backing_file.c_str(), &sf) == 0 ? static_cast<std::uint32_t>(sf.f_type) : 0;
	if (!block && type == BTRFS_SUPER_MAGIC)
		if (std::string fsid = btrfs_fsid(at.backing_file); !fsid.empty())
			return btrfs_devices(fsid);
	dev_t dev = block ? st.st_rdev : st.st_dev;
	std::string dir = real_path(sysfs_dev(dev));
	if (!dir.empty() && access((dir + "/stat").c_str(), R_OK) == 0) {
		Device d = device_at(dir);
		d.memory = memory_backing(d.name);
		return d;
	}
	std::string fs = mounted_fs_type(st.st_dev, type);
	below.name = fs.empty() ? format("%u:%u", major(dev), minor(dev)) : fs;
	if (!block && memory_fs(type)) {
		below.memory = below.name;
		below.reason = format("the backing file %s of %s is on %s: memory, no block device", at.backing_file.c_str(),
				      at.name.c_str(), below.name.c_str());
	} else if (!block && fuse_fs(type)) {
		below.reason = format("the backing file %s of %s is on %s, a FUSE file system without a block device",
				      at.backing_file.c_str(), at.name.c_str(), below.name.c_str());
	} else {
		below.reason = format("the backing file %s of %s is on %s (%u:%u), which has no block device in sysfs: "
				      "a network file system, or memory", at.backing_file.c_str(), at.name.c_str(),
				      below.name.c_str(), major(dev), minor(dev));
	}
	return below;
}

// The devices below top, top first excluded: a loop device reads and
// writes its backing file through that file's file system, so the file's
// device sees its bytes, or (buffered, loop/dio 0) does not when the
// backing file's page cache holds them.  A level without counters
// (backing_level: tmpfs, FUSE, a network) ends the stack.
std::vector<Device> stack_below(const Device &top)
{
	std::vector<Device> levels;
	Device at = top;
	for (unsigned depth = 0; depth < 8 && !at.backing_file.empty(); depth++) {
		Device below = backing_level(at);
		levels.push_back(below);
		if (below.stats.empty())
			break;
		at = below;
	}
	return levels;
}

// A process's storage I/O (/proc/PID/io): bytes it caused to be read from
// a block device (every read bio it submitted, readahead included; none
// for a read the page cache served) and bytes it dirtied or wrote
// directly (write_bytes, counted when written, before the device sees
// them), less what truncation cancelled.
struct ProcIo {
	std::uint64_t read_bytes = 0, write_bytes = 0, cancelled_write_bytes = 0;
};

std::optional<ProcIo> parse_proc_io(const std::string &text)
{
	std::istringstream in(text);
	std::string key;
	std::uint64_t value = 0;
	ProcIo io;
	unsigned seen = 0;
	while (in >> key >> value) {
		if (key == "read_bytes:")
			io.read_bytes = value, seen |= 1;
		else if (key == "write_bytes:")
			io.write_bytes = value, seen |= 2;
		else if (key == "cancelled_write_bytes:")
			io.cancelled_write_bytes = value, seen |= 4;
	}
	if (seen != 7)
		return std::nullopt;
	return io;
}

std::optional<ProcIo> read_proc_io(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream text;
	text << in.rdbuf();
	return parse_proc_io(text.str());
}

// The FUSE daemons that serve a fuseblk target: the processes holding its
// block device open.  Their reads and writes of the device are sdb's
// bytes, moved for it, not another process's I/O.
std::vector<pid_t> fuse_daemons(const Plan &plan)
{
	std::vector<pid_t> pids;
	if (plan.backing_device.empty())
		return pids;
	for (const std::string &e : dir_entries("/proc")) {
		if (e.find_first_not_of("0123456789") != std::string::npos)
			continue;
		pid_t pid = static_cast<pid_t>(std::strtol(e.c_str(), nullptr, 10));
		if (pid == getpid())
			continue;
		for (const std::string &fd : dir_entries("/proc/" + e + "/fd"))
			if (real_path("/proc/" + e + "/fd/" + fd) == plan.backing_device) {
				pids.push_back(pid);
				break;
			}
	}
	return pids;
}

// A cgroup whose CPU quota applies to sdb: v1's cpu controller
// (cpu.cfs_quota_us over cpu.cfs_period_us) or v2's cpu.max; its cpu.stat
// counts the periods it was throttled (nr_throttled) and for how long (v1
// throttled_time in ns, v2 throttled_usec).
struct CpuQuota {
	std::string dir;		// the cgroup's directory
	bool v1 = false;
	double cpus = 0;		// quota over period
	std::string how;		// "cpu.cfs_quota_us 10000 per cpu.cfs_period_us 100000"
};

struct Throttling {
	std::uint64_t periods = 0, ns = 0;
};

std::optional<Throttling> parse_cpu_stat(const std::string &text)
{
	std::istringstream in(text);
	std::string key;
	std::uint64_t value = 0;
	Throttling t;
	bool periods = false, time = false;
	while (in >> key >> value) {
		if (key == "nr_throttled")
			t.periods = value, periods = true;
		else if (key == "throttled_time")	// v1: ns
			t.ns = value, time = true;
		else if (key == "throttled_usec")	// v2
			t.ns = value * 1000, time = true;
	}
	if (!periods || !time)
		return std::nullopt;
	return t;
}

std::optional<Throttling> read_throttling(const CpuQuota &q)
{
	std::ifstream in(q.dir + "/cpu.stat");
	std::stringstream text;
	text << in.rdbuf();
	return parse_cpu_stat(text.str());
}

// The quota of one cgroup directory, if it has one.
std::optional<CpuQuota> quota_at(const std::string &dir, bool v1)
{
	CpuQuota q;
	q.dir = dir;
	q.v1 = v1;
	if (v1) {
		std::string quota = read_line(dir + "/cpu.cfs_quota_us"), period = read_line(dir + "/cpu.cfs_period_us");
		long long us = std::strtoll(quota.c_str(), nullptr, 10), per = std::strtoll(period.c_str(), nullptr, 10);
		if (quota.empty() || us <= 0 || per <= 0)
			return std::nullopt;
		q.cpus = static_cast<double>(us) / static_cast<double>(per);
		q.how = format("cpu.cfs_quota_us %lld per cpu.cfs_period_us %lld", us, per);
		return q;
	}
	std::istringstream max(read_line(dir + "/cpu.max"));	// "max 100000" or "10000 100000"
	std::string quota;
	long long per = 0;
	if (!(max >> quota >> per) || quota == "max" || per <= 0 || std::strtoll(quota.c_str(), nullptr, 10) <= 0)
		return std::nullopt;
	q.cpus = static_cast<double>(std::strtoll(quota.c_str(), nullptr, 10)) / static_cast<double>(per);
	q.how = format("cpu.max %s %lld", quota.c_str(), per);
	return q;
}

// Every CPU quota over a process in the cgroups its /proc/PID/cgroup
// names: its own cgroup's and each ancestor's, v1 (the cpu controller)
// and v2 (the unified tree), under SDB_SYSFS's /fs/cgroup for tests.
std::vector<CpuQuota> cpu_quotas(const std::string &proc_cgroup = "/proc/self/cgroup")
{
	std::vector<CpuQuota> quotas;
	for (const CgroupDir &c : cgroup_chain("cpu", proc_cgroup))
		if (std::optional<CpuQuota> q = quota_at(c.dir, c.v1))
			quotas.push_back(*q);
	return quotas;
}

// The CPU cycles of this thread and of every thread it starts from now on
// (inherit: the workers, and the kernel's io-wq workers they start, which
// do a queued run's I/O on a device that cannot be tried without blocking),
// counted by the PMU in user and kernel mode; read() sums them.  Opened
// before the workers start.  None where the PMU is not there or not ours
// to read (a VM without one: ENOENT; perf_event_paranoid: EACCES).
Fd cycle_counter()
{
	perf_event_attr a {};
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.inherit = 1;
	a.exclude_hv = 1;
	return Fd(static_cast<int>(syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
}

// What read_counters() reads at both ends of the timed window.
struct Watch {
	std::vector<Device> below;	// the stack under the target's device (stack_below)
	bool own = false;		// sdb's own I/O (/proc/self/io)
	std::vector<pid_t> helpers;	// processes whose I/O is sdb's (FUSE daemons)
	std::vector<CpuQuota> quotas;	// CPU quotas over sdb
	std::vector<IoLimit> limits;	// block I/O limits over sdb on the device or a level below
	Fd cycles;			// cycle_counter(), where the PMU is readable
};

// The watch for a run on device: the stack, its block I/O limits and sdb's
// I/O unless --cached (nothing to check then), the CPU quotas and cycles
// always.
Watch watch_for(const Plan &plan, const Device &device)
{
	Watch w;
	w.quotas = cpu_quotas();
	w.cycles = cycle_counter();
	if (plan.opt.cached || device.stats.empty())
		return w;
	w.below = stack_below(device);
	std::vector<std::string> files = device.stats;
	for (const Device &d : w.below)
		files.insert(files.end(), d.stats.begin(), d.stats.end());
	w.limits = io_limits(files);
	w.own = true;
	w.helpers = fuse_daemons(plan);
	return w;
}

struct Counters {
	std::vector<std::vector<std::string>> below;	// each level's stat lines
	std::optional<ProcIo> own;			// sdb's and its helpers', summed
	std::vector<std::optional<Throttling>> quotas;	// each quota's cgroup's
	std::optional<std::uint64_t> cycles;		// every thread's so far, where counted
};

ProcIo operator+(ProcIo a, const ProcIo &b)
{
	a.read_bytes += b.read_bytes;
	a.write_bytes += b.write_bytes;
	a.cancelled_write_bytes += b.cancelled_write_bytes;
	return a;
}

Counters read_counters(const Watch &w)
{
	Counters c;
	for (const Device &d : w.below) {
		std::vector<std::string> lines;
		for (const std::string &f : d.stats)
			lines.push_back(read_line(f));
		c.below.push_back(lines);
	}
	if (w.own) {
		c.own = read_proc_io("/proc/self/io");
		for (pid_t pid : w.helpers) {
			std::optional<ProcIo> theirs = read_proc_io(format("/proc/%d/io", static_cast<int>(pid)));
			c.own = c.own && theirs ? std::optional<ProcIo>(*c.own + *theirs) : std::nullopt;
		}
	}
	for (const CpuQuota &q : w.quotas)
		c.quotas.push_back(read_throttling(q));
	std::uint64_t cycles = 0;
	if (w.cycles && read(w.cycles.get(), &cycles, sizeof cycles) == static_cast<ssize_t>(sizeof cycles))
		c.cycles = cycles;
	return c;
}

// sdb's own bytes between two readings: read, and written less what was
// cancelled; none when either is missing or a counter went backwards.
std::optional<ProcIo> own_delta(const std::optional<ProcIo> &a, const std::optional<ProcIo> &b)
{
	if (!a || !b || b->read_bytes < a->read_bytes || b->write_bytes < a->write_bytes ||
	    b->cancelled_write_bytes < a->cancelled_write_bytes)
		return std::nullopt;
	ProcIo d;
	d.read_bytes = b->read_bytes - a->read_bytes;
	d.write_bytes = b->write_bytes - a->write_bytes;
	d.cancelled_write_bytes = b->cancelled_write_bytes - a->cancelled_write_bytes;
	return d;
}

// The time sdb's CPU quotas have throttled it so far, all added up: what a
// late wake of the sampler may owe to them (StopClock, stops.h).
std::uint64_t throttled_so_far(const Watch &w)
{
	std::uint64_t ns = 0;
	for (const CpuQuota &q : w.quotas)
		if (std::optional<Throttling> t = read_throttling(q))
			ns += t->ns;
	return ns;
}

// How a run was throttled by a CPU quota: the quota that throttled it for
// the longest, the periods and time; periods 0 when none did.
struct Throttled {
	const CpuQuota *quota = nullptr;
	std::uint64_t periods = 0, ns = 0;
};

Throttled throttled(const Watch &w, const Counters &before, const Counters &after)
{
	Throttled t;
	for (std::size_t i = 0; i < w.quotas.size() && i < before.quotas.size() && i < after.quotas.size(); i++) {
		const std::optional<Throttling> &a = before.quotas[i], &b = after.quotas[i];
		if (!a || !b || b->periods <= a->periods || b->ns < a->ns)
			continue;
		if (!t.quota || b->ns - a->ns > t.ns)
			t = Throttled{&w.quotas[i], b->periods - a->periods, b->ns - a->ns};
	}
	return t;
}

} // namespace
