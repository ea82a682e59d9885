// guard: what sdb may touch, and who else is using it.  The kernel's
// pseudo-file systems (sys.h's kernel_fs_name), never written; what the
// other processes have (the mount tables and /proc that sys.h reads), read
// once (Survey): a file mounted in any namespace (mounted_anywhere), the
// processes that hold a file open, a FUSE daemon serving it or a writer
// (holders_of); the loop devices backed by an inode, asked by inode, not
// by a path that another namespace may name differently (loop_backs);
// the run's lock on each target and who holds it
// (lock_target, lock_note).  Removing a file only while its path still
// names the inode sdb holds open (remove_if_same) is signals.h's, where a
// second Ctrl-C needs it.  plan.h, worker.h, run.h and quick.h call these.
#pragma once

#include "base.h"
#include "sys.h"
#include "signals.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

// Which inode a path named when it was checked: the open that does the
// I/O must find the same one, or the checks said nothing about it.
struct Identity {
	dev_t dev = 0;
	ino_t ino = 0;
	bool operator==(const Identity &o) const { return dev == o.dev && ino == o.ino; }
	bool operator!=(const Identity &o) const { return !(*this == o); }
};

Identity identity_of(const struct stat &st) { return {st.st_dev, st.st_ino}; }

// What the other processes have: the regular files they hold open, which
// of them are FUSE daemons, and the regular files mounted as images in
// any mount namespace.  Read once for all of a plan's targets (one scan of
// /proc takes milliseconds; one per file of -j 256 took seconds), and only
// what sdb may look at: every process as root, else the user's own.
struct Survey {
	struct Open {
		Identity id;
		pid_t pid;
		bool writes;		// open for writing (fdinfo's flags)
	};
	struct Mounted {
		Identity id;
		std::string point;
		pid_t pid;		// a process in that mount namespace; 0: this one
	};
	std::vector<Open> open;
	std::set<pid_t> fuse_servers;	// processes that hold /dev/fuse
	std::vector<Mounted> mounted;
	bool taken = false;
	std::string blind;	// why sdb cannot see the other processes ("/proc is not mounted"); empty: it can
};

// The access mode of descriptor `fd` of a process, from its fdinfo.
bool open_for_writing(int fdinfo_dir, const char *fd)
{
	int info = openat(fdinfo_dir, fd, O_RDONLY | O_CLOEXEC);
	if (info < 0)
		return false;
	char text[256];
	ssize_t n = read(info, text, sizeof text - 1);
	close(info);
	if (n <= 0)
		return false;
	text[n] = '\0';
	const char *flags = std::strstr(text, "flags:");
	if (!flags)
		return false;
	long mode = std::strtol(flags + 6, nullptr, 8) & O_ACCMODE;
	return mode == O_WRONLY || mode == O_RDWR;
}

