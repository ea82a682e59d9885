// Unit tests of src/plan.h: make_plan()'s sizes, files and regions, planned
// without touching the disk, the mount table, and the rules of guard.h as
// make_plan() applies them (kernel file systems, locks, other writers).
#include "../../src/plan.h"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST_SUITE("plan") {

// A write of a new file f in a directory of its own, which goes with it.
struct NewFileWrite {
	std::string dir = scratch_name("sdb-test.XXXXXX");
	Options o;
	NewFileWrite(unsigned threads, std::uint64_t size)
	{
		REQUIRE(mkdtemp(dir.data()));
		o.op = Options::Op::write;
		o.file = dir + "/f";
		o.threads = threads;
		o.size = size;
	}
	~NewFileWrite() { rmdir(dir.c_str()); }
};

TEST_CASE("make_plan: sizes whose regions pass the largest offset are usage errors")
{
	NewFileWrite t(3, std::uint64_t{1} << 62);	// the third region starts at 8 EiB
	Plan plan;
	Error e = make_plan(t.o, plan, nullptr, Files::regions);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("past the largest possible file offset") != std::string::npos);
	t.o.threads = 2;	// 2 x 4 EiB - 1 byte: the last offset still fits
	t.o.size = (std::uint64_t{1} << 62) - 1;
	t.o.block_size = 1;
	Plan fits;
	CHECK(make_plan(t.o, fits, nullptr, Files::regions).msg.find("largest possible file offset") == std::string::npos);
	CHECK(access(t.o.file.c_str(), F_OK) != 0);	// planning creates nothing
}

TEST_CASE("make_plan: Files::regions puts the threads in one file, a region each; per_thread a file each")
{
	NewFileWrite t(3, 8 * MiB);
	Plan shared, own;
	REQUIRE(!make_plan(t.o, shared, nullptr, Files::regions));
	REQUIRE(shared.targets.size() == 3);
	for (unsigned i = 0; i < 3; i++) {
		CHECK(shared.targets[i].path == t.o.file);
		CHECK(shared.targets[i].base == i * 8 * MiB);
	}
	REQUIRE(!make_plan(t.o, own));
	REQUIRE(own.targets.size() == 3);
	for (unsigned i = 0; i < 3; i++) {
		CHECK(own.targets[i].path == t.o.file + "." + std::to_string(i));
		CHECK(own.targets[i].base == 0);
	}
}

TEST_CASE("make_plan: -R's random bytes are a few MiB a thread or what its slots hold, and repeat after 1 MiB of blocks")
{
	Options o;
	o.op = Options::Op::write;
	o.file = "/dev/null";
	o.random_buffer = true;
	o.block_size = 4096;
	o.size = 16 * MiB;
	for (unsigned depth : {1u, 2u, 4u, 16u, 24u, 200u, 255u, 256u, 4096u}) {
		CAPTURE(depth);
		o.queue_depth = depth;
		Plan plan;
		REQUIRE_FALSE(make_plan(o, plan));
		REQUIRE(plan.slots == depth);
		std::uint64_t places = plan.pool / 4096 ? plan.pool / 4096 : 1;
		CHECK(std::gcd<std::uint64_t>(places, depth) == 1);	// I/O n: slot n % slots, place n % places
		CHECK(depth * places * 4096 >= MiB);	// so the blocks repeat after 1 MiB or more
		CHECK(plan.slot_stride * plan.slots <= std::max<std::uint64_t>(4 * MiB, depth * 4096));	// and not much more
	}
	o.queue_depth = 4096;	// 16 MiB of slots for a 16 MiB test; a 1 MiB pool each was 4 GiB
	Plan deep;
	REQUIRE_FALSE(make_plan(o, deep));
	CHECK(deep.slot_stride * deep.slots == 16 * MiB);
}

TEST_CASE("read_mounts: mountinfo's octal escapes are undone")
{
	CHECK(unescape_mount_field("/mnt/with\\040space") == "/mnt/with space");
	CHECK(unescape_mount_field("/a\\134b") == "/a\\b");
	CHECK(unescape_mount_field("/plain") == "/plain");
	bool root = false;
	for (const Mount &m : read_mounts())
		root = root || m.point == "/";
	CHECK(root);
}

TEST_CASE("make_plan: defaults and sizes without touching the disk")
{
	Options o;
	o.op = Options::Op::write;
	o.file = "/dev/null";
	o.threads = 2;
	Plan plan;
	REQUIRE_FALSE(make_plan(o, plan));
	CHECK(plan.block_size == MiB);
	REQUIRE(plan.targets.size() == 2);
	CHECK(plan.targets[1].path == "/dev/null");	// devices are shared
	CHECK(plan.targets[1].size == GiB);
	CHECK(plan.buffers == 1);

	Options r = o;
	r.op = Options::Op::read;
	r.random = true;
	r.file = "/dev/zero";
	r.size = 8 * MiB;
	Plan rplan;
	REQUIRE_FALSE(make_plan(r, rplan));
	CHECK(rplan.block_size == 4096);
	CHECK(rplan.buffers == 2);	// reads: one buffer per thread

	r.size = 0;
	Plan none;
	Error e = make_plan(r, none);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("-s SIZE is required") != std::string::npos);
}

