// flash: what --quick=flash adds to the quick suite for USB sticks, SD
// cards and external SSDs: the cap of its sequential write (flash_cap),
// the rule that ends that write once its cliff is found and the rate after
// it measured (cliff_settled), the region the small random rows use
// afterwards (flash_region), and the write's outcome in words and JSON
// (FlashWrite, flash_words, json_flash).
#pragma once

#include "base.h"
#include "json.h"
#include "run.h"
#include "cliff.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

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
