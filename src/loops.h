// loops: the timed loops of one worker.  io_loop at depth 1 and UringLoop
// at depth N, for reads, writes and mixes; where the next I/O goes
// (Offsets); the step at each pass end, --fsync's syncs, --ramp's window,
// the final fdatasync; and timed_phase(), which run.h's threads call once
// the barrier opens.  With --rate both loops follow a Pace (pace.h): each
// I/O waits for its due time, its latency counts from there, its service
// time apart, and with -t the window is all of it (the schedule's window:
// once no I/O is left due before the deadline, it ends at the deadline).
// What runs before the barrier is worker.h's prepare().
#pragma once

#include "base.h"
#include "options.h"
#include "stats.h"
#include "pattern.h"
#include "plan.h"
#include "uring.h"
#include "pace.h"
#include "worker.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

namespace {
// Where the next I/O goes: sequential passes over [0,size), or every block
// once per pass in the Permutation's order.  next() is false when the pass
// is over; rewind() begins the next one (the random order goes on).
template <bool Random>
class Offsets {
public:
	Offsets(const Target &t, std::uint64_t block_size, std::uint64_t seed)
		: size_(t.size), bs_(block_size), blocks_(t.size / block_size), left_(blocks_),
		  order_(Random ? blocks_ : 1, seed)
	{
	}

	bool next(std::uint64_t &offset, std::size_t &len)
	{
		if (Random) {
			if (left_ == 0)
				return false;
			left_--;
			offset = order_.next() * bs_;
			len = static_cast<std::size_t>(bs_);
		} else {
			if (pos_ >= size_)
				return false;
			offset = pos_;
			len = static_cast<std::size_t>(std::min(bs_, size_ - pos_));
			pos_ += len;
		}
		return true;
	}

