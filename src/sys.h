// sys: the readers of the system's own tables.  sysfs under one root
// (sysfs(), $SDB_SYSFS for tests), the disk under a device (disk_dir,
// queue_dir, disk_name), a block device's node, the file
// systems' names by magic (fs_name, kernel_fs_name: the pseudo-file
// systems sdb never writes), the mount table of any namespace
// (read_mounts), the other processes (other_processes, comm_of), and the
// memory a cgroup still lets this process use (available_memory).
#pragma once

#include "base.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

namespace {

// The kernel's pseudo-file systems (statfs f_type, linux/magic.h): their
// files are the kernel's settings and controls (a zero-length file in
// /proc is not an empty file), so sdb never writes one, even with --force.
const char *kernel_fs_name(std::uint32_t type)
{
	switch (type) {
	case PROC_SUPER_MAGIC: return "procfs";
	case SYSFS_MAGIC: return "sysfs";
	case CGROUP_SUPER_MAGIC: return "cgroupfs (v1)";
	case CGROUP2_SUPER_MAGIC: return "cgroupfs (v2)";
	case DEBUGFS_MAGIC: return "debugfs";
	case TRACEFS_MAGIC: return "tracefs";
	case 0x62656570: return "configfs";	// CONFIGFS_MAGIC, not in linux/magic.h
	case SECURITYFS_MAGIC: return "securityfs";
	case EFIVARFS_MAGIC: return "efivarfs";
	case BPF_FS_MAGIC: return "bpf";
	case PSTOREFS_MAGIC: return "pstore";
	case SELINUX_MAGIC: return "selinuxfs";
	case SMACK_MAGIC: return "smackfs";
	case BINFMTFS_MAGIC: return "binfmt_misc";
	case 0x65735543: return "fusectl";	// FUSE_CTL_SUPER_MAGIC
	default: return nullptr;
	}
}

// One line of a mountinfo: what is mounted where, from what.
struct Mount {
	dev_t dev = 0;			// the file system's st_dev
	std::string point, type, source;
	std::string options;		// the super options ("rw,compress=zstd:3,...")
};

// mountinfo writes space, tab, newline and backslash in paths as \ooo.
std::string unescape_mount_field(const std::string &s)
{
	std::string out;
	for (std::size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
			out += static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8));
			i += 3;
		} else {
			out += s[i];
		}
	}
	return out;
}

// The mounts of this process's mount namespace, or of the one whose
// mountinfo `file` is (/proc/PID/mountinfo).
std::vector<Mount> read_mounts(const std::string &file = "/proc/self/mountinfo")
{
	std::vector<Mount> mounts;
	std::ifstream in(file);
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		std::string id, parent, numbers, root, point, word;
		fields >> id >> parent >> numbers >> root >> point;
		while (fields >> word && word != "-")
			continue;	// mount options and optional fields
		Mount m;
		unsigned ma = 0, mi = 0;
		if (std::sscanf(numbers.c_str(), "%u:%u", &ma, &mi) != 2 || !(fields >> m.type >> m.source))
			continue;
		fields >> m.options;
		m.dev = makedev(ma, mi);
		m.point = unescape_mount_field(point);
		m.source = unescape_mount_field(m.source);
		mounts.push_back(std::move(m));
	}
	return mounts;
}

// The mount that holds `path` (the longest mount point above its real
// path, the last one mounted there): by place, not by st_dev, which a
// btrfs subvolume gives a number of its own.
std::optional<Mount> mount_holding(const std::string &path)
{
	char *real = realpath(path.c_str(), nullptr);
	if (!real) {
		std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
		real = realpath(dir.c_str(), nullptr);
	}
	if (!real)
		return std::nullopt;
	std::string where = real;
	std::free(real);
	std::optional<Mount> found;
	for (Mount &m : read_mounts()) {
		bool above = m.point == "/" || where == m.point ||
			     (where.compare(0, m.point.size(), m.point) == 0 && where[m.point.size()] == '/');
		if (above && (!found || m.point.size() >= found->point.size()))
			found = std::move(m);
	}
	return found;
}

// The numeric entries of /proc other than this process: every process.
std::vector<pid_t> other_processes()
{
	std::vector<pid_t> pids;
	const long self = getpid();
	DIR *d = opendir("/proc");
	if (!d)
		return pids;
	while (dirent *e = readdir(d)) {
		char *end = nullptr;
		long pid = std::strtol(e->d_name, &end, 10);
		if (pid > 0 && *end == '\0' && pid != self)
			pids.push_back(static_cast<pid_t>(pid));
	}
	closedir(d);
	return pids;
}

