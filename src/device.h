// device: what the target sits on.  The block device under it in sysfs
// (partitions, dm, md, loop, btrfs's several; overlayfs: that of the layer
// holding the file; FUSE: the device its mount names), the link ceiling
// (PCIe, SATA, USB), the queue's write cache, FUA and rotational flags, a
// paravirtual disk's driver, the stat counters and their deltas, holes and
// unwritten extents before a read, memory-backed disks, and -v's
// Environment.
#pragma once

#include "base.h"
#include "plan.h"
#include "buffer.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace {

struct Environment {
	std::string host, kernel, fs, device, scheduler;
	std::string logical_block, physical_block, rotational;
	std::uint64_t buffer_bytes = 0, buffer_huge = 0;
	unsigned max_segments = 0;	// queue/max_segments: the pieces one request may have; 0: unknown
	std::uint64_t max_request = 0;	// queue/max_sectors_kb in bytes: the largest request; 0: unknown
};

Environment describe(const Plan &plan, const Buffer &buffer)
{
	Environment env;
	utsname u {};
	if (uname(&u) == 0) {
		env.host = u.nodename;
		env.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
	}
	env.fs = plan.targets.empty() ? "" : plan.targets[0].kind == Kind::block ? "none (block device)"
				: mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (!plan.targets.empty() && plan.targets[0].kind == Kind::chr)
		env.fs = "none (character device)";
	std::string queue = queue_dir(plan.fs_dev, env.device);
	if (!queue.empty()) {
		env.scheduler = read_line(queue + "/scheduler");
		env.logical_block = read_line(queue + "/logical_block_size");
		env.physical_block = read_line(queue + "/physical_block_size");
		env.rotational = read_line(queue + "/rotational");
		env.max_segments = static_cast<unsigned>(std::strtoul(read_line(queue + "/max_segments").c_str(), nullptr, 10));
		env.max_request = std::strtoull(read_line(queue + "/max_sectors_kb").c_str(), nullptr, 10) * KiB;
	}
	if (env.device.empty())
		env.device = format("%u:%u (no block device)", major(plan.fs_dev), minor(plan.fs_dev));
	env.buffer_bytes = buffer.size();
	env.buffer_huge = buffer.data() ? huge_page_bytes(buffer.data()) : 0;
	return env;
}

// What backs a memory block device, known by its driver's names: zram
// (zramN), brd (ramN), pmem (pmemN); "" for any other disk.
std::string memory_backing(const std::string &disk)
{
	auto named = [&](std::string_view prefix) {
		return disk.size() > prefix.size() && disk.compare(0, prefix.size(), prefix) == 0 &&
		       disk[prefix.size()] >= '0' && disk[prefix.size()] <= '9';
	};
	if (named("zram"))
		return "zram, compressed memory";
	if (named("ram"))
		return "brd, a RAM disk";
	if (named("pmem"))
		return "pmem, persistent memory";
	return "";
}

// sdb checks what it claims against what the kernel's block layer saw: the
// device under the target is found in sysfs (no root needed), its stat
// counters are read where the timed window opens (the barrier, or --ramp's
// end) and after the last thread ends (supervise()), and the verdict says what share of the claimed bytes
// reached the device and what limited the run.

// The most the link between host and device moves in one direction.
struct Link {
	std::string kind;		// "pcie", "sata" or "usb"
	double bytes_per_second = 0;
	std::string how;		// what the ceiling is made of, for -v
};

