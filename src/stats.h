// stats: the numbers behind a run.  Permutation (a full-period random
// order of the blocks in O(1) memory), Histogram (HdrHistogram-style
// latency buckets, mergeable), LiveHistogram (coarser buckets the sampler
// reads while a worker fills them: the timeline's percentiles), MixChooser (-M's read-or-write draw), and
// splitmix64, the one finaliser they and the --verify pattern share; a
// run's plain data (Sample, its bound halve_samples, Enough) and the histogram's words and JSON
// keys (latency_summary, json_latency, json_histogram).
#pragma once

#include "base.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>


namespace {

// SplitMix64's output function: any 64-bit value (a seed, a counter) to 64
// well-mixed bits, a bijection.  Seeds the permutation, draws the mix, and
// makes the --verify pattern.
std::uint64_t splitmix64(std::uint64_t x)
{
	x += 0x9e3779b97f4a7c15;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
	return x ^ (x >> 31);
}

// A pseudo-random order of 0..n-1 with O(1) memory.  An LCG modulo 2^k
// (k = bits to hold n-1; a = 1 mod 4 and c odd give the full period 2^k)
// walks every k-bit state once per period; a bijection of k-bit values
// (xorshift, odd multiply, xorshift) scrambles the LCG's weak low bits;
// values >= n are skipped (cycle walking).  Any n consecutive outputs are
// a permutation of 0..n-1, and since n > 2^(k-1) fewer than 2 steps are
// taken per output on average.
class Permutation {
public:
	Permutation(std::uint64_t n, std::uint64_t seed) : n_(n)
	{
		unsigned bits = 0;
		while (bits < 64 && (n - 1) >> bits)
			bits++;
		mask_ = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
		shift_ = std::max(1u, bits / 2);
		state_ = splitmix64(seed) & mask_;
		increment_ = (splitmix64(seed + 1) | 1) & mask_;
		multiplier_ = splitmix64(seed + 2) | 1;
	}

	std::uint64_t next()
	{
		for (;;) {
			state_ = (state_ * 6364136223846793005ULL + increment_) & mask_;
			std::uint64_t x = state_;
			x ^= x >> shift_;
			x = (x * multiplier_) & mask_;
			x ^= x >> shift_;
			if (x < n_)
				return x;
		}
	}

private:
	std::uint64_t n_, mask_, state_, increment_, multiplier_;
	unsigned shift_;
};

// Latency in nanoseconds, HdrHistogram-style: values below 256 exactly,
// above that 128 linear sub-buckets per power of two (< 0.8% wide), fixed
// memory, O(1) add.  Percentiles are reported as bucket midpoints.
class Histogram {
public:
	static constexpr unsigned sub_bits = 7;
	static constexpr unsigned sub_count = 1u << sub_bits;		// 128
	static constexpr unsigned buckets = 2 * sub_count + (63 - sub_bits) * sub_count;

	Histogram() : counts_(buckets, 0) {}

	void add(std::uint64_t v)
	{
		counts_[index(v)]++;
		count_++;
		sum_ += v;
		min_ = std::min(min_, v);
		max_ = std::max(max_, v);
	}

	void merge(const Histogram &h)
	{
		for (unsigned i = 0; i < buckets; i++)
			counts_[i] += h.counts_[i];
		count_ += h.count_;
		sum_ += h.sum_;
		min_ = std::min(min_, h.min_);
		max_ = std::max(max_, h.max_);
	}

	// Back to no samples: what a --ramp ran is not counted.
	void reset()
	{
		std::fill(counts_.begin(), counts_.end(), 0);
		count_ = sum_ = max_ = 0;
		min_ = UINT64_MAX;
	}

	std::uint64_t count() const { return count_; }
	std::uint64_t min() const { return count_ ? min_ : 0; }
	std::uint64_t max() const { return max_; }
	std::uint64_t mean() const { return count_ ? sum_ / count_ : 0; }

	// The value at or below which a fraction q (0..1) of the samples lie.
	std::uint64_t percentile(double q) const
	{
		if (count_ == 0)
			return 0;
		auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
		if (rank >= count_)
			return max_;
		rank = std::max<std::uint64_t>(rank, 1);
		std::uint64_t seen = 0;
		for (unsigned i = 0; i < buckets; i++) {
			seen += counts_[i];
			if (seen >= rank)
				return std::clamp(midpoint(i), min(), max_);
		}
		return max_;
	}

	static unsigned index(std::uint64_t v)
	{
		if (v < 2 * sub_count)
			return static_cast<unsigned>(v);
		unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(v));
		unsigned shift = msb - sub_bits;
		return (shift + 1) * sub_count + static_cast<unsigned>(v >> shift) - sub_count;
	}

	static std::uint64_t midpoint(unsigned i) { return low(i) + (width(i) >> 1); }

	// Bucket i holds the values low(i) .. high(i), both included.
	static std::uint64_t low(unsigned i)
	{
		if (i < 2 * sub_count)
			return i;
		return static_cast<std::uint64_t>(i % sub_count + sub_count) << (i / sub_count - 1);
	}
	static std::uint64_t high(unsigned i) { return low(i) + width(i) - 1; }

	// The samples in bucket i.
	std::uint64_t at(unsigned i) const { return counts_[i]; }

	// n samples known only by their bucket (a saved histogram): counted at
	// the bucket's midpoint, clamped to the bucket's bounds for min and max.
	void add_bucket(unsigned i, std::uint64_t n)
	{
		if (n == 0)
			return;
		counts_[i] += n;
		count_ += n;
		sum_ += midpoint(i) * n;
		min_ = std::min(min_, low(i));
		max_ = std::max(max_, high(i));
	}

private:
	static std::uint64_t width(unsigned i) { return i < 2 * sub_count ? 1 : std::uint64_t{1} << (i / sub_count - 1); }

