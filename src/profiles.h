// profiles: the quick suite's table.  CrystalDiskMark's tests by profile
// (QuickTest, QuickProfile, quick_profiles), the one table that the option
// parser, the suite, its header and --explain all read.
#pragma once

#include "base.h"

#include <cstdint>
#include <string_view>
#include <vector>


namespace {

// sdb --quick[=PROFILE]: CrystalDiskMark's tests on one incompressible test
// file, each written and then read, each run --runs times for -t seconds,
// reported as medians with their ranges.  CrystalDiskMark names a test by
// its pattern, block size, depth and threads: SEQ1M Q8T1 is sequential
// 1 MiB I/O, 8 in flight (io_uring, as -q 8), one thread (-j 1).
struct QuickTest {
	bool random;
	std::uint64_t block_size;
	unsigned depth, threads;
	int mix = -1;		// a mixed test (-M): the percentage of reads, in one row
	bool to_cliff = false;	// --quick=flash: its write runs once, until its cliff (see flash.h)
};

// The one table the parser, the header, the suite and --explain all read.
struct QuickProfile {
	const char *name;
	const char *about;			// for the header
	std::vector<QuickTest> tests;
};

const QuickProfile quick_profiles[] = {
	{"default", "CrystalDiskMark's default",
	 {{false, MiB, 8, 1}, {false, MiB, 1, 1}, {true, 4 * KiB, 32, 1}, {true, 4 * KiB, 1, 1}}},
	{"nvme", "CrystalDiskMark's NVMe SSD profile",
	 {{false, MiB, 8, 1}, {false, 128 * KiB, 32, 1}, {true, 4 * KiB, 32, 16}, {true, 4 * KiB, 1, 1}}},
	{"real", "CrystalDiskMark's real-world profile", {{false, MiB, 1, 1}, {true, 4 * KiB, 1, 1}}},
	{"mix", "the default profile plus RND4K Q1T1 mix 70/30",
	 {{false, MiB, 8, 1}, {false, MiB, 1, 1}, {true, 4 * KiB, 32, 1}, {true, 4 * KiB, 1, 1}, {true, 4 * KiB, 1, 1, 70}}},
	// Flash: a sequential write at depth 1 (as a file copy writes) until
	// the write cache's cliff, read back; then the small random I/O that
	// a stick or card is slow at, at depth 1 and at 32 (UAS and NVMe
	// bridges queue, USB mass storage does not).
	{"flash", "USB sticks, SD cards, external SSDs: a write to the cliff, then small random I/O",
	 {{false, MiB, 1, 1, -1, true}, {true, 4 * KiB, 1, 1}, {true, 4 * KiB, 32, 1}}},
};

// Whether a profile begins with a write to the cliff (--quick=flash).
bool writes_to_cliff(const QuickProfile &p)
{
	return !p.tests.empty() && p.tests[0].to_cliff;
}

const QuickProfile *find_quick_profile(std::string_view name)
{
	for (const QuickProfile &p : quick_profiles)
		if (name == p.name)
			return &p;
	return nullptr;
}

} // namespace