TEST_CASE("make_plan: a write on a kernel pseudo-file system is refused, --force or not; a read is planned")
{
	for (bool force : {false, true}) {
		Options o;
		o.op = Options::Op::write;
		o.file = "/proc/self/comm";	// zero bytes long: "empty" to a rule that asked only for the size
		o.size = 4096;
		o.force = force;
		Plan plan;
		Error e = make_plan(o, plan);
		CHECK(e.status == exit_runtime);
		CHECK(e.msg == "/proc/self/comm is on procfs, a kernel pseudo-file system whose files are the kernel's "
			       "settings: sdb never writes there, even with --force");
		o.op = Options::Op::mix;
		Plan mix;
		CHECK(make_plan(o, mix).msg.find("is on procfs") != std::string::npos);
	}
	Options o;
	o.op = Options::Op::write;
	o.file = "/proc/sdb-new-file";	// a new file there: the directory's file system decides
	o.size = 4096;
	Plan plan;
	CHECK(make_plan(o, plan).msg.find("is on procfs") != std::string::npos);
	o.op = Options::Op::read;
	o.file = "/proc/self/status";
	Plan read;
	CHECK(!make_plan(o, read));
}

TEST_CASE("make_plan: the plan holds the run's lock on each target, exclusive for writes, shared for reads")
{
	NewFileWrite t(2, MiB);
	for (const char *name : {"/f.0", "/f.1"})
		REQUIRE(close(open((std::string(t.dir) + name).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);	// empty
	int other = open((std::string(t.dir) + "/f.1").c_str(), O_RDONLY | O_CLOEXEC);
	REQUIRE(other >= 0);
	{
		Plan writes;
		REQUIRE(!make_plan(t.o, writes));
		CHECK(writes.locks.size() == 2);
		CHECK(flock(other, LOCK_SH | LOCK_NB) != 0);	// nobody reads while it writes
		Plan second;
		Error e = make_plan(t.o, second);
		CHECK(e.status == exit_runtime);
		CHECK(e.msg.find(".0 is in use by another run that writes it (PID " + std::to_string(getpid())) !=
		      std::string::npos);
	}
	CHECK(flock(other, LOCK_SH | LOCK_NB) == 0);	// the plan gone, its locks with it
	t.o.op = Options::Op::read;
	Plan reads;
	CHECK(!make_plan(t.o, reads));	// readers share
	t.o.op = Options::Op::write;
	Plan writes;
	CHECK(make_plan(t.o, writes).msg.find(".0 is in use by another run that reads it") != std::string::npos);
	close(other);
	for (const char *name : {"/f.0", "/f.1"})
		unlink((std::string(t.dir) + name).c_str());
}

TEST_CASE("make_plan: a file another process holds open for writing needs --force, and the message names it")
{
	NewFileWrite t(1, MiB);
	REQUIRE(close(open(t.o.file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);	// empty: sdb's to write
	int ready[2];
	REQUIRE(pipe(ready) == 0);
	pid_t child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		char c = open(t.o.file.c_str(), O_WRONLY) >= 0 ? 'y' : 'n';
		ssize_t ignored = write(ready[1], &c, 1);
		(void)ignored;
		pause();
		_exit(0);
	}
	char c = 0;
	CHECK(read(ready[0], &c, 1) == 1);
	Plan plan;
	Error e = make_plan(t.o, plan);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find(format("is open for writing by PID %d (", static_cast<int>(child))) != std::string::npos);
	t.o.force = true;
	Plan forced;
	CHECK(!make_plan(t.o, forced));
	kill(child, SIGKILL);
	waitpid(child, nullptr, 0);
	close(ready[0]);
	close(ready[1]);
	unlink(t.o.file.c_str());
}

TEST_CASE("make_plan: a symlink in a sticky world-writable directory is refused without a hint at --force")
{
	NewFileWrite t(1, MiB);
	std::string sticky = std::string(t.dir) + "/sticky", link = sticky + "/link";
	REQUIRE(mkdir(sticky.c_str(), 01777) == 0);
	REQUIRE(chmod(sticky.c_str(), 01777) == 0);	// past the umask
	REQUIRE(symlink("../f", link.c_str()) == 0);
	t.o.file = link;
	for (bool force : {false, true}) {
		t.o.force = force;
		Plan plan;
		Error e = make_plan(t.o, plan);
		CHECK(e.status == exit_runtime);
		CHECK(e.msg.find("refusing to follow it, even with --force") != std::string::npos);
		CHECK(e.msg.find("only with --force") == std::string::npos);
	}
	unlink(link.c_str());
	rmdir(sticky.c_str());
}

} // TEST_SUITE("plan")