	void rewind()
	{
		left_ = blocks_;
		pos_ = 0;
	}

private:
	std::uint64_t size_, bs_, blocks_, left_, pos_ = 0;
	Permutation order_;
};

// The random order: fixed for a given run (reproducible), but another one
// for each thread, for reads and writes, and for each quick-suite repeat, so
// that a read does not replay the order the preceding write left in caches.
std::uint64_t order_seed(const Worker &w)
{
	const Options &o = w.plan->opt;
	return 0x5db0000 + w.id + (std::uint64_t{is_write(o)} << 32) + (std::uint64_t{is_mix(o)} << 33) +
	       (std::uint64_t{w.run} << 40);
}

// A mix's reads and writes: another sequence than the offsets' order.
std::uint64_t mix_seed(const Worker &w) { return order_seed(w) ^ 0x6d69780000000000ULL; }

// --ramp is over and none of its I/O is in flight: say so, and wait until
// the supervisor has read the device's counters (run_ramp()), so that the
// counters and the window start at one moment and the device sees exactly
// what the window issues.  The wait is the supervisor's poll (about 1 ms),
// once per run, outside the window.  False when the run stops instead.
bool await_window(Worker &w)
{
	w.ramp_drained.store(true);
	const timespec nap{0, 20000};
	while (!w.ramp_over.load()) {
		if (g_stop.raised())
			return false;
		nanosleep(&nap, nullptr);
	}
	return true;
}

// The end of the timed window: -t after the gate opened, the same instant
// for every thread (with -j 1024 on two CPUs the last thread started 1.7 s
// after the first, and a deadline of its own made the run's window 3.2 s
// for -t 1); during a --ramp, -t after the ramp's end; after it, -t after
// the thread's own start of its window.
std::int64_t deadline_of(const Worker &w)
{
	const std::int64_t from = w.ramp_end_ns ? w.ramp_end_ns : w.opened_ns ? w.opened_ns : w.start_ns;
	return from + static_cast<std::int64_t>(w.plan->opt.time_limit * 1e9);
}

// The first error is the one to report; it stops every thread.
void fail(Worker &w, Error e)
{
	if (w.error)
		return;
	w.error = std::move(e);
	g_stop.raise();
}

void fail_io(Worker &w, bool write, int err, std::uint64_t offset)
{
	fail(w, sys_error(err, "%s: %s at offset %" PRIu64, write ? "write" : "read", w.target->path.c_str(), offset));
}

// io_uring_enter itself failed: no I/O at any offset did.
Error ring_error(const std::string &path, int err)
{
	return sys_error(err, "io_uring_enter: %s", path.c_str());
}

// Every pass of a time-based run starts from the device: a read drops what
// the pass brought into the page cache before it is read again, a write
// makes the pass durable (else the next pass rewrites dirty pages and only
// the last state reaches the device).  Once per pass, inside the timing: it
// is part of the cost of reaching the device.  0 or -errno.
// A mix does both: its writes made durable, then its pages dropped.
int end_pass(const Worker &w)
{
	if (w.plan->opt.cached || w.target->kind == Kind::chr)
		return 0;
	if (!writes_target(w.plan->opt))
		return drop_cached(w);
	if (fdatasync(w.fd.get()) != 0 && errno != EINVAL && errno != EROFS)	// EINVAL: nothing to flush
		return -errno;
	return is_mix(w.plan->opt) ? drop_cached(w) : 0;
}

// A pass is over: true when a time-based run goes on with the next one.
// now becomes the end of the pass-end step, so that the step is timed but
// not taken for the latency of the I/O that follows it.
// A --ramp repeats passes until it is over, with -t or without.  A device
// read bounded by default (Plan::bounded_read) makes one pass at most.
template <bool Random>
bool next_pass(Worker &w, Offsets<Random> &offsets, std::int64_t &now)
{
	const bool ramping = w.ramp_end_ns != 0;
	if (!(w.plan->opt.time_limit > 0 || ramping) || g_stop.raised() || (w.plan->bounded_read && !ramping))
		return false;	// a device read without -s or -t: one pass, for at most its 10 s
	if (int err = end_pass(w)) {
		fail(w, sys_error(-err, "%s: %s (end of pass %u)", writes_target(w.plan->opt) ? "fdatasync" : "posix_fadvise",
				  w.target->path.c_str(), w.passes));
		return false;
	}
	now = now_ns();
	if (!ramping && now >= deadline_of(w))
		return false;
	offsets.rewind();
	w.passes++;
	return true;
}

// --fsync: the sync after every N writes, timed into its own histogram.
// now: the last write's end on entry, the sync's end on return, so that
// the sync is not taken for the latency of the write that follows it.
bool sync_step(Worker &w, std::int64_t &now)
{
	if (fdatasync(w.fd.get()) != 0 && errno != EINVAL && errno != EROFS) {	// EINVAL: nothing to flush
		fail(w, sys_error(errno, "fdatasync: %s (--fsync)", w.target->path.c_str()));
		return false;
	}
	std::int64_t end = now_ns();
	w.sync_latency->add(static_cast<std::uint64_t>(end - now));
	now = end;
	return true;
}

// What a worker counted, dropped: its histograms, its sides, its bytes done.
void drop_counts(Worker &w)
{
	w.latency.reset();
	for (std::optional<Histogram> *h : {&w.sync_latency, &w.read_latency, &w.write_latency, &w.service_latency})
		if (*h)
			(*h)->reset();
	w.behind_ns = 0;
	w.read_bytes = w.read_ops = w.write_bytes = w.write_ops = 0;
	w.bytes_done.store(0, std::memory_order_relaxed);
}

// --ramp is over: the first I/O to end at or after the ramp's end was the
// ramp's last (at depth N the slots drain first); once the device's
// counters are read (await_window()), all counted so far is dropped and
// the timed window opens at now.  With -t the I/O goes on where it is (fio's ramp_time).  Without
// -t the window is one pass: the offsets start over (the random order goes
// on, so every block comes once), and what a read's or a mix's ramp brought
// into the page cache is dropped first, before the window (a write's dirty pages
// stay, as they would in the steady state the ramp is there to reach).
template <bool Random>
void open_window(Worker &w, Offsets<Random> &offsets, std::int64_t &now)
{
	const Options &o = w.plan->opt;
	w.ramp_end_ns = 0;
	drop_counts(w);
	if (!(o.time_limit > 0)) {
		if (!is_write(o) && !o.cached && w.target->kind != Kind::chr)
			drop_cached(w);
		offsets.rewind();
		now = now_ns();
	}
	w.passes = 1;
	w.start_ns = now;
	w.cpu_start_ns = thread_cpu_ns();
	w.counting.store(true);
}

// --rate's schedule for this thread, from the window's start; without
// --rate one that is off.
Pace pace_of(const Worker &w)
{
	return Pace(w.start_ns, ios_per_second(w.plan->opt.rate, w.plan->block_size));
}

// Which way a loop's I/Os go: all reads, all writes, or a mix (-M), where
// each I/O draws its way.  The way is a template argument, so that a read
// or a write loop carries nothing of the mix but constants.
enum class Way { read, write, mix };

// The loop's counts into the worker: a mix's two sides apart, and its
// latency histogram both sides'.
template <Way W>
void end_loop(Worker &w, const std::uint64_t (&bytes)[2], const std::uint64_t (&ops)[2], std::int64_t end)
{
	if (W == Way::mix) {
		w.read_bytes = bytes[0];
		w.read_ops = ops[0];
		w.write_bytes = bytes[1];
		w.write_ops = ops[1];
		w.latency.merge(*w.read_latency);
		w.latency.merge(*w.write_latency);
	}
	w.bytes = bytes[0] + bytes[1];
	w.ops = ops[0] + ops[1];
	w.end_ns = end;
}

// The timed loop at queue depth 1: the I/O call, one clock read per I/O
// (the end of one I/O is the start of the next), two histogram adds (the
// run's, and the sampler's: a relaxed load and store) and a relaxed
// counter store.  The end of a pass is where next() is false anyway, so
// its step costs the loop nothing.  With -R, rotation() and
// stamp() also run here, inside the timing: a modulo and 16 bytes per
// 4 KiB, measured at 3.1-4.8 M against 3.3-4.9 M writes of 4 KiB a second
// to /dev/null (alternated): under 1% of any real device's I/O time.
// With --verify, mark() makes the whole pattern here instead (about 0.05 s
// of CPU per GiB), and a read checks each unit after its I/O; the clock is
// read again after either, so that they count in the rate, not in the
// latency of an I/O.  A mix writes from the thread's first slot and reads
// into its second (see make_plan), so that no read changes what a write
// sends; its two sides are counted apart, and the latency histogram gets
// both at the end.  With --rate each I/O waits for its due time (none if
// the last one ended after it: the loop is behind and goes at once), and
// the clock read after the sleep is its issue time: one more clock read,
// only where it slept.
template <Way W, bool Random>
void io_loop(Worker &w)
{
	const Target &t = *w.target;
	const Plan &plan = *w.plan;
	const bool time_based = plan.opt.time_limit > 0;
	std::int64_t deadline = deadline_of(w);
	Offsets<Random> offsets(t, plan.block_size, order_seed(w));
	MixChooser choose(mix_seed(w), plan.opt.mix);
	const bool stamped = W != Way::read && plan.opt.random_buffer;
	const unsigned sync_every = W != Way::read ? plan.opt.fsync_every : 0;
	const bool verifying = plan.opt.verify;	// never with a mix
	char *const read_buffer = W == Way::mix ? w.buffer + plan.slot_stride : w.buffer;
	Histogram *latency[2] = {&w.latency, &w.latency};	// [0]: reads, [1]: writes
	if (W == Way::mix) {
		latency[0] = &*w.read_latency;
		latency[1] = &*w.write_latency;
	}
	std::uint64_t bytes[2] = {0, 0}, ops[2] = {0, 0}, offset, failed_at = 0;
	unsigned unsynced = 0;
	std::size_t len;
	std::int64_t prev = w.start_ns;
	Pace pace = pace_of(w);
	const bool paced = pace.on();
	Histogram *const service = paced ? &*w.service_latency : nullptr;
	std::int64_t due = 0, issued = 0, behind = 0;

	w.passes = 1;
	while (offsets.next(offset, len) || (next_pass(w, offsets, prev) && offsets.next(offset, len))) {
		if (paced) {
			due = pace.take();
			if (time_based && due >= deadline) {	// the schedule's window is all of -t
				prev = std::max(prev, wait_until(deadline));
				break;
			}
			issued = due > prev ? wait_until(due) : prev;
			behind = std::max(behind, issued - due);
		}
		const bool write = W == Way::mix ? !choose.read() : W == Way::write;
		char *buffer = read_buffer;
		if (write) {
			buffer = w.buffer;
			if (stamped) {
				buffer += rotation(w, ops[1]);
				mark(w, buffer, len, t.base + offset, ops[1]);
			}
			if (verifying)	// the pattern counts in the rate, not in the write's latency
				issued = prev = now_ns();
		}
		ssize_t n = write ? transfer<true>(w.fd.get(), buffer, len, t.base + offset, failed_at)
				  : transfer<false>(w.fd.get(), buffer, len, t.base + offset, failed_at);
		std::int64_t now = now_ns();
		if (n < 0) {
			fail_io(w, write, static_cast<int>(-n), failed_at);
			break;
		}
		if (n == 0) {	// end of file: nothing was read, so no I/O to count
			w.eof_at = t.base + offset;
			break;
		}
		const std::uint64_t took = static_cast<std::uint64_t>(now - (paced ? due : prev));
		latency[write]->add(took);
		w.live_latency.add(took);
		if (paced)
			service->add(static_cast<std::uint64_t>(now - issued));
		prev = now;
		bytes[write] += static_cast<std::uint64_t>(n);
		ops[write]++;
		w.bytes_done.store(bytes[0] + bytes[1], std::memory_order_relaxed);
		if (!write && verifying) {	// the check counts in the rate, not in the next read's latency
			w.verify.check_block(buffer, static_cast<std::size_t>(n), t.base + offset);
			prev = now_ns();
		}
		if (static_cast<std::size_t>(n) < len) {
			w.eof_at = t.base + offset + static_cast<std::uint64_t>(n);
			break;
		}
		if (write && sync_every && ++unsynced == sync_every) {
			unsynced = 0;
			if (!sync_step(w, prev))
				break;
		}
		if (w.ramp_end_ns && prev >= w.ramp_end_ns) {
			if (!await_window(w))
				break;
			bytes[0] = bytes[1] = ops[0] = ops[1] = 0;
			unsynced = 0;
			open_window(w, offsets, prev);
			deadline = deadline_of(w);
			pace.restart(w.start_ns);
			behind = 0;
		}
		if (g_stop.raised() || (time_based && prev >= deadline))
			break;
	}
	w.behind_ns = behind;
	end_loop<W>(w, bytes, ops, prev);
}

// What one io_uring completion makes of its slot.
enum class Settled {
	failed,		// an error: the run stops
	partial,	// some bytes moved: continue the rest in the same slot
	ended,		// nothing more came: end of file, or a write that cannot go on
	complete,	// the whole I/O is done
};

// An EINVAL after a short O_DIRECT read is end of file (the rest is
// unaligned), as transfer() decides it at queue depth 1.
template <bool Write>
Settled settle(Slot &s, int res)
{
	if (res == -EINVAL && !Write && s.done > 0)
		return Settled::ended;
	if (res < 0)
		return Settled::failed;
	s.done += static_cast<std::size_t>(res);
	if (s.done >= s.len)
		return Settled::complete;
	return res > 0 ? Settled::partial : Settled::ended;
}

// The timed loop at queue depth N: N I/Os in flight through io_uring.  Each
// slot owns a buffer (reads) and the time it was queued; a completion is
// timed with one clock read, which is also the queue time of the I/O that
// refills its slot.  At the end of a pass the slots drain before the
// pass-end step, then all are refilled.  A mix draws each slot's way as it
// is refilled: slot i writes from buffer slot i and reads into slot
// depth + i.  With --rate a slot whose next I/O is not yet due waits
// (waiting_), and the ring's wait ends at the next due time if no
// completion comes first; the clock read after the wait is still the one
// per wake.  run() is the loop; each step it takes has a name below.
template <Way W, bool Random>
class UringLoop {
public:
	explicit UringLoop(Worker &w)
		: w_(w), t_(*w.target), plan_(*w.plan), depth_(plan_.opt.queue_depth),
		  time_based_(plan_.opt.time_limit > 0), deadline_(deadline_of(w)),
		  offsets_(t_, plan_.block_size, order_seed(w)), choose_(mix_seed(w), plan_.opt.mix), ring_(*w.ring),
		  slots_(depth_), starts_(depth_), last_(w.start_ns),
		  stride_(W == Way::write && !stamped_ ? 0 : plan_.slot_stride), pace_(pace_of(w)), paced_(pace_.on()),
		  waiting_(paced_ ? depth_ : 0)
	{
		if (paced_)
			service_ = &*w.service_latency;
		if (W == Way::mix) {
			latency_[0] = &*w.read_latency;
			latency_[1] = &*w.write_latency;
		}
	}

