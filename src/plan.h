// plan: everything decided before a thread starts or a file is created.
// Owns Target and Plan; which path each thread uses and how much of it;
// the safety rules (what sdb may overwrite, block devices in use, loop
// and swap backing files, and guard.h's checks: kernel file systems,
// images mounted anywhere, other writers, the run's lock on each target);
// O_DIRECT alignment; the memory budget (from sys.h's readers); what a read
// must evict besides the target (a fuseblk device, buffered loop devices'
// backing files).  make_plan() checks it all up front.
#pragma once

#include "base.h"
#include "sys.h"
#include "options.h"
#include "guard.h"
#include "stats.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

enum class Kind { missing, file, block, chr };

struct Target {
	std::string path;
	Kind kind = Kind::missing;
	std::uint64_t base = 0;		// first byte of this thread's region
	std::uint64_t size = 0;		// bytes in the region
	std::uint64_t existing = 0;	// current size of a file, capacity of a block device
	Identity id;			// what was checked (not for Kind::missing)
	bool follow = false;		// a symlink, followed because of --force
	bool sized_by_mark = false;	// a --verify read's size: what the --verify write left (verify_xattr)
};

// Where a run's threads do their I/O: a file each (FILE.0 .. FILE.N-1 with
// -j N), a region each of one file (the quick suite's test file) or block
// device, or all of them at offset 0 of one target (a character device).
// make_plan() is asked for per_thread or regions; a device decides itself,
// and files_of() says what a plan came to (--explain's fio options).
enum class Files { per_thread, regions, shared };

// Everything decided before any thread starts or any file is created.
struct Plan {
	Options opt;
	std::uint64_t block_size = 0;
	std::uint64_t slot_stride = 0;	// from one slot's buffer to the next: whole pages
	std::uint64_t pool = 0;		// -R writes of small blocks: random bytes to rotate through
	unsigned buffers = 0;		// one shared by all threads for zero-buffer writes; else
					// one per thread (reads, mixes, and -R writes, stamped per I/O)
	unsigned slots = 1;		// I/O buffers in each: the queue depth, twice it for a mix
					// (its writes' and its reads'), 1 when shared
	// io_uring: most SQEs per io_uring_enter (0: all that are queued).  At
	// QD32 on a virtio disk 4 gave more IOPS than 1 (a syscall per I/O)
	// and than all at once (the device idles while the batch is built).
	// Not where every I/O goes to io-wq: all at once there (ring_for()).
	unsigned submit_batch = 4;
	// io_uring: completions one io_uring_enter waits for; 0: one, or a
	// batch where every I/O goes to io-wq (punted_wait(), worker.h).
	unsigned wait_batch = 0;
	std::vector<Target> targets;
	unsigned dio_align = 0;		// bytes; 0 without -D
	std::string dio_align_source;
	std::uint32_t fs_type = 0;	// statfs f_type of the target's file system
	dev_t fs_dev = 0;		// device of that file system, or the block device
	std::string backing_device;	// fuseblk: the block device flushed (BLKFLSBUF) before reads
	int backing_error = 0;		// fuseblk: why it cannot be flushed (errno)
	std::vector<std::string> loop_backing;	// a read's buffered loop devices' backing files, below the
						// target: their pages are evicted with the target's
	std::string loop_backing_error;	// the first that sdb may not evict: "FILE of loopN: why"
	Fd exclusive;			// O_EXCL hold on a block device during writes
	std::vector<Fd> locks;		// the run's lock on each target (hold_lock())
	bool bounded_read = false;	// a device read without -s or -t: one pass, -t device_read_seconds
	std::uint64_t verify_seed = 0;	// --verify writes: from /dev/urandom, in every unit's header
};

Files files_of(const Plan &plan)
{
	const std::vector<Target> &t = plan.targets;
	if (t.size() > 1 && t[1].path != t[0].path)
		return Files::per_thread;
	return t.size() > 1 && t[1].base != 0 ? Files::regions : Files::shared;
}

bool is_write(const Options &o) { return o.op == Options::Op::write; }
bool is_mix(const Options &o) { return o.op == Options::Op::mix; }
// A write or a mix: the target is opened for writing, with every rule
// about what sdb may overwrite.
bool writes_target(const Options &o) { return o.op == Options::Op::write || o.op == Options::Op::mix; }

// Why O_DIRECT on path may be buffered I/O, or "" when nothing says so.  A
// file system that cannot do direct I/O on a file (ext4 data=journal, some
// btrfs files) quietly does buffered I/O instead, and says so only in
// statx: STATX_DIOALIGN answered with an offset alignment of 0.
std::string direct_io_doubt(const std::string &path)
{
#ifdef STATX_DIOALIGN
	struct statx stx {};
	if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN) &&
	    stx.stx_dio_offset_align == 0)
		return "statx reports no direct I/O for this file";