// The regular files process pid holds (/proc/PID/fd names the open file
// itself, in whatever mount namespace it was opened), and /dev/fuse.
void survey_descriptors(pid_t pid, Survey &s)
{
	int fds = open(format("/proc/%d/fd", static_cast<int>(pid)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int infos = open(format("/proc/%d/fdinfo", static_cast<int>(pid)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fds >= 0 ? fdopendir(dup(fds)) : nullptr;
	while (d)
		if (dirent *e = readdir(d)) {
			struct stat st {};
			if (e->d_name[0] == '.' || fstatat(fds, e->d_name, &st, 0) != 0)
				continue;
			if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(10, 229))	// /dev/fuse
				s.fuse_servers.insert(pid);
			else if (S_ISREG(st.st_mode))
				s.open.push_back({identity_of(st), pid, open_for_writing(infos, e->d_name)});
		} else {
			closedir(d);
			d = nullptr;
		}
	if (fds >= 0)
		close(fds);
	if (infos >= 0)
		close(infos);
}

// The regular files mounted in the mount namespace pid is in (fuse2fs,
// ntfs-3g, squashfuse on an image name it as the source), their paths
// resolved through /proc/PID/root; pid 0: this process's namespace.
void survey_mounts(pid_t pid, Survey &s)
{
	std::string root = pid ? format("/proc/%d/root", static_cast<int>(pid)) : "";
	for (const Mount &m : read_mounts(pid ? format("/proc/%d/mountinfo", static_cast<int>(pid)) : "/proc/self/mountinfo")) {
		struct stat st {};
		if (!m.source.empty() && m.source[0] == '/' && stat((root + m.source).c_str(), &st) == 0 && S_ISREG(st.st_mode))
			s.mounted.push_back({identity_of(st), m.point, pid});
	}
}

Survey survey()
{
	Survey s;
	s.taken = true;
	if (access("/proc/self/mountinfo", R_OK) != 0 || access("/proc/self/fd", R_OK) != 0) {
		s.blind = access("/proc/self", F_OK) != 0 ? "/proc is not mounted" : "/proc/self is not readable";
		return s;
	}
	std::set<std::string> namespaces;
	std::vector<pid_t> pids = other_processes();
	pids.insert(pids.begin(), 0);	// this one first, so that its own mounts are named as such
	for (pid_t pid : pids) {
		char ns[64] = "";
		std::string link = pid ? format("/proc/%d/ns/mnt", static_cast<int>(pid)) : "/proc/self/ns/mnt";
		ssize_t n = readlink(link.c_str(), ns, sizeof ns - 1);
		if (n > 0 && namespaces.insert(std::string(ns, static_cast<std::size_t>(n))).second)
			survey_mounts(pid, s);
		if (pid)
			survey_descriptors(pid, s);
	}
	return s;
}

// Where a regular file is mounted as an image: in this mount namespace or
// in another one.  Empty when nowhere that sdb can see.
std::string mounted_anywhere(const struct stat &st, const Survey &s)
{
	for (const Survey::Mounted &m : s.mounted)
		if (m.id == identity_of(st))
			return m.pid == 0 ? "it is mounted on " + m.point
					  : format("it is mounted on %s in another mount namespace (that of PID %d, %s)",
						   m.point.c_str(), static_cast<int>(m.pid), comm_of(m.pid).c_str());
	return "";
}

// Another process with the file open: whether for writing, and whether it
// is a FUSE daemon (it holds /dev/fuse), whose file system is then, as far
// as anybody can tell, this file or one it passes through.
struct Holder {
	pid_t pid = 0;
	std::string comm;
	bool writes = false;
	bool fuse_server = false;
};

// Every other process that holds this inode open, one entry each.
std::vector<Holder> holders_of(const struct stat &st, const Survey &s)
{
	std::vector<Holder> found;
	for (const Survey::Open &o : s.open) {
		if (o.id != identity_of(st))
			continue;
		if (!found.empty() && found.back().pid == o.pid) {	// a process's descriptors come together
			found.back().writes = found.back().writes || o.writes;
			continue;
		}
		found.push_back({o.pid, comm_of(o.pid), o.writes, s.fuse_servers.count(o.pid) > 0});
	}
	return found;
}

// Is loop device `name` (loop0) backed by the inode st describes (a
// regular file; a block device node by its device number)?  Asked of the
// device (LOOP_GET_STATUS64: the backing inode, whichever mount namespace
// set it up); where it cannot be opened (not root), by the path sysfs
// shows, which means this namespace's file only where the two agree.
bool loop_backs(const char *name, const struct stat &st)
{
	int fd = open(format("/dev/%s", name).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	loop_info64 info {};
	bool asked = fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &info) == 0;
	if (fd >= 0)
		close(fd);
	if (asked)
		return S_ISBLK(st.st_mode) ? info.lo_rdevice == st.st_rdev
					   : info.lo_device == st.st_dev && info.lo_inode == st.st_ino;
	std::ifstream in(format("/sys/block/%s/loop/backing_file", name));
	std::string backing;
	std::getline(in, backing);
	const std::string deleted = " (deleted)";
	if (backing.size() > deleted.size() && backing.compare(backing.size() - deleted.size(), deleted.size(), deleted) == 0)
		return false;	// its file is gone: it cannot be this one
	struct stat b {};
	if (backing.empty() || stat(backing.c_str(), &b) != 0)
		return false;
	return S_ISBLK(st.st_mode) ? S_ISBLK(b.st_mode) && b.st_rdev == st.st_rdev
				   : S_ISREG(b.st_mode) && identity_of(b) == identity_of(st);
}

// Who holds a flock on this inode (/proc/locks lists each with the PID
// that took it); 0 when none is listed, as for another NFS client's lock.
pid_t lock_holder(const struct stat &st, bool &writing)
{
	std::ifstream in("/proc/locks");
	std::string line;
	while (std::getline(in, line)) {	// "1: FLOCK  ADVISORY  WRITE 25621 fe:00:10953631 0 EOF"
		std::istringstream f(line);
		std::string number, type, how, mode;
		long pid = 0;
		unsigned ma = 0, mi = 0;
		unsigned long ino = 0;
		std::string where;
		if (!(f >> number >> type) || type != "FLOCK" || !(f >> how >> mode >> pid >> where))
			continue;
		if (std::sscanf(where.c_str(), "%x:%x:%lu", &ma, &mi, &ino) != 3 || makedev(ma, mi) != st.st_dev ||
		    ino != st.st_ino || pid <= 0)
			continue;
		writing = mode == "WRITE";
		return static_cast<pid_t>(pid);
	}
	return 0;
}

// For a message about path: " (another run writes it: PID 4711, sdb)"
// where a run holds its lock, else "".
std::string lock_note(const std::string &path)
{
	struct stat st {};
	bool writing = true;
	pid_t pid = lstat(path.c_str(), &st) == 0 ? lock_holder(st, writing) : 0;
	return pid ? format(" (another run %s it: PID %d, %s)", writing ? "writes" : "reads", static_cast<int>(pid),
			    comm_of(pid).c_str())
		   : "";
}

// The run's lock on a target, on a descriptor that stays open while the
// run lasts: exclusive for a run that writes it, shared for one that only
// reads, so that readers share and a writer is alone.  flock(), not an
// fcntl lock: a process's fcntl locks on a file all go when it closes any
// descriptor of that file, and sdb opens its targets several times.  The
// other run is named from /proc/locks, which lists flock()s with the PID
// that took them.
Error lock_target(int fd, const std::string &path, bool write)
{
	if (flock(fd, (write ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
		return {};
	if (errno != EWOULDBLOCK)
		return {};	// a file system without flock (some FUSE ones): no lock to be had
	struct stat st {};
	bool writing = true;
	pid_t pid = fstat(fd, &st) == 0 ? lock_holder(st, writing) : 0;
	std::string who = pid ? format("PID %d, %s", static_cast<int>(pid), comm_of(pid).c_str()) : "a process sdb cannot see";
	return runtime_error("%s is in use by another run that %s it (%s): refusing to %s it at the same time, even with --force",
			     path.c_str(), writing ? "writes" : "reads", who.c_str(), write ? "write" : "read");
}

} // namespace