	void run()
	{
		w_.passes = 1;
		std::int64_t now = w_.start_ns;
		refill_all(now);
		while (inflight_ > 0 || waiting_count_ > 0) {
			w_.in_ring_wait.store(true, std::memory_order_relaxed);
			int err = waiting_count_ ? ring_.submit_and_wait_for(inflight_, pace_.due() - std::max(now, last_))
						 : ring_.submit_and_wait(inflight_);
			w_.in_ring_wait.store(false, std::memory_order_relaxed);
			if (err) {
				fail(w_, ring_error(t_.path, err));
				break;
			}
			now = now_ns();
			if (w_.ramp_end_ns && now >= w_.ramp_end_ns)	// what it reaps is the ramp's last
				draining_ = true;
			unsigned index;
			int res;
			while (ring_.reap(index, res))
				complete(index, res, now);
			if (waiting_count_)
				release(now);
			w_.bytes_done.store(bytes_[0] + bytes_[1], std::memory_order_relaxed);
			if (draining_ && inflight_ == 0 && !finished_)
				window_opens(now);
			if (inflight_ == 0 && pass_over_ && !finished_ && next_pass(w_, offsets_, last_)) {
				pass_over_ = false;
				refill_all(last_);
			}
		}
		if (schedule_over_ && !g_stop.raised())	// the schedule's window is all of -t
			last_ = std::max(last_, wait_until(deadline_));
		w_.behind_ns = behind_;
		end_loop<W>(w_, bytes_, ops_, last_);
	}

private:
	// What is left of slot i's I/O, to the ring.
	void queue(unsigned i)
	{
		const Slot &s = slots_[i];
		if (W == Way::mix)	// each I/O its own way; else the ring's template has it
			ring_.queue(starts_[i] + s.done, s.len - s.done, t_.base + s.offset + s.done, i, s.write);
		else
			ring_.queue(starts_[i] + s.done, s.len - s.done, t_.base + s.offset + s.done, i);
	}

