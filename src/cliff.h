// cliff: where a sequential write's rate fell for good (a drive's SLC or
// DRAM write cache filling up), from the run's 0.1 s samples: the offset
// and the time it fell at, the rate before and after.  Offers find_cliff()
// to the reports (JSON "cliff", the human "Write cache" line), and
// about_bytes() for its size in words.  And what --quick=flash adds to the
// quick suite for USB sticks, SD cards and external SSDs: the cap of its
// sequential write (flash_cap), the rule that ends that write once its
// cliff is found and the rate after it measured (cliff_settled), the
// region the small random rows use afterwards (flash_region), and the
// write's outcome in words and JSON (FlashWrite, flash_words, json_flash).
#pragma once

#include "base.h"
#include "json.h"
#include "stats.h"

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Cliff {
	std::uint64_t offset = 0;	// bytes written (all threads) when the rate fell
	double seconds = 0;		// since the window opened
	double before = 0, after = 0;	// bytes per second
	std::string page_cache;		// a buffered write that fell where a memory cgroup's limit holds
					// its dirty pages: the limit ("memory.limit_in_bytes 128 MiB in DIR")
};

// The split of the samples into a fast part and a slow part that explains
// their rates best (the two means' least squares: k(n-k)(m1 - m2)^2 at its
// largest), kept when the slow part runs under 70% of the fast one, both
// last at least 0.5 s, and the slow part stays slow (its last third too).
// The offset is then placed inside the sample it fell in, from the two
// rates: a fall between two samples 0.1 s apart is found to a few MiB, not
// to 0.1 s of the fast rate.  end: the seconds up to which every thread
// ran (later samples are a tail of stragglers).
std::optional<Cliff> find_cliff(const std::vector<Sample> &samples, double end)
{
	std::vector<Sample> s = {{0, 0}};
	for (const Sample &x : samples)
		if (x.t <= end + 1e-9 && x.t > s.back().t)
			s.push_back(x);
	const std::size_t n = s.size() - 1;	// intervals
	if (n < 10)
		return std::nullopt;
	std::vector<double> r(n);
	for (std::size_t i = 0; i < n; i++)
		r[i] = static_cast<double>(s[i + 1].bytes - s[i].bytes) / (s[i + 1].t - s[i].t);
	std::vector<double> prefix(n + 1, 0);
	for (std::size_t i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + r[i];
	std::size_t best = 0;
	double best_score = 0;
	for (std::size_t k = 5; k + 5 <= n; k++) {	// at least 0.5 s either side
		double m1 = prefix[k] / k, m2 = (prefix[n] - prefix[k]) / static_cast<double>(n - k);
		double score = static_cast<double>(k) * static_cast<double>(n - k) * (m1 - m2) * (m1 - m2);
		if (m2 < m1 && score > best_score)
			best = k, best_score = score;
	}
	if (!best)
		return std::nullopt;
	const double fast = prefix[best] / best, slow = (prefix[n] - prefix[best]) / static_cast<double>(n - best);
	const std::size_t third = (n - best) / 3;
	double tail = third ? (prefix[n] - prefix[n - third]) / static_cast<double>(third) : slow;
	if (!(slow < 0.7 * fast) || !(tail < 0.7 * fast))
		return std::nullopt;
	// The interval it fell in: the last one faster than the middle of the
	// two rates, at or before the split.
	std::size_t k = best;
	while (k > 0 && r[k - 1] < (fast + slow) / 2)
		k--;
	std::size_t in = k < n && r[k] < fast ? k : k - 1;	// the interval holding the fall
	if (in >= n)
		in = n - 1;
	double dt = s[in + 1].t - s[in].t;
	double moved = static_cast<double>(s[in + 1].bytes - s[in].bytes);
	double fast_part = fast > slow ? std::clamp((moved - slow * dt) / (fast - slow), 0.0, dt) : 0;
	Cliff c;
	c.seconds = s[in].t + fast_part;
	c.offset = s[in].bytes + static_cast<std::uint64_t>(fast * fast_part);
	c.before = c.seconds > 0 ? static_cast<double>(c.offset) / c.seconds : fast;
	c.after = s[n].t > c.seconds ? static_cast<double>(s[n].bytes - c.offset) / (s[n].t - c.seconds) : slow;
	return c;
}

// A cache's size as words round it: "64 MiB", "1.5 GiB", "about" implied.
std::string about_bytes(std::uint64_t bytes)
{
	const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = static_cast<double>(bytes);
	unsigned u = 0;
	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	return v >= 10 ? format("%.0f %s", v, units[u]) : format("%.1f %s", v, units[u]);
}

// The write to the cliff stops at the first of: its cliff settled, the
// cap.  32 GiB outgrows the SLC caches of external SSDs (a few to a few
// tens of GiB) without writing a 1 TB drive whole.
constexpr std::uint64_t flash_cap_limit = 32 * GiB;

// The cap: -s when given, else the room there is (a device's size, or the
// free space less a margin for the file system: 16/17 of it, the suite's
// rule for a test file), at most 32 GiB, in whole MiB.
std::uint64_t flash_cap(std::uint64_t room, std::uint64_t size_option)
{
	if (size_option)
		return size_option;
	return std::min(flash_cap_limit, room) / MiB * MiB;
}

// Enough of the write: a cliff found and the rate after it measured for
// 5 s and a quarter of the time before it (whichever is longer), so that
// a brief stall is not taken for a cache that filled and the after-rate
// is a sustained one.  samples: the run's so far.
bool cliff_settled(const std::vector<Sample> &samples)
{
	if (samples.empty())
		return false;
	double end = samples.back().t;
	std::optional<Cliff> c = find_cliff(samples, end);
	return c && end - c->seconds >= std::max(5.0, c->seconds / 4);
}

// The file's part the random and read rows use once the write is over:
// what it wrote (a random read of what was never written reads holes), at
// most 1 GiB as CrystalDiskMark's default, in whole MiB.
std::uint64_t flash_region(std::uint64_t written)
{
	return std::min(written, GiB) / MiB * MiB;
}

// How the write to the cliff ended.
struct FlashWrite {
	bool ran = false;
	std::uint64_t cap = 0, written = 0;
	double seconds = 0, bytes_per_second = 0;
	std::optional<Cliff> cliff;
};

// The write in words: where the rate fell, or that it did not.
std::string flash_words(const FlashWrite &w)
{
	std::string head = format("Write to the cliff: %s of a %s cap in %.1f s", format_bytes(w.written).c_str(),
				  format_bytes(w.cap).c_str(), w.seconds);
	if (!w.cliff)
		return head + format(": no cliff within %s (%s over all of it)", format_bytes(w.written).c_str(),
				     format_rate(w.bytes_per_second).c_str());
	return head + format(": the rate fell after %s (%.2f s), from %s to %s: a write cache of about %s",
			     format_bytes(w.cliff->offset).c_str(), w.cliff->seconds, format_rate(w.cliff->before).c_str(),
			     format_rate(w.cliff->after).c_str(), about_bytes(w.cliff->offset).c_str());
}

// JSON: "cliff" as a run gives it, and "flash" with the cap and what was written.
std::string json_flash(const FlashWrite &w)
{
	std::string cliff = "null";
	if (w.cliff)
		cliff = format("{\"offset\": %" PRIu64 ", \"seconds\": %s, \"before_bytes_per_second\": %s, "
			       "\"after_bytes_per_second\": %s}", w.cliff->offset, json_number(w.cliff->seconds).c_str(),
			       json_number(w.cliff->before).c_str(), json_number(w.cliff->after).c_str());
	return format("\"cliff\": %s,\n \"flash\": {\"cap_bytes\": %" PRIu64 ", \"written_bytes\": %" PRIu64
		      ", \"seconds\": %s, \"bytes_per_second\": %s}", cliff.c_str(), w.cap, w.written,
		      json_number(w.seconds).c_str(), json_number(w.bytes_per_second).c_str());
}

} // namespace
