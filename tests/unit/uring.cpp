// Unit tests of src/uring.h: Ring's waits and its completions.
#include "../../src/uring.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <unistd.h>

TEST_SUITE("uring") {

TEST_CASE("Ring: --rate's bounded wait returns when no I/O comes, and the I/O is reaped when it comes")
{
	int p[2];
	REQUIRE(pipe(p) == 0);
	Ring ring;
	if (ring.setup(2, 0, 1)) {
		MESSAGE("io_uring unavailable: skipped");
	} else {
		char buf[16];
		ring.attach(p[0], false, buf, 0, false);
		ring.queue(buf, sizeof buf, 0, 7);
		alarm(20);	// a wait that never returns ends the test here, as a failure
		CHECK(ring.submit_and_wait_for(1, 20000000) == 0);	// nothing to read: the wait ends at its bound
		unsigned index = 0;
		int res = 0;
		CHECK_FALSE(ring.reap(index, res));
		REQUIRE(write(p[1], "x", 1) == 1);
		while (!ring.reap(index, res))
			REQUIRE(ring.submit_and_wait(1) == 0);
		alarm(0);
		CHECK(index == 7);
		CHECK(res == 1);
	}
	close(p[0]);
	close(p[1]);
}

} // TEST_SUITE("uring")