	// Slot i's next I/O, queued at now, if the pass has one and the run goes on.
	void refill(unsigned i, std::int64_t now)
	{
		Slot &s = slots_[i];
		if (finished_ || pass_over_ || draining_)
			return;
		if (paced_ && !due_by(i, now))
			return;
		if (!offsets_.next(s.offset, s.len)) {
			pass_over_ = true;
			return;
		}
		s.done = 0;
		s.queued_ns = now;
		if (paced_) {
			s.due_ns = pace_.take();
			behind_ = std::max(behind_, now - s.due_ns);
		}
		s.write = W == Way::mix ? !choose_.read() : W == Way::write;
		if (s.write) {
			starts_[i] = w_.buffer + i * stride_;
			if (stamped_) {
				starts_[i] += rotation(w_, writes_queued_);
				mark(w_, starts_[i], s.len, t_.base + s.offset, writes_queued_);
				if (verifying_)	// the pattern counts in the rate, not in the write's latency
					s.queued_ns = now_ns();
			}
			writes_queued_++;
		} else {
			starts_[i] = w_.buffer + (W == Way::mix ? depth_ + i : i) * stride_;
		}
		queue(i);
		inflight_++;
	}

	// --rate: whether slot i's next I/O is due at now; if not, it waits.
	// None is due at or past the deadline: the run is over there.
	bool due_by(unsigned i, std::int64_t now)
	{
		if (time_based_ && pace_.due() >= deadline_) {
			finished_ = schedule_over_ = true;
			return false;
		}
		if (pace_.due() <= now)
			return true;
		waiting_[waiting_count_++] = i;
		return false;
	}

