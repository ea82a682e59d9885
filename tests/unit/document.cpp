// Unit tests of src/document.h: the JSON histogram and Unix times, the
// options key, a mix's sides and --fsync's syncs.
#include "../../src/document.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cinttypes>
#include <cstdint>
#include <string>

#include <sys/sysmacros.h>

TEST_SUITE("document") {

TEST_CASE("json_histogram and json_unix: a mergeable histogram, exact Unix times")
{
	Histogram h;
	CHECK(json_histogram(h) == "[]");
	h.add(5);
	h.add(5);
	h.add(1000);
	unsigned i = Histogram::index(1000);
	CHECK(json_histogram(h) == format("[[5, 5, 2], [%" PRIu64 ", %" PRIu64 ", 1]]", Histogram::low(i), Histogram::high(i)));
	CHECK(Histogram::low(i) <= 1000);
	CHECK(Histogram::high(i) >= 1000);
	CHECK(json_unix(1764500000LL * 1000000000 + 250081999) == "1764500000.250081");
	CHECK(json_unix(0) == "0.000000");
}

TEST_CASE("json_options: what was asked, --rate's key only with --rate")
{
	Plan p = plan_on(makedev(8, 0));
	p.block_size = 4096;
	p.opt.random = true;
	p.opt.direct = true;
	p.opt.queue_depth = 32;
	p.opt.threads = 2;
	Json closed = json_of(json_options(p));
	CHECK(closed.str("op") == "read");
	CHECK(closed.str("mode") == "rand");
	CHECK(closed.str("file") == "/data/f");
	CHECK(closed.num("block_size") == 4096);
	CHECK(closed.num("threads") == 2);
	CHECK(closed.num("queue_depth") == 32);
	CHECK(closed.flag("direct"));
	CHECK(closed.find("mix", Json::Type::null));
	CHECK(closed.find("time_limit", Json::Type::null));
	CHECK_FALSE(closed.find("rate"));	// a closed loop's options are as they were before --rate

	p.opt.rate.per_second = 2.5 * MiB;	// "-Z 2.5m/s" of 4 KiB blocks: 640 I/Os a second
	p.opt.rate.bytes = true;
	p.opt.time_limit = 3;
	Json paced = json_of(json_options(p));
	CHECK(paced.num("rate") == doctest::Approx(640));
	CHECK(paced.num("time_limit") == 3);
}

TEST_CASE("json_side and json_sync: a side's rates over the run's seconds; no syncs, null")
{
	Histogram h;
	h.add(1000);
	h.add(3000);
	Json side = json_of(json_side(8 * MiB, 2048, 2.0, h));
	CHECK(side.num("bytes") == 8 * MiB);
	CHECK(side.num("ops") == 2048);
	CHECK(side.num("bytes_per_second") == doctest::Approx(4.0 * MiB));
	CHECK(side.num("iops") == doctest::Approx(1024));
	const Json *latency = side.find("latency_ns", Json::Type::object);
	REQUIRE(latency);
	CHECK(latency->num("max") >= 3000);
	CHECK(json_sync(std::nullopt) == "null");
	CHECK(json_of(json_sync(h)).num("ops") == 2);
}

} // TEST_SUITE("document")