#else
	(void)path;
#endif
	return "";
}

// Drop a block device's own cache (BLKFLSBUF, root only): 0 or errno.
int flush_device(const std::string &device)
{
	Fd fd(open(device.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd)
		return errno;
	return ioctl(fd.get(), BLKFLSBUF, 0) == 0 ? 0 : errno;
}

// A block-backed FUSE file system (ntfs-3g on fuseblk; fuse2fs or ntfs-3g
// given a block device, whose mount's source names it): the daemon reads
// the device through the device's page cache, which evicting the file's
// pages does not touch.  Find the device and try a flush now, so that the
// warning before the run can say whether reads will reach it.
void find_backing_device(Plan &plan)
{
	const Target &t = plan.targets[0];
	if (!fuse_fs(plan.fs_type) || t.kind == Kind::block || t.kind == Kind::chr || plan.opt.cached)
		return;
	std::string device;
	if (mounted_fs_type(plan.fs_dev, plan.fs_type) == "fuseblk") {
		device = device_node(sysfs_dev(plan.fs_dev));
	} else {
		struct stat st {};
		for (const Mount &m : read_mounts())
			if (m.dev == plan.fs_dev && stat(m.source.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
				device = m.source;
	}
	if (device.empty())
		return;
	plan.backing_error = flush_device(device);
	if (!plan.backing_error)
		plan.backing_device = device;
}

// A read through a buffered loop device (loop/dio 0) is served by its
// backing file's page cache wherever that holds the bytes, so that a read
// of a loop device, or of a file on one, measures memory unless that cache
// is evicted too.  Follow the loops under the target (a backing file on
// another loop device, and on down) and keep each buffered one's backing
// file that sdb can open to evict (root, usually); the first it cannot is
// said before the run.
void find_loop_backing(Plan &plan)
{
	const Target &t = plan.targets[0];
	if (t.kind == Kind::chr || plan.opt.cached || is_write(plan.opt))
		return;
	std::string dir = sysfs_dev(plan.fs_dev);
	if (access((dir + "/partition").c_str(), F_OK) == 0)	// loop0p1: the loop device is its parent
		dir += "/..";
	for (unsigned depth = 0; depth < 8; depth++) {
		std::string backing = read_line(dir + "/loop/backing_file");
		if (backing.empty())
			return;
		std::string name = device_node(dir);
		if (read_line(dir + "/loop/dio") != "1") {
			Fd fd(open(backing.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
			if (fd)
				plan.loop_backing.push_back(backing);
			else if (plan.loop_backing_error.empty())
				plan.loop_backing_error = format("%s of %s: %s", backing.c_str(), name.c_str(), std::strerror(errno));
		}
		struct stat st {};
		if (stat(backing.c_str(), &st) != 0)
			return;
		dir = sysfs_dev(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev);
		if (access((dir + "/partition").c_str(), F_OK) == 0)
			dir += "/..";
	}
}

// Evict the page cache of the buffered loop devices' backing files under
// the target (find_loop_backing): 0 or -errno.
int drop_loop_backing(const Plan &plan)
{
	for (const std::string &f : plan.loop_backing) {
		Fd fd(open(f.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
		if (!fd)
			return -errno;
		if (int err = posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED))
			return -err;
	}
	return 0;
}

// O_DIRECT alignment for a path (or the directory a new file goes into).
// statx STATX_DIOALIGN where the kernel has it, BLKSSZGET on block devices,
// else the logical block size of the file system's device, else 4096.
unsigned dio_alignment(const std::string &path, Kind kind, dev_t fs_dev, std::string &source)
{
	if (kind == Kind::block) {
		Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
		int lbs = 0;
		if (fd && ioctl(fd.get(), BLKSSZGET, &lbs) == 0 && lbs > 0) {
			source = "BLKSSZGET";
			return static_cast<unsigned>(lbs);
		}
	}
#ifdef STATX_DIOALIGN
	struct statx stx {};
	const std::string &probe = kind == Kind::missing ? dirname_of(path) : path;
	if (statx(AT_FDCWD, probe.c_str(), 0, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0) {
		source = "statx";
		return std::max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
	}
#endif
	if (kind != Kind::chr) {
		unsigned long lbs = std::strtoul(read_line(sysfs_dev(fs_dev) + "/queue/logical_block_size").c_str(), nullptr, 10);
		if (lbs == 0)	// a partition: the queue lives with the whole disk
			lbs = std::strtoul(read_line(sysfs_dev(fs_dev) + "/../queue/logical_block_size").c_str(), nullptr, 10);
		if (lbs >= 512 && lbs <= 65536 && (lbs & (lbs - 1)) == 0) {
			source = "logical block size";
			return static_cast<unsigned>(lbs);
		}
	}
	source = "default";
	return 4096;
}

// The loop devices whose backing file is the inode `st` describes (a
// regular file, or a block device node, compared by device number), from
// whichever mount namespace they were set up (see loop_backs()).
std::vector<std::string> loop_users(const struct stat &st)
{
	std::vector<std::string> loops;
	DIR *d = opendir("/sys/block");
	if (!d)
		return loops;
	while (dirent *e = readdir(d))
		if (std::strncmp(e->d_name, "loop", 4) == 0 && loop_backs(e->d_name, st))
			loops.push_back(std::string("/dev/") + e->d_name);
	closedir(d);
	std::sort(loops.begin(), loops.end());
	return loops;
}

// A swap area that is this file or device (/proc/swaps escapes as mountinfo does).
bool is_swap(const struct stat &st)
{
	std::ifstream in("/proc/swaps");
	std::string line;
	std::getline(in, line);	// the header
	while (std::getline(in, line)) {
		std::string path = unescape_mount_field(line.substr(0, line.find_first_of(" \t")));
		struct stat s {};
		if (stat(path.c_str(), &s) != 0)
			continue;
		if (S_ISBLK(st.st_mode) ? S_ISBLK(s.st_mode) && s.st_rdev == st.st_rdev : identity_of(s) == identity_of(st))
			return true;
	}
	return false;
}

std::string device_users(dev_t dev, unsigned depth, dev_t via = 0);

// Who uses a regular file as a disk: a loop device (and whoever uses that),
// a swap area, a mount of the file itself (fuse2fs, ntfs-3g on an image)
// in any mount namespace, a FUSE daemon among its holders (its mount may
// be where sdb cannot see it): what `others` found.  Empty when nobody does.
std::string file_users(const struct stat &st, unsigned depth, const Survey &others,
		       const std::vector<Holder> &holders)
{
	for (const std::string &loop : loop_users(st)) {
		struct stat l {};
		std::string deeper = depth < 8 && stat(loop.c_str(), &l) == 0 ? device_users(l.st_rdev, depth + 1) : "";
		return "it backs the loop device " + loop + (deeper.empty() ? "" : ", which is " + deeper);
	}
	if (is_swap(st))
		return "it is an active swap area";
	if (std::string mounted = mounted_anywhere(st, others); !mounted.empty())
		return mounted;
	for (const Holder &h : holders)
		if (h.fuse_server)
			return format("it is held open by PID %d (%s), a FUSE daemon: the image of its file system, "
				      "or a file it serves", static_cast<int>(h.pid), h.comm.c_str());
	return "";
}

// Who uses a block device: a mount of it or of a partition, a holder (md,
// LVM, dm-crypt), a swap area, a loop device it backs (other than `via`,
// the loop device asking), or, for a loop device, whoever uses what it is
// backed by.  Empty when nobody does.
std::string device_users(dev_t dev, unsigned depth, dev_t via)
{
	std::vector<std::pair<std::string, dev_t>> devs{{"", dev}};
	std::string sys = sysfs_dev(dev);
	if (DIR *d = opendir(sys.c_str())) {
		while (dirent *e = readdir(d)) {
			std::string part = sys + "/" + e->d_name;
			if (e->d_name[0] == '.' || access((part + "/partition").c_str(), F_OK) != 0)
				continue;
			unsigned ma = 0, mi = 0;
			if (std::sscanf(read_line(part + "/dev").c_str(), "%u:%u", &ma, &mi) == 2)
				devs.push_back({e->d_name, makedev(ma, mi)});
		}
		closedir(d);
	}
	std::vector<Mount> mounts = read_mounts();
	for (auto &[part, num] : devs) {
		std::string who = part.empty() ? "" : "partition " + part + " ";
		for (const Mount &m : mounts)
			if (m.dev == num)
				return who + "mounted on " + m.point;
		std::string holders = sysfs_dev(num) + "/holders";
		if (DIR *d = opendir(holders.c_str())) {
			std::string name;
			while (dirent *e = readdir(d))
				if (e->d_name[0] != '.')
					name = e->d_name;
			closedir(d);
			if (!name.empty())
				return who + "held by " + name + " (md, LVM or device mapper)";
		}
		struct stat node {};
		node.st_mode = S_IFBLK;
		node.st_rdev = num;
		if (is_swap(node))
			return who + "an active swap area";
		for (const std::string &loop : loop_users(node)) {
			struct stat l {};
			if (stat(loop.c_str(), &l) != 0 || l.st_rdev != via)
				return who + "the backing device of " + loop;
		}
	}
	// A loop device passes its writes on to its backing file or device.
	std::string backing = read_line(sys + "/loop/backing_file");
	struct stat b {};
	if (!backing.empty() && depth < 8 && stat(backing.c_str(), &b) == 0) {
		std::string users = S_ISBLK(b.st_mode) ? device_users(b.st_rdev, depth + 1, dev) : "";
		if (S_ISREG(b.st_mode)) {	// other loop devices on the same file count, this one not
			for (const std::string &loop : loop_users(b)) {
				struct stat l {};
				if (stat(loop.c_str(), &l) == 0 && l.st_rdev != dev && !device_users(l.st_rdev, depth + 1).empty())
					users = "also behind " + loop + ", which is " + device_users(l.st_rdev, depth + 1);
			}
			if (users.empty() && is_swap(b))
				users = "an active swap area";
		}
		if (!users.empty())
			return "backed by " + backing + ", " + users;
	}
	return "";
}

// Writing to a block device (--force given): nobody using it, and an O_EXCL hold
// for the whole run so that nobody mounts it meanwhile.
Error claim_block_device(const std::string &path, dev_t rdev, Plan &plan)
{
	std::string users = device_users(rdev, 0);
	if (!users.empty())
		return runtime_error("%s is in use (%s): refusing to write to it, even with --force", path.c_str(), users.c_str());
	plan.exclusive = Fd(open(path.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
	if (!plan.exclusive && errno == EBUSY)
		return runtime_error("%s is in use (open with O_EXCL: %s): refusing to write to it, even with --force",
				     path.c_str(), std::strerror(errno));
	if (!plan.exclusive)
		return sys_error(errno, "open: %s", path.c_str());
	return {};
}

// A block device's capacity; an error when it cannot even be opened
// (EACCES must not read as "a device of 0 bytes").
Error block_device_size(const std::string &path, std::uint64_t &bytes)
{
	bytes = 0;
	Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd)
		return sys_error(errno, "open: %s", path.c_str());
	if (ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0)
		return sys_error(errno, "BLKGETSIZE64: %s", path.c_str());
	return {};
}

// Character devices that are safe to write: the rest (/dev/sg*, /dev/mtd*,
// /dev/port ...) may be hardware, and need --force like a block device.
bool harmless_char_device(dev_t rdev)
{
	return major(rdev) == 1 && (minor(rdev) == 3 || minor(rdev) == 5 || minor(rdev) == 7);	// null, zero, full
}

bool sticky_shared_dir(const std::string &dir)
{
	struct stat st {};
	return stat(dir.c_str(), &st) == 0 && (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
}

// May sdb write over this existing regular file?  Asked of the open
// descriptor fd, whose fstat is st.  `ours`: a file this sdb made (the
// quick suite's), known by identity where no mark can be kept.  others:
// what the other processes have, surveyed here once for all targets.
Error check_overwrite(const Target &t, int fd, const struct stat &st, const Options &o, const Identity *ours,
		      Survey &others)
{
	const char *path = t.path.c_str();
	if (!others.taken)
		others = survey();
	if (!others.blind.empty() && !(ours && *ours == identity_of(st)))
		return runtime_error("cannot tell whether %s is in use: %s; refusing to write to it, even with --force",
				     path, others.blind.c_str());
	std::vector<Holder> holders = holders_of(st, others);
	std::string users = file_users(st, 0, others, holders);
	if (!users.empty())
		return runtime_error("%s is in use (%s): refusing to write to it, even with --force", path, users.c_str());
	if (!o.force)
		for (const Holder &h : holders)
			if (h.writes)
				return usage_error("%s is open for writing by PID %d (%s): its writes and sdb's would mix; "
						   "add --force if you mean it", path, static_cast<int>(h.pid), h.comm.c_str());
	if (o.force || (ours && *ours == identity_of(st)))
		return {};
	if (st.st_nlink > 1)
		return usage_error("%s has %ju links: writing to it changes the file under its other names too; "
				   "add --force if you mean it", path, static_cast<std::uintmax_t>(st.st_nlink));
	if (st.st_size == 0)
		return {};
	char mark[16];
	if (fgetxattr(fd, owner_xattr, mark, sizeof mark) >= 0)
		return {};
	if (errno == ENOTSUP)
		return usage_error("%s exists, and its file system keeps no extended attributes to tell sdb's own files by: "
				   "add --force to overwrite it", path);
	return usage_error("%s exists and sdb did not create it: add --force to overwrite it "
			   "(sdb rewrites only its own files and empty ones)", path);
}

// A symlink as the target of a write: only with --force, and never one in
// a sticky world-writable directory (/tmp), where anybody may have planted it.
Error check_symlink(const Target &t, const Options &o)
{
	if (!writes_target(o))
		return {};
	std::string dir = dirname_of(t.path);
	if (sticky_shared_dir(dir))	// before the hint about --force, which would not help
		return runtime_error("%s is a symbolic link in %s, a sticky world-writable directory: "
				     "refusing to follow it, even with --force", t.path.c_str(), dir.c_str());
	if (!o.force)
		return usage_error("%s is a symbolic link: sdb writes through one only with --force", t.path.c_str());
	return {};
}

// A write's target on a kernel pseudo-file system (kernel_fs_name()):
// refused, --force or not.
Error refuse_kernel_fs(const struct statfs &sfs, const std::string &path)
{
	if (const char *name = kernel_fs_name(static_cast<std::uint32_t>(sfs.f_type)))
		return runtime_error("%s is on %s, a kernel pseudo-file system whose files are the kernel's settings: "
				     "sdb never writes there, even with --force", path.c_str(), name);
	return {};
}

// A path that does not exist yet, for a write: its directory must exist,
// and not be /dev (a mistyped device name would become a file in RAM).
Error inspect_missing(Target &t, struct stat &st)
{
	std::string dir = dirname_of(t.path);
	if (stat(dir.c_str(), &st) != 0)
		return sys_error(errno, "%s", t.path.c_str());
	if (!S_ISDIR(st.st_mode))
		return sys_error(ENOTDIR, "%s", t.path.c_str());
	struct statfs sfs {};
	if (statfs(dir.c_str(), &sfs) == 0)
		if (Error e = refuse_kernel_fs(sfs, t.path))
			return e;
	for (const Mount &m : read_mounts())
		if (m.dev == st.st_dev && m.type == "devtmpfs")
			return runtime_error("%s: no such device, and sdb creates no files in %s (a mistyped device name?)",
					     t.path.c_str(), dir.c_str());
	t.kind = Kind::missing;
	return {};
}

// A regular file to be written: open it for real (it has no side effects
// on a regular file) and ask the descriptor, which must be the inode the
// path named a moment ago.
Error inspect_file_for_write(Target &t, const struct stat &st, const Options &o, const Identity *ours, Fd &lock,
			     Survey &others)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (t.follow ? 0 : O_NOFOLLOW);
	Fd fd(open(t.path.c_str(), flags));
	if (!fd && errno == EACCES)	// writable but not readable
		fd = Fd(open(t.path.c_str(), (flags & ~O_ACCMODE) | O_WRONLY));
	if (!fd)
		return sys_error(errno, "open: %s", t.path.c_str());
	struct stat now {};
	if (fstat(fd.get(), &now) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (identity_of(now) != identity_of(st))
		return runtime_error("%s changed while sdb was checking it: refusing to use it", t.path.c_str());
	if (!(ours && *ours == t.id))	// locked first: another sdb run that writes it is named as one
		if (Error e = lock_target(fd.get(), t.path, true))
			return e;
	if (Error e = check_overwrite(t, fd.get(), now, o, ours, others))
		return e;
	lock = std::move(fd);
	return {};
}

// What one path is and whether sdb may use it, learned from a descriptor:
// O_PATH opens no device and never waits on a FIFO; O_NOFOLLOW shows a
// symlink as one.  st: the target's stat (its directory's, when missing);
// lock: the descriptor that holds a write's lock on a file (see hold_lock());
// others: see check_overwrite().
Error inspect(Target &t, const Options &o, const Identity *ours, struct stat &st, Fd &lock, Survey &others)
{
	Fd fd(open(t.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
	if (!fd && errno == ENOENT && writes_target(o))
		return inspect_missing(t, st);
	if (!fd || fstat(fd.get(), &st) != 0)
		return sys_error(errno, "%s", t.path.c_str());
	if (S_ISLNK(st.st_mode)) {
		if (Error e = check_symlink(t, o))
			return e;
		fd = Fd(open(t.path.c_str(), O_PATH | O_CLOEXEC));
		if (!fd && errno == ENOENT && writes_target(o))
			return runtime_error("%s is a symbolic link to nothing: sdb creates new files only at the path it is given",
					     t.path.c_str());
		if (!fd || fstat(fd.get(), &st) != 0)
			return sys_error(errno, "%s", t.path.c_str());
		t.follow = true;
	}
	t.id = identity_of(st);
	struct statfs sfs {};
	if (writes_target(o) && fstatfs(fd.get(), &sfs) == 0)	// before any other check: --force cannot help
		if (Error e = refuse_kernel_fs(sfs, t.path))
			return e;
	if (S_ISDIR(st.st_mode))
		return sys_error(EISDIR, "%s", t.path.c_str());
	if (S_ISBLK(st.st_mode)) {
		t.kind = Kind::block;
		if (writes_target(o) && !o.force)	// before touching the device at all
			return usage_error("%s is a block device: writing destroys its data; add --force if you mean it",
					   t.path.c_str());
		return block_device_size(t.path, t.existing);
	}
	if (S_ISCHR(st.st_mode)) {
		t.kind = Kind::chr;
		if (writes_target(o) && !o.force && !harmless_char_device(st.st_rdev))
			return usage_error("%s is a character device that may be hardware: add --force to write to it",
					   t.path.c_str());
		return {};
	}
	if (!S_ISREG(st.st_mode))
		return runtime_error("%s: not a regular file or a device (%s)", t.path.c_str(),
				     S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "unknown kind");
	t.kind = Kind::file;
	t.existing = static_cast<std::uint64_t>(st.st_size);
	return writes_target(o) ? inspect_file_for_write(t, st, o, ours, lock, others) : Error{};
}

// The file system under the first target (or the block device itself),
// and the O_EXCL hold on a block device that is to be written.
Error note_file_system(Plan &plan, const Target &t, const struct stat &st)
{
	plan.fs_dev = t.kind == Kind::block ? st.st_rdev : st.st_dev;
	struct statfs sfs {};
	std::string probe = t.kind == Kind::missing ? dirname_of(t.path) : t.path;
	if (statfs(probe.c_str(), &sfs) == 0)
		plan.fs_type = static_cast<std::uint32_t>(sfs.f_type);
	if (t.kind == Kind::block && writes_target(plan.opt))
		return claim_block_device(t.path, st.st_rdev, plan);
	return {};
}

// The run's lock on target t (lock_target()), kept in plan.locks while the
// plan lives: the descriptor a write's file was inspected through, else
// one opened for it.  None on a new file (the worker that creates it takes
// it), a character device (/dev/zero has nothing to protect), or the quick
// suite's target (ours: the suite holds that lock from start to end).
Error hold_lock(Plan &plan, const Target &t, const Identity *ours, Fd lock)
{
	if (t.kind == Kind::missing || t.kind == Kind::chr || (ours && *ours == t.id))
		return {};
	if (!lock) {
		lock = Fd(open(t.path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (t.follow ? 0 : O_NOFOLLOW)));
		struct stat st {};
		if (!lock || fstat(lock.get(), &st) != 0)
			return sys_error(errno, "open: %s", t.path.c_str());
		if (identity_of(st) != t.id)
			return runtime_error("%s changed while sdb was checking it: refusing to use it", t.path.c_str());
		if (Error e = lock_target(lock.get(), t.path, writes_target(plan.opt)))
			return e;
	}
	plan.locks.push_back(std::move(lock));
	return {};
}

// The list of targets: FILE, FILE.0..FILE.N-1, or one device (or, for
// Files::regions, one file) for all.
Error make_targets(Plan &plan, const Identity *ours, Files files)
{
	const Options &o = plan.opt;
	struct stat st {};
	bool exists = stat(o.file.c_str(), &st) == 0;
	bool shared = o.threads == 1 || files == Files::regions ||
		      (exists && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)));
	if (!shared && exists && S_ISDIR(st.st_mode))
		return sys_error(EISDIR, "%s", o.file.c_str());
	Survey others;	// taken when the first existing file to be written is checked
	for (unsigned i = 0; i < (shared ? 1 : o.threads); i++) {
		Target t;
		t.path = shared ? o.file : format("%s.%u", o.file.c_str(), i);
		struct stat tst {};
		Fd lock;
		if (Error e = inspect(t, o, ours, tst, lock, others))
			return e;
		if (!shared && (t.kind == Kind::block || t.kind == Kind::chr))	// --force and the in-use checks are for -f itself
			return runtime_error("%s is a device: with -j, FILE.0 .. FILE.N-1 must be regular files "
					     "(give the device itself to -f)", t.path.c_str());
		if (Error e = hold_lock(plan, t, ours, std::move(lock)))	// first: another sdb run is named as one
			return e;
		if (i == 0)
			if (Error e = note_file_system(plan, t, tst))
				return e;
		plan.targets.push_back(t);
	}
	if (shared)
		plan.targets.assign(o.threads, plan.targets[0]);
	return {};
}

// A read of a block device with neither -s nor -t (nor --verify, which
// checks every unit): the most seconds it runs, in one pass (hdparm -t reads for about 3; the whole of an 8 TB disk
// takes 12 hours).
constexpr double device_read_seconds = 10;

// What a finished --verify write left in the file at path (verify_xattr);
// nothing where it left no mark (another writer, a file system without
// extended attributes).
std::optional<std::uint64_t> verified_bytes(const Target &t)
{
	char mark[24] = {};
	ssize_t n = (t.follow ? getxattr : lgetxattr)(t.path.c_str(), verify_xattr, mark, sizeof mark - 1);
	if (n <= 0)
		return std::nullopt;
	char *end = nullptr;
	unsigned long long bytes = std::strtoull(mark, &end, 10);
	if (end != mark + n || bytes == 0 || !std::isdigit(static_cast<unsigned char>(mark[0])))
		return std::nullopt;
	return bytes;
}

// Bytes per thread and where each thread's region starts.
Error size_targets(Plan &plan, Files files)
{
	const Options &o = plan.opt;
	if (!o.size && o.time_limit <= 0 && o.op == Options::Op::read && !o.verify && !plan.targets.empty() &&
	    plan.targets[0].kind == Kind::block) {	// --verify checks all of it
		plan.opt.time_limit = device_read_seconds;
		plan.bounded_read = true;
	}
	for (std::size_t i = 0; i < plan.targets.size(); i++) {
		Target &t = plan.targets[i];
		if (o.size) {
			t.size = o.size;
		} else if (is_write(o) || (is_mix(o) && (t.kind == Kind::missing || (t.kind == Kind::file && t.existing == 0)))) {
			t.size = GiB;	// a mix on a new or empty file: laid out to 1 GiB first
		} else if (t.kind == Kind::chr) {
			return usage_error("-s SIZE is required to read the character device %s", t.path.c_str());
		} else if (t.kind == Kind::block) {
			t.size = t.existing / o.threads / plan.block_size * plan.block_size;
		} else if (std::optional<std::uint64_t> left = o.verify ? verified_bytes(t) : std::nullopt) {
			t.size = *left;	// a truncated file's missing units are counted
			t.sized_by_mark = true;
		} else {
			t.size = t.existing;
		}
		if (t.size == 0)
			return runtime_error("%s: %s, nothing to read", t.path.c_str(),
					     t.kind == Kind::block ? "device smaller than one block per thread" : "file is empty");
		if (t.kind == Kind::block || files == Files::regions)
			t.base = i * t.size;
		if (t.size > max_offset || (t.base && t.base / i != t.size) || t.base > max_offset - t.size)
			return usage_error("-s %s: %u region(s) of it end past the largest possible file offset (8 EiB)",
					   format_bytes(t.size).c_str(), static_cast<unsigned>(i + 1));
		if (t.kind == Kind::block && t.existing < t.base + t.size)
			return runtime_error("%s: short device: %s, but %u thread(s) x %s need more", t.path.c_str(),
					     format_bytes(t.existing).c_str(), o.threads, format_bytes(t.size).c_str());
		if (t.size < plan.block_size && (o.block_size || o.random))	// one short I/O is not a "1 MiB block" run
			return usage_error("%s%s is smaller than one %s block (-b): %s; give a smaller -b",
					   o.size ? "-s " : "", o.size ? format_bytes(t.size).c_str()
					   : (t.path + ": " + format_bytes(t.size)).c_str(), format_bytes(plan.block_size).c_str(),
					   o.random ? "random mode has nothing to do" : "less than one I/O to time");
	}
	// The default block is no larger than the smallest region: the header
	// then says what ran ("4 KiB blocks"), not a 1 MiB block never moved.
	for (const Target &t : plan.targets)
		if (!o.block_size && t.size < plan.block_size)
			plan.block_size = t.size;
	return {};
}

// With -D, every I/O length and offset must be a multiple of dio_align.
Error check_alignment(Plan &plan)
{
	const Options &o = plan.opt;
	const Target &t = plan.targets[0];
	plan.dio_align = dio_alignment(t.path, t.kind, plan.fs_dev, plan.dio_align_source);
	unsigned a = plan.dio_align;
	if (plan.block_size % a)
		return usage_error("-b %" PRIu64 ": O_DIRECT on %s needs multiples of %u bytes", plan.block_size,
				   t.path.c_str(), a);
	for (const Target &x : plan.targets) {
		std::uint64_t tail = o.random ? 0 : x.size % plan.block_size;
		if (tail % a || x.base % a)
			return usage_error("-s %" PRIu64 ": O_DIRECT on %s needs a size that is a multiple of %u bytes%s",
					   x.size, x.path.c_str(), a, o.size ? "" : " (the file's size is not; give -s)");
	}
	return {};
}

// a * b + c, or UINT64_MAX when that does not fit.
std::uint64_t saturating(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0)
{
	std::uint64_t r;
	if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
		return UINT64_MAX;
	return r;
}

// The I/O buffers and each thread's latency histogram must fit in memory
// with room to spare: checked before anything is allocated.
Error check_memory(Plan &plan)
{
	// The latency histogram, and --fsync's, and a mix's for reads and writes.
	unsigned per_thread = 1 + (plan.opt.fsync_every ? 1 : 0) + (is_mix(plan.opt) ? 2 : 0);
	std::uint64_t histograms = saturating(plan.opt.threads, saturating(per_thread, histogram_bytes()));
	std::uint64_t need = saturating(saturating(plan.slot_stride, plan.slots), plan.buffers, histograms);
	std::uint64_t have = available_memory();
	if (need > have / 10 * 9)
		return usage_error("-b %s: %u buffer(s) of %u block(s) need %s of memory, but only %s is available",
				   format_bytes(plan.block_size).c_str(), plan.buffers, plan.slots,
				   need == UINT64_MAX ? "more than 16 EiB" : format_bytes(need).c_str(),
				   format_bytes(have).c_str());
	return {};
}

// --verify: a target that gives back what was written, in whole units,
// and the seed of a write.
Error plan_verify(Plan &plan)
{
	const Options &o = plan.opt;
	if (!o.verify)
		return {};
	for (const Target &t : plan.targets) {
		if (is_write(o) && t.kind == Kind::chr)
			return usage_error("--verify: %s is a character device: what is written there cannot be read back",
					   t.path.c_str());
		if (t.size % (4 * KiB))
			return usage_error("--verify: %s is %" PRIu64 " bytes, not a multiple of 4k: give -s", t.path.c_str(),
					   t.size);
	}
	if (is_write(o) && getrandom(&plan.verify_seed, sizeof plan.verify_seed, 0) != sizeof plan.verify_seed)
		return sys_error(errno, "--verify: cannot read a seed from /dev/urandom");
	return {};
}

// Where buffers (slots, rotations in the pool) start: on whole pages, or on
// the direct-I/O alignment where that is larger.
std::uint64_t buffer_step(const Plan &plan)
{
	return std::max<std::uint64_t>(4096, plan.dio_align);
}

// Check everything that can be checked before touching a target.  ours:
// a file this sdb made (the quick suite's), which it may rewrite.
Error make_plan(const Options &opt, Plan &plan, const Identity *ours = nullptr, Files files = Files::per_thread)
{
	plan.opt = opt;
	plan.block_size = opt.block_size ? opt.block_size : opt.random ? 4 * KiB : MiB;
	if (plan.block_size > max_offset)
		return usage_error("-b %s: larger than the largest possible file offset (8 EiB)",
				   format_bytes(plan.block_size).c_str());
	if (Error e = make_targets(plan, ours, files))
		return e;
	if (Error e = size_targets(plan, files))
		return e;
	if (Error e = plan_verify(plan))
		return e;
	if (opt.direct)
		if (Error e = check_alignment(plan))
			return e;
	find_backing_device(plan);
	find_loop_backing(plan);
	std::uint64_t largest = 0;
	for (const Target &t : plan.targets)
		largest = std::max(largest, t.size);
	std::uint64_t buffer_size = std::min(plan.block_size, largest);	// one I/O's
	if (plan.dio_align)
		buffer_size = (buffer_size + plan.dio_align - 1) / plan.dio_align * plan.dio_align;
	// Reads need a buffer per thread and I/O in flight; so do -R writes,
	// whose blocks are stamped before they go.  Those also start at a
	// rotating place (rotation(), worker.h) when a thread's slots hold less
	// than 1 MiB, so that a compression record (ZFS, btrfs: 128 KiB) never
	// holds one block twice: each slot gets `places` more steps of random
	// bytes, their number prime to the slots' (I/O n takes slot n % slots
	// and place n % places), so that the blocks repeat only after slots x
	// places of them, 1 MiB or more.  Slots that hold 1 MiB between them
	// need none, and a deep queue's buffers stay what its I/Os need (-q 4096
	// -b 4k: 16 MiB, not 4 GiB).  A mix has both: each thread's slots to
	// write from, then as many to read into, so that a read never changes
	// what the next write sends.
	bool shared = is_write(opt) && !opt.random_buffer;
	plan.buffers = shared ? 1 : opt.threads;
	plan.slots = shared ? 1 : is_mix(opt) ? 2 * opt.queue_depth : opt.queue_depth;
	const std::uint64_t step = buffer_step(plan), slot = (buffer_size + step - 1) / step * step;
	plan.pool = 0;
	if (writes_target(opt) && opt.random_buffer && !opt.verify && saturating(slot, plan.slots) < MiB) {
		std::uint64_t places = (MiB / step + plan.slots - 1) / plan.slots;
		while (std::gcd<std::uint64_t>(places, plan.slots) != 1)
			places++;
		plan.pool = places * step;
	}
	plan.slot_stride = slot + plan.pool;
	if (const char *batch = std::getenv("SDB_SUBMIT_BATCH"))
		plan.submit_batch = parse_count(batch, 0, 4096).value_or(plan.submit_batch);
	if (const char *batch = std::getenv("SDB_WAIT_BATCH"))
		plan.wait_batch = parse_count(batch, 0, 4096).value_or(plan.wait_batch);
	return check_memory(plan);
}

} // namespace
