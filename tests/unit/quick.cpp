// Unit tests of src/quick.h: --quick's options and profiles, the rows of
// each profile, and the median and spread of a row's runs.
#include "../../src/quick.h"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

TEST_SUITE("quick") {

TEST_CASE("quick profiles: CrystalDiskMark's rows, each written then read")
{
	auto names = [](const char *profile, bool uring) {
		std::vector<std::string> notes;
		std::string all;
		for (const QuickRow &r : quick_rows(*find_quick_profile(profile), uring, notes))
			all += (all.empty() ? "" : ", ") + r.name;
		return all;
	};
	CHECK(names("default", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ1M Q1T1 write, SEQ1M Q1T1 read, "
					"RND4K Q32T1 write, RND4K Q32T1 read, RND4K Q1T1 write, RND4K Q1T1 read");
	CHECK(names("nvme", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ128K Q32T1 write, SEQ128K Q32T1 read, "
				     "RND4K Q32T16 write, RND4K Q32T16 read, RND4K Q1T1 write, RND4K Q1T1 read");
	CHECK(names("real", true) == "SEQ1M Q1T1 write, SEQ1M Q1T1 read, RND4K Q1T1 write, RND4K Q1T1 read");
	// Without io_uring, the I/Os in flight come from threads instead.
	CHECK(names("nvme", false) == "SEQ1M Q1T8 write, SEQ1M Q1T8 read, SEQ128K Q1T32 write, SEQ128K Q1T32 read, "
				      "RND4K Q1T512 write, RND4K Q1T512 read, RND4K Q1T1 write, RND4K Q1T1 read");
	std::vector<std::string> notes;
	quick_rows(*find_quick_profile("default"), false, notes);
	CHECK(notes == std::vector<std::string>{
			       "io_uring is not available: SEQ1M Q8T1 runs as SEQ1M Q1T8 (8 threads at depth 1)",
			       "io_uring is not available: RND4K Q32T1 runs as RND4K Q1T32 (32 threads at depth 1)"});
	CHECK(names("mix", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ1M Q1T1 write, SEQ1M Q1T1 read, "
				    "RND4K Q32T1 write, RND4K Q32T1 read, RND4K Q1T1 write, RND4K Q1T1 read, "
				    "RND4K Q1T1 mix 70/30");
	CHECK(find_quick_profile("Default") == nullptr);
}

TEST_CASE("quick_options: a test's options, whole blocks per thread")
{
	Options o;
	o.time_limit = 2;
	QuickFile q;
	q.path = "/d/f";
	q.size = GiB + 4096;
	Options r = quick_options(o, q, {true, 4 * KiB, 32, 16}, false);
	CHECK(r.op == Options::Op::read);
	CHECK(r.random);
	CHECK(r.threads == 16);
	CHECK(r.queue_depth == 32);
	CHECK(r.size == 64 * MiB);	// whole blocks per thread
	CHECK(r.random_buffer);
	CHECK(r.time_limit == 2);
}

TEST_CASE("median and spread of the quick suite")
{
	CHECK(median({}) == 0);
	CHECK(median({3}) == 3);
	CHECK(median({5, 1, 3}) == 3);
	CHECK(median({4, 1, 3, 2}) == 2.5);
	QuickRow row{{false, MiB, 1, 1}, false, "SEQ1M Q1T1 read", {}};
	for (double bps : {300.0, 100.0, 200.0}) {
		QuickRun r;
		r.bytes_per_second = bps;
		row.runs.push_back(std::move(r));
	}
	Spread s = spread(row, bps_of);
	CHECK(s.median == 200);
	CHECK(s.min == 100);
	CHECK(s.max == 300);
}

TEST_CASE("quick_run: a signal taken between two runs (in allocate_buffers) is an interruption, not an error")
{
	std::string dir_name = scratch_name("sdb-unit-quick.XXXXXX");
	char *dir = dir_name.data();
	REQUIRE(mkdtemp(dir));
	const std::string path = std::string(dir) + "/t";
	{
		std::vector<char> data(1 << 20, 'x');
		FILE *f = std::fopen(path.c_str(), "w");
		REQUIRE(f);
		REQUIRE(std::fwrite(data.data(), 1, data.size(), f) == data.size());
		std::fclose(f);
	}
	Options o;
	o.op = Options::Op::read;
	o.file = path;
	o.block_size = 64 * KiB;
	o.size = MiB;
	{
		SignalScope scope;
		REQUIRE_FALSE(scope.error());
		REQUIRE(raise(SIGINT) == 0);	// blocked: it waits in the signalfd, as a Ctrl-C after the last run's end
		QuickOutcome out = quick_run(o, nullptr, scope.waiter, RunId{1, "RND4K Q1T1 read, run 2 of 3: "}, nullptr);
		CHECK_MESSAGE(!out.error, out.error.msg);
		CHECK(out.interrupted);
		CHECK(scope.waiter.exit_status() == 130);
	}
	std::remove(path.c_str());
	rmdir(dir);
}

} // TEST_SUITE("quick")