// The block device(s) whose counters stand for the target.
struct Device {
	std::string name, path;		// "vda", "/dev/vda"; several (btrfs): "sda+sdb", "/dev/sda /dev/sdb"
	std::string alias;		// a dm device's own name ("vg-root")
	std::vector<std::string> stats;	// the stat file of each device: their counters are summed
	std::vector<std::string> slaves;	// what a dm or md device is made of (-v)
	std::vector<std::string> disks;	// the whole disks at the bottom (-v)
	std::string backing_file;	// a loop device's
	std::optional<bool> loop_dio;	// a loop device's loop/dio: false, buffered, reads its file's page cache
	std::optional<Link> link;
	std::string write_cache;	// queue/write_cache: "write back", "write through", "" unknown
	std::optional<bool> fua;	// queue/fua: the device takes Force Unit Access writes
	std::optional<bool> rotational;	// queue/rotational
	std::string paravirtual;	// the driver of a virtual disk (virtio_blk, xen-blkfront...): the
					// host's cache may sit below it; "" for any other
	std::string overlay_layer;	// overlayfs: the layer whose device this is ("upper layer /u")
	unsigned copies = 1;		// btrfs: the copies of each data block its profile writes (RAID1: 2)
	std::string memory;		// a level below a loop device that is memory: "zram, compressed
					// memory" (memory_backing), "tmpfs"; "" for any other
	std::string reason;		// no device: why not (stats is empty)
};

// A directory's entries but . and .., sorted; none when it cannot be read.
std::vector<std::string> dir_entries(const std::string &dir)
{
	std::vector<std::string> names;
	DIR *d = opendir(dir.c_str());
	if (!d)
		return names;
	while (dirent *e = readdir(d))
		if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, ".."))
			names.push_back(e->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	return names;
}

// A number that starts a sysfs value ("8.0 GT/s PCIe", "6.0 Gbps"), if it
// is followed by unit.
std::optional<double> leading_number(const std::string &s, std::string_view unit)
{
	char *end = nullptr;
	double v = std::strtod(s.c_str(), &end);
	if (end == s.c_str() || !(v > 0) || !std::isfinite(v) || std::string_view(end).substr(0, unit.size()) != unit)
		return std::nullopt;
	return v;
}

// PCIe (an NVMe drive's own function, or the controller of a SATA or USB
// one): the transfer rate per lane times the lanes, less the line
// encoding: 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s (PCIe 3.0) on.
std::optional<Link> pcie_link(const std::string &dir)
{
	std::string speed = read_line(dir + "/current_link_speed");
	std::optional<unsigned> width = parse_count(read_line(dir + "/current_link_width"), 1, 64);
	std::optional<double> gts = leading_number(speed, " GT/s");
	if (!gts || !width)
		return std::nullopt;
	bool dense = *gts >= 8;
	return Link{"pcie", *gts * 1e9 * *width * (dense ? 128.0 / 130 : 8.0 / 10) / 8,
		    format("PCIe %g GT/s x%u, %s encoding", *gts, *width, dense ? "128b/130b" : "8b/10b")};
}

// SATA: the port's link speed (ataN: /sys/class/ata_link/linkN), 8b/10b.
std::optional<Link> sata_link(const std::string &dir)
{
	unsigned port = 0;
	char rest = 0;
	if (std::sscanf(base_name(dir).c_str(), "ata%u%c", &port, &rest) != 1)
		return std::nullopt;
	std::string speed = read_line(sysfs(format("/class/ata_link/link%u/sata_spd", port)));
	std::optional<double> gbps = leading_number(speed, " Gbps");
	if (!gbps)
		return std::nullopt;
	return Link{"sata", *gbps * 1e9 * 0.8 / 8, format("SATA %g Gbps, 8b/10b encoding", *gbps)};
}

// USB: the device's speed in Mbit/s and the share of it bulk transfers
// (what storage uses) can carry.
std::optional<Link> usb_link(const std::string &dir)
{
	if (access((dir + "/devnum").c_str(), F_OK) != 0)
		return std::nullopt;
	struct Usable {
		const char *speed;
		double bytes_per_second;
		const char *share;
	};
	static const Usable usable[] = {
		{"12", 19 * 64 * 1000.0, "19 bulk packets of 64 bytes per 1 ms frame"},
		{"480", 13 * 512 * 8000.0, "13 bulk packets of 512 bytes per 125 us microframe"},
		{"5000", 5e9 * 8 / 10 / 8, "8b/10b encoding"},
		{"10000", 10e9 * 128 / 132 / 8, "128b/132b encoding"},
		{"20000", 20e9 * 128 / 132 / 8, "two lanes, 128b/132b encoding"},
	};
	std::string speed = read_line(dir + "/speed");
	for (const Usable &u : usable)
		if (speed == u.speed)
			return Link{"usb", u.bytes_per_second, format("USB %s Mbit/s, usable: %s", u.speed, u.share)};
	return std::nullopt;
}

