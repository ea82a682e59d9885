// Unit tests of src/stops.h: schedstat's run delay as the kernel writes
// it, and a wake's lateness the run delay does not explain counted as a stop.
#include "../../src/stops.h"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

TEST_SUITE("stops") {

TEST_CASE("run_delay_ns: schedstat's second field; none for a file without it")
{
	std::string path_name = scratch_name("sdb-schedstat.XXXXXX");
	char *path = path_name.data();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	std::ofstream(path) << "83566423 83875159 95\n";
	CHECK(run_delay_ns(path) == std::optional<std::uint64_t>(83875159));
	std::ofstream(path) << "";
	CHECK_FALSE(run_delay_ns(path));
	std::remove(path);
	CHECK(run_delay_ns());	// this kernel's, for this thread
}

TEST_CASE("StopClock: a wake 1 s late with no run delay is a stop of about 1 s; a wake on time is none")
{
	StopClock on_time;
	std::int64_t now = now_ns();
	on_time.sleeping(now + 1000000);
	on_time.woke(now + 50000000);	// 49 ms late: under the threshold
	CHECK(on_time.stops == 0);
	CHECK(on_time.stopped_ns == 0);

	StopClock late;
	now = now_ns();
	late.sleeping(now - 1000000000);	// as if it had asked to wake a second ago
	late.woke(now_ns());
	REQUIRE(late.measurable);
	CHECK(late.stops == 1);
	CHECK(late.stopped_ns > 900000000);	// less what run delay this thread had meanwhile
	CHECK(late.stopped_ns <= now_ns() - now + 1000000000);

	StopClock throttled;	// the same wake, with a CPU quota's throttling over the sleep: not a stop
	now = now_ns();
	throttled.sleeping(now - 1000000000, 5000000000);
	throttled.woke(now_ns(), 5000000000 + 990000000);
	REQUIRE(throttled.measurable);
	CHECK(throttled.stops == 0);
	CHECK(throttled.stopped_ns == 0);
}

} // TEST_SUITE("stops")
