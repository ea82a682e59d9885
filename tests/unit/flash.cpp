// flash: --quick=flash's cap, the rule that stops its write at the cliff,
// the region its rows use, and its words and JSON.
#include "../../src/cliff.h"

#include <doctest/doctest.h>

#include "falling.h"

#include <string>
#include <vector>

TEST_SUITE("flash")
{
TEST_CASE("flash_cap: -s as given, else the room up to 32 GiB, in whole MiB")
{
	CHECK(flash_cap(100 * GiB, 0) == 32 * GiB);
	CHECK(flash_cap(5 * GiB + 12345, 0) == 5 * GiB);
	CHECK(flash_cap(100 * GiB, 64 * GiB) == 64 * GiB);
	CHECK(flash_cap(100 * GiB, 3 * MiB) == 3 * MiB);
}

TEST_CASE("cliff_settled: only once the rate after the fall has run 5 s, and a quarter of the time before")
{
	const double M = 1048576;
	// 64 MiB at 80 MiB/s (0.8 s), then 16 MiB/s.
	CHECK_FALSE(cliff_settled({}));
	CHECK_FALSE(cliff_settled(falling(80 * M, 16 * M, 64 * M, 3)));	// 2.2 s after the fall
	CHECK_FALSE(cliff_settled(falling(80 * M, 16 * M, 64 * M, 5.6)));	// 4.8 s
	CHECK(cliff_settled(falling(80 * M, 16 * M, 64 * M, 6)));		// 5.2 s
	// A cache of 40 s at 100 MiB/s: 10 s after its fall, not 5.
	CHECK_FALSE(cliff_settled(falling(100 * M, 20 * M, 4000 * M, 48)));
	CHECK(cliff_settled(falling(100 * M, 20 * M, 4000 * M, 50.5)));
	// A steady write never settles: it runs to the cap.
	CHECK_FALSE(cliff_settled(falling(50 * M, 50 * M, 0, 60)));
}

TEST_CASE("flash_region: what was written, at most 1 GiB, in whole MiB")
{
	CHECK(flash_region(144 * MiB + 4096) == 144 * MiB);
	CHECK(flash_region(32 * GiB) == GiB);
	CHECK(flash_region(4096) == 0);
}

TEST_CASE("flash_words and json_flash: the cliff, or none within what was written")
{
	FlashWrite w;
	w.ran = true;
	w.cap = GiB;
	w.written = 144 * MiB;
	w.seconds = 6;
	w.bytes_per_second = 24 * MiB;
	CHECK(flash_words(w) == "Write to the cliff: 144 MiB of a 1 GiB cap in 6.0 s: no cliff within 144 MiB "
				"(24.00 MiB/s over all of it)");
	CHECK(json_flash(w).find("\"cliff\": null") == 0);
	w.cliff = Cliff{64 * MiB, 0.8, 80.0 * MiB, 16.0 * MiB, ""};
	std::string words = flash_words(w);
	CHECK(words.find("the rate fell after 64 MiB (0.80 s), from 80.00 MiB/s to 16.00 MiB/s: a write cache of about 64 MiB") !=
	      std::string::npos);
	std::string json = json_flash(w);
	CHECK(json.find("\"cliff\": {\"offset\": 67108864, ") == 0);
	CHECK(json.find("\"flash\": {\"cap_bytes\": 1073741824, \"written_bytes\": 150994944, ") != std::string::npos);
}
}
