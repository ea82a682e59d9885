// uring: io_uring through raw syscalls and the kernel's UAPI header (no
// liburing).  Ring: setup with the flags that suit one thread, a fixed file
// and buffer where the kernel takes them, queue, submit-and-wait with a
// bounded wait, reap.
#pragma once

#include "base.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>

#include <linux/io_uring.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

// The most one read or write moves on Linux (MAX_RW_COUNT); longer I/Os
// come back short and are continued.
constexpr std::size_t max_transfer = 0x7ffff000;

// io_uring through raw syscalls and the kernel's UAPI header: no liburing,
// sdb depends on libc only.  One ring per thread, used by that thread only,
// which is what the setup flags tell the kernel (see setup()).
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif
#ifndef IORING_REGISTER_RING_FDS
#define IORING_REGISTER_RING_FDS 20
#define IORING_UNREGISTER_RING_FDS 21
#define IORING_ENTER_REGISTERED_RING (1U << 4)
#endif

class Ring {
public:
	Ring() = default;
	Ring(const Ring &) = delete;
	Ring &operator=(const Ring &) = delete;
	// The registered file is let go first, here: a ring's own teardown
	// after its close is asynchronous, and the file it still held kept
	// the run's flock() on it (lock_target) for a moment after the run, so
	// that the next run in the same process (--sweep's steps) was refused
	// as "in use by another run".  Only the ring's issuer may (SINGLE_ISSUER):
	// the worker's thread destroys it (worker_main).
	~Ring()
	{
		if (fixed_file_)
			syscall(__NR_io_uring_register, fd_.get(), IORING_UNREGISTER_FILES, nullptr, 0);
		if (enter_flags_ & IORING_ENTER_REGISTERED_RING) {	// else the thread holds the ring until it ends
			io_uring_rsrc_update up {};
			up.offset = static_cast<unsigned>(enter_fd_);
			syscall(__NR_io_uring_register, fd_.get(), IORING_UNREGISTER_RING_FDS, &up, 1);
		}
		if (sqes_ != MAP_FAILED)
			munmap(sqes_, sqes_len_);
		if (cq_map_ != MAP_FAILED && cq_map_ != sq_map_)
			munmap(cq_map_, cq_len_);
		if (sq_map_ != MAP_FAILED)
			munmap(sq_map_, sq_len_);
	}

