// pts: SNIA PTS 2.0's steady-state test over a series of rounds, for
// --steady.  The window is the last five rounds; it is steady when its
// range (max - min) is at most 20% of its average and the excursion of its
// least-squares line (|slope| x 4 rounds) at most 10% of it.  pts_test()
// finds the first steady window of a series and the first later round
// outside +-20% of that window's average (the device left steady state);
// Steady holds what --steady measured, and steady_row(), steady_lines()
// and json_steady() say it, in the report and the document.  No I/O, no
// clock: the rounds come from the mode (steady.h).
#pragma once

#include "base.h"
#include "spread.h"
#include "json.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t pts_window_rounds = 5;
constexpr double pts_range_limit = 0.20;	// of the window's average
constexpr double pts_excursion_limit = 0.10;	// of the window's average
constexpr unsigned pts_default_rounds = 25;	// rounds at most, --rounds not given

// "At most": to one part in 10^9 of the limit, so that a series exactly
// at 20% or 10% passes whatever the rounding of its sums.
bool pts_within(double value, double fraction, double average)
{
	return value <= fraction * average * (1 + 1e-9);
}

// Five consecutive rounds, [first, last] (0-based), and what PTS asks of them.
struct PtsWindow {
	std::size_t first = 0, last = 0;
	double average = 0, range = 0;
	double slope = 0;	// of the least-squares line, per round
	double excursion = 0;	// |slope| x (rounds - 1): the line's rise across the window
	bool steady = false;
};

// The window of the five rounds that end at round last (last >= 4).
PtsWindow pts_window(const std::vector<double> &rounds, std::size_t last)
{
	PtsWindow w;
	w.last = last;
	w.first = last + 1 - pts_window_rounds;
	const double n = pts_window_rounds, x_mean = (n - 1) / 2;
	double sum = 0, lo = rounds[w.first], hi = lo;
	for (std::size_t i = w.first; i <= last; i++) {
		sum += rounds[i];
		lo = std::min(lo, rounds[i]);
		hi = std::max(hi, rounds[i]);
	}
	w.average = sum / n;
	w.range = hi - lo;
	double sxy = 0, sxx = 0;
	for (std::size_t i = w.first; i <= last; i++) {
		double x = static_cast<double>(i - w.first) - x_mean;
		sxy += x * (rounds[i] - w.average);
		sxx += x * x;
	}
	w.slope = sxy / sxx;
	w.excursion = std::fabs(w.slope) * (n - 1);
	w.steady = w.average > 0 && pts_within(w.range, pts_range_limit, w.average) &&
		   pts_within(w.excursion, pts_excursion_limit, w.average);
	return w;
}

// Whether round value lies outside +-20% of a steady window's average.
bool pts_outside(double value, const PtsWindow &w)
{
	return !pts_within(std::fabs(value - w.average), pts_range_limit, w.average);
}

struct PtsResult {
	std::optional<PtsWindow> window;	// the first steady one
	std::optional<PtsWindow> last;		// the last five rounds' (five or more rounds)
	std::optional<std::size_t> left_at;	// the first round after the window outside +-20% of its average
};

PtsResult pts_test(const std::vector<double> &rounds)
{
	PtsResult r;
	if (rounds.size() < pts_window_rounds)
		return r;
	r.last = pts_window(rounds, rounds.size() - 1);
	for (std::size_t last = pts_window_rounds - 1; last < rounds.size() && !r.window; last++)
		if (PtsWindow w = pts_window(rounds, last); w.steady)
			r.window = w;
	if (r.window)
		for (std::size_t i = r.window->last + 1; i < rounds.size() && !r.left_at; i++)
			if (pts_outside(rounds[i], *r.window))
				r.left_at = i;
	return r;
}

// What --steady measured: the variable, every round's figures, the test's
// result, and the precondition's writes.
struct Steady {
	std::string variable;		// "bw", "iops" or "lat"
	double round_seconds = 0;	// -t
	unsigned most = 0;		// rounds at most
	bool all_rounds = false;	// --rounds given: every round runs
	std::vector<RunFigures> rounds;
	std::vector<double> values;	// the variable of each round: bytes/s, IOPS or mean ns
	PtsResult pts;
	struct Precondition {
		std::uint64_t bytes = 0;
		double seconds = 0;
	};
	std::optional<Precondition> precondition;
	bool whole_device = false;	// the target is a block device (not a file on one)
	std::optional<std::size_t> reported;	// the round the report is; none: a round cut short (no row)
	bool interrupted = false;	// a signal ended the rounds
	bool failed = false;		// an error ended them (a round that failed, or could not start)
};