std::string comm_of(pid_t pid)
{
	std::ifstream in(format("/proc/%d/comm", static_cast<int>(pid)));
	std::string comm;
	std::getline(in, comm);
	return comm.empty() ? "?" : comm;
}

std::string dirname_of(const std::string &path)
{
	auto slash = path.find_last_of('/');
	if (slash == std::string::npos)
		return ".";
	return slash == 0 ? "/" : path.substr(0, slash);
}

std::string read_line(const std::string &path)
{
	std::ifstream in(path);
	std::string line;
	std::getline(in, line);
	return line;
}

// A path under sysfs: "/sys" + path, or under $SDB_SYSFS, which tests
// point at a fixture tree.
std::string sysfs(const std::string &path)
{
	const char *root = std::getenv("SDB_SYSFS");
	return (root && *root ? std::string(root) : std::string("/sys")) + path;
}

std::string sysfs_dev(dev_t dev)
{
	return sysfs(format("/dev/block/%u:%u", major(dev), minor(dev)));
}

std::string base_name(const std::string &path) { return path.substr(path.find_last_of('/') + 1); }

std::string real_path(const std::string &path)
{
	char real[PATH_MAX];
	return realpath(path.c_str(), real) ? std::string(real) : std::string();
}

// The sysfs directory of the whole disk under dev (a partition climbs to
// its disk), "" when dev is none (the anonymous device of tmpfs, NFS or
// btrfs).  name, if given: dev's own name ("vda1" for a partition of vda).
std::string disk_dir(dev_t dev, std::string *name = nullptr)
{
	std::string dir = real_path(sysfs_dev(dev));
	if (dir.empty())
		return "";
	if (name)
		*name = dir.substr(dir.find_last_of('/') + 1);
	if (access((dir + "/partition").c_str(), F_OK) == 0)
		dir = dirname_of(dir);
	return dir;
}

// The queue settings of the disk under dev (scheduler, block sizes);
// name: dev's own name.
std::string queue_dir(dev_t dev, std::string &name)
{
	std::string dir = disk_dir(dev, &name);
	return dir.empty() ? "" : dir + "/queue";
}

// The kernel's name for the disk under dev, "" when dev is none.
std::string disk_name(dev_t dev)
{
	std::string dir = disk_dir(dev);
	return dir.substr(dir.find_last_of('/') + 1);
}

// The device node of a block device's sysfs directory, from its uevent's
// DEVNAME (a dm device's is dm-N, not its /dev/mapper name).
std::string device_node(const std::string &dir)
{
	std::ifstream uevent(dir + "/uevent");
	std::string line;
	while (std::getline(uevent, line))
		if (line.rfind("DEVNAME=", 0) == 0)
			return "/dev/" + line.substr(8);
	return "/dev/" + dir.substr(dir.find_last_of('/') + 1);
}

std::string fs_name(std::uint32_t type)
{
	switch (type) {
	case EXT4_SUPER_MAGIC: return "ext2/3/4";
	case TMPFS_MAGIC: return "tmpfs";
	case RAMFS_MAGIC: return "ramfs";
	case XFS_SUPER_MAGIC: return "xfs";
	case BTRFS_SUPER_MAGIC: return "btrfs";
	case 0x2fc12fc1: return "zfs";
	case NFS_SUPER_MAGIC: return "nfs";
	case 0x65735546: return "fuse";
	case 0xf2f52010: return "f2fs";
	case 0x794c7630: return "overlayfs";
	case MSDOS_SUPER_MAGIC: return "vfat";
	case 0x5346544e: return "ntfs";
	default: return format("0x%x", type);
	}
}

bool memory_fs(std::uint32_t type) { return type == TMPFS_MAGIC || type == RAMFS_MAGIC; }

// The file system's own name ("ext4", not "ext2/3/4") from the mount table.
std::string mounted_fs_type(dev_t dev, std::uint32_t magic)
{
	for (const Mount &m : read_mounts())
		if (m.dev == dev)
			return m.type;
	return fs_name(magic);
}

bool fuse_fs(std::uint32_t type) { return type == 0x65735546; }

// A number from a one-line file (a cgroup limit); nothing for "max".
std::optional<std::uint64_t> read_number(const std::string &path)
{
	std::string line = read_line(path);
	if (line.empty() || line[0] < '0' || line[0] > '9')
		return std::nullopt;
	return std::strtoull(line.c_str(), nullptr, 10);
}

// The page cache a cgroup holds: its usage counts it, but it can be reclaimed.
std::uint64_t cgroup_cache(const std::string &dir, bool v1)
{
	std::ifstream in(dir + "/memory.stat");
	std::string key;
	std::uint64_t value = 0;
	while (in >> key >> value)
		if (key == (v1 ? "total_cache" : "file"))
			return value;
	return 0;
}