	// A ring of entries SQEs.  submit_batch: the most SQEs handed to one
	// io_uring_enter (0: all that are queued); wait_batch: the completions
	// one io_uring_enter waits for (at most all in flight).
	//
	// The flags suit one thread that submits and reaps: SINGLE_ISSUER lets
	// the kernel skip its locking for other submitters; DEFER_TASKRUN (6.1)
	// runs completion work only when this thread asks for completions, so a
	// completion never interrupts it and the wait wakes it once for
	// wait_batch of them, not once each; COOP_TASKRUN (5.19) is the half of
	// that an older kernel has.  A kernel that does not know a flag refuses
	// it with EINVAL: the next set is tried, down to none.  The ring's own
	// descriptor is registered with this thread where the kernel can
	// (5.18): each io_uring_enter then skips its lookup and reference.
	Error setup(unsigned entries, unsigned submit_batch, unsigned wait_batch)
	{
		static const unsigned tries[] = {
			IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
			IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
			IORING_SETUP_COOP_TASKRUN,
			0,
		};
		io_uring_params p {};
		submit_batch_ = submit_batch;
		wait_batch_ = std::max(wait_batch, 1u);
		for (unsigned flags : tries) {
			p = io_uring_params {};
			p.flags = flags;
			fd_ = Fd(static_cast<int>(syscall(__NR_io_uring_setup, entries, &p)));
			if (fd_ || errno != EINVAL)
				break;
		}
		if (!fd_)
			return unavailable(entries, errno);
		sq_len_ = p.sq_off.array + p.sq_entries * sizeof(unsigned);
		cq_len_ = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
		bounded_wait_ = p.features & IORING_FEAT_EXT_ARG;
		bool single = p.features & IORING_FEAT_SINGLE_MMAP;
		if (single)
			sq_len_ = cq_len_ = std::max(sq_len_, cq_len_);
		sq_map_ = mmap(nullptr, sq_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_.get(), IORING_OFF_SQ_RING);
		if (sq_map_ == MAP_FAILED)
			return unavailable(entries, errno);
		cq_map_ = single ? sq_map_ : mmap(nullptr, cq_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_.get(), IORING_OFF_CQ_RING);
		if (cq_map_ == MAP_FAILED)
			return unavailable(entries, errno);
		sqes_len_ = p.sq_entries * sizeof(io_uring_sqe);
		sqes_ = mmap(nullptr, sqes_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_.get(), IORING_OFF_SQES);
		if (sqes_ == MAP_FAILED)
			return unavailable(entries, errno);
		auto *sq = static_cast<char *>(sq_map_);
		auto *cq = static_cast<char *>(cq_map_);
		sq_tail_ = reinterpret_cast<unsigned *>(sq + p.sq_off.tail);
		sq_mask_ = *reinterpret_cast<unsigned *>(sq + p.sq_off.ring_mask);
		cq_head_ = reinterpret_cast<unsigned *>(cq + p.cq_off.head);
		cq_tail_ = reinterpret_cast<unsigned *>(cq + p.cq_off.tail);
		cq_mask_ = *reinterpret_cast<unsigned *>(cq + p.cq_off.ring_mask);
		cqes_ = reinterpret_cast<io_uring_cqe *>(cq + p.cq_off.cqes);
		tail_ = *sq_tail_;
		// The SQ array maps ring slot i to SQE i, once and for all.
		auto *sq_array = reinterpret_cast<unsigned *>(sq + p.sq_off.array);
		for (unsigned i = 0; i < p.sq_entries; i++)
			sq_array[i] = i;
		enter_fd_ = fd_.get();
		io_uring_rsrc_update up {};
		up.offset = ~0U;	// any free slot: the kernel says which
		up.data = static_cast<std::uint64_t>(fd_.get());
		if (syscall(__NR_io_uring_register, fd_.get(), IORING_REGISTER_RING_FDS, &up, 1) == 1) {
			enter_fd_ = static_cast<int>(up.offset);
			enter_flags_ = IORING_ENTER_REGISTERED_RING;
		}
		return {};
	}

	// The descriptor and the buffer every I/O of this ring uses, registered
	// with the kernel where it takes them: a fixed file spares the
	// descriptor lookup and reference per I/O, a fixed buffer the page
	// pinning (get_user_pages) per I/O.  Registration is an optimisation: a
	// refusal (RLIMIT_MEMLOCK for the buffer, an old kernel) leaves the
	// plain READ/WRITE.  fan_out: every I/O straight to an io-wq worker
	// (IOSQE_ASYNC), skipping the attempt without blocking that a target
	// without FMODE_NOWAIT (zram, brd, some FUSE files) fails anyway, and
	// with as many workers at once as there is work for, up to the
	// kernel's cap (see ring_for() in worker.h for when that pays).
	void attach(int fd, bool write, char *buffer, std::size_t len, bool fan_out)
	{
		io_uring_sqe &t = template_;
		t = io_uring_sqe {};
		t.opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
		t.fd = fd;
		t.flags = fan_out ? IOSQE_ASYNC : 0;
		if (syscall(__NR_io_uring_register, fd_.get(), IORING_REGISTER_FILES, &fd, 1) == 0) {
			fixed_file_ = true;
			t.fd = 0;
			t.flags |= IOSQE_FIXED_FILE;
		}
		iovec whole = {buffer, len};
		if (len > 0 && syscall(__NR_io_uring_register, fd_.get(), IORING_REGISTER_BUFFERS, &whole, 1) == 0) {
			t.opcode = write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
			t.buf_index = 0;
		}
	}

