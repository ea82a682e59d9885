// Unit tests of src/verify.h: which write each block of a file holds last,
// for the read-back.
#include "../../src/verify.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cstdint>

TEST_SUITE("verify") {

TEST_CASE("--verify read-back: the last write to each block of a sequential time-based write")
{
	Plan plan;
	plan.block_size = 8192;
	Target t;
	t.size = 5 * 8192 + 4096;	// 6 blocks, the last one short
	Worker w;
	w.plan = &plan;
	w.target = &t;
	w.ops = 6 * 2 + 4;	// two passes, and four blocks of the third
	Written r = written_by(w);
	CHECK(r.end == t.size);
	CHECK(r.write_of(0) == 12);
	CHECK(r.write_of(3 * 8192 + 4096) == 15);
	CHECK(r.write_of(4 * 8192) == 10);	// written last in the second pass
	CHECK(r.write_of(5 * 8192) == 11);
	w.ops = 3;	// the first pass cut short
	r = written_by(w);
	CHECK(r.end == 3 * 8192);
	CHECK(r.write_of(2 * 8192 + 4096) == 2);
	plan.opt.random = true;	// random: the blocks the permutation gave, any write
	w.ops = 2;
	r = written_by(w);
	CHECK(r.end == 5 * 8192);
	CHECK(!r.write_of(0));
	unsigned have = 0;
	for (std::uint64_t at = 0; at < r.end; at += 4096)
		have += r.has(at);
	CHECK(have == 4);	// two blocks of two units
}

} // TEST_SUITE("verify")
