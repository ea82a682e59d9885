// Unit tests of src/loops.h: the offsets of sequential and random passes,
// io_uring completions and errors in the real loop.
#include "../../src/loops.h"
#include "scratch.h"
#include "../../src/buffer.h"	// Buffer

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

TEST_SUITE("loops") {

TEST_CASE("Offsets: sequential passes and random passes cover every block once")
{
	Target t;
	t.size = 10 * 4096 + 100;	// ten blocks and a short one
	Offsets<false> seq(t, 4096, 1);
	std::uint64_t offset, total = 0, calls = 0;
	std::size_t len;
	while (seq.next(offset, len)) {
		CHECK(offset == total);
		total += len;
		calls++;
	}
	CHECK(total == t.size);
	CHECK(calls == 11);

	Offsets<true> rnd(t, 4096, 7);	// random: whole blocks only
	std::set<std::uint64_t> seen;
	while (rnd.next(offset, len)) {
		CHECK(len == 4096);
		CHECK(offset % 4096 == 0);
		seen.insert(offset);
		calls++;
	}
	CHECK(seen.size() == 10);
	CHECK(calls == 21);

	Offsets<true> timed(t, 4096, 7);	// time-based: pass after pass
	std::vector<int> visits(10, 0);
	int pass_ends = 0;
	for (int i = 0; i < 30; i++) {
		if (!timed.next(offset, len)) {	// the end of a pass: where its step goes
			pass_ends++;
			timed.rewind();
			REQUIRE(timed.next(offset, len));
		}
		visits[offset / 4096]++;
	}
	CHECK(std::count(visits.begin(), visits.end(), 3) == 10);
	CHECK(pass_ends == 2);
	CHECK_FALSE(timed.next(offset, len));
}

TEST_CASE("deadline_of: -t from the gate's opening for every thread, however late one starts")
{
	Plan plan;
	plan.opt.time_limit = 1;
	Worker early, late;
	early.plan = late.plan = &plan;
	early.opened_ns = late.opened_ns = 5000000000;
	early.start_ns = 5000001000;
	late.start_ns = 6700000000;	// 1.7 s after the gate opened (-j 1024 on two CPUs)
	CHECK(deadline_of(early) == 6000000000);
	CHECK(deadline_of(late) == 6000000000);	// not 7.7 s: the run's window stays -t
	late.ramp_end_ns = 9000000000;	// in a --ramp: -t after its end
	CHECK(deadline_of(late) == 10000000000);
	Worker alone;	// no gate (a ramp's window, opened by each thread): its own start
	alone.plan = &plan;
	alone.start_ns = 2000000000;
	CHECK(deadline_of(alone) == 3000000000);
}

TEST_CASE("io_uring completions: the same event has the same outcome at every depth")
{
	Slot s;
	s.len = 65536;
	CHECK(settle<false>(s, 65536) == Settled::complete);
	s.done = 0;
	CHECK(settle<false>(s, 100) == Settled::partial);	// a short read at end of file ...
	CHECK(settle<false>(s, -EINVAL) == Settled::ended);	// ... and O_DIRECT's unaligned rest: end of file, as in transfer()
	CHECK(s.done == 100);
	s.done = 0;
	CHECK(settle<false>(s, -EINVAL) == Settled::failed);	// EINVAL before any byte: a real error
	CHECK(settle<true>(s, -EIO) == Settled::failed);
	CHECK(settle<true>(s, 0) == Settled::ended);		// a write that moved nothing
	CHECK(settle<false>(s, 0) == Settled::ended);
}

TEST_CASE("a failed io_uring_enter names the call, not an I/O at an offset")
{
	Error e = ring_error("data", EBADF);
	CHECK(e.status == exit_runtime);
	CHECK(e.msg == std::string("io_uring_enter: data: ") + std::strerror(EBADF));

	// The real loop: a ring whose fd is swapped for /dev/null after setup
	// (its mappings stay valid), and whose registration with this thread
	// is undone, makes io_uring_enter fail, and only that: EBADF for the
	// registered index, EOPNOTSUPP for /dev/null where none was made.
	std::string path_name = scratch_name("sdb-ring.XXXXXX");
	char *path = path_name.data();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, 65536) == 0);
	Plan plan;
	plan.opt.op = Options::Op::read;
	plan.opt.queue_depth = 4;
	plan.block_size = 4096;
	Target target;
	target.path = path;
	target.kind = Kind::file;
	target.size = target.existing = 65536;
	plan.targets.push_back(target);
	Buffer buffer;
	REQUIRE_FALSE(buffer.allocate(4 * 4096));
	Worker w;
	w.plan = &plan;
	w.target = &plan.targets[0];
	w.fd = Fd(dup(fd));
	w.buffer = buffer.data();
	plan.slot_stride = 4096;
	int ring_fd = open("/dev/null", O_RDONLY);	// the lowest free fd, which io_uring_setup takes next
	REQUIRE(ring_fd >= 0);
	close(ring_fd);
	w.ring = std::make_unique<Ring>();
	if (w.ring->setup(4, 4, 1)) {
		MESSAGE("io_uring unavailable: skipped");
	} else {
		w.ring->attach(fd, false, w.buffer, 4 * 4096, false);
		char link[64] = {};
		REQUIRE(readlink(format("/proc/self/fd/%d", ring_fd).c_str(), link, sizeof link - 1) > 0);
		REQUIRE(std::string(link) == "anon_inode:[io_uring]");
		io_uring_rsrc_update up {};	// the ring setup() registered in slot 0, where it could
		syscall(__NR_io_uring_register, ring_fd, IORING_UNREGISTER_RING_FDS, &up, 1);
		int null_fd = open("/dev/null", O_RDONLY);
		REQUIRE(dup2(null_fd, ring_fd) == ring_fd);
		close(null_fd);
		g_stop.lower();
		w.start_ns = now_ns();
		uring_loop<Way::read, false>(w);
		const std::string said = std::string("io_uring_enter: ") + path + ": ";
		CHECK((w.error.msg == said + std::strerror(EBADF) || w.error.msg == said + std::strerror(EOPNOTSUPP)));
		g_stop.lower();
	}
	close(fd);
	unlink(path);
}

} // TEST_SUITE("loops")