	// The CPUs this ring's io-wq workers may run on, those now and those it
	// starts later (5.14): true if the kernel took them.
	bool place_workers(const cpu_set_t &cpus)
	{
		return syscall(__NR_io_uring_register, fd_.get(), IORING_REGISTER_IOWQ_AFF, &cpus, sizeof cpus) == 0;
	}

	// Collect before sleeping (see submit_and_wait()).
	void look_first(bool on) { look_first_ = on; }

	// An I/O of len bytes at offset into buf, which lies in the attached
	// buffer; index comes back with its completion.
	void queue(char *buf, std::size_t len, std::uint64_t offset, unsigned index)
	{
		io_uring_sqe *sqe = static_cast<io_uring_sqe *>(sqes_) + (tail_ & sq_mask_);
		*sqe = template_;
		sqe->addr = reinterpret_cast<std::uintptr_t>(buf);
		sqe->len = static_cast<std::uint32_t>(std::min<std::size_t>(len, max_transfer));	// the rest is requeued
		sqe->off = offset;
		sqe->user_data = index;
		tail_++;
		pending_++;
	}

	// The same for a mix, whose I/Os go either way on one descriptor.
	void queue(char *buf, std::size_t len, std::uint64_t offset, unsigned index, bool write)
	{
		queue(buf, len, offset, index);
		io_uring_sqe *sqe = static_cast<io_uring_sqe *>(sqes_) + ((tail_ - 1) & sq_mask_);
		bool fixed = template_.opcode == IORING_OP_READ_FIXED || template_.opcode == IORING_OP_WRITE_FIXED;
		sqe->opcode = fixed ? (write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED)
				    : (write ? IORING_OP_WRITE : IORING_OP_READ);
	}

	// Submit what is queued and wait for wait_batch completions (or all
	// inflight, if fewer): 0 or errno.  The wait has no timeout: a timeout
	// arms a timer per wait, which on this VM cost about 10% of the IOPS
	// at -q 16 on zram (282k against 254k a second, 3.17 against 3.48 us
	// of CPU per I/O, alternated).  A wake-up the kernel lost once (6.18,
	// DEFER_TASKRUN: a -q 32 run held for minutes, every I/O done but not
	// reaped) is the supervisor's to end: a thread without progress for a
	// second gets SIGURG (Nudger, run.h), the wait returns or restarts,
	// and entering again reaps what had come.
	//
	// With look_first (a wait for one completion only), the call that
	// submits collects what has come without sleeping (GETEVENTS runs the
	// deferred completions), and a second call sleeps only if nothing had,
	// as fio's engine does: a thread whose completions come from an io-wq
	// worker on another CPU then sleeps less often.
	int submit_and_wait(unsigned inflight)
	{
		__atomic_store_n(sq_tail_, tail_, __ATOMIC_RELEASE);
		while (submit_batch_ > 0 && pending_ > submit_batch_)
			if (int err = enter(submit_batch_, 0, 0))
				return err;
		const unsigned want = std::min(wait_batch_, std::max(inflight, 1u));
		if (look_first_ && want == 1) {
			if (int err = enter(pending_, 0, IORING_ENTER_GETEVENTS))
				return err;
			if (*cq_head_ != __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE))
				return 0;
			return enter(0, 1, IORING_ENTER_GETEVENTS, -1);
		}
		return enter(pending_, want, IORING_ENTER_GETEVENTS, -1);
	}

	// --rate: the same, but the wait is for one completion or bound_ns,
	// whichever comes first (the next I/O's due time).  A kernel without
	// bounded waits (before 5.11) sleeps bound_ns when nothing is in
	// flight, else waits for one completion, however late.
	int submit_and_wait_for(unsigned inflight, std::int64_t bound_ns)
	{
		__atomic_store_n(sq_tail_, tail_, __ATOMIC_RELEASE);
		while (submit_batch_ > 0 && pending_ > submit_batch_)
			if (int err = enter(submit_batch_, 0, 0))
				return err;
		bound_ns = std::max<std::int64_t>(bound_ns, 0);
		if (bounded_wait_)
			return enter(pending_, 1, IORING_ENTER_GETEVENTS, bound_ns);
		if (inflight > 0)
			return enter(pending_, 1, IORING_ENTER_GETEVENTS);
		if (int err = pending_ ? enter(pending_, 0, 0) : 0)
			return err;
		const timespec nap{static_cast<time_t>(bound_ns / 1000000000), static_cast<long>(bound_ns % 1000000000)};
		nanosleep(&nap, nullptr);
		return 0;
	}

	bool reap(unsigned &index, int &res)
	{
		unsigned head = *cq_head_;
		if (head == __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE))
			return false;
		const io_uring_cqe &cqe = cqes_[head & cq_mask_];
		index = static_cast<unsigned>(cqe.user_data);
		res = cqe.res;
		__atomic_store_n(cq_head_, head + 1, __ATOMIC_RELEASE);
		return true;
	}

