// throttle: the block I/O limits over sdb.  A blkio throttle (cgroup v1:
// blkio.throttle.{read,write}_{bps,iops}_device) or an io.max line (v2) on
// sdb's cgroup, an ancestor or the root holds every bio sdb's threads
// submit to that device to the limit, whatever the queue depth: the run
// then measures the throttle, not the device.  io_limits() reads them for
// the devices of the stack, and throttle_bound() says whether the run ran
// at one of them (checks.h names it: "limited by throttle").
#pragma once

#include "base.h"
#include "sys.h"
#include "device.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

// One limit on one device, where it is set.
struct IoLimit {
	std::string dir;		// the cgroup's directory
	std::string file;		// "blkio.throttle.read_iops_device", "io.max"
	unsigned major = 0, minor = 0;
	bool write = false;		// the direction it holds
	bool iops = false;		// I/Os per second, else bytes per second
	std::uint64_t value = 0;
};

// The limits of one v1 throttle file: lines "MAJ:MIN VALUE".
std::vector<IoLimit> parse_blkio_throttle(const std::string &text, const std::string &dir, const std::string &file)
{
	std::vector<IoLimit> limits;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		IoLimit l;
		unsigned long long value = 0;
		if (std::sscanf(line.c_str(), "%u:%u %llu", &l.major, &l.minor, &value) != 3 || value == 0)
			continue;
		l.dir = dir;
		l.file = file;
		l.write = file.find("write") != std::string::npos;
		l.iops = file.find("iops") != std::string::npos;
		l.value = value;
		limits.push_back(l);
	}
	return limits;
}

// The limits of a v2 io.max: lines "MAJ:MIN rbps=N wbps=max riops=N wiops=max".
std::vector<IoLimit> parse_io_max(const std::string &text, const std::string &dir)
{
	std::vector<IoLimit> limits;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		std::string dev, kv;
		unsigned major = 0, minor = 0;
		if (!(fields >> dev) || std::sscanf(dev.c_str(), "%u:%u", &major, &minor) != 2)
			continue;
		while (fields >> kv) {
			std::size_t eq = kv.find('=');
			if (eq == std::string::npos || kv.compare(eq + 1, std::string::npos, "max") == 0)
				continue;
			std::string key = kv.substr(0, eq);
			if (key != "rbps" && key != "wbps" && key != "riops" && key != "wiops")
				continue;
			unsigned long long value = std::strtoull(kv.c_str() + eq + 1, nullptr, 10);
			if (value == 0)
				continue;
			limits.push_back({dir, "io.max " + key, major, minor, key[0] == 'w', key.size() == 5, value});
		}
	}
	return limits;
}

std::string file_text(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream text;
	text << in.rdbuf();
	return text.str();
}

// A block device's numbers, MAJ:MIN, and its whole disk's for a partition
// (a throttle is set on a disk; a partition's bios count against it), from
// the sysfs directory of its stat file.
std::vector<std::pair<unsigned, unsigned>> device_numbers(const std::string &stat_file)
{
	std::vector<std::pair<unsigned, unsigned>> numbers;
	std::string dir = dirname_of(stat_file);
	for (const std::string &d : {dir, dirname_of(dir)}) {
		unsigned major = 0, minor = 0;
		if (std::sscanf(read_line(d + "/dev").c_str(), "%u:%u", &major, &minor) == 2)
			numbers.push_back({major, minor});
	}
	return numbers;
}