// The link nearest the disk on its way up the device tree.
std::optional<Link> link_above(std::string dir)
{
	std::string top = real_path(sysfs("/devices"));
	while (!top.empty() && dir.size() > top.size() && dir.compare(0, top.size() + 1, top + "/") == 0) {
		if (auto link = usb_link(dir))
			return link;
		if (auto link = sata_link(dir))
			return link;
		if (auto link = pcie_link(dir))
			return link;
		dir = dirname_of(dir);
	}
	return std::nullopt;
}

// An NVMe namespace with native multipathing sits under
// /devices/virtual/nvme-subsystem/nvme-subsysN, away from its PCIe
// function: its controller (the subsystem's nvmeN link) leads there.  With
// two controllers the multipath policy picks the link: none is named.
std::string nvme_controller(const std::string &disk)
{
	std::string subsystem = dirname_of(disk);
	if (base_name(subsystem).rfind("nvme-subsys", 0) != 0)
		return "";
	std::vector<std::string> controllers;
	for (const std::string &e : dir_entries(subsystem)) {
		unsigned n = 0;
		char rest = 0;
		if (std::sscanf(e.c_str(), "nvme%u%c", &n, &rest) == 1)
			controllers.push_back(real_path(subsystem + "/" + e));
	}
	return controllers.size() == 1 ? controllers[0] : "";
}

std::optional<Link> link_of(const std::string &disk)
{
	std::string controller = nvme_controller(disk);
	return link_above(controller.empty() ? disk : controller);
}

// The whole disks at the bottom of a stack of dm and md devices (for a
// partition, its disk), as sysfs directories.
void bottom_disks(const std::string &dir, std::vector<std::string> &disks, unsigned depth = 0)
{
	std::vector<std::string> slaves = dir_entries(dir + "/slaves");
	if (slaves.empty() || depth > 16) {
		std::string disk = access((dir + "/partition").c_str(), F_OK) == 0 ? dirname_of(dir) : dir;
		if (std::find(disks.begin(), disks.end(), disk) == disks.end())
			disks.push_back(disk);
		return;
	}
	for (const std::string &s : slaves) {
		std::string below = real_path(dir + "/slaves/" + s);
		if (!below.empty())
			bottom_disks(below, disks, depth + 1);
	}
}

// The driver of a paravirtual disk (the guest's half of a device the
// hypervisor emulates, whose writes the host may cache), known by the
// driver the disk's device is bound to, or a virtio device above it
// (virtio_scsi); "" for a disk of any other kind.
std::string paravirtual_driver(const std::string &disk)
{
	std::string driver = base_name(real_path(disk + "/device/driver"));
	for (const char *pv : {"virtio_blk", "xen-blkfront", "vbd", "hv_storvsc", "vmw_pvscsi", "virtio_scsi", "nvme-fc"})
		if (driver == pv)
			return driver;
	if (disk.find("/virtio") != std::string::npos)
		return "virtio";
	return "";
}

// A 0/1 sysfs flag; nothing when the file is missing or says otherwise.
std::optional<bool> sysfs_flag(const std::string &path)
{
	std::string v = read_line(path);
	if (v == "0" || v == "1")
		return v == "1";
	return std::nullopt;
}

// The queue flags of a device (a partition's are its disk's): the write
// cache, FUA, rotational; a loop device's direct-I/O mode.
void read_queue(const std::string &dir, Device &d)
{
	std::string queue = (access((dir + "/partition").c_str(), F_OK) == 0 ? dirname_of(dir) : dir) + "/queue";
	d.write_cache = read_line(queue + "/write_cache");
	if (d.write_cache != "write back" && d.write_cache != "write through")
		d.write_cache.clear();
	d.fua = sysfs_flag(queue + "/fua");
	d.rotational = sysfs_flag(queue + "/rotational");
	if (!d.backing_file.empty())
		d.loop_dio = sysfs_flag(dir + "/loop/dio");
}