private:
	static Error unavailable(unsigned entries, int err)
	{
		return runtime_error("-q %u: io_uring is not available: %s%s", entries, std::strerror(err),
				     err == ENOSYS ? " (this kernel has no io_uring)"
				     : err == EPERM ? " (disabled by the kernel.io_uring_disabled sysctl or a seccomp filter)"
						    : "");
	}

	// A wait is bounded by bound_ns (--rate's next due time) where the
	// kernel can (5.11+); bound_ns < 0 is a wait without a bound.  A wait
	// that times out returns 0, and the loop enters again.
	int enter(unsigned submit, unsigned wait, unsigned flags, std::int64_t bound_ns = -1)
	{
		__kernel_timespec bound {bound_ns / 1000000000, bound_ns % 1000000000};
		io_uring_getevents_arg arg {};
		arg.sigmask_sz = _NSIG / 8;
		arg.ts = reinterpret_cast<std::uintptr_t>(&bound);
		const bool bounded = bounded_wait_ && (flags & IORING_ENTER_GETEVENTS) && bound_ns >= 0;
		flags |= enter_flags_;
		for (;;) {
			long n = bounded ? syscall(__NR_io_uring_enter, enter_fd_, submit, wait, flags | IORING_ENTER_EXT_ARG, &arg,
						   sizeof arg)
					 : syscall(__NR_io_uring_enter, enter_fd_, submit, wait, flags, nullptr, 0);
			if (n >= 0) {
				pending_ -= std::min(pending_, static_cast<unsigned>(n));
				return 0;
			}
			if (bounded && errno == ETIME)	// nothing was submitted: nothing pending changed
				return 0;
			if (errno != EINTR && errno != EAGAIN && errno != EBUSY)
				return errno;
		}
	}

	io_uring_sqe template_ {};	// what every SQE of this ring starts from
	Fd fd_;
	void *sq_map_ = MAP_FAILED, *cq_map_ = MAP_FAILED, *sqes_ = MAP_FAILED;
	std::size_t sq_len_ = 0, cq_len_ = 0, sqes_len_ = 0;
	unsigned *sq_tail_ = nullptr, *cq_head_ = nullptr, *cq_tail_ = nullptr;
	unsigned sq_mask_ = 0, cq_mask_ = 0, tail_ = 0, pending_ = 0, submit_batch_ = 0, wait_batch_ = 1;
	io_uring_cqe *cqes_ = nullptr;
	int enter_fd_ = -1;		// what io_uring_enter takes: the registered ring's index, else fd_
	unsigned enter_flags_ = 0;	// IORING_ENTER_REGISTERED_RING where it is registered
	bool bounded_wait_ = false;	// IORING_FEAT_EXT_ARG: a wait can have a timeout
	bool fixed_file_ = false;	// attach() registered the target
	bool look_first_ = false;	// submit_and_wait() collects before it sleeps
};

} // namespace
