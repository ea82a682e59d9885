// run: one run of a plan.  The start barrier (Gate), the workers' threads,
// the supervising main thread (sampler, progress line, --start-at,
// --ramp, the signals signals.h's Waiter brings, the time sdb was stopped:
// stops.h), the Totals, and execute(), which runs a plan start to end.
#pragma once

#include "base.h"
#include "signals.h"
#include "plan.h"
#include "buffer.h"
#include "worker.h"
#include "loops.h"
#include "device.h"
#include "stack.h"
#include "stops.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <pthread.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// The start barrier: workers prepare, report ready, then wait for the gate.
// The last worker to get ready, and every worker that finishes, pokes an
// eventfd so that the supervising main thread wakes at once.
struct Gate {
	std::mutex mutex;
	std::condition_variable cv;
	bool open = false;
	std::atomic<unsigned> workers{0};
	std::atomic<unsigned> ready{0};
	std::atomic<unsigned> done{0};
	int wake_fd = -1;

	void poke() const
	{
		std::uint64_t one = 1;
		ssize_t ignored = write(wake_fd, &one, sizeof one);
		(void)ignored;
	}
	void arrive()
	{
		if (ready.fetch_add(1) + 1 == workers)
			poke();
		std::unique_lock<std::mutex> lock(mutex);
		cv.wait(lock, [this] { return open; });
	}
	void release()
	{
		{
			std::lock_guard<std::mutex> lock(mutex);
			open = true;
		}
		cv.notify_all();
	}
	void leave()
	{
		done.fetch_add(1);
		poke();
	}
};

// Which run of a plan this is, beyond the plan: the quick suite runs each
// test --runs times, each with its own random order, and names the test on
// the progress line.  A plain run is run 0, unnamed.
struct RunId {
	unsigned index = 0;
	std::string label;
};

// The workers of one run, their threads and the barrier they start at.
struct Shared {
	Gate gate;
	std::vector<std::unique_ptr<Worker>> workers;
	std::vector<pthread_t> threads;	// those that started
};

void *worker_main(void *arg)
{
	Worker &w = *static_cast<Worker *>(arg);
	if (Error e = prepare(w))
		fail(w, std::move(e));
	w.gate->arrive();
	if (!w.error && !g_stop.raised())
		timed_phase(w);
	w.ring.reset();	// in this thread, the ring's only issuer, which alone may let its file go (~Ring)
	if (!w.created)	// a new file's stays open: its lock, and what remove_created() compares
		w.fd.reset();
	w.gate->leave();
	return nullptr;
}

struct RunResult {
	std::int64_t start_ns = 0;
	std::int64_t start_unix_ns = 0;	// the same instant on the real-time clock
	std::int64_t start_late_ns = 0;	// after --start-at's time; 0 without it
	std::int64_t ready_unix_ns = 0;	// --start-at: when every thread was ready (real-time clock)
	std::vector<Sample> samples;	// at most max_samples (stats.h), each sample_period long
	double sample_period = 0.1;	// seconds
	IntervalLatency tail_latency;	// the I/Os that ended after the last sample
	rusage usage_before {}, usage_after {};
	bool interrupted = false;
	std::vector<std::string> stat_files;	// the devices' counters (see device.h)
	std::vector<std::string> stats_before, stats_after;	// their lines where the window opened and at the end
	Watch watch;			// the stack below, sdb's own I/O, CPU quotas (see stack.h)
	Counters counters_before, counters_after;	// read with stats_before and stats_after
	StopClock stops;		// the window's time sdb was stopped or frozen (stops.h)
};

// What a run adds up to, computed once after it (add_up) and read by every
// report: the human one, the JSON, the verdict, the quick suite.
struct Totals {
	std::uint64_t bytes = 0, ops = 0;
	std::uint64_t read_bytes = 0, read_ops = 0, write_bytes = 0, write_ops = 0;	// a mix's sides
	double wall = 0;	// window's start (the barrier, or --ramp's end) to the last thread's
				// end, its final fdatasync included
	double io = 0;		// the window's start to the last I/O's return: the timeline stops here, since
				// a final fdatasync moves no bytes of its own and would read as 0 B/s
	double together = 0;	// the window's start to the first thread's last I/O: all running
	double longest_io = 0;	// the longest mean time of one I/O among the threads
};

