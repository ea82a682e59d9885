// Unit tests of src/plan.h: make_plan()'s sizes, files and regions, planned
// without touching the disk, and the mount table.
#include "../../src/plan.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cstdint>
#include <cstdlib>
#include <string>

#include <unistd.h>

TEST_SUITE("plan") {

// A write of a new file f in a directory of its own, which goes with it.
struct NewFileWrite {
	char dir[32] = "/tmp/sdb-test.XXXXXX";
	Options o;
	NewFileWrite(unsigned threads, std::uint64_t size)
	{
		REQUIRE(mkdtemp(dir));
		o.op = Options::Op::write;
		o.file = std::string(dir) + "/f";
		o.threads = threads;
		o.size = size;
	}
	~NewFileWrite() { rmdir(dir); }
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

} // TEST_SUITE("plan")