	std::vector<std::uint64_t> counts_;
	std::uint64_t count_ = 0, sum_ = 0, min_ = UINT64_MAX, max_ = 0;
};

// A latency histogram that another thread reads while its owner fills it:
// Histogram's buckets eight at a time (16 a power of two above 256 ns, each
// under 6.3% wide), each a relaxed atomic only the owner writes, so that an
// add is a plain load and store (no locked instruction in the timed loop)
// and the sampler can difference two snapshots into one interval's counts.
class LiveHistogram {
public:
	static constexpr unsigned group = 8;
	static constexpr unsigned buckets = Histogram::buckets / group;	// 928

	void add(std::uint64_t v)
	{
		std::atomic<std::uint64_t> &c = counts_[Histogram::index(v) / group];
		c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
	}

	std::uint64_t at(unsigned i) const { return counts_[i].load(std::memory_order_relaxed); }

	// Bucket i holds the values low(i) .. high(i), both included.
	static std::uint64_t low(unsigned i) { return Histogram::low(i * group); }
	static std::uint64_t high(unsigned i) { return Histogram::high(i * group + group - 1); }

	// Of counts per bucket (an interval's, summed over threads): the
	// midpoint of the bucket that holds the fraction q of them; 0 for none.
	static std::uint64_t percentile(const std::vector<std::uint64_t> &counts, double q)
	{
		std::uint64_t total = 0;
		for (std::uint64_t n : counts)
			total += n;
		if (total == 0)
			return 0;
		auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total))));
		std::uint64_t seen = 0;
		for (unsigned i = 0; i < counts.size(); i++) {
			seen += counts[i];
			if (seen >= rank)
				return low(i) + (high(i) - low(i)) / 2;
		}
		return 0;
	}

private:
	std::array<std::atomic<std::uint64_t>, buckets> counts_{};
};

// One interval's latency counts: (LiveHistogram bucket, I/Os) for the
// buckets that had any.
using IntervalLatency = std::vector<std::pair<unsigned, std::uint64_t>>;

std::uint64_t histogram_bytes() { return Histogram::buckets * sizeof(std::uint64_t); }

// -M PCT: whether each I/O of a mix is a read, with probability PCT%, from
// splitmix64 over a seed: reproducible, another sequence for each thread
// and repeat, independent of the offsets' order.  A draw is one splitmix64
// (two multiplies, three shifts) and a modulo, whose bias (2^64 mod 100 in
// 2^64) is nil.
class MixChooser {
public:
	MixChooser(std::uint64_t seed, unsigned read_percent) : state_(seed), percent_(read_percent) {}

	bool read()
	{
		std::uint64_t z = splitmix64(state_);
		state_ += 0x9e3779b97f4a7c15ULL;	// the step splitmix64 adds: the next draw's input
		return z % 100 < percent_;
	}

private:
	std::uint64_t state_;
	unsigned percent_;
};

struct Sample {
	double t;		// seconds since the start
	std::uint64_t bytes;	// all threads together
	IntervalLatency latency {};	// the I/Os that ended since the sample before, all threads together
};

// A run keeps at most max_samples samples, so that a day's run holds no
// more than a minute's: when they reach it, each two neighbours become one
// (the later one's t and bytes, both intervals' latencies) and the sampler
// keeps one sample in two of its ticks from then on (see supervise()).
constexpr std::size_t max_samples = 128;

void halve_samples(std::vector<Sample> &samples)
{
	std::size_t kept = 0;
	for (std::size_t i = 0; i + 1 < samples.size(); i += 2) {
		const IntervalLatency &a = samples[i].latency, &b = samples[i + 1].latency;	// each by bucket, ascending
		IntervalLatency both;
		both.reserve(a.size() + b.size());
		std::size_t j = 0, k = 0;
		while (j < a.size() || k < b.size())
			if (k == b.size() || (j < a.size() && a[j].first < b[k].first))
				both.push_back(a[j++]);
			else if (j == a.size() || b[k].first < a[j].first)
				both.push_back(b[k++]);
			else {
				both.push_back({a[j].first, a[j].second + b[k].second});
				j++, k++;
			}
		both.shrink_to_fit();
		samples[kept++] = {samples[i + 1].t, samples[i + 1].bytes, std::move(both)};
	}
	if (samples.size() % 2)	// the last one alone stays as it is
		samples[kept++] = std::move(samples.back());
	samples.resize(kept);
}

// A question a run can stop at once answered (see supervise()).
using Enough = std::function<bool(const std::vector<Sample> &)>;

std::string json_latency(const Histogram &h)
{
	return format("{\"min\": %" PRIu64 ", \"mean\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
		      ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		      h.min(), h.mean(), h.percentile(0.5), h.percentile(0.9), h.percentile(0.99), h.percentile(0.999),
		      h.max());
}

// The non-empty buckets of a latency histogram, each [low, high, count]
// with both bounds included: enough to merge histograms exactly later.
std::string json_histogram(const Histogram &h)
{
	std::string s = "[";
	for (unsigned i = 0; i < Histogram::buckets; i++)
		if (h.at(i))
			s += format("%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", s.size() > 1 ? ", " : "", Histogram::low(i),
				    Histogram::high(i), h.at(i));
	return s + "]";
}

std::string latency_summary(const Histogram &h)
{
	return format("latency min %s, avg %s, p99 %s, max %s", format_ns(h.min()).c_str(), format_ns(h.mean()).c_str(),
		      format_ns(h.percentile(0.99)).c_str(), format_ns(h.max()).c_str());
}

} // namespace
