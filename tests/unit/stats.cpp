// Unit tests of src/stats.h: the random-order Permutation, the seeded
// MixChooser, the latency Histogram, the sampler's LiveHistogram and the
// bound on a run's samples.
#include "../../src/stats.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

TEST_SUITE("stats") {

TEST_CASE("MixChooser: a fixed sequence for a seed, and PCT% reads")
{
	MixChooser pinned(0x5db0000, 70);
	std::string seq;
	for (int i = 0; i < 24; i++)
		seq += pinned.read() ? 'r' : 'w';
	CHECK(seq == "rrrrrrrrwrrrrrrrwrrrrrrr");
	for (unsigned pct : {0u, 1u, 30u, 50u, 70u, 99u, 100u}) {
		MixChooser c(12345 + pct, pct);
		unsigned reads = 0;
		for (int i = 0; i < 10000; i++)
			reads += c.read();
		CHECK_MESSAGE(std::abs(static_cast<double>(reads) / 100 - pct) <= 2, "pct=" << pct << " reads=" << reads);
		if (pct == 0 || pct == 100)
			CHECK(reads == pct * 100);
	}
	MixChooser a(7, 50), b(7, 50), other(8, 50);
	unsigned same = 0, differ = 0;
	for (int i = 0; i < 1000; i++) {
		bool x = a.read();
		same += x == b.read();
		differ += x != other.read();
	}
	CHECK(same == 1000);
	CHECK(differ > 300);
}

// Every value 0..n-1 exactly once in n outputs, and again in the next n.
void check_permutation(std::uint64_t n, std::uint64_t seed)
{
	Permutation perm(n, seed);
	for (int pass = 0; pass < 2; pass++) {
		std::vector<bool> seen(n, false);
		std::uint64_t out_of_range = 0, repeats = 0;
		for (std::uint64_t i = 0; i < n; i++) {
			std::uint64_t v = perm.next();
			if (v >= n) {
				out_of_range++;
				continue;
			}
			repeats += seen[v];
			seen[v] = true;
		}
		CHECK_MESSAGE(out_of_range == 0, "n=" << n << " seed=" << seed);
		CHECK_MESSAGE(repeats == 0, "n=" << n << " seed=" << seed);
	}
}

TEST_CASE("Permutation visits every block exactly once per pass")
{
	for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 4ULL, 5ULL, 7ULL, 8ULL, 9ULL, 100ULL, 1000ULL, 4093ULL, 65536ULL,
				65537ULL, 1ULL << 20})
		check_permutation(n, 42);
	for (std::uint64_t seed = 0; seed < 20; seed++)
		check_permutation(1000003, seed);	// a prime
}

TEST_CASE("Permutation is scrambled and seeded")
{
	const std::uint64_t n = 1 << 16;
	Permutation a(n, 1), b(n, 1), c(n, 2);
	std::uint64_t ascending = 0, same_as_b = 0, same_as_c = 0, prev = 0;
	for (std::uint64_t i = 0; i < n; i++) {
		std::uint64_t x = a.next();
		ascending += x == prev + 1;
		same_as_b += x == b.next();
		same_as_c += x == c.next();
		prev = x;
	}
	CHECK(same_as_b == n);		// reproducible
	CHECK(same_as_c < n / 100);	// another seed, another order
	CHECK(ascending < n / 100);	// not a sequential scan in disguise
}