	// --rate: the waiting slots whose I/Os are due by now, queued.  Once
	// the pass or the run is over, or --ramp drains, none waits any more
	// (refill_all() takes every slot up again).
	void release(std::int64_t now)
	{
		if (time_based_ && now >= deadline_)
			finished_ = true;
		while (waiting_count_ > 0 && !finished_ && !pass_over_ && !draining_ && pace_.due() <= now)
			refill(waiting_[--waiting_count_], now);
		if (finished_ || pass_over_ || draining_)
			waiting_count_ = 0;
	}

	void refill_all(std::int64_t now)
	{
		waiting_count_ = 0;
		for (unsigned i = 0; i < depth_; i++)
			refill(i, now);
	}

	// An I/O that ended at now: its latency, its op.
	void count(const Slot &s, std::int64_t now)
	{
		const std::uint64_t took = static_cast<std::uint64_t>(now - (paced_ ? s.due_ns : s.queued_ns));
		latency_[s.write]->add(took);
		w_.live_latency.add(took);
		if (paced_)
			service_->add(static_cast<std::uint64_t>(now - s.queued_ns));
		ops_[s.write]++;
		last_ = now;
	}

	// One completion, reaped at now: what it makes of its slot.
	void complete(unsigned index, int res, std::int64_t now)
	{
		Slot &s = slots_[index];
		inflight_--;
		const bool stop = g_stop.raised();
		if (stop || (time_based_ && now >= deadline_))
			finished_ = true;
		if (res > 0)
			bytes_[s.write] += static_cast<std::uint64_t>(res);
		switch (s.write ? settle<true>(s, res) : settle<false>(s, res)) {
		case Settled::failed:
			fail_io(w_, s.write, -res, t_.base + s.offset + s.done);
			finished_ = true;
			break;
		case Settled::partial:
			if (stop) {	// what moved is an I/O, cut short
				count(s, now);
				break;
			}
			queue(index);
			inflight_++;
			break;
		case Settled::ended:
			if (s.write)
				fail_io(w_, true, EIO, t_.base + s.offset + s.done);
			else
				w_.eof_at = t_.base + s.offset + s.done;
			finished_ = true;
			if (s.done > 0)
				count(s, now);
			break;
		case Settled::complete:
			count(s, now);
			if (!s.write && verifying_)	// before the slot is refilled; not in the next read's latency
				w_.verify.check_block(starts_[index], s.len, t_.base + s.offset);
			refill(index, !s.write && verifying_ ? now_ns() : now);
			break;
		}
	}

