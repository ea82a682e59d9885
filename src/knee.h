// knee: where --sweep's latency begins to climb, from evidence.  The
// lightest load (10% of the maximum) is measured twice: the greater p99 is
// the light-load level and the two runs' spread is the noise.  The knee is
// the lowest step from which p99 exceeds twice that level plus the noise
// in every heavier step: where queueing begins and stays.  None where p99
// never rises so (said), where it rises and falls back without a trend (a
// warning: the steps were too short to tell), or where the maximum was not
// the device's (a throttle, a CPU quota, another process on the device).
#pragma once

#include "base.h"
#include "pace.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

// One step's figures, as the table and the JSON show them.
struct SweepStep {
	double offered = 0;	// IOPS, all threads
	double achieved = 0;
	std::uint64_t p50_ns = 0, p99_ns = 0, p999_ns = 0;	// latency from the due time
	bool met = false;
	double behind_seconds = 0;
};

struct Knee {
	double iops = 0;	// the offered load of the step where p99 rose to stay
	double share = 0;	// of the maximum
	std::uint64_t p99_ns = 0;
};

// What the sweep found: the knee or why there is none.
struct KneeFinding {
	std::optional<Knee> knee;
	std::uint64_t light_p99_ns = 0;	// the greater of the light load's p99s
	std::uint64_t noise_ns = 0;	// their spread
	std::string why;		// no knee: why, in words
	bool warn = false;		// the why is a warning (noise, or a maximum not the device's)
};

// steps: lightest first; light: the p99 of each run at the lightest load
// (steps[0]'s among them); held: "" or why the maximum was not the
// device's ("the maximum was a throttle's: ...").
KneeFinding find_knee(const std::vector<SweepStep> &steps, const std::vector<std::uint64_t> &light, double maximum,
		      const std::string &held)
{
	KneeFinding f;
	if (steps.empty() || light.empty() || !(maximum > 0))
		return f;
	f.light_p99_ns = *std::max_element(light.begin(), light.end());
	f.noise_ns = f.light_p99_ns - *std::min_element(light.begin(), light.end());
	if (!held.empty()) {
		f.why = held + ": no knee of the device's is named";
		f.warn = true;
		return f;
	}
	const std::uint64_t above = 2 * f.light_p99_ns + f.noise_ns;
	std::size_t from = steps.size();	// the first step of the run of steps above, to the end
	while (from > 0 && steps[from - 1].p99_ns > above)
		from--;
	if (from < steps.size()) {
		const SweepStep &s = steps[from];
		f.knee = Knee{s.offered, s.offered / maximum, s.p99_ns};
		return f;
	}
	bool rose = std::any_of(steps.begin(), steps.end(), [&](const SweepStep &s) { return s.p99_ns > above; });
	auto [lo, hi] = std::minmax_element(steps.begin(), steps.end(),
					    [](const SweepStep &a, const SweepStep &b) { return a.p99_ns < b.p99_ns; });
	if (rose) {
		f.why = format("p99 varies %s-%s between steps without a trend (light load %s, noise %s); try a longer -t",
			       format_ns(lo->p99_ns).c_str(), format_ns(hi->p99_ns).c_str(), format_ns(f.light_p99_ns).c_str(),
			       format_ns(f.noise_ns).c_str());
		f.warn = true;
	} else {
		f.why = format("p99 stays within twice the light load's (%s, noise %s) up to the maximum: no knee",
			       format_ns(f.light_p99_ns).c_str(), format_ns(f.noise_ns).c_str());
	}
	return f;
}

// "p99 rises above 7,200 IOPS, 78% of the maximum, and stays (p99 4.1 ms,
// against 1.2 ms at light load, noise 0.1 ms)", or why there is no knee.
std::string knee_words(const KneeFinding &f)
{
	if (!f.knee)
		return f.why;
	return format("p99 rises above %s IOPS, %.0f%% of the maximum, and stays (p99 %s, against %s at light load, "
		      "noise %s)", format_count(f.knee->iops).c_str(), f.knee->share * 100, format_ns(f.knee->p99_ns).c_str(),
		      format_ns(f.light_p99_ns).c_str(), format_ns(f.noise_ns).c_str());
}

} // namespace