Totals add_up(const Shared &s, std::int64_t start_ns)
{
	Totals t;
	std::int64_t last_end = start_ns, last_io = start_ns, first_io = INT64_MAX;
	for (auto &w : s.workers) {
		t.bytes += w->bytes;
		t.ops += w->ops;
		t.read_bytes += w->read_bytes;
		t.read_ops += w->read_ops;
		t.write_bytes += w->write_bytes;
		t.write_ops += w->write_ops;
		std::int64_t io_end = w->loop_end_ns ? w->loop_end_ns : w->end_ns;
		last_end = std::max(last_end, w->end_ns);
		last_io = std::max(last_io, io_end);
		first_io = std::min(first_io, io_end);
		if (w->ops)
			t.longest_io = std::max(t.longest_io, (w->end_ns - w->start_ns) / 1e9 / static_cast<double>(w->ops));
	}
	t.wall = (last_end - start_ns) / 1e9;
	t.io = (last_io - start_ns) / 1e9;
	t.together = first_io == INT64_MAX ? 0 : (first_io - start_ns) / 1e9;
	return t;
}

// The block-layer counters of the devices under the target, as text: read
// where the timed window opens (the barrier, or --ramp's end) and after
// the last thread ends, judged later.
std::vector<std::string> read_stats(const std::vector<std::string> &files)
{
	std::vector<std::string> lines;
	for (const std::string &f : files)
		lines.push_back(read_line(f));
	return lines;
}

std::uint64_t total_done(const Shared &s)
{
	std::uint64_t sum = 0;
	for (auto &w : s.workers)
		sum += w->bytes_done.load(std::memory_order_relaxed);
	return sum;
}

// The wait of a thread at -q N has no timeout (Ring::submit_and_wait), and
// the kernel once lost its wake-up: every I/O done, none reaped, the run
// held for minutes.  So the supervisor nudges: a worker with a ring that
// has moved no byte for a second gets SIGURG, whose handler only counts
// it (g_nudged; SA_RESTART): the wait ends or starts again, and entering
// again reaps what had come.  A thread that is only slow (a device that
// takes more than a second per I/O) is woken for nothing, once a second,
// and waits again.  Only a thread inside that wait is nudged
// (Worker::in_ring_wait): never one in a pass end's or the final
// fdatasync, which a FUSE daemon that honours interrupts (-o intr) could
// answer with EINTR.  Off at depth 1, where no thread waits in a ring.
std::atomic<unsigned> g_nudged {0};	// the nudges a thread took, for the tests

class Nudger {
public:
	explicit Nudger(const Shared &s, const Plan &plan, std::int64_t now)
		: on_(plan.opt.queue_depth > 1), seen_(s.workers.size(), {0, now})
	{
		if (on_) {
			struct sigaction sa {};
			sa.sa_handler = [](int) { g_nudged.fetch_add(1, std::memory_order_relaxed); };
			sa.sa_flags = SA_RESTART;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGURG, &sa, nullptr);
		}
	}

	// Once per sample: who has not moved since a second ago.
	void tick(const Shared &s, std::int64_t now)
	{
		if (!on_)
			return;
		for (std::size_t i = 0; i < seen_.size() && i < s.threads.size(); i++) {
			const std::uint64_t bytes = s.workers[i]->bytes_done.load(std::memory_order_relaxed);
			if (bytes != seen_[i].first) {
				seen_[i] = {bytes, now};
			} else if (now - seen_[i].second >= 1000000000 && s.workers[i]->in_ring_wait.load(std::memory_order_relaxed)) {
				pthread_kill(s.threads[i], SIGURG);	// a thread that has ended ignores it
				seen_[i].second = now;
			}
		}
	}

private:
	const bool on_;
	std::vector<std::pair<std::uint64_t, std::int64_t>> seen_;	// bytes done, and since when
};

// All the bytes a run is to move: the end the progress line counts to.
std::uint64_t planned_bytes(const Plan &plan)
{
	std::uint64_t sum = 0;
	for (const Target &t : plan.targets)
		sum += t.size;
	return sum;
}

// Whether the live status line is drawn: only on a terminal that takes
// its \r and line-clearing escape: stderr a tty, and TERM set and not
// "dumb" (an editor's shell buffer, a bare console).  With --json too: the
// line is on stderr and erased before the document, which is on stdout.
bool progress_terminal(const Options &)
{
	const char *term = std::getenv("TERM");
	return isatty(2) && term && *term && std::strcmp(term, "dumb") != 0;
}

