// Unit tests of src/worker.h: the offsets of sequential and random passes,
// io_uring completions and errors in the real loop, -R's stamp, rotation.
#include "../../src/worker.h"
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
#include <sys/mman.h>
#include <unistd.h>

TEST_SUITE("worker") {

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
	// (its mappings stay valid) makes io_uring_enter fail, and only that.
	char path[] = "/tmp/sdb-ring.XXXXXX";
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
		int null_fd = open("/dev/null", O_RDONLY);
		REQUIRE(dup2(null_fd, ring_fd) == ring_fd);
		close(null_fd);
		g_stop.lower();
		w.start_ns = now_ns();
		uring_loop<Way::read, false>(w);
		CHECK(w.error.msg == std::string("io_uring_enter: ") + path + ": " + std::strerror(EOPNOTSUPP));
		g_stop.lower();
	}
	close(fd);
	unlink(path);
}

TEST_CASE("stamp makes every 4 KiB of a block its own")
{
	std::vector<char> a(16384, 'x'), b(16384, 'x');
	stamp(a.data(), a.size(), 0, 1);
	stamp(b.data(), b.size(), 16384, 2);
	std::set<std::string> blocks;
	for (std::size_t at = 0; at < a.size(); at += 4096) {
		blocks.insert(std::string(a.data() + at, 4096));
		blocks.insert(std::string(b.data() + at, 4096));
	}
	CHECK(blocks.size() == 8);
	std::uint64_t first;
	std::memcpy(&first, b.data() + 4096, sizeof first);
	CHECK(first == 16384 + 4096);	// the block's own offset
}

TEST_CASE("rotation keeps the direct-I/O alignment")
{
	Plan plan;
	plan.pool = MiB;
	Worker w;
	w.plan = &plan;
	plan.dio_align = 512;
	CHECK(rotation(w, 1) == 4096);
	CHECK(rotation(w, 256) == 0);	// 1 MiB of 4 KiB places
	plan.dio_align = 16384;
	for (std::uint64_t io = 0; io < 200; io++)
		CHECK(rotation(w, io) % 16384 == 0);
	CHECK(rotation(w, 1) == 16384);
	plan.dio_align = 2 * MiB;	// larger than the pool: no rotation, never a division by zero
	CHECK(rotation(w, 7) == 0);
}

TEST_CASE("-q refused for memory under a small RLIMIT_MEMLOCK: the error says ulimit -l")
{
	Error refused = runtime_error("-q 32: io_uring is not available: %s", std::strerror(ENOMEM));
	Error e = memlock_hint(refused, 64 * 1024);
	CHECK(e.status == refused.status);
	CHECK(e.msg.find("-q 32: io_uring is not available: ") == 0);
	CHECK(e.msg.find("the locked-memory limit is 64 KiB: raise it with ulimit -l") != std::string::npos);
	CHECK(e.msg.find('\n') == std::string::npos);
	CHECK(memlock_hint(refused, RLIM_INFINITY).msg == refused.msg);	// no limit: not the cause
	Error other = runtime_error("-q 32: io_uring is not available: %s", std::strerror(EPERM));
	CHECK(memlock_hint(other, 64 * 1024).msg == other.msg);
}

TEST_CASE("mincore_fraction: exact over a small range, a true sample over a large one")
{
	char path[] = "/var/tmp/sdb-mincore.XXXXXX";	// not /tmp: a tmpfs cannot evict
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	unlink(path);
	const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)), size = 64 * MiB;
	std::vector<char> block(MiB, 'x');
	for (std::uint64_t at = 0; at < size; at += MiB)
		REQUIRE(pwrite(fd, block.data(), block.size(), static_cast<off_t>(at)) == static_cast<ssize_t>(MiB));
	REQUIRE(fdatasync(fd) == 0);
	REQUIRE(posix_fadvise(fd, 0, static_cast<off_t>(size), POSIX_FADV_DONTNEED) == 0);
	CHECK(mincore_fraction(fd, 0, size, page) < 0.05);

	// Another holder keeps the first half cached: mapped pages survive an eviction.
	void *held = mmap(nullptr, size / 2, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(held != MAP_FAILED);
	unsigned sum = 0;
	for (std::uint64_t at = 0; at < size / 2; at += page)
		sum += static_cast<unsigned char>(static_cast<const char *>(held)[at]);
	CHECK(sum == 'x' * (size / 2 / page));
	posix_fadvise(fd, 0, static_cast<off_t>(size), POSIX_FADV_DONTNEED);
	CHECK(size / page > mincore_sample);	// sampled
	const double half = mincore_fraction(fd, 0, size, page);
	CHECK(half > 0.45);
	CHECK(half < 0.55);
	CHECK(mincore_fraction(fd, 0, 8 * MiB, page) == 1.0);	// exact: all of it held
	CHECK(mincore_fraction(fd, 48 * MiB, 8 * MiB, page) == 0.0);
	munmap(held, size / 2);
	close(fd);
}

} // TEST_SUITE("worker")