	// --ramp's end: the ramp's I/Os have drained (none is counted in the
	// window, so a pass is exactly its blocks), and once the device's
	// counters are read the counts start over and every slot is refilled.
	// Without -t the offsets start over too; with -t a pass the ramp ended
	// goes through its pass-end step first, as any pass does.
	void window_opens(std::int64_t now)
	{
		draining_ = false;
		if (!await_window(w_)) {
			finished_ = true;
			return;
		}
		bytes_[0] = bytes_[1] = ops_[0] = ops_[1] = 0;
		last_ = now;
		open_window(w_, offsets_, last_);
		deadline_ = deadline_of(w_);
		pace_.restart(w_.start_ns);
		behind_ = 0;
		if (!time_based_)
			pass_over_ = false;
		refill_all(last_);
	}

	Worker &w_;
	const Target &t_;
	const Plan &plan_;
	const unsigned depth_;
	const bool time_based_;
	const bool stamped_ = W != Way::read && plan_.opt.random_buffer;
	const bool verifying_ = plan_.opt.verify;	// never with a mix
	std::int64_t deadline_;
	Offsets<Random> offsets_;
	MixChooser choose_;
	Ring &ring_;
	std::vector<Slot> slots_;
	std::vector<char *> starts_;		// where each slot's I/O goes from or to
	Histogram *latency_[2] = {&w_.latency, &w_.latency};	// [0]: reads, [1]: writes
	std::uint64_t bytes_[2] = {0, 0}, ops_[2] = {0, 0};
	std::int64_t last_;
	const std::size_t stride_;		// a buffer per slot, or 0: one shared by every write of zeros
	std::uint64_t writes_queued_ = 0;	// the -R stamp and the pool rotation
	unsigned inflight_ = 0;
	bool pass_over_ = false;		// this pass has no more offsets
	bool draining_ = false;		// --ramp is over: no refills until nothing is in flight
	bool finished_ = false;		// no more I/O at all: stop, deadline, error or end of file
	bool schedule_over_ = false;	// --rate -t: no I/O was left due before the deadline
	Pace pace_;			// --rate's schedule; off without it
	const bool paced_;
	Histogram *service_ = nullptr;	// --rate: w.service_latency
	std::vector<unsigned> waiting_;	// --rate: the free slots whose next I/O is not yet due
	unsigned waiting_count_ = 0;
	std::int64_t behind_ = 0;	// --rate: the furthest an I/O was queued after its due time
};

template <Way W, bool Random>
void uring_loop(Worker &w)
{
	UringLoop<W, Random>(w).run();
}

// Why fdatasync belongs inside the timing: without it a buffered write
// measures how fast the page cache accepts data, not the device.  Devices
// with no cache to flush (/dev/null) answer EINVAL, which is fine.
void finish_write(Worker &w)
{
	if (w.plan->opt.cached || w.error)
		return;
	w.loop_end_ns = w.end_ns;
	if (fdatasync(w.fd.get()) != 0 && errno != EINVAL && errno != EROFS)
		fail(w, sys_error(errno, "fdatasync: %s", w.target->path.c_str()));
	w.end_ns = now_ns();
}

// A run stopped during its --ramp (a signal, an error) counted nothing.
void discard_ramp(Worker &w)
{
	w.ramp_end_ns = 0;
	w.bytes = w.ops = 0;
	drop_counts(w);	// the counting.store(true) after this publishes it
	w.start_ns = w.end_ns;
	w.loop_end_ns = 0;
	w.passes = 0;
}

// The loop for this way, depth and pattern.
template <Way W>
void run_loop(Worker &w)
{
	const Options &o = w.plan->opt;
	if (o.queue_depth > 1)
		o.random ? uring_loop<W, true>(w) : uring_loop<W, false>(w);
	else
		o.random ? io_loop<W, true>(w) : io_loop<W, false>(w);
}

// ramp_end_ns, for --ramp, was set before the barrier opened.
void timed_phase(Worker &w)
{
	const Options &o = w.plan->opt;
	w.cpu_start_ns = thread_cpu_ns();
	w.start_ns = now_ns();
	w.cpu = sched_getcpu();
	w.counting.store(w.ramp_end_ns == 0);
	if (is_mix(o))
		run_loop<Way::mix>(w);
	else if (is_write(o))
		run_loop<Way::write>(w);
	else
		run_loop<Way::read>(w);
	if (writes_target(o))
		finish_write(w);
	if (w.ramp_end_ns)
		discard_ramp(w);
	w.cpu_ns = thread_cpu_ns() - w.cpu_start_ns;
	w.counting.store(true);
}

} // namespace
