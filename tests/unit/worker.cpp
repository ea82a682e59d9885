// Unit tests of src/worker.h: -R's stamp and rotation, the memlock hint of
// a refused ring, a punted ring's wait, mincore's sample.
#include "../../src/worker.h"
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
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

TEST_SUITE("worker") {

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

TEST_CASE("punted_wait: one below -q 8 (the pinned path), half the depth to -q 64, a quarter deeper")
{
	CHECK(punted_wait(2) == 1);
	CHECK(punted_wait(7) == 1);
	CHECK(punted_wait(8) == 4);
	CHECK(punted_wait(16) == 8);
	CHECK(punted_wait(64) == 32);
	CHECK(punted_wait(128) == 32);
	CHECK(punted_wait(256) == 64);
	for (unsigned depth = 2; depth <= 4096; depth++) {	// the worker is never left idle by the wait
		CAPTURE(depth);
		CHECK(punted_wait(depth) >= 1);
		CHECK(punted_wait(depth) <= depth / 2);
	}
}

TEST_CASE("mincore_fraction and cachestat_fraction: exact over a small range, a true sample over a large one")
{
	std::string path_name = scratch_name("sdb-mincore.XXXXXX", "/var/tmp");	// not /tmp: a tmpfs cannot evict
	char *path = path_name.data();
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

	// Another holder keeps the first half cached: mapped pages survive an
	// eviction.  Its faults read no more than their own page (MADV_RANDOM):
	// a read-around past the half would still be in flight, locked, when
	// the eviction came, and stay cached (0.625 once, under load).
	void *held = mmap(nullptr, size / 2, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(held != MAP_FAILED);
	REQUIRE(madvise(held, size / 2, MADV_RANDOM) == 0);
	unsigned sum = 0;
	for (std::uint64_t at = 0; at < size / 2; at += page)
		sum += static_cast<unsigned char>(static_cast<const char *>(held)[at]);
	CHECK(sum == 'x' * (size / 2 / page));
	posix_fadvise(fd, 0, static_cast<off_t>(size), POSIX_FADV_DONTNEED);
	CHECK(size / page > cache_sample);	// sampled
	const double half = mincore_fraction(fd, 0, size, page);
	CHECK(half > 0.45);
	CHECK(half < 0.55);
	CHECK(mincore_fraction(fd, 0, 8 * MiB, page) == 1.0);	// exact: all of it held
	CHECK(mincore_fraction(fd, 48 * MiB, 8 * MiB, page) == 0.0);
	if (std::optional<double> c = cachestat_fraction(fd, 0, size, page)) {	// the same sample from cachestat(2)
		CHECK(*c > 0.45);
		CHECK(*c < 0.55);
		CHECK(cachestat_fraction(fd, 0, 8 * MiB, page).value_or(-1) == 1.0);
		CHECK(cachestat_fraction(fd, 48 * MiB, 8 * MiB, page).value_or(-1) == 0.0);
	}
	munmap(held, size / 2);
	close(fd);
}

} // TEST_SUITE("worker")