// Every round after the steady window outside +-20% of its average.
std::vector<std::size_t> rounds_outside(const Steady &s)
{
	std::vector<std::size_t> out;
	if (s.pts.window)
		for (std::size_t i = s.pts.window->last + 1; i < s.values.size(); i++)
			if (pts_outside(s.values[i], *s.pts.window))
				out.push_back(i);
	return out;
}

std::string round_list(const std::vector<std::size_t> &rounds)
{
	std::string text;
	for (std::size_t i = 0; i < rounds.size(); i++)
		text += (i ? ", " : "") + std::to_string(rounds[i] + 1);
	return text;
}

// A value of the variable in its unit: a rate, IOPS or a latency (the
// magnitude; a slope's sign is the caller's).
std::string steady_value(const std::string &variable, double v)
{
	v = std::fabs(v);
	if (variable == "bw")
		return format_rate(v);
	if (variable == "lat")
		return format_ns(static_cast<std::uint64_t>(std::llround(v)));
	return format(v >= 100 ? "%.0f IOPS" : "%.2f IOPS", v);
}

std::string steady_variable_name(const std::string &variable)
{
	return variable == "bw" ? "bandwidth" : variable == "lat" ? "mean latency" : "IOPS";
}

// The row a round prints as it ends, "Round  3: 1.02 GiB/s (1045 IOPS)",
// marked by the test over the rounds so far: the round that completes the
// first steady window, and each later one within or outside +-20% of its
// average.
std::string steady_row(const Steady &s, std::size_t i)
{
	const RunFigures &f = s.rounds[i];
	std::string more = s.variable == "bw" ? format("%.0f IOPS", f.iops)
			   : s.variable == "iops" ? format_rate(f.bytes_per_second)
						: format("%.0f IOPS", f.iops);
	std::string mark;
	const std::vector<double> so_far(s.values.begin(), s.values.begin() + static_cast<std::ptrdiff_t>(i + 1));
	if (PtsResult r = pts_test(so_far); r.window) {
		if (r.window->last == i)
			mark = format(": steady in rounds %zu-%zu", r.window->first + 1, i + 1);
		else
			mark = format(": %s +-%.0f%% of rounds %zu-%zu's average",
				      pts_outside(s.values[i], *r.window) ? "outside" : "within", 100 * pts_range_limit,
				      r.window->first + 1, r.window->last + 1);
	}
	return format("Round %2zu: %s (%s)%s\n", i + 1, steady_value(s.variable, s.values[i]).c_str(), more.c_str(),
		      mark.c_str());
}

double percent_of(double v, double average)
{
	return average > 0 ? 100 * v / average : 0;
}

// The test's result in lines: the window and its figures beside their
// limits, the verdict, where steady state was left, what was preconditioned.
std::vector<std::string> steady_lines(const Steady &s)
{
	std::vector<std::string> lines;
	const PtsResult &r = s.pts;
	const std::optional<PtsWindow> &w = r.window ? r.window : r.last;
	const std::string name = steady_variable_name(s.variable);
	if (r.window)
		lines.push_back(format("Steady state (SNIA PTS 2.0, %s): steady in rounds %zu-%zu (%zu rounds run%s)",
				       name.c_str(), w->first + 1, w->last + 1, s.rounds.size(),
				       s.interrupted ? ", then interrupted" : s.failed ? ", then an error" : ""));
	else if (s.interrupted || s.failed || s.rounds.size() < pts_window_rounds)
		lines.push_back(format("Steady state (SNIA PTS 2.0, %s): not steady: %s after %zu round%s", name.c_str(),
				       s.interrupted ? "interrupted" : s.failed ? "ended by an error" : "ended",
				       s.rounds.size(), s.rounds.size() == 1 ? "" : "s"));
	else
		lines.push_back(format("Steady state (SNIA PTS 2.0, %s): not steady in %zu rounds; the last five:", name.c_str(),
				       s.rounds.size()));
	if (w) {
		lines.push_back(format("  Window:    rounds %zu-%zu, average %s", w->first + 1, w->last + 1,
				       steady_value(s.variable, w->average).c_str()));
		lines.push_back(format("  Range:     %s, %.1f%% of the average (at most %.0f%%)%s",
				       steady_value(s.variable, w->range).c_str(), percent_of(w->range, w->average),
				       100 * pts_range_limit, pts_within(w->range, pts_range_limit, w->average) ? "" : ": too wide"));
		lines.push_back(format("  Slope:     %s%s a round; excursion %s, %.1f%% of the average (at most %.0f%%)%s",
				       w->slope < 0 ? "-" : "+", steady_value(s.variable, w->slope).c_str(),
				       steady_value(s.variable, w->excursion).c_str(), percent_of(w->excursion, w->average),
				       100 * pts_excursion_limit,
				       pts_within(w->excursion, pts_excursion_limit, w->average) ? "" : ": still moving"));
	}
	if (r.window && r.left_at) {
		double v = s.values[*r.left_at];
		lines.push_back(format("  Left steady state at round %zu: %s, %.1f%% %s the window's average (at most %.0f%%)",
				       *r.left_at + 1, steady_value(s.variable, v).c_str(),
				       percent_of(std::fabs(v - r.window->average), r.window->average),
				       v > r.window->average ? "over" : "under", 100 * pts_range_limit));
		std::vector<std::size_t> outside = rounds_outside(s);
		if (outside.size() > 1)
			lines.push_back(format("  Outside:   rounds %s (+-%.0f%% of the window's average)", round_list(outside).c_str(),
					       100 * pts_range_limit));
	} else if (r.window && s.all_rounds && r.window->last + 1 < s.rounds.size()) {
		lines.push_back(format("  Stayed:    rounds %zu-%zu within +-%.0f%% of the window's average", r.window->last + 2,
				       s.rounds.size(), 100 * pts_range_limit));
	}
	if (s.precondition)
		lines.push_back(format("  Preconditioned: %s of sequential 128 KiB writes in %.1f s (%s)%s",
				       format_bytes(s.precondition->bytes).c_str(), s.precondition->seconds,
				       format_rate(rate(s.precondition->bytes, s.precondition->seconds)).c_str(),
				       s.whole_device ? "" : "; the file, not the whole device, was preconditioned"));
	else
		lines.push_back("  Not preconditioned: a cache or burst allowance larger than what the rounds wrote is not seen "
				"(--precondition writes the target twice over first)");
	return lines;
}

