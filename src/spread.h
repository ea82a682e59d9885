// spread: what several values of one figure say together, for every mode
// that repeats a test (--runs of a plain run, the quick suite's runs) or
// compares two (--compare): mean, sample variance, Student's t at 97.5%,
// the median, and Spread (median, min, max and the 95% interval of the
// mean, where two or more values give one); RunFigures, what --runs keeps
// of each run.
#pragma once

#include "base.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

double mean(const std::vector<double> &v)
{
	double sum = 0;
	for (double x : v)
		sum += x;
	return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double variance(const std::vector<double> &v)
{
	if (v.size() < 2)
		return 0;
	double m = mean(v), sum = 0;
	for (double x : v)
		sum += (x - m) * (x - m);
	return sum / static_cast<double>(v.size() - 1);
}

// Student's t at 97.5% (a two-sided 95% interval) for df degrees of freedom.
double t975(double df)
{
	static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
				       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
				       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	if (!(df >= 1))
		return table[0];
	if (df <= 30)
		return table[static_cast<int>(df) - 1];	// the floor of Welch's df: the wider interval
	return df <= 60 ? 2.000 + (60 - df) / 30 * 0.042 : df <= 120 ? 1.980 + (120 - df) / 60 * 0.020 : 1.960;
}

double median(std::vector<double> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The median with the range, and the mean's 95% interval (mean +- t s/sqrt(n)).
struct Spread {
	double median = 0, min = 0, max = 0;
	std::optional<double> ci95_low, ci95_high;	// two or more values
};

Spread spread_of(const std::vector<double> &v)
{
	Spread s;
	if (v.empty())
		return s;
	s.median = median(v);
	s.min = *std::min_element(v.begin(), v.end());
	s.max = *std::max_element(v.begin(), v.end());
	if (v.size() >= 2) {
		double n = static_cast<double>(v.size());
		double half = t975(n - 1) * std::sqrt(variance(v) / n);
		s.ci95_low = mean(v) - half;
		s.ci95_high = mean(v) + half;
	}
	return s;
}

// One run of a repeated test (--runs): its total's figures.
struct RunFigures {
	std::uint64_t bytes = 0, ops = 0;
	double seconds = 0, bytes_per_second = 0, iops = 0;
	std::optional<double> p99_ns, mean_ns;	// where the run timed its I/Os
	bool median = false;		// the run whose report the document is
};

} // namespace