// SDB_PROGRESS=lines (what --hosts sets for each remote run): a line a
// second on stderr, "sdb: progress: 4.800 s, 5234491392 bytes", where no
// status line is drawn, for the launcher's status lines to show the rate.
bool progress_lines()
{
	const char *v = std::getenv("SDB_PROGRESS");
	return v && std::strcmp(v, "lines") == 0;
}

// The live status line: only where progress_terminal().  Random I/O
// shows its IOPS too, the figure such a run is read by.
void draw_progress(const Plan &plan, const std::string &label, std::uint64_t bytes, double elapsed)
{
	double bps = rate(bytes, elapsed);
	double eta;
	if (plan.opt.time_limit > 0)
		eta = std::max(0.0, plan.opt.time_limit - elapsed);
	else
		eta = bps > 0 ? static_cast<double>(planned_bytes(plan) - std::min(bytes, planned_bytes(plan))) / bps : 0;
	std::string iops = plan.opt.random && plan.block_size ? format("  %.0f IOPS", bps / static_cast<double>(plan.block_size)) : "";
	std::fprintf(stderr, "\r%s%s  %s%s  %.1f s  ETA %.0f s\033[K", label.c_str(), format_bytes(bytes).c_str(),
		     format_rate(bps).c_str(), iops.c_str(), elapsed, eta);
	std::fflush(stderr);
}

// --start-at: every thread is ready; hold the gate until the real-time
// clock reads `at`.  Signals and worker news are watched in steps of at
// most 0.1 s (a clock set meanwhile is noticed too), ending about 2 ms
// early; the rest is one absolute clock_nanosleep, which wakes within a
// fraction of a millisecond.
void wait_for_start(std::int64_t at, Waiter &waiter, bool &interrupted)
{
	const std::int64_t ms = 1000000;
	for (;;) {
		std::int64_t left = at - realtime_ns();
		if (left <= 0 || interrupted || g_stop.raised())
			return;
		if (left > 3 * ms) {	// poll()'s whole milliseconds: at least 1, at most 100
			waiter.wait(static_cast<int>(std::min<std::int64_t>(left - 2 * ms, 100 * ms) / ms), interrupted);
			continue;
		}
		timespec ts{static_cast<time_t>(at / 1000000000), static_cast<long>(at % 1000000000)};
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR)
			continue;
		return;
	}
}

// Every worker is past its --ramp (or done): its bytes_done counts the
// timed window only.
bool all_counting(const Shared &s)
{
	for (auto &w : s.workers)
		if (!w->counting.load())
			return false;
	return true;
}

// Every worker has drained its --ramp (or is done).
bool all_drained(const Shared &s)
{
	for (auto &w : s.workers)
		if (!w->ramp_drained.load() && !w->counting.load())
			return false;
	return true;
}

// The sampler's view of every worker's LiveHistogram: the sum of their
// counts, and what changed since the last look.
class LatencySampler {
public:
	LatencySampler() : last_(LiveHistogram::buckets, 0), now_(LiveHistogram::buckets, 0) {}

	// The I/Os that ended since the last call, by bucket.
	IntervalLatency take(const Shared &s)
	{
		std::fill(now_.begin(), now_.end(), 0);
		for (auto &w : s.workers)
			for (unsigned i = 0; i < LiveHistogram::buckets; i++)
				now_[i] += w->live_latency.at(i);
		IntervalLatency changed;
		for (unsigned i = 0; i < LiveHistogram::buckets; i++)
			if (now_[i] > last_[i])
				changed.push_back({i, now_[i] - last_[i]});
		std::swap(last_, now_);
		return changed;
	}

private:
	std::vector<std::uint64_t> last_, now_;
};