TEST_CASE("Histogram: exact small values, bounded error, ordered percentiles")
{
	Histogram h;
	CHECK(h.count() == 0);
	CHECK(h.percentile(0.5) == 0);
	CHECK(h.min() == 0);
	for (std::uint64_t v = 1; v <= 100000; v++)
		h.add(v * 1000);	// 1 us .. 100 ms, uniform
	CHECK(h.count() == 100000);
	CHECK(h.min() == 1000);
	CHECK(h.max() == 100000000);
	CHECK(h.mean() == 50000500);
	const double qs[] = {0.5, 0.9, 0.99, 0.999};
	for (double q : qs) {
		double exact = q * 100000 * 1000;
		double got = static_cast<double>(h.percentile(q));
		CHECK_MESSAGE(std::fabs(got - exact) / exact < 0.01, "q=" << q << " got " << got);
	}
	CHECK(h.percentile(1.0) == h.max());

	Histogram small;
	for (std::uint64_t v : {3, 3, 7, 200, 255})
		small.add(v);
	CHECK(small.percentile(0.2) == 3);	// below 256 every value has its own bucket
	CHECK(small.percentile(0.6) == 7);
	CHECK(small.percentile(1.0) == 255);
}

TEST_CASE("Histogram: buckets are contiguous and within 1% everywhere")
{
	unsigned last = 0;
	for (std::uint64_t v = 1; v < (1ULL << 40); v = v * 3 / 2 + 1) {
		unsigned i = Histogram::index(v);
		CHECK(i >= last);
		CHECK(i < Histogram::buckets);
		double mid = static_cast<double>(Histogram::midpoint(i));
		CHECK(std::fabs(mid - static_cast<double>(v)) / static_cast<double>(v) < 0.01);
		last = i;
	}
	CHECK(Histogram::index(UINT64_MAX) == Histogram::buckets - 1);
}

TEST_CASE("Histogram: merge adds counts")
{
	Histogram a, b;
	a.add(10);
	b.add(1000000);
	b.add(5);
	a.merge(b);
	CHECK(a.count() == 3);
	CHECK(a.min() == 5);
	CHECK(a.max() == 1000000);
}

TEST_CASE("Histogram: bucket bounds tile the values, and a saved histogram rebuilds its percentiles")
{
	for (unsigned i = 0; i + 1 < Histogram::buckets; i++) {
		REQUIRE(Histogram::low(i) <= Histogram::high(i));
		REQUIRE(Histogram::high(i) + 1 == Histogram::low(i + 1));
		REQUIRE(Histogram::index(Histogram::low(i)) == i);
		REQUIRE(Histogram::index(Histogram::high(i)) == i);
	}
	CHECK(Histogram::high(Histogram::buckets - 1) == UINT64_MAX);

	Histogram h, rebuilt;
	for (std::uint64_t v = 1000; v < 5000000; v = v * 21 / 20)
		h.add(v);
	for (unsigned i = 0; i < Histogram::buckets; i++)
		rebuilt.add_bucket(i, h.at(i));
	CHECK(rebuilt.count() == h.count());
	for (double q : {0.5, 0.9, 0.99})
		CHECK(rebuilt.percentile(q) == h.percentile(q));
	CHECK(rebuilt.min() <= h.min());
	CHECK(rebuilt.max() >= h.max());
}

TEST_CASE("LiveHistogram: Histogram's buckets eight at a time, and an interval's percentiles")
{
	LiveHistogram live;
	for (std::uint64_t v : {5, 300, 1000, 1000, 250000})
		live.add(v);
	unsigned b = Histogram::index(1000) / LiveHistogram::group;
	CHECK(live.at(b) == 2);
	CHECK(LiveHistogram::low(b) <= 1000);
	CHECK(LiveHistogram::high(b) >= 1000);
	CHECK(LiveHistogram::high(b) - LiveHistogram::low(b) + 1 <= 1000 / 16 + 1);	// under 6.3% wide
	CHECK(LiveHistogram::high(LiveHistogram::buckets - 1) == UINT64_MAX);
	for (unsigned i = 1; i < LiveHistogram::buckets; i++)	// contiguous, in order
		REQUIRE(LiveHistogram::low(i) == LiveHistogram::high(i - 1) + 1);

	std::vector<std::uint64_t> counts(LiveHistogram::buckets, 0);
	CHECK(LiveHistogram::percentile(counts, 0.5) == 0);
	counts[Histogram::index(100000) / LiveHistogram::group] = 98;	// 98 I/Os near 100 us, 2 near 5 ms
	counts[Histogram::index(5000000) / LiveHistogram::group] = 2;
	CHECK(LiveHistogram::percentile(counts, 0.5) == doctest::Approx(100000).epsilon(0.04));
	CHECK(LiveHistogram::percentile(counts, 0.98) == doctest::Approx(100000).epsilon(0.04));
	CHECK(LiveHistogram::percentile(counts, 0.99) == doctest::Approx(5000000).epsilon(0.04));
}