// One block device, by its sysfs directory: a partition, dm or md device
// counts as itself; the link is the one of the disk below, if one.
Device device_at(const std::string &dir)
{
	Device d;
	d.name = base_name(dir);
	d.path = device_node(dir);
	d.alias = read_line(dir + "/dm/name");
	d.stats = {dir + "/stat"};
	d.slaves = dir_entries(dir + "/slaves");
	d.backing_file = read_line(dir + "/loop/backing_file");
	std::vector<std::string> disks;
	bottom_disks(dir, disks);
	for (const std::string &disk : disks)
		d.disks.push_back(base_name(disk));
	if (disks.size() == 1)
		d.link = link_of(disks[0]);
	read_queue(dir, d);
	for (const std::string &disk : disks)
		if (d.paravirtual.empty())
			d.paravirtual = paravirtual_driver(disk);
	return d;
}

// The file system id of the btrfs holding path, as sysfs spells it
// (/sys/fs/btrfs/FSID); "" when the ioctl fails.
std::string btrfs_fsid(const std::string &path)
{
	Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	btrfs_ioctl_fs_info_args info {};
	if (!fd || ioctl(fd.get(), BTRFS_IOC_FS_INFO, &info) != 0)
		return "";
	const unsigned char *u = info.fsid;
	return format("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
		      u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

// The copies of each data block btrfs writes: its data profile's, from
// sysfs (allocation/data/PROFILE: raid1, raid1c3, raid1c4, raid10 and dup
// keep two or more; single, raid0, raid5 and raid6 one, and parity).  The
// most of any profile present: a balance under way can hold two.
unsigned btrfs_copies(const std::string &fsid)
{
	unsigned copies = 1;
	for (const std::string &p : dir_entries(sysfs("/fs/btrfs/" + fsid + "/allocation/data"))) {
		unsigned c = p == "raid1" || p == "raid10" || p == "dup" ? 2 : p == "raid1c3" ? 3 : p == "raid1c4" ? 4 : 1;
		copies = std::max(copies, c);
	}
	return copies;
}

// btrfs gives its files an anonymous st_dev: its devices are the ones
// sysfs lists for the file system, and all of them together stand for it.
Device btrfs_devices(const std::string &fsid)
{
	std::string dir = sysfs("/fs/btrfs/" + fsid + "/devices");
	Device all;
	for (const std::string &name : dir_entries(dir)) {
		std::string real = real_path(dir + "/" + name);
		if (real.empty())
			continue;
		Device d = device_at(real);
		if (all.stats.empty()) {
			all = d;
			continue;
		}
		all.name += "+" + d.name;
		all.path += " " + d.path;
		all.stats.push_back(d.stats[0]);
		all.slaves.insert(all.slaves.end(), d.slaves.begin(), d.slaves.end());
		all.disks.insert(all.disks.end(), d.disks.begin(), d.disks.end());
		all.backing_file.clear();
		all.link.reset();	// which link carries what is the allocator's choice
	}
	if (all.stats.empty())
		all.reason = format("btrfs %s: sysfs lists no devices", fsid.c_str());
	all.copies = btrfs_copies(fsid);
	return all;
}

bool network_fs(const std::string &type)
{
	for (const char *net : {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "afs", "virtiofs", "glusterfs"})
		if (type == net)
			return true;
	return false;
}

// Why a file system's files have no block device to count their I/O.
std::string no_device_reason(const Plan &plan)
{
	const std::string &path = plan.targets[0].path;
	std::string type = mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (network_fs(type))
		return format("%s is on %s, a network file system: no local block device counts its I/O", path.c_str(),
			      type.c_str());
	if (fuse_fs(plan.fs_type))
		return format("%s is on %s, a FUSE file system without a block device", path.c_str(), type.c_str());
	return format("%s is on %s (device %u:%u), which has no block device in sysfs", path.c_str(), type.c_str(),
		      major(plan.fs_dev), minor(plan.fs_dev));
}

// The overlayfs mount that holds path: its mount point, "upperdir=" and
// "lowerdir=" (top first) from its super options in mountinfo; the mount
// whose st_dev is dev (a directory's), else the deepest overlay mount point
// above path (a file's st_dev is a per-layer one); empty when none is.
struct OverlayMount {
	std::string point, upper;
	std::vector<std::string> lowers;
};

OverlayMount overlay_mount(dev_t dev, const std::string &path, const std::string &mountinfo = "/proc/self/mountinfo")
{
	std::ifstream in(mountinfo);
	std::string line;
	OverlayMount found;
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		std::string id, parent, numbers, root, point, word, type, source, options;
		fields >> id >> parent >> numbers >> root >> point;
		while (fields >> word && word != "-")
			continue;
		if (!(fields >> type >> source >> options) || type != "overlay")
			continue;
		point = unescape_mount_field(point);
		unsigned ma = 0, mi = 0;
		bool same_dev = std::sscanf(numbers.c_str(), "%u:%u", &ma, &mi) == 2 && makedev(ma, mi) == dev;
		bool above = path == point || path.compare(0, point.size() + 1, point == "/" ? "/" : point + "/") == 0;
		if (!same_dev && !(above && point.size() > found.point.size()))
			continue;
		OverlayMount m;
		m.point = point;
		for (std::size_t at = 0; at < options.size();) {
			std::size_t comma = options.find(',', at);
			std::string opt = options.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
			if (opt.rfind("upperdir=", 0) == 0)
				m.upper = unescape_mount_field(opt.substr(9));
			if (opt.rfind("lowerdir=", 0) == 0)
				for (std::size_t l = 9; l <= opt.size();) {
					std::size_t colon = opt.find(':', l);
					m.lowers.push_back(unescape_mount_field(opt.substr(l, colon == std::string::npos ? std::string::npos : colon - l)));
					if (colon == std::string::npos)
						break;
					l = colon + 1;
				}
			if (comma == std::string::npos)
				break;
			at = comma + 1;
		}
		found = m;
		if (same_dev)
			return found;
	}
	return found;
}

// overlayfs (every container's root): its files have an anonymous st_dev.
// What sdb writes lands in the upper layer (a file is copied up there when
// first written); a file read that is not in the upper layer is read from
// the first lower layer that holds it.  That layer's device stands for
// the target; a layer on tmpfs is memory, with no device.
std::optional<Device> overlay_device(const Plan &plan)
{
	if (plan.fs_type != 0x794c7630)
		return std::nullopt;
	const Target &t = plan.targets[0];
	std::string where = real_path(t.kind == Kind::missing ? dirname_of(t.path) : t.path);
	OverlayMount m = overlay_mount(plan.fs_dev, where);
	if (m.upper.empty() && m.lowers.empty())
		return std::nullopt;
	std::string rel = where.size() > m.point.size() && m.point != "/" ? where.substr(m.point.size()) : m.point == "/" ? where : "";
	std::string layer = m.upper, role = "upper";
	if (t.kind != Kind::missing && !writes_target(plan.opt) && (m.upper.empty() || access((m.upper + rel).c_str(), F_OK) != 0))
		for (const std::string &lower : m.lowers)
			if (access((lower + rel).c_str(), F_OK) == 0) {
				layer = lower, role = "lower";
				break;
			}
	struct stat st {};
	if (layer.empty() || stat(layer.c_str(), &st) != 0)
		return std::nullopt;
	std::string dir = real_path(sysfs_dev(st.st_dev));
	if (dir.empty() || access((dir + "/stat").c_str(), R_OK) != 0) {
		struct statfs sf {};
		if (statfs(layer.c_str(), &sf) != 0 || !memory_fs(static_cast<std::uint32_t>(sf.f_type)))
			return std::nullopt;
		Device memory;
		memory.memory = fs_name(static_cast<std::uint32_t>(sf.f_type));
		memory.overlay_layer = role + " layer " + layer;
		memory.reason = format("%s is on overlayfs, whose %s layer %s is on %s: files in memory, no block device",
				       t.path.c_str(), role.c_str(), layer.c_str(), memory.memory.c_str());
		return memory;
	}
	Device d = device_at(dir);
	d.overlay_layer = role + " layer " + layer;
	return d;
}

// The device under the target: a block device itself, else the one of its
// file system; or none, with the reason.
Device find_device(const Plan &plan)
{
	const Target &t = plan.targets[0];
	Device none;
	if (t.kind == Kind::chr) {
		none.reason = format("%s is a character device: no block layer counts its I/O", t.path.c_str());
		return none;
	}
	if (t.kind != Kind::block && memory_fs(plan.fs_type)) {
		none.reason = format("%s is on %s: files in memory, no block device", t.path.c_str(),
				     fs_name(plan.fs_type).c_str());
		return none;
	}
	if (t.kind != Kind::block && plan.fs_type == BTRFS_SUPER_MAGIC) {
		std::string fsid = btrfs_fsid(t.kind == Kind::missing ? dirname_of(t.path) : t.path);
		if (!fsid.empty())
			return btrfs_devices(fsid);
	}
	if (t.kind != Kind::block)
		if (std::optional<Device> upper = overlay_device(plan))
			return *upper;
	std::string dir = real_path(sysfs_dev(plan.fs_dev));
	if (!dir.empty() && access((dir + "/stat").c_str(), R_OK) == 0)
		return device_at(dir);
	struct stat st {};	// FUSE over a block device its mount names (fuse2fs): that device
	if (!plan.backing_device.empty() && stat(plan.backing_device.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
		if (dir = real_path(sysfs_dev(st.st_rdev)); !dir.empty() && access((dir + "/stat").c_str(), R_OK) == 0)
			return device_at(dir);
	none.reason = no_device_reason(plan);
	return none;
}

// One line of a block device's stat file (Documentation/block/stat.rst):
// reads, reads merged, sectors read, ms reading, writes, writes merged,
// sectors written, ms writing, in flight, io_ticks (ms busy), then more
// on newer kernels.  A sector is 512 bytes, whatever the device's own.
struct DiskStat {
	std::uint64_t reads = 0, read_sectors = 0, writes = 0, write_sectors = 0, io_ticks = 0;
};

std::optional<DiskStat> parse_disk_stat(const std::string &line)
{
	std::istringstream in(line);
	std::uint64_t field[10];
	std::string word;
	for (std::uint64_t &f : field) {
		if (!(in >> word) || word.size() > 20 || word.find_first_not_of("0123456789") != std::string::npos)
			return std::nullopt;
		errno = 0;
		f = std::strtoull(word.c_str(), nullptr, 10);
		if (errno == ERANGE)
			return std::nullopt;
	}
	return DiskStat{field[0], field[2], field[4], field[6], field[9]};
}

// What the devices did between two readings: sectors summed over the
// devices, the busy time of the busiest one.  Nothing when a reading is
// missing or a counter went backwards (the device was reset or replaced).
struct DiskDelta {
	std::uint64_t reads = 0, read_bytes = 0, writes = 0, write_bytes = 0, busy_ms = 0;
};

std::optional<DiskDelta> disk_delta(const std::vector<std::string> &before, const std::vector<std::string> &after)
{
	if (before.empty() || before.size() != after.size())
		return std::nullopt;
	DiskDelta d;
	for (std::size_t i = 0; i < before.size(); i++) {
		std::optional<DiskStat> a = parse_disk_stat(before[i]), b = parse_disk_stat(after[i]);
		if (!a || !b || b->reads < a->reads || b->read_sectors < a->read_sectors || b->writes < a->writes ||
		    b->write_sectors < a->write_sectors || b->io_ticks < a->io_ticks)
			return std::nullopt;
		d.reads += b->reads - a->reads;
		d.read_bytes += (b->read_sectors - a->read_sectors) * 512;
		d.writes += b->writes - a->writes;
		d.write_bytes += (b->write_sectors - a->write_sectors) * 512;
		d.busy_ms = std::max(d.busy_ms, b->io_ticks - a->io_ticks);
	}
	return d;
}

// The bytes in fd's [start, end) that lie in unwritten extents (fallocate'd
// space, which reads as zeros without I/O), from FIEMAP; 0 where the file
// system has no FIEMAP.
std::uint64_t unwritten_bytes(int fd, std::uint64_t start, std::uint64_t end)
{
	constexpr unsigned batch = 32;
	alignas(fiemap) char space[sizeof(fiemap) + batch * sizeof(fiemap_extent)];
	auto *map = reinterpret_cast<fiemap *>(space);
	std::uint64_t unwritten = 0;
	for (std::uint64_t at = start; at < end;) {
		std::memset(space, 0, sizeof space);
		map->fm_start = at;
		map->fm_length = end - at;
		map->fm_extent_count = batch;
		if (ioctl(fd, FS_IOC_FIEMAP, map) != 0 || map->fm_mapped_extents == 0)
			break;
		std::uint64_t next = at;
		bool last = false;
		for (unsigned i = 0; i < map->fm_mapped_extents; i++) {
			const fiemap_extent &e = map->fm_extents[i];
			std::uint64_t lo = std::max<std::uint64_t>(e.fe_logical, at);
			std::uint64_t hi = std::min<std::uint64_t>(e.fe_logical + e.fe_length, end);
			if ((e.fe_flags & FIEMAP_EXTENT_UNWRITTEN) && hi > lo)
				unwritten += hi - lo;
			next = std::max<std::uint64_t>(next, e.fe_logical + e.fe_length);
			last = last || (e.fe_flags & FIEMAP_EXTENT_LAST);
		}
		if (last || next <= at)
			break;
		at = next;
	}
	return unwritten;
}

// The bytes of [start, end) of a file that read as zeros without I/O:
// holes (SEEK_DATA/SEEK_HOLE) and, in the data between them, unwritten
// extents.  (ext4 already counts an unwritten extent as a hole here: each
// byte is counted once either way.)
std::uint64_t hollow_bytes(int fd, std::uint64_t start, std::uint64_t end)
{
	std::uint64_t hollow = 0;
	for (std::uint64_t at = start; at < end;) {
		off_t data = lseek(fd, static_cast<off_t>(at), SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)	// no data from here to the end of the file
				hollow += end - at;
			break;
		}
		std::uint64_t from = std::min(static_cast<std::uint64_t>(data), end);
		hollow += from - at;
		if (from >= end)
			break;
		off_t hole = lseek(fd, data, SEEK_HOLE);
		std::uint64_t to = hole < 0 ? end : std::min(static_cast<std::uint64_t>(hole), end);
		hollow += unwritten_bytes(fd, from, to);
		if (to <= from)
			break;
		at = to;
	}
	return hollow;
}

// The share of what a read of the plan's files will cover that is holes
// or unwritten extents; 0 for devices and writes.
double hollow_share(const Plan &plan)
{
	if (is_write(plan.opt))
		return 0;
	std::uint64_t hollow = 0, covered = 0;
	for (const Target &t : plan.targets) {
		if (t.kind != Kind::file || t.existing <= t.base)
			continue;
		std::uint64_t end = t.base + std::min(t.size, t.existing - t.base);
		Fd fd(open(t.path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (t.follow ? 0 : O_NOFOLLOW)));
		if (!fd)
			continue;
		hollow += hollow_bytes(fd.get(), t.base, end);
		covered += end - t.base;
	}
	return covered ? static_cast<double>(hollow) / static_cast<double>(covered) : 0;
}

// SIZE as the command line takes it: 1073741824 -> "1g".
std::string size_arg(std::uint64_t bytes)
{
	for (auto [unit, suffix] : {std::pair{GiB, 'g'}, std::pair{MiB, 'm'}, std::pair{KiB, 'k'}})
		if (bytes >= unit && bytes % unit == 0)
			return format("%" PRIu64 "%c", bytes / unit, suffix);
	return std::to_string(bytes);
}

std::string rewrite_hint(const Plan &plan)
{
	return format("write it first: sdb -w -f %s -s %s -R (with --force for a file sdb did not make)",
		      plan.opt.file.c_str(), size_arg(plan.targets[0].size).c_str());
}

// Before a read: holes and unwritten extents would be read as zeros by the
// file system, and the device would never see those bytes.
std::string hollow_warning(const Plan &plan)
{
	double share = hollow_share(plan);
	if (share <= 0.01)
		return "";
	return format("%.0f%% of what this read covers is holes or unwritten (fallocate'd) extents: the file system "
		      "returns zeros there without reading the device; %s", share * 100, rewrite_hint(plan).c_str());
}

} // namespace
