// stops: the time sdb was stopped or frozen during its timed window
// (kill -STOP, a frozen cgroup, a paused container or VM).  Stopped, no
// thread of sdb runs and no I/O is issued, so the rate falls with no limit
// of the device's.  The supervising thread wakes at least every 0.1 s
// (run.h): a wake far later than it asked, by more than the time the
// kernel says it waited to run (/proc/thread-self/schedstat's run delay,
// which a busy CPU adds to) and the time a CPU quota throttled it (its
// cgroup's cpu.stat: with the task-based throttle of recent kernels, such
// as this machine's 6.18, a throttled thread leaves the run queue, so its
// run delay does not hold that time), was time it could not run at all.  Measured, subtracted from nothing, and warned (checks.h).
#pragma once

#include "base.h"
#include "sys.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace {

// The thread's time waiting to run, in ns: schedstat's second field; none
// where the kernel has no schedstat (CONFIG_SCHED_INFO).
std::optional<std::uint64_t> run_delay_ns(const std::string &path = "/proc/thread-self/schedstat")
{
	unsigned long long on_cpu = 0, waiting = 0;
	if (std::sscanf(read_line(path).c_str(), "%llu %llu", &on_cpu, &waiting) != 2)
		return std::nullopt;
	return waiting;
}

// A wake later than this, beyond its run delay, is a stop: a timer's slack
// and a wakeup's latency are microseconds, a page fault milliseconds.
constexpr std::int64_t stop_threshold_ns = 100000000;	// 0.1 s

struct StopClock {
	bool measurable = true;		// schedstat was there at every wake
	std::int64_t stopped_ns = 0;	// the time sdb could not run, in all
	unsigned stops = 0;		// how many wakes found one
	std::int64_t due_ns = 0;	// the latest the thread asked to wake
	std::uint64_t delay_ns = 0;	// its run delay when it went to sleep
	std::uint64_t throttled_ns = 0;	// its CPU quotas' throttled time then

	// Before a sleep that ends by due_ns at the latest; throttled: the
	// time sdb's CPU quotas have throttled it so far (0 without one).
	void sleeping(std::int64_t due, std::uint64_t throttled = 0)
	{
		std::optional<std::uint64_t> d = run_delay_ns();
		measurable = measurable && d;
		due_ns = due;
		delay_ns = d.value_or(0);
		throttled_ns = throttled;
	}

	// After the sleep, at now: the lateness that neither its run delay nor
	// its quotas' throttling explains.
	void woke(std::int64_t now, std::uint64_t throttled = 0)
	{
		std::int64_t late = now - due_ns;
		if (!measurable || due_ns == 0 || late <= stop_threshold_ns)
			return;
		std::optional<std::uint64_t> d = run_delay_ns();
		if (!d || *d < delay_ns) {
			measurable = false;
			return;
		}
		std::int64_t unexplained = late - static_cast<std::int64_t>(*d - delay_ns) -
					   static_cast<std::int64_t>(throttled - std::min(throttled, throttled_ns));
		if (unexplained > stop_threshold_ns) {
			stopped_ns += unexplained;
			stops++;
		}
	}
};

} // namespace
