// repeat: --runs N of a plain run, what it keeps of each run and which run
// is the median one (its report is the document's; the others are lines
// and the spread).  The runs themselves go through measure(), as one run
// does, in plain.h.
#pragma once

#include "base.h"
#include "spread.h"
#include "run.h"
#include "report.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace {

// One run's figures, from its total: what print_runs() and json_runs() show.
RunFigures figures_of(const Execution &ex)
{
	const Totals &t = ex.totals;
	RunFigures f;
	f.bytes = t.bytes;
	f.ops = t.ops;
	f.seconds = t.wall;
	f.bytes_per_second = rate(t.bytes, t.wall);
	f.iops = rate(t.ops, t.wall);
	Histogram all = total_latency(ex.shared);
	if (all.count()) {
		f.p99_ns = static_cast<double>(all.percentile(0.99));
		f.mean_ns = static_cast<double>(all.mean());
	}
	return f;
}

// The median run by bytes per second (of an even count, the slower of the
// middle two: a run that happened, not a mean of two), marked in runs.
std::size_t mark_median(std::vector<RunFigures> &runs)
{
	std::vector<std::size_t> order(runs.size());
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
		return runs[a].bytes_per_second < runs[b].bytes_per_second;
	});
	std::size_t m = order[(order.size() - 1) / 2];
	runs[m].median = true;
	return m;
}

} // namespace