// --ramp: the barrier opens, the workers run the ramp, and the timed
// window opens at its end: once every worker's ramp I/O has drained, the
// device's counters and the CPU time are read, the run's clock starts
// there, and the workers go on (ramp_over; see await_window() and
// open_window()).  Each drops what it counted in the ramp; the sampler's
// latency counts start over there too.
void run_ramp(Shared &s, const Plan &plan, RunResult &r, Waiter &waiter, LatencySampler &latency, Nudger &nudger)
{
	std::int64_t ramp_end = now_ns() + static_cast<std::int64_t>(plan.opt.ramp * 1e9);
	for (auto &w : s.workers)
		w->ramp_end_ns = ramp_end;
	s.gate.release();
	unsigned n = s.gate.workers;
	for (std::int64_t now = now_ns(); now < ramp_end && s.gate.done.load() < n; now = now_ns()) {
		nudger.tick(s, now);
		waiter.wait(static_cast<int>(std::min<std::int64_t>((ramp_end - now + 999999) / 1000000, 100)), r.interrupted);
	}
	while (!all_drained(s) && !g_stop.raised()) {	// nothing of the ramp in flight
		nudger.tick(s, now_ns());
		waiter.wait(1, r.interrupted);
	}
	r.stats_before = read_stats(r.stat_files);
	r.counters_before = read_counters(r.watch);
	latency.take(s);	// the ramp's I/Os: not the window's
	// A ramp cut short (Ctrl-C, every worker ended by an error) opens its
	// empty window when it stopped, not at the ramp's end still ahead.
	std::int64_t now = now_ns();
	r.start_ns = now;
	for (auto &w : s.workers)
		w->ramp_over.store(true);
	getrusage(RUSAGE_SELF, &r.usage_before);
	r.start_unix_ns = realtime_ns() - (now - r.start_ns);
}

// Main thread while the workers run: the sampler, the progress line and the
// signal handling all live here, so the workers only do I/O.
// enough, when given, is asked once a second whether the samples so far
// answer the run's question (the flash suite's write: its cliff found);
// when they do, the run stops there as if its size were reached.
void supervise(Shared &s, const Plan &plan, const RunId &id, RunResult &r, Waiter &waiter, const Enough &enough)
{
	unsigned n = s.gate.workers;
	while (s.gate.ready.load() < n)
		waiter.wait(100, r.interrupted);
	if (plan.opt.start_at_ns) {
		r.ready_unix_ns = realtime_ns();
		wait_for_start(plan.opt.start_at_ns, waiter, r.interrupted);
	}
	if (plan.opt.start_at_ns)
		r.start_late_ns = std::max<std::int64_t>(0, realtime_ns() - plan.opt.start_at_ns);
	LatencySampler latency;	// without a ramp, every I/O it sees is the window's
	Nudger nudger(s, plan, now_ns());
	if (plan.opt.ramp > 0 && !g_stop.raised()) {
		run_ramp(s, plan, r, waiter, latency, nudger);
	} else {
		r.stats_before = read_stats(r.stat_files);
		r.counters_before = read_counters(r.watch);
		getrusage(RUSAGE_SELF, &r.usage_before);
		r.start_ns = now_ns();
		r.start_unix_ns = realtime_ns();
		for (auto &w : s.workers)
			w->opened_ns = r.start_ns;
		s.gate.release();
	}
	bool tty = progress_terminal(plan.opt);
	const bool lines = !tty && progress_lines();
	std::int64_t next_line = r.start_ns + 1000000000;
	bool drawn = false;
	const std::int64_t tick = 100000000;	// a sample every 0.1 s, then every 0.2 s... (halve_samples)
	unsigned ticks = 0, every = 1;	// ticks since the last sample kept; ticks a sample spans
	std::int64_t next_sample = r.start_ns + tick;
	std::int64_t next_enough = r.start_ns + 1000000000;
	std::int64_t next_draw = r.start_ns + (id.label.empty() ? 1000000000 : tick);
	while (s.gate.done.load() < n) {
		std::int64_t now = now_ns();
		if (now < next_sample) {
			int ms = static_cast<int>((next_sample - now + 999999) / 1000000);
			r.stops.sleeping(now + ms * std::int64_t{1000000}, throttled_so_far(r.watch));
			waiter.wait(ms, r.interrupted);
			r.stops.woke(now_ns(), throttled_so_far(r.watch));
			continue;
		}
		next_sample += tick;
		nudger.tick(s, now);
		if (!all_counting(s))	// a worker still in its ramp: its bytes are not the window's
			continue;
		const double t = (now - r.start_ns) / 1e9;
		const std::uint64_t bytes = total_done(s);
		if (++ticks == every) {
			ticks = 0;
			r.samples.push_back({t, bytes, latency.take(s)});
			if (r.samples.size() == max_samples) {
				halve_samples(r.samples);
				every *= 2;
				r.sample_period *= 2;
			}
		}
		if (enough && now >= next_enough && !g_stop.raised()) {
			next_enough = now + 1000000000;
			if (enough(r.samples))
				g_stop.raise();
		}
		if (tty && now >= next_draw) {
			draw_progress(plan, id.label, bytes, t);
			drawn = true;
			next_draw = now + 250000000;
		}
		if (lines && now >= next_line) {
			std::fprintf(stderr, "sdb: progress: %.3f s, %" PRIu64 " bytes\n", t, bytes);
			std::fflush(stderr);
			next_line = now + 1000000000;
		}
	}
	r.tail_latency = latency.take(s);
	r.stats_after = read_stats(r.stat_files);	// every thread is done: after the final fdatasync
	r.counters_after = read_counters(r.watch);
	getrusage(RUSAGE_SELF, &r.usage_after);
	if (drawn)
		std::fprintf(stderr, "\r\033[K");
}

