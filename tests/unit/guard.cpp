// Unit tests of src/guard.h: the kernel's pseudo-file systems by their
// magic, removal only of the inode sdb holds, the run's lock and who holds
// it, the processes that hold a file open, a mountinfo read from a file.
#include "../../src/guard.h"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

TEST_SUITE("guard") {

// A directory of its own for a test, removed with what is in it.
struct Scratch {
	std::string dir = scratch_name("sdb-guard.XXXXXX");
	Scratch() { REQUIRE(mkdtemp(dir.data())); }
	~Scratch() { CHECK(std::system(("rm -rf '" + dir + "'").c_str()) == 0); }
	std::string path(const char *name) const { return dir + "/" + name; }
	void write(const char *name, const char *text) const { std::ofstream(path(name)) << text; }
};

TEST_CASE("kernel_fs_name: every kernel pseudo-file system, and no file system that holds data")
{
	for (std::uint32_t magic : std::initializer_list<std::uint32_t>{PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, DEBUGFS_MAGIC,
				     TRACEFS_MAGIC, 0x62656570u, SECURITYFS_MAGIC, EFIVARFS_MAGIC, BPF_FS_MAGIC})
		CHECK(kernel_fs_name(magic) != nullptr);
	for (std::uint32_t magic : std::initializer_list<std::uint32_t>{EXT4_SUPER_MAGIC, TMPFS_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, 0x65735546u /* fuse */})
		CHECK(kernel_fs_name(magic) == nullptr);
	struct statfs proc {}, sys {};
	REQUIRE(statfs("/proc/self", &proc) == 0);
	CHECK(std::string(kernel_fs_name(static_cast<std::uint32_t>(proc.f_type))) == "procfs");
	if (statfs("/sys/kernel", &sys) == 0)
		CHECK(std::string(kernel_fs_name(static_cast<std::uint32_t>(sys.f_type))) == "sysfs");
}

TEST_CASE("remove_if_same: removes the file sdb holds, never one renamed onto its path")
{
	Scratch s;
	s.write("made", "sdb's");
	int fd = open(s.path("made").c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	s.write("precious", "the user's");
	REQUIRE(rename(s.path("precious").c_str(), s.path("made").c_str()) == 0);
	CHECK(remove_if_same(s.path("made").c_str(), fd) == ESTALE);
	std::string left;
	std::getline(std::ifstream(s.path("made")), left);
	CHECK(left == "the user's");
	close(fd);

	fd = open(s.path("made").c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	CHECK(remove_if_same(s.path("made").c_str(), fd) == 0);
	CHECK(access(s.path("made").c_str(), F_OK) != 0);
	CHECK(remove_if_same(s.path("made").c_str(), fd) == ENOENT);
	close(fd);
	CHECK(remove_if_same(s.path("made").c_str(), -1) == EBADF);
}

TEST_CASE("lock_target: readers share, a writer is alone, and the message names the holder")
{
	Scratch s;
	s.write("t", "x");
	const std::string t = s.path("t");
	int a = open(t.c_str(), O_RDONLY | O_CLOEXEC), b = open(t.c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE((a >= 0 && b >= 0));
	CHECK(!lock_target(a, t, false));
	CHECK(!lock_target(b, t, false));	// two readers
	close(b);
	b = open(t.c_str(), O_RDONLY | O_CLOEXEC);
	Error e = lock_target(b, t, true);	// a writer beside a reader
	CHECK(e.status == exit_runtime);
	CHECK(e.msg == format("%s is in use by another run that reads it (PID %d, %s): refusing to write it at the same "
			      "time, even with --force", t.c_str(), static_cast<int>(getpid()), comm_of(getpid()).c_str()));
	close(a);	// the reader gone, the writer has it
	CHECK(!lock_target(b, t, true));
	a = open(t.c_str(), O_RDONLY | O_CLOEXEC);
	e = lock_target(a, t, false);
	CHECK(e.msg.find("another run that writes it (PID " + std::to_string(getpid())) != std::string::npos);
	CHECK(e.msg.find("refusing to read it") != std::string::npos);
	close(a);
	close(b);
}

TEST_CASE("holders_of: another process with the file open, and whether it writes")
{
	Scratch s;
	s.write("f", "x");
	const std::string f = s.path("f");
	for (int mode : {O_RDONLY, O_WRONLY, O_RDWR}) {
		int ready[2];
		REQUIRE(pipe(ready) == 0);
		pid_t child = fork();
		REQUIRE(child >= 0);
		if (child == 0) {
			int fd = open(f.c_str(), mode);
			char c = fd >= 0 ? 'y' : 'n';
			ssize_t ignored = write(ready[1], &c, 1);
			(void)ignored;
			pause();
			_exit(0);
		}
		char c = 0;
		CHECK(read(ready[0], &c, 1) == 1);	// the child has the file open
		CHECK(c == 'y');
		struct stat st {};
		REQUIRE(stat(f.c_str(), &st) == 0);
		bool found = false;
		for (const Holder &h : holders_of(st, survey()))
			if (h.pid == child) {
				found = true;
				CHECK(h.writes == (mode != O_RDONLY));
				CHECK(!h.fuse_server);
			}
		CHECK(found);
		kill(child, SIGKILL);
		waitpid(child, nullptr, 0);
		close(ready[0]);
		close(ready[1]);
	}
	struct stat st {};
	REQUIRE(stat(f.c_str(), &st) == 0);
	CHECK(holders_of(st, survey()).empty());	// this process's own descriptors do not count
}

TEST_CASE("read_mounts: from a given mountinfo, its escapes undone")
{
	Scratch s;
	s.write("mountinfo", "36 35 98:0 / /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw\n"
			     "37 36 0:40 / /img rw - fuse /srv/disk\\040image.img rw,user_id=0\n");
	std::vector<Mount> m = read_mounts(s.path("mountinfo"));
	REQUIRE(m.size() == 2);
	CHECK(m[0].point == "/mnt/with space");
	CHECK(m[0].dev == makedev(98, 0));
	CHECK(m[1].type == "fuse");
	CHECK(m[1].source == "/srv/disk image.img");
	CHECK(m[0].options == "rw");	// the super options, after the source
	CHECK(m[1].options == "rw,user_id=0");
}

} // TEST_SUITE("guard")