TEST_CASE("halve_samples: a day's samples fit in max_samples, every byte and I/O still counted")
{
	// The sampler's rule (supervise()): every 0.1 s tick adds its I/Os to
	// what is pending, a sample every `every` ticks takes them, and
	// max_samples halves the samples.  864,000 ticks: 24 hours.
	std::vector<Sample> samples;
	unsigned every = 1, ticks = 0;
	std::vector<std::uint64_t> pending(LiveHistogram::buckets, 0);
	std::uint64_t ios = 0, slow = 0;
	for (std::uint64_t tick = 1; tick <= 864000; tick++) {
		pending[3] += 10;	// most I/Os in one bucket, a few moving, a rare slow one
		pending[tick % 7 + 4] += 2;
		pending[900] += tick % 1000 == 0;
		ios += 12 + (tick % 1000 == 0);
		slow += tick % 1000 == 0;
		if (++ticks < every)
			continue;
		ticks = 0;
		IntervalLatency l;
		for (unsigned i = 0; i < pending.size(); i++)
			if (pending[i])
				l.push_back({i, pending[i]});
		std::fill(pending.begin(), pending.end(), 0);
		samples.push_back({tick / 10.0, tick * 4096, l});
		if (samples.size() == max_samples) {
			halve_samples(samples);
			every *= 2;
		}
	}
	REQUIRE(samples.size() < max_samples);
	REQUIRE(samples.size() >= max_samples / 2);
	double period = every / 10.0;
	std::uint64_t counted = 0, counted_slow = 0;
	for (std::size_t i = 0; i < samples.size(); i++) {
		CHECK(samples[i].t == doctest::Approx(period * static_cast<double>(i + 1)));	// evenly spaced
		CHECK(samples[i].bytes == static_cast<std::uint64_t>(std::llround(samples[i].t * 10)) * 4096);
		for (std::size_t k = 0; k < samples[i].latency.size(); k++) {
			counted += samples[i].latency[k].second;
			counted_slow += samples[i].latency[k].first == 900 ? samples[i].latency[k].second : 0;
			if (k)
				CHECK(samples[i].latency[k - 1].first < samples[i].latency[k].first);	// by bucket, each once
		}
		CHECK(samples[i].latency.size() <= 9);	// buckets 3, 4..10 and 900: a union, not a list that grows
	}
	std::uint64_t tail = 0, tail_slow = pending[900];	// after the last sample: the run's tail_latency
	for (std::uint64_t n : pending)
		tail += n;
	CHECK(counted + tail == ios);
	CHECK(counted_slow + tail_slow == slow);
}

TEST_CASE("halve_samples: an odd count keeps its last sample as it was")
{
	std::vector<Sample> s = {{0.1, 10, {{1, 1}}}, {0.2, 20, {{1, 2}, {5, 1}}}, {0.3, 30, {{2, 4}}}};
	halve_samples(s);
	REQUIRE(s.size() == 2);
	CHECK(s[0].t == doctest::Approx(0.2));
	CHECK(s[0].bytes == 20);
	CHECK(s[0].latency == IntervalLatency{{1, 3}, {5, 1}});
	CHECK(s[1].t == doctest::Approx(0.3));
	CHECK(s[1].latency == IntervalLatency{{2, 4}});
}

} // TEST_SUITE("stats")
