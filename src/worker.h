// worker: one thread's part of a run, up to the barrier.  Owns Worker and
// its slots; prepare() (open, readahead advice, lay out, evict, the ring,
// --verify's seed) and what it needs: the page-cache counts, the target's
// transfer and -R's stamps.  The timed loops that follow the barrier are
// loops.h's; the stop flag they read, g_stop, is signals.h's.
#pragma once

#include "base.h"
#include "signals.h"
#include "options.h"
#include "stats.h"
#include "pattern.h"
#include "plan.h"
#include "uring.h"
#include "pace.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

// CPU time of the calling thread, read before and after the timed phase
// (never inside it): a thread on a CPU all the time was limited by it.
std::int64_t thread_cpu_ns()
{
	timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// One I/O in flight at queue depth > 1.
struct Slot {
	std::uint64_t offset = 0;
	std::size_t len = 0, done = 0;
	std::int64_t queued_ns = 0;	// when the I/O was queued: its latency starts here (closed loop)
	std::int64_t due_ns = 0;	// --rate: when it was due: its latency starts here, its service at queued_ns
	bool write = false;		// a mix: which way this one goes
};

struct Gate;

struct alignas(64) Worker {
	unsigned id = 0;
	unsigned run = 0;		// which run of a quick-suite test (RunId): its own random order
	Gate *gate = nullptr;		// the start barrier
	const Target *target = nullptr;
	const Plan *plan = nullptr;
	char *buffer = nullptr;
	std::unique_ptr<Ring> ring;	// queue depth > 1
	Fd fd;

	std::atomic<std::uint64_t> bytes_done{0};	// read by the sampler
	std::atomic<bool> in_ring_wait{false};	// in the ring's wait, where Nudger's SIGURG may go
	std::uint64_t bytes = 0, ops = 0;
	std::int64_t start_ns = 0, end_ns = 0;
	std::int64_t loop_end_ns = 0;	// writes and mixes: the last I/O's end, before the final fdatasync
	std::int64_t cpu_ns = 0;	// this thread's CPU time from start_ns to end_ns
	std::int64_t cpu_start_ns = 0;
	std::int64_t opened_ns = 0;	// without --ramp: when the gate opened for every thread (-t counts from it)
	std::int64_t ramp_end_ns = 0;	// --ramp: when the ramp ends; 0 once the window has opened
	std::atomic<bool> ramp_drained{false};	// --ramp is over and nothing of it is in flight
	std::atomic<bool> ramp_over{false};	// the supervisor read the device's counters: the window opens
	std::atomic<bool> counting{false};	// past the ramp (or done): the sampler may count its bytes
	int cpu = -1;
	bool pinned = false;		// held to CPU cpu, its ring's io-wq workers to the others (pin_apart())
	unsigned passes = 0;		// passes over [0,SIZE) begun, the last maybe cut short by -t
	std::optional<std::uint64_t> eof_at;	// a read reached end of file here, before SIZE
	bool laid_out = false;		// random writes and mixes: the file was written first (untimed)
	std::optional<Identity> created;	// the file this thread created
	double resident = 0;		// fraction of the file still cached after eviction; -1 unknown
	double cached_before = -1;	// --cached reads of a file: fraction cached at the start; -1 unknown
	Histogram latency;
	LiveHistogram live_latency;	// every I/O's latency again, read by the sampler (the timeline's percentiles)
	std::optional<Histogram> sync_latency;	// --fsync: each fdatasync, apart from the I/O
	std::optional<Histogram> read_latency, write_latency;	// a mix's two sides (latency: both)
	std::optional<Histogram> service_latency;	// --rate: issue to completion (latency: from the due time)
	std::int64_t behind_ns = 0;	// --rate: the furthest an I/O was issued after its due time
	std::uint64_t read_bytes = 0, read_ops = 0, write_bytes = 0, write_ops = 0;
	VerifyTally verify;		// --verify: the units this thread checked
	Error error;
};

// pread(2) and pwrite(2) without glibc's wrapper, which in a process with
// threads makes each call a cancellation point (enabling and disabling
// asynchronous cancellation around it): sdb cancels no thread, and the
// wrapper was 3.5% of the CPU of a 4 KiB read from the page cache (perf).
// Where a 64-bit offset is one argument (every LP64 ABI); else glibc's.
template <bool Write>
ssize_t positioned_io(int fd, char *buf, std::size_t len, std::uint64_t offset)
{
#if defined(__LP64__) && defined(SYS_pread64) && defined(SYS_pwrite64)
	return syscall(Write ? SYS_pwrite64 : SYS_pread64, fd, buf, len, static_cast<off_t>(offset));
#else
	return Write ? pwrite(fd, buf, len, static_cast<off_t>(offset)) : pread(fd, buf, len, static_cast<off_t>(offset));
#endif
}

// The full transfer at one offset, continuing partial transfers and
// retrying EINTR.  Returns the bytes moved (short only at end of file) or
// -errno, with the offset of the part that failed in failed_at.
template <bool Write>
ssize_t transfer(int fd, char *buf, std::size_t len, std::uint64_t offset, std::uint64_t &failed_at)
{
	std::size_t done = 0;
	while (done < len) {
		ssize_t n = positioned_io<Write>(fd, buf + done, len - done, offset + done);
		if (n > 0) {
			done += static_cast<std::size_t>(n);
		} else if (n == 0) {
			if (Write) {
				failed_at = offset + done;
				return -EIO;	// pwrite moved nothing: never loop forever
			}
			break;
		} else if (errno == EINVAL && !Write && done > 0) {
			break;	// O_DIRECT after a short read at end of file: the rest is unaligned
		} else if (errno != EINTR) {
			failed_at = offset + done;
			return -errno;
		}
	}
	return static_cast<ssize_t>(done);
}

// Where I/O number io starts in a -R buffer with a random pool (Plan::pool):
// a rotating place, in steps that keep the direct-I/O alignment, so that a
// compression record never holds the same random bytes twice.
std::size_t rotation(const Worker &w, std::uint64_t io)
{
	const std::uint64_t step = buffer_step(*w.plan), places = w.plan->pool / step;
	return places ? static_cast<std::size_t>(io % places * step) : 0;
}

// With -R every 4 KiB of every block written starts with its own offset and
// the I/O's number: without that, one random buffer written over and over
// is the same block again and again, which deduplicating storage keeps once.
// The rest stays random, so nothing compresses either.

void stamp(char *block, std::size_t len, std::uint64_t offset, std::uint64_t io)
{
	for (std::size_t at = 0; at + 16 <= len; at += 4096) {
		const std::uint64_t words[2] = {offset + at, io};
		std::memcpy(block + at, words, sizeof words);
	}
}

// What a -R write puts into its block before it goes: the stamp, or with
// --verify every unit's header and body (the whole block is the pattern).
void mark(const Worker &w, char *block, std::size_t len, std::uint64_t offset, std::uint64_t io)
{
	if (w.plan->opt.verify)
		write_units(block, len, w.plan->verify_seed, w.verify.file, offset, io);
	else
		stamp(block, len, offset, io);
}

// The descriptor the I/O goes through.  A new file is created here, and
// only here (O_EXCL: never one that appeared since it was checked), and
// marked as sdb's; an existing target must still be the inode make_plan()
// checked.  O_NONBLOCK until then: a FIFO swapped in cannot hang the open.
// A read or a mix opens with O_NOATIME where it may (the owner, or root):
// the run leaves the file's atime as it was, and no read pays for the atime
// check (about 2.5% of the kernel worker's time per 4 KiB read on zram).
Error open_target(Worker &w)
{
	const Options &o = w.plan->opt;
	const Target &t = *w.target;
	int flags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (is_mix(o) ? O_RDWR : is_write(o) ? O_WRONLY : O_RDONLY);
	if (t.kind == Kind::missing)
		flags |= O_CREAT | O_EXCL | O_NOFOLLOW;	// never O_TRUNC: see check_overwrite()
	else if (!t.follow)
		flags |= O_NOFOLLOW;
	if (o.direct)
		flags |= O_DIRECT;
	if (o.sync)
		flags |= O_SYNC;
	if (!is_write(o))	// a read leaves the atime alone, and skips its check per read
		flags |= O_NOATIME;
	w.fd = Fd(open(t.path.c_str(), flags, 0644));
	if (!w.fd && errno == EPERM && (flags & O_NOATIME))	// not the owner: the atime it is
		w.fd = Fd(open(t.path.c_str(), flags & ~O_NOATIME, 0644));
	if (!w.fd && errno == EEXIST && t.kind == Kind::missing)
		return runtime_error("%s appeared while sdb was starting%s: refusing to write to it", t.path.c_str(),
				     lock_note(t.path).c_str());
	if (!w.fd && errno == EINVAL && o.direct)
		return runtime_error("open: %s: O_DIRECT (-D) is not supported here: %s", t.path.c_str(), std::strerror(errno));
	if (!w.fd)
		return sys_error(errno, "open: %s", t.path.c_str());
	struct stat st {};
	if (fstat(w.fd.get(), &st) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (t.kind == Kind::missing) {
		w.created = identity_of(st);
		fsetxattr(w.fd.get(), owner_xattr, "1", 1, 0);	// where it fails, see check_overwrite()
		if (Error e = lock_target(w.fd.get(), t.path, true)) {	// the run's lock (hold_lock() in plan.h)
			w.created.reset();	// another run has it already: its file now, which stays
			return e;
		}
	} else if (identity_of(st) != t.id) {
		return runtime_error("%s changed while sdb was starting: refusing to use it", t.path.c_str());
	}
	if (writes_target(o) && S_ISREG(st.st_mode))	// what a --verify write left is being replaced
		fremovexattr(w.fd.get(), verify_xattr);
	if (fcntl(w.fd.get(), F_SETFL, fcntl(w.fd.get(), F_GETFL) & ~O_NONBLOCK) != 0)
		return sys_error(errno, "fcntl: %s", t.path.c_str());
	return {};
}

// Random writes into a file shorter than SIZE would measure allocation, not
// overwrites: write it sequentially first, untimed (fio does the same).  A
// mix must find every block it reads: the file is laid out to SIZE.
Error lay_out(Worker &w)
{
	const Target &t = *w.target;
	const std::uint64_t bs = w.plan->block_size;
	const bool whole = w.plan->opt.random;		// random mode uses whole blocks only
	const std::uint64_t end = t.base + (whole ? t.size / bs * bs : t.size);
	struct stat st {};
	if (fstat(w.fd.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) >= end)
		return {};
	for (std::uint64_t pos = static_cast<std::uint64_t>(st.st_size) / bs * bs; pos < end; pos += bs) {
		if (g_stop.raised())
			return {};
		std::size_t len = static_cast<std::size_t>(std::min(bs, end - pos));
		char *buffer = w.buffer;
		if (w.plan->opt.random_buffer) {
			buffer += rotation(w, pos / bs);
			mark(w, buffer, len, pos, pos / bs);
		}
		std::uint64_t failed_at = pos;
		ssize_t n = transfer<true>(w.fd.get(), buffer, len, pos, failed_at);
		if (n < 0)
			return sys_error(static_cast<int>(-n), "write: %s at offset %" PRIu64 " (laying out)", t.path.c_str(),
					 failed_at);
	}
	if (fdatasync(w.fd.get()) != 0)
		return sys_error(errno, "fdatasync: %s", t.path.c_str());
	w.laid_out = true;
	return {};
}

// A fraction of a range's pages found cached, read window by window:
// exact up to cache_sample pages, else from cache_windows windows spread
// evenly over the range, so that the cost does not grow with the range (a
// full scan of -j 256 regions of 4 GiB kept the window from opening for
// 11-13 s here, against 1 s; cachestat(2) of -j 1024 hard links of one
// cached 1 GiB file took 44.5% of 2.6 s of preparation): the fraction then
// is an estimate, a few percent wide, enough for the 2% of the eviction
// warning.  count(first, n) gives how many of the pages first..first+n-1
// are cached, or nothing.
constexpr std::uint64_t cache_windows = 256, cache_window_pages = 16;
constexpr std::uint64_t cache_sample = cache_windows * cache_window_pages;

template <class Count>
std::optional<double> sampled_fraction(std::uint64_t pages, Count count)
{
	const bool whole = pages <= cache_sample;
	const std::uint64_t windows = whole ? 1 : cache_windows, per = whole ? pages : cache_window_pages;
	std::uint64_t cached = 0, seen = 0;
	for (std::uint64_t k = 0; k < windows; k++) {
		const std::uint64_t first = whole ? 0 : (pages - per) * k / (windows - 1), n = std::min(per, pages - first);
		std::optional<std::uint64_t> c = count(first, n);
		if (!c)
			return std::nullopt;
		cached += std::min(*c, n);
		seen += n;
	}
	return seen ? static_cast<double>(cached) / static_cast<double>(seen) : 0;
}

// cachestat(2) (Linux 6.5, syscall 451 on every architecture): the page
// cache's own count of a range's cached pages, for anyone who can open the
// file.  Nothing where the kernel has no cachestat.
std::optional<double> cachestat_fraction(int fd, std::uint64_t base, std::uint64_t size, std::uint64_t page)
{
	return sampled_fraction((size + page - 1) / page, [&](std::uint64_t first, std::uint64_t n) -> std::optional<std::uint64_t> {
		struct {
			std::uint64_t off, len;
		} range{base + first * page, n * page};
		struct {
			std::uint64_t cache, dirty, writeback, evicted, recently_evicted;
		} cs{};
		if (syscall(451, fd, &range, &cs, 0) != 0)
			return std::nullopt;
		return cs.cache;
	});
}

// mincore(2)'s count, over one mapping of the whole range (address space
// only, nothing populated), since mmap and munmap take the process's mmap
// lock, which every thread's preparation would queue on.  0 where the file
// cannot be mapped.
double mincore_fraction(int fd, std::uint64_t base, std::uint64_t size, std::uint64_t page)
{
	void *map = mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, static_cast<off_t>(base));
	if (map == MAP_FAILED)
		return 0;
	std::vector<unsigned char> vec(static_cast<std::size_t>(std::min((size + page - 1) / page, cache_sample)));
	std::optional<double> f = sampled_fraction((size + page - 1) / page, [&](std::uint64_t first, std::uint64_t n) {
		const std::uint64_t len = std::min(n * page, size - first * page);
		std::uint64_t in_core = 0;
		if (mincore(static_cast<char *>(map) + first * page, static_cast<std::size_t>(len), vec.data()) == 0)
			for (std::uint64_t i = 0; i < n; i++)
				in_core += vec[i] & 1;
		return std::optional<std::uint64_t>(in_core);
	});
	munmap(map, static_cast<std::size_t>(size));
	return f.value_or(0);
}

// Fraction of [base, base+size) of a file that is in the page cache: from
// cachestat(2), else mincore(2) where it tells the truth (since Linux 5.0
// it says "all resident" for a file the caller may not write), both
// sampled over a large range; -1 when neither can say.
double cached_fraction(int fd, std::uint64_t base, std::uint64_t size)
{
	std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	size += base % page;
	base -= base % page;
	if (size == 0)
		return 0;
	if (std::optional<double> cached = cachestat_fraction(fd, base, size, page))
		return *cached;
	if (faccessat(AT_FDCWD, format("/proc/self/fd/%d", fd).c_str(), W_OK, AT_EACCESS) != 0)
		return -1;
	return mincore_fraction(fd, base, size, page);
}

// Fraction of the file's part of this thread's region in the page cache.
double region_cached(const Worker &w)
{
	const Target &t = *w.target;
	return t.existing > t.base ? cached_fraction(w.fd.get(), t.base, std::min(t.size, t.existing - t.base)) : 0;
}

// Drop the thread's region from the page cache, and below it what would
// serve it from memory: on fuseblk the backing device's cache the FUSE
// daemon reads through, under a buffered loop device its backing file's
// pages (find_loop_backing): 0 or -errno.
int drop_cached(const Worker &w)
{
	const Target &t = *w.target;
	if (int err = posix_fadvise(w.fd.get(), static_cast<off_t>(t.base), static_cast<off_t>(t.size), POSIX_FADV_DONTNEED))
		return -err;
	if (!w.plan->backing_device.empty())
		if (int err = flush_device(w.plan->backing_device))
			return -err;
	return drop_loop_backing(*w.plan);
}

// A read not meant to measure the cache starts with the target's pages
// evicted, with -D too: some file systems turn O_DIRECT into buffered I/O.
// Dirty pages must be written first or they cannot be dropped.
void evict(Worker &w)
{
	const Target &t = *w.target;
	if (t.kind == Kind::chr)
		return;
	fdatasync(w.fd.get());
	drop_cached(w);
	if (t.kind == Kind::file)
		w.resident = region_cached(w);
}

// A write starts with what was left dirty in its region written out and
// waited for (untimed): the kernel charges a page's write to the process
// that dirtied it first, so a page dd left dirty and sdb then rewrote
// would count on the device as another process's bytes, and the write's
// own final fdatasync would carry dd's writeback.  (A mix is evicted.)
void write_out_dirty(Worker &w)
{
	const Target &t = *w.target;
	if (t.kind == Kind::block || (t.kind == Kind::file && t.existing > t.base))
		sync_file_range(w.fd.get(), static_cast<off_t>(t.base), static_cast<off_t>(t.size),
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

// Readahead that follows the pattern, as fio's default does: none for
// random reads (else a share of them are cache hits of an earlier
// readahead), a larger window for sequential ones.
void advise_readahead(const Worker &w)
{
	const Target &t = *w.target;
	if (t.kind != Kind::chr)
		posix_fadvise(w.fd.get(), static_cast<off_t>(t.base), static_cast<off_t>(t.size),
			      w.plan->opt.random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
}

// Whether every I/O to the target must block (no FMODE_NOWAIT), asked the
// way io_uring asks it: a read with RWF_NOWAIT is refused with EOPNOTSUPP.
// A write's descriptor cannot read: the same inode is opened again for
// reading; if that fails, the answer is false.
bool blocks_always(const Worker &w)
{
	const Options &o = w.plan->opt;
	Fd reader;
	if (is_write(o)) {
		reader = Fd(open(format("/proc/self/fd/%d", w.fd.get()).c_str(),
				 O_RDONLY | O_CLOEXEC | O_NONBLOCK | (o.direct ? O_DIRECT : 0)));
		if (!reader)
			return false;
	}
	const int fd = reader ? reader.get() : w.fd.get();
	// Its own buffer: a write's may be shared by every thread.
	const std::size_t len = std::max<std::size_t>(w.plan->dio_align, 4096);
	void *scratch = std::aligned_alloc(len, len);
	iovec one = {scratch, len};
	bool refused = scratch && preadv2(fd, &one, 1, static_cast<off_t>(w.target->base), RWF_NOWAIT) < 0 && errno == EOPNOTSUPP;
	std::free(scratch);
	return refused;
}

// A ring refused for memory (ENOMEM) where the locked-memory limit is
// small: before 5.12 the kernel counts a ring's memory against
// RLIMIT_MEMLOCK, so the way out is ulimit -l (or a smaller -q), which the
// error then says.  limit: RLIMIT_MEMLOCK's soft value.
Error memlock_hint(Error e, rlim_t limit)
{
	if (e.msg.find(std::strerror(ENOMEM)) == std::string::npos || limit == RLIM_INFINITY)
		return e;
	e.msg += format(" (the locked-memory limit is %s: raise it with ulimit -l, or memlock in limits.conf, "
			"or give a smaller -q)", format_bytes(limit).c_str());
	return e;
}

// The CPUs this process may run on (its affinity mask), at least 1.
unsigned online_cpus()
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	return std::max(1, CPU_COUNT(&set));
}

// Where every I/O goes to io-wq and each wait is for one completion
// (punted, -q 2 to 7), the thread and its ring's worker hand each I/O to
// each other, and the scheduler, left alone, wakes the worker on the
// thread's own CPU, where the two take turns.  So the thread is held to a
// CPU of its own, the id-th it may run on, and its workers to the others:
// where the process may use at least 2 CPUs and has no more threads than
// that.  Measured on zram, 2 CPUs, 4 KiB random reads, alternated medians
// of 9: -q 4 345k against 322k I/Os a second (fio 336k), -q 4 -j 2 329k
// against 285k; of 5: -q 2 +10%, -q 6 +16%.  Where a wait is for more
// than one (-q 8 and deeper) it was the same for one thread (-q 16 +5%,
// -q 128 +3%, within the noise) and much worse for two (-q 16 -j 2 380k
// against 511k: each thread's workers then take the other's CPU), so
// nothing is held there.  A pinned thread's ring also collects before it
// sleeps (Ring::look_first): its completions come from the other CPU, and
// -q 4 went 375k to 389k, -q 6 +7%, in sets of 7 (-q 2 and -q 4 -j 2 -2
// to -3%, within the noise).  True if both were placed; a refusal (a
// kernel before 5.14) leaves both to the scheduler.
bool pin_apart(Worker &w)
{
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return false;
	const unsigned n = static_cast<unsigned>(CPU_COUNT(&allowed));
	if (n < 2 || w.plan->opt.threads > n)
		return false;
	int mine = -1;
	for (int c = 0, k = 0; c < CPU_SETSIZE && mine < 0; c++)
		if (CPU_ISSET(c, &allowed) && static_cast<unsigned>(k++) == w.id)
			mine = c;
	cpu_set_t own, others = allowed;
	CPU_ZERO(&own);
	CPU_SET(mine, &own);
	CPU_CLR(mine, &others);
	if (!w.ring->place_workers(others))
		return false;
	if (sched_setaffinity(0, sizeof own, &own) == 0)
		return true;
	w.ring->place_workers(allowed);
	return false;
}

// How many completions a punted ring waits for at depth: half the depth
// up to -q 64, a quarter deeper, one below -q 8 (where pin_apart() and
// Ring::look_first take over).  Each wake-up of the thread is an IPI and
// a switch on the CPU the io-wq worker could use; a wait for half the
// depth still leaves the worker half of it to run.  Measured on zram,
// 2 CPUs, 4 KiB random reads, alternated medians of 5 to 7, half against
// a quarter: -q 16 +8 to +21% (three sets), -q 32 +6 and +11%, -q 64 +4%,
// -q 8 +3%, -q 16 -j 2 +23%, -q 32 -j 2 +13%, with 0.1 to 1 us less CPU
// per I/O; at -q 128 the same (+1%), at -q 256 -13% (a wait for 128
// leaves the thread refilling while the queue runs low); a wait for all
// of -q 16 (the worker idles while the thread refills) -9%.
unsigned punted_wait(unsigned depth)
{
	return depth < 8 ? 1 : depth <= 64 ? depth / 2 : depth / 4;
}

// The thread's ring for -q: set up, with the target and the slot buffers
// registered.  Untimed, in prepare().  Where every I/O goes to an io-wq
// worker (punted), each completion would wake this thread on its own: it
// waits for a batch instead (punted_wait(): the workers, not the depth,
// bound what runs at once there), and hands the refills of that batch to
// the kernel in the same io_uring_enter: about one call per batch (0.07
// calls per I/O at -q 32 on zram, waiting for 8; split in 4s it was 0.25, t/io_uring's
// 0.125).  How many io-wq workers run at once is the kernel's choice: a
// new one only when none runs (one per ring on zram, whose I/O never
// sleeps), as fio and t/io_uring leave it; or, with IOSQE_ASYNC (fan_out),
// a new one whenever none is free, up to the kernel's cap.  Measured on
// zram, 2 CPUs, alternated medians of 7 (reads) and 5 (writes): reads are
// better without at every depth in CPU per I/O (-q 128 2.62 against 3.12
// us, -q 32 -j 2 2.96 against 3.55), and in IOPS where no CPU is spare
// (-q 32 -j 2 588k against 485k a second); one thread's IOPS moved with
// the machine more than with the flag.  Writes at -q 32 with a CPU to
// spare are better with (481k against 421k a second, 2.03 against 2.34
// us), and with none to spare much worse (-j 2: 507k against 963k).  So a write at -q 32 or more with fewer threads than
// CPUs fans out, and nothing else.  Elsewhere (not punted) it waits for
// one completion, as fio does, so that the device always has the full
// depth, and submits in plan.submit_batch.
Error ring_for(Worker &w)
{
	const Plan &plan = *w.plan;
	const unsigned depth = plan.opt.queue_depth;
	const bool punted = blocks_always(w);
	unsigned wait = plan.wait_batch ? plan.wait_batch : punted ? punted_wait(depth) : 1;
	w.ring = std::make_unique<Ring>();
	if (Error e = w.ring->setup(depth, punted ? 0 : plan.submit_batch, wait)) {
		rlimit memlock {};
		return getrlimit(RLIMIT_MEMLOCK, &memlock) == 0 ? memlock_hint(std::move(e), memlock.rlim_cur) : e;
	}
	const bool fan_out = punted && is_write(plan.opt) && depth >= 32 && plan.opt.threads < online_cpus();
	w.ring->attach(w.fd.get(), is_write(plan.opt), w.buffer, plan.slot_stride * plan.slots, fan_out);
	if (punted && wait == 1) {
		w.pinned = pin_apart(w);
		w.ring->look_first(w.pinned);
	}
	return {};
}

// --verify: the file number this thread's units carry (see pattern.h):
// its own where each thread has a file, 0 on a device.
unsigned unit_file(const Worker &w)
{
	const Kind k = w.target->kind;
	return k == Kind::block || k == Kind::chr ? 0 : w.id;
}

// -r --verify: the seed of the run that wrote the target, by a vote of
// units at a spread of the thread's region (SeedVote: one stale unit does
// not decide), read before the eviction (untimed).  Where none could vote,
// the first whole unit in its place read gives it.
void learn_seed(Worker &w)
{
	const std::uint64_t len = std::max<std::size_t>(w.plan->dio_align, verify_unit);
	const std::uint64_t places = w.target->size / len, samples = std::min<std::uint64_t>(places, 33);
	if (len > w.plan->slot_stride)
		return;
	SeedVote vote;
	for (std::uint64_t k = 0; k < samples; k++) {
		const std::uint64_t at = w.target->base + places * k / samples * len;
		if (pread(w.fd.get(), w.buffer, len, static_cast<off_t>(at)) == static_cast<ssize_t>(len))
			vote.add(w.buffer, at);
	}
	if (std::optional<std::uint64_t> seed = vote.winner()) {
		w.verify.seed = *seed;
		w.verify.seeded = true;
	}
}

Error prepare(Worker &w)
{
	const Options &o = w.plan->opt;
	if (Error e = open_target(w))
		return e;
	w.verify.file = unit_file(w);
	if (!o.cached)
		advise_readahead(w);
	if (o.queue_depth > 1)
		if (Error e = ring_for(w))
			return e;
	if (((is_write(o) && o.random) || is_mix(o)) && w.target->kind != Kind::block && w.target->kind != Kind::chr)
		if (Error e = lay_out(w))
			return e;
	if (o.fsync_every)
		w.sync_latency.emplace();
	if (is_mix(o)) {
		w.read_latency.emplace();
		w.write_latency.emplace();
	}
	if (o.rate.per_second > 0) {
		w.service_latency.emplace();
		prctl(PR_SET_TIMERSLACK, 1000UL);	// this thread's sleeps end within 1 us of a due time, not 50
	}
	if (!is_write(o) && o.verify)
		learn_seed(w);
	if (!is_write(o) && !o.cached)
		evict(w);
	if (is_write(o))
		write_out_dirty(w);
	// --cached means to measure the cache: say how much of it was there.
	if (!is_write(o) && o.cached && w.target->kind == Kind::file)
		w.cached_before = region_cached(w);
	return {};
}

} // namespace
