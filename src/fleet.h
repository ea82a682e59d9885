// fleet: what several hosts' runs say together beyond their sum.  Owns the
// coherence figures (the start skew, the overlap of the windows), the
// straggler rule (median and MAD of the hosts' rates and p99s).  Offers
// judge_fleet().
#pragma once

#include "base.h"
#include "options.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

// One host as the fleet view needs it.
struct FleetHost {
	std::string label;		// HOST[:PATH] as given, or the file
	double rate = 0;		// bytes per second over its own window
	std::optional<std::uint64_t> p99;	// ns, when its latency is known
	double start_unix = 0, end_unix = 0;
};

struct Fleet {
	double start_skew = 0;		// latest start - earliest start, seconds
	double overlap = 0;		// the window where all ran over the union of the windows, 0..1
	std::vector<std::string> stragglers;	// labels, in input order
	std::vector<std::string> warnings;	// one per straggler, and for poor coherence
	std::optional<std::uint64_t> worst_p99;	// the highest p99 of a host
	std::string worst;		// its label
};

double median_of(std::vector<double> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	std::size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median and the median absolute deviation from it.
void median_mad(const std::vector<double> &v, double &median, double &mad)
{
	median = median_of(v);
	std::vector<double> dev;
	for (double x : v)
		dev.push_back(std::fabs(x - median));
	mad = median_of(dev);
}

// The straggler rule (SPEC.md "Many hosts"): a rate more than 3 MADs below
// the median and at least 20% below it, or a p99 more than 3 MADs above the
// median and at least twice it.  Both conditions: the MAD alone names
// hosts 1% apart when the others agree exactly, the share alone names
// hosts within a wide but even spread.  Under three hosts there is no
// median to stand out from.
Fleet judge_fleet(const std::vector<FleetHost> &hosts)
{
	Fleet f;
	if (hosts.empty())
		return f;
	double first = hosts[0].start_unix, last = first, lo = first, hi = hosts[0].end_unix, all_end = hi;
	for (const FleetHost &h : hosts) {
		first = std::min(first, h.start_unix);
		last = std::max(last, h.start_unix);
		lo = std::min(lo, h.start_unix);
		hi = std::max(hi, h.end_unix);
		all_end = std::min(all_end, h.end_unix);
		if (h.p99 && (!f.worst_p99 || *h.p99 > *f.worst_p99)) {
			f.worst_p99 = h.p99;
			f.worst = h.label;
		}
	}
	f.start_skew = last - first;
	f.overlap = hi > lo ? std::max(0.0, all_end - last) / (hi - lo) : 1;
	if (hosts.size() > 1 && f.overlap < 0.9)
		f.warnings.push_back(format("the windows overlap %.0f%% (all running %.3f s of %.3f s): "
					    "the hosts did not run together; compare each host's own rate",
					    f.overlap * 100, std::max(0.0, all_end - last), hi - lo));
	if (hosts.size() < 3)
		return f;
	std::vector<double> rates, p99s;
	for (const FleetHost &h : hosts) {
		rates.push_back(h.rate);
		if (h.p99)
			p99s.push_back(static_cast<double>(*h.p99));
	}
	double rate_median, rate_mad, p99_median = 0, p99_mad = 0;
	median_mad(rates, rate_median, rate_mad);
	bool p99_known = p99s.size() >= 3;
	if (p99_known)
		median_mad(p99s, p99_median, p99_mad);
	for (const FleetHost &h : hosts) {
		bool slow = rate_median - h.rate > 3 * rate_mad && h.rate <= 0.8 * rate_median;
		double p99 = h.p99 ? static_cast<double>(*h.p99) : 0;
		bool laggy = p99_known && h.p99 && p99 - p99_median > 3 * p99_mad && p99 >= 2 * p99_median;
		if (!slow && !laggy)
			continue;
		f.stragglers.push_back(h.label);
		std::string why;
		if (slow)
			why = format("%s, %.0f%% below the hosts' median %s", format_rate(h.rate).c_str(),
				     (1 - h.rate / rate_median) * 100, format_rate(rate_median).c_str());
		if (laggy)
			why += format("%sp99 %s, %.1fx the hosts' median %s", slow ? "; " : "",
				      format_ns(*h.p99).c_str(), p99 / p99_median,
				      format_ns(static_cast<std::uint64_t>(p99_median)).c_str());
		f.warnings.push_back(format("straggler %s: %s", h.label.c_str(), why.c_str()));
	}
	return f;
}

} // namespace