// A cgroup directory over a process: its own cgroup's or an ancestor's,
// in a v1 hierarchy or the v2 (unified) tree.
struct CgroupDir {
	std::string dir;
	bool v1 = false;
};

// The cgroups over the process whose /proc/PID/cgroup is proc_cgroup, for
// one controller ("cpu", "memory", "blkio"): in the v1 hierarchy that has
// it, and in the unified tree, each from the process's own cgroup up to
// the root (included), under SDB_SYSFS's /fs/cgroup for tests.  One mount
// of each hierarchy is enough.
std::vector<CgroupDir> cgroup_chain(const std::string &controller, const std::string &proc_cgroup = "/proc/self/cgroup")
{
	std::vector<CgroupDir> dirs;
	std::ifstream in(proc_cgroup);
	std::string line;
	while (std::getline(in, line)) {	// "0::/path" (v2), "1:cpu,cpuacct:/path" (v1)
		std::size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1);
		if (c1 == std::string::npos || c2 == std::string::npos)
			continue;
		std::string controllers = line.substr(c1 + 1, c2 - c1 - 1);
		bool v1 = ("," + controllers + ",").find("," + controller + ",") != std::string::npos;
		if (!v1 && !controllers.empty())
			continue;
		std::vector<std::string> roots;
		if (v1)
			roots = {"/fs/cgroup/" + controllers, "/fs/cgroup/" + controller};
		else
			roots = {"/fs/cgroup", "/fs/cgroup/unified"};
		for (const std::string &root : roots) {
			std::string base = sysfs(root);
			if (access((base + (v1 ? "/cgroup.procs" : "/cgroup.controllers")).c_str(), R_OK) != 0)
				continue;
			for (std::string path = line.substr(c2 + 1);; path = dirname_of(path)) {
				dirs.push_back({base + (path == "/" ? "" : path), v1});
				if (path.empty() || path == "/" || path == ".")
					break;
			}
			break;
		}
	}
	return dirs;
}

// What the memory cgroup this process is in (v2, or v1's memory
// controller) still lets it use: limit less usage, the least of it and its
// ancestors'.  UINT64_MAX when no limit applies.
std::uint64_t cgroup_headroom()
{
	std::uint64_t room = UINT64_MAX;
	for (const CgroupDir &c : cgroup_chain("memory")) {
		auto limit = read_number(c.dir + (c.v1 ? "/memory.limit_in_bytes" : "/memory.max"));
		auto usage = read_number(c.dir + (c.v1 ? "/memory.usage_in_bytes" : "/memory.current"));
		if (limit && usage && *limit < max_offset) {
			std::uint64_t used = *usage - std::min(*usage, cgroup_cache(c.dir, c.v1));
			room = std::min(room, *limit - std::min(*limit, used));
		}
	}
	return room;
}

// The tightest memory cgroup limit over this process: v1's
// memory.limit_in_bytes, v2's memory.max or memory.high (which throttles
// before it), on its cgroup or an ancestor; none where none is set.
struct MemoryLimit {
	std::uint64_t bytes = 0;
	std::string file, dir;	// "memory.limit_in_bytes", the cgroup's directory
};

std::optional<MemoryLimit> memory_limit(const std::string &proc_cgroup = "/proc/self/cgroup")
{
	std::optional<MemoryLimit> least;
	for (const CgroupDir &c : cgroup_chain("memory", proc_cgroup))
		for (const char *f : c.v1 ? std::vector<const char *>{"memory.limit_in_bytes"}
					  : std::vector<const char *>{"memory.max", "memory.high"}) {
			auto limit = read_number(c.dir + "/" + f);
			if (limit && *limit < max_offset && (!least || *limit < least->bytes))
				least = MemoryLimit{*limit, f, c.dir};
		}
	return least;
}

// Memory sdb may use: the kernel's MemAvailable, or less where a memory
// cgroup limits this process (a container, a systemd slice).
std::uint64_t available_memory()
{
	std::ifstream in("/proc/meminfo");
	std::string key;
	std::uint64_t kib = 0, have = 0;
	while (in >> key >> kib)
		if (key == "MemAvailable:") {
			have = kib * KiB;
			break;
		}
	if (have == 0)
		have = static_cast<std::uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	have = std::min(have, cgroup_headroom());
	rlimit as {};	// ulimit -v: address space, of which some is mapped already
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
		std::ifstream status("/proc/self/status");
		std::uint64_t mapped = 0;
		while (status >> key)
			if (key == "VmSize:" && status >> mapped)
				break;
		have = std::min<std::uint64_t>(have, as.rlim_cur - std::min<std::uint64_t>(as.rlim_cur, mapped * KiB));
	}
	return have;
}

} // namespace