// Every block I/O limit over the process (proc_cgroup) on one of the
// devices whose stat files are given: v1 blkio throttles and v2 io.max,
// on its cgroup, each ancestor and the root.
std::vector<IoLimit> io_limits(const std::vector<std::string> &stat_files,
			       const std::string &proc_cgroup = "/proc/self/cgroup")
{
	std::vector<IoLimit> limits;
	std::set<std::pair<unsigned, unsigned>> numbers;
	for (const std::string &f : stat_files)
		for (const auto &n : device_numbers(f))
			numbers.insert(n);
	if (numbers.empty())
		return limits;
	std::vector<IoLimit> all;
	for (const CgroupDir &c : cgroup_chain("blkio", proc_cgroup)) {
		if (c.v1) {
			for (const char *f : {"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
					      "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"})
				for (const IoLimit &l : parse_blkio_throttle(file_text(c.dir + "/" + f), c.dir, f))
					all.push_back(l);
		} else {
			for (const IoLimit &l : parse_io_max(file_text(c.dir + "/io.max"), c.dir))
				all.push_back(l);
		}
	}
	for (const IoLimit &l : all)
		if (numbers.count({l.major, l.minor}))
			limits.push_back(l);
	return limits;
}

// A device's work in one window, from its stat lines at both ends.
struct DeviceWork {
	std::string name;
	std::vector<std::pair<unsigned, unsigned>> numbers;	// its own, and its disk's (device_numbers)
	std::uint64_t read_bytes = 0, write_bytes = 0, reads = 0, writes = 0;
};

// The work of each device whose stat file and lines at both ends are given.
std::vector<DeviceWork> device_work(const std::vector<std::string> &files, const std::vector<std::string> &before,
				    const std::vector<std::string> &after)
{
	std::vector<DeviceWork> work;
	for (std::size_t i = 0; i < files.size() && i < before.size() && i < after.size(); i++) {
		std::optional<DiskStat> a = parse_disk_stat(before[i]), b = parse_disk_stat(after[i]);
		if (!a || !b || b->reads < a->reads || b->writes < a->writes || b->read_sectors < a->read_sectors ||
		    b->write_sectors < a->write_sectors)
			continue;
		work.push_back({base_name(dirname_of(files[i])), device_numbers(files[i]),
				(b->read_sectors - a->read_sectors) * 512, (b->write_sectors - a->write_sectors) * 512,
				b->reads - a->reads, b->writes - a->writes});
	}
	return work;
}

// How close the run came to a limit: the device's rate in the limit's
// direction and unit over the window, against the limit.
struct ThrottleUse {
	IoLimit limit;
	std::string device;		// the limited device's name
	double rate = 0;		// what it did, in the limit's unit
	double share = 0;		// rate / limit
};

// The limit the run came closest to, among those whose direction the run
// used; share 0 (and no limit) when none applies.
std::optional<ThrottleUse> closest_limit(const std::vector<IoLimit> &limits, const std::vector<DeviceWork> &work,
					 double seconds, bool reads, bool writes)
{
	std::optional<ThrottleUse> best;
	if (!(seconds > 0))
		return best;
	for (const IoLimit &l : limits) {
		if (l.write ? !writes : !reads)
			continue;
		double done = 0;
		std::string name;
		for (const DeviceWork &w : work)
			if (std::find(w.numbers.begin(), w.numbers.end(), std::pair{l.major, l.minor}) != w.numbers.end()) {
				done += l.iops ? static_cast<double>(l.write ? w.writes : w.reads)
					       : static_cast<double>(l.write ? w.write_bytes : w.read_bytes);
				name = w.name;
			}
		if (name.empty())
			continue;
		ThrottleUse u{l, name, done / seconds, done / seconds / static_cast<double>(l.value)};
		if (!best || u.share > best->share)
			best = u;
	}
	return best;
}

// A limit in words: "1000 read IOPS limit on 7:0, blkio.throttle.read_iops_device
// in /sys/fs/cgroup/blkio/box"; "10.00 MiB/s write limit on 254:0, io.max wbps in ...".
std::string limit_words(const IoLimit &l)
{
	std::string value = l.iops ? format("%" PRIu64 " %s IOPS", l.value, l.write ? "write" : "read")
				   : format("%s %s", format_rate(static_cast<double>(l.value)).c_str(), l.write ? "write" : "read");
	return format("%s limit on %u:%u, %s in %s", value.c_str(), l.major, l.minor, l.file.c_str(), l.dir.c_str());
}

} // namespace