Error start_workers(Shared &s, const Plan &plan, const RunId &id, std::vector<std::unique_ptr<Buffer>> &buffers)
{
	unsigned n = plan.opt.threads;
	s.gate.workers = n;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * KiB);
	for (unsigned i = 0; i < n; i++) {
		auto w = std::make_unique<Worker>();
		w->id = i;
		w->run = id.index;
		w->plan = &plan;
		w->target = &plan.targets[i];
		w->buffer = buffers[buffers.size() == 1 ? 0 : i]->data();
		w->gate = &s.gate;
		s.workers.push_back(std::move(w));
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_t th;
		int err = pthread_create(&th, &attr, worker_main, s.workers[i].get());
		if (err) {
			pthread_attr_destroy(&attr);
			g_stop.raise();
			s.gate.workers = i;	// the missing threads will never be ready
			s.workers.resize(i);
			if (s.gate.ready.load() == i)
				s.gate.poke();
			return sys_error(err, "cannot start thread %u of %u", i + 1, n);
		}
		s.threads.push_back(th);
	}
	pthread_attr_destroy(&attr);
	return {};
}

// One run of a plan (see execute()): workers prepare, the barrier opens,
// the main thread supervises until the last worker is done.
struct Execution {
	Enough enough;			// set before execute(): what ends the run early (see supervise())
	Shared shared;
	RunResult result;
	Totals totals;			// added up once, after the run
	Device device;			// whose counters check the run
	Error error;
};

// 4096 threads each hold a target fd (and a ring fd at -q > 1): more than
// the usual soft limit of 1024, well within the usual hard limit.
void raise_fd_limit()
{
	rlimit r {};
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

// What to show when a run ends in an error: results if any I/O was timed.
bool ran_any(const Shared &s)
{
	for (auto &w : s.workers)
		if (w->start_ns)
			return true;
	return false;
}

// A run that never started (a thread could not open its file, a signal
// came first) leaves none of the files it created behind: each removed
// while its path still names the inode the worker holds open.
void remove_created(const Shared &s)
{
	for (auto &w : s.workers)
		if (w->created)
			remove_if_same(w->target->path.c_str(), w->fd.get());
}

void execute(const Plan &plan, const RunId &id, std::vector<std::unique_ptr<Buffer>> &buffers, Waiter &waiter,
	     Execution &ex)
{
	g_stop.lower();
	ex.shared.gate.wake_fd = waiter.wake_fd();
	ex.device = find_device(plan);
	if (!plan.opt.cached)	// --cached measures the page cache on purpose: nothing to check
		ex.result.stat_files = ex.device.stats;
	ex.result.watch = watch_for(plan, ex.device);
	ex.error = start_workers(ex.shared, plan, id, buffers);
	supervise(ex.shared, plan, id, ex.result, waiter, ex.enough);
	for (pthread_t th : ex.shared.threads)
		pthread_join(th, nullptr);
	for (auto &w : ex.shared.workers)
		if (!ex.error && w->error)
			ex.error = w->error;
	ex.totals = add_up(ex.shared, ex.result.start_ns);
	if (!ran_any(ex.shared))
		remove_created(ex.shared);
}

} // namespace
