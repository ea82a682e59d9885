// pace: an open-loop load (--rate).  Owns Rate and parse_rate() (the
// option's value), Pace (the due-time schedule a timed loop follows: I/O
// i is due at the window's start + i/rate), wait_until() (the sleep to a
// due time), and judge_rate(): whether the offered load was met.  Why
// open loop: a closed loop waits for the device before it issues the next
// I/O, so a slow device slows the test and its latencies leave out the
// wait a client at a fixed load would see (coordinated omission).  Here
// the latency of an I/O counts from its due time, and the issue-to-
// completion time is kept apart as the service time.
#pragma once

#include "base.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include <time.h>

namespace {

// --rate RATE, per thread: I/Os per second, or with bytes set bytes per
// second (made I/Os per second once the block size is known).
struct Rate {
	double per_second = 0;	// 0: closed loop (no --rate)
	bool bytes = false;
};

constexpr double max_rate_iops = 1e8;	// per thread: far beyond any device, short of nonsense

// "5000", "2.5k", "1m" (k and m: thousands and millions of I/Os); a SIZE
// with "/s" is bytes per second ("200m/s", 1024-based as every SIZE).
std::optional<Rate> parse_rate(const std::string &s)
{
	Rate r;
	if (s.size() > 2 && s.compare(s.size() - 2, 2, "/s") == 0) {
		std::optional<std::uint64_t> v = parse_size(s.substr(0, s.size() - 2));
		if (!v || *v == 0)
			return std::nullopt;
		r.per_second = static_cast<double>(*v);
		r.bytes = true;
		return r;
	}
	std::string digits = s;
	double unit = 1;
	if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K' || digits.back() == 'm' || digits.back() == 'M')) {
		unit = digits.back() == 'k' || digits.back() == 'K' ? 1e3 : 1e6;
		digits.pop_back();
	}
	if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos)
		return std::nullopt;
	char *end = nullptr;
	double v = std::strtod(digits.c_str(), &end);
	if (*end != '\0' || !(v > 0) || v * unit > max_rate_iops)
		return std::nullopt;
	r.per_second = v * unit;
	return r;
}

// I/Os per second per thread for a rate and the run's block size.
double ios_per_second(const Rate &r, std::uint64_t block_size)
{
	return r.bytes ? r.per_second / static_cast<double>(block_size) : r.per_second;
}

// The due-time schedule: I/O i of a thread is due at start + i/rate.
// Computed from i each time (never by adding up periods), so that no
// rounding accumulates over a long run.  A rate of 0 is no schedule.
class Pace {
public:
	Pace() = default;
	Pace(std::int64_t start_ns, double ios_per_second)
		: start_(start_ns), period_ns_(ios_per_second > 0 ? 1e9 / ios_per_second : 0)
	{
	}

	bool on() const { return period_ns_ > 0; }
	std::int64_t due() const { return start_ + static_cast<std::int64_t>(period_ns_ * static_cast<double>(next_)); }
	std::int64_t take()
	{
		std::int64_t d = due();
		next_++;
		return d;
	}
	// --ramp's end: the window's schedule starts over at its start.
	void restart(std::int64_t start_ns)
	{
		start_ = start_ns;
		next_ = 0;
	}

private:
	std::int64_t start_ = 0;
	double period_ns_ = 0;
	std::uint64_t next_ = 0;
};

// Sleep until due (CLOCK_MONOTONIC, as now_ns()); the clock read after it
// is the I/O's issue time, returned.
std::int64_t wait_until(std::int64_t due)
{
	timespec ts{static_cast<time_t>(due / 1000000000), static_cast<long>(due % 1000000000)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
		;
	return now_ns();
}

// A count for people: rounded, thousands apart ("7,200").
std::string format_count(double v)
{
	std::string digits = format("%.0f", std::max(0.0, std::round(v)));
	for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
		digits.insert(static_cast<std::size_t>(at), ",");
	return digits;
}

// What an open-loop run made of its offered load (all threads together).
struct RateOutcome {
	double offered = 0;		// I/Os per second
	double achieved = 0;		// I/Os per second, over the window up to the last I/O's return
	double behind_seconds = 0;	// the furthest an I/O was issued after its due time
	bool met = false;
};

// Met: at least 98% of the offered rate, and never more than a second
// behind the schedule (a run that fell behind and caught up at the end
// still left its clients waiting).
RateOutcome judge_rate(double offered, double achieved, double behind_seconds)
{
	return {offered, achieved, behind_seconds, achieved >= 0.98 * offered && behind_seconds <= 1.0};
}

// The warning for a load that was not met; empty when it was.
std::string rate_warning(const RateOutcome &r)
{
	if (r.met)
		return "";
	return format("--rate: the offered load was not met: %.0f IOPS offered, %.0f achieved (%.1f%%), up to %.3f s "
		      "behind the schedule; the latencies count the wait from each I/O's due time",
		      r.offered, r.achieved, r.offered > 0 ? r.achieved / r.offered * 100 : 0.0, r.behind_seconds);
}

} // namespace