// The document's "steady" object.
std::string json_steady(const Steady &s)
{
	const PtsResult &r = s.pts;
	const std::optional<PtsWindow> &w = r.window ? r.window : r.last;
	std::string rounds;
	for (std::size_t i = 0; i < s.values.size(); i++)
		rounds += (i ? ", " : "") + json_number(s.values[i]);
	auto number = [&](double PtsWindow::*field) { return w ? json_number((*w).*field) : std::string("null"); };
	std::vector<std::size_t> outside = rounds_outside(s);
	std::string outside_list;
	for (std::size_t i : outside)
		outside_list += (outside_list.empty() ? "" : ", ") + std::to_string(i + 1);
	std::string figures;	// each round's rate, IOPS and p99, whatever the variable (--compare's samples)
	for (std::size_t i = 0; i < s.values.size() && i < s.rounds.size(); i++) {
		const RunFigures &f = s.rounds[i];
		figures += format("%s{\"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %s}", i ? ", " : "",
				  json_number(f.bytes_per_second).c_str(), json_number(f.iops).c_str(),
				  f.p99_ns ? json_number(*f.p99_ns).c_str() : "null");
	}
	return format("{\"variable\": %s, \"round_seconds\": %s, \"rounds_at_most\": %u, \"rounds\": [%s], "
		      "\"round_figures\": [%s], "
		      "\"window\": %s, \"figures_of\": %s, \"average\": %s, \"range\": %s, \"slope\": %s, \"excursion\": %s, "
		      "\"range_limit\": %s, \"excursion_limit\": %s, \"steady\": %s, \"left_at\": %s, \"outside\": [%s], "
		      "\"reported_round\": %s, \"precondition\": %s, \"interrupted\": %s, \"failed\": %s}",
		      json_string(s.variable).c_str(), json_number(s.round_seconds).c_str(), s.most, rounds.c_str(), figures.c_str(),
		      r.window ? format("[%zu, %zu]", r.window->first + 1, r.window->last + 1).c_str() : "null",
		      w ? format("[%zu, %zu]", w->first + 1, w->last + 1).c_str() : "null",
		      number(&PtsWindow::average).c_str(), number(&PtsWindow::range).c_str(), number(&PtsWindow::slope).c_str(),
		      number(&PtsWindow::excursion).c_str(), json_number(pts_range_limit).c_str(),
		      json_number(pts_excursion_limit).c_str(), json_bool(r.window.has_value()).c_str(),
		      r.window && r.left_at ? std::to_string(*r.left_at + 1).c_str() : "null", outside_list.c_str(),
		      s.reported ? std::to_string(*s.reported + 1).c_str() : "null",
		      s.precondition ? format("{\"bytes\": %" PRIu64 ", \"seconds\": %s, \"whole_device\": %s}",
					      s.precondition->bytes, json_number(s.precondition->seconds).c_str(),
					      json_bool(s.whole_device).c_str()).c_str()
				     : "null",
		      json_bool(s.interrupted).c_str(), json_bool(s.failed).c_str());
}

} // namespace
