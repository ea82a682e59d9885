// buffer: the I/O buffers.  Buffer (an aligned, pre-faulted mapping, in
// huge pages from 256 KiB up), fill_random (-R, from the kernel's random
// source, in parallel, interruptible) and allocate_buffers() for a plan.
#pragma once

#include "base.h"
#include "plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <exception>

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

namespace {

constexpr std::size_t huge_page = 2 * MiB;

// An anonymous mapping, page-aligned; for O_DIRECT (huge), from 256 KiB up
// 2 MiB-aligned, rounded up to whole 2 MiB and advised to use huge pages:
// a 1 MiB O_DIRECT request from 4 KiB pages (256 segments) is split by a
// device that takes fewer segments per request (virtio: 254); from one huge
// page it is not.  Buffered I/O copies through the page cache, where the
// pages change nothing, and 1,024 threads' 1 MiB buffers would fault in 2
// GiB instead of 1.  The memory is touched here so that no page fault
// lands in a timed loop.
class Buffer {
public:
	Buffer() = default;
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;
	~Buffer() { release(); }

	Error allocate(std::size_t size, bool huge = true)
	{
		release();
		if (size > SIZE_MAX / 4)
			return sys_error(ENOMEM, "cannot allocate a %s buffer", format_bytes(size).c_str());
		std::size_t align = huge && size >= huge_page / 8 ? huge_page : static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
		std::size_t length = (size + align - 1) / align * align;
		std::size_t mapped = length + align;
		void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return sys_error(errno, "cannot allocate a %s buffer", format_bytes(size).c_str());
		auto addr = reinterpret_cast<std::uintptr_t>(p);
		auto start = (addr + align - 1) / align * align;
		if (start > addr)
			munmap(p, start - addr);
		std::size_t tail = mapped - (start - addr) - length;
		if (tail)
			munmap(reinterpret_cast<void *>(start + length), tail);
		data_ = reinterpret_cast<char *>(start);
		size_ = length;
		if (align == huge_page)
			madvise(data_, size_, MADV_HUGEPAGE);
		std::memset(data_, 0, size_);
		return {};
	}
	char *data() const { return data_; }
	std::size_t size() const { return size_; }

private:
	void release()
	{
		if (data_)
			munmap(data_, size_);
		data_ = nullptr;
		size_ = 0;
	}
	char *data_ = nullptr;
	std::size_t size_ = 0;
};

// Bytes of a mapping backed by transparent huge pages (for -v).
std::uint64_t huge_page_bytes(const void *addr)
{
	std::ifstream smaps("/proc/self/smaps");
	std::string line;
	bool inside = false;
	auto want = reinterpret_cast<std::uintptr_t>(addr);
	while (std::getline(smaps, line)) {
		unsigned long lo = 0, hi = 0;
		if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
			inside = want >= lo && want < hi;
		} else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
			return std::strtoull(line.c_str() + 14, nullptr, 10) * KiB;
		}
	}
	return 0;
}

// Fill from the kernel's random source (what /dev/urandom reads), one
// chunk per core in parallel: a 64 MiB random buffer must not be the slow
// part of a quick check.  In 4 MiB pieces, asking `stop()` (on the calling
// thread) every few milliseconds, so that Ctrl-C is not kept waiting by a
// large buffer: stop() returns the Error that ends the fill, or none.
template <typename Stop>
Error fill_random(char *data, std::size_t size, Stop stop)
{
	const std::size_t piece = 4 * MiB;
	unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
	std::size_t chunk = size < 16 * MiB ? size : (size / workers + piece - 1) / piece * piece;
	std::atomic<int> failure{0};	// an errno from getrandom, or EINTR: stopped
	std::atomic<unsigned> running{0};
	Error stopped;
	auto interrupted = [&] {
		if (!stopped)
			stopped = stop();
		return bool(stopped);
	};
	auto fill = [&](std::size_t from, std::size_t to) {
		while (from < to && failure == 0) {
			ssize_t n = getrandom(data + from, std::min(to - from, piece), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				failure = n < 0 ? errno : EIO;
				return;
			}
			from += static_cast<std::size_t>(n);
		}
	};
	std::vector<std::thread> helpers;
	for (std::size_t from = chunk; from < size; from += chunk) {
		try {
			running++;
			helpers.emplace_back([&, from] {
				fill(from, std::min(size, from + chunk));
				running--;
			});
		} catch (const std::exception &) {	// no thread to be had: this one does it
			running--;
			for (std::size_t at = from; at < std::min(size, from + chunk) && failure == 0; at += piece) {
				fill(at, std::min({size, from + chunk, at + piece}));
				if (interrupted())
					failure = EINTR;
			}
		}
	}
	for (std::size_t at = 0; at < std::min(size, chunk) && failure == 0; at += piece) {
		fill(at, std::min({size, chunk, at + piece}));
		if (interrupted())
			failure = EINTR;
	}
	while (running > 0 && failure == 0) {
		if (interrupted())
			failure = EINTR;
		else
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	for (auto &h : helpers)
		h.join();
	if (stopped)
		return stopped;
	if (failure)
		return sys_error(failure, "-R: cannot read random data");
	return {};
}

// The run's buffers, filled from /dev/urandom for -R writes and mixes.  stop(when)
// returns the Error that ends the run (a signal came) or none: asked during
// the fill and once the buffers are faulted in.
template <typename Stop>
Error allocate_buffers(const Plan &plan, std::vector<std::unique_ptr<Buffer>> &buffers, Stop stop, double &fill_seconds)
{
	for (unsigned i = 0; i < plan.buffers; i++) {
		buffers.push_back(std::make_unique<Buffer>());
		if (Error e = buffers.back()->allocate(plan.slot_stride * plan.slots, plan.opt.direct))
			return e;
	}
	if (plan.opt.random_buffer && writes_target(plan.opt) && !plan.opt.verify) {	// --verify writes its pattern
		std::int64_t start = now_ns();
		for (auto &b : buffers)
			if (Error e = fill_random(b->data(), b->size(), [&] { return stop("while filling the buffer (-R)"); }))
				return e;
		fill_seconds = (now_ns() - start) / 1e9;
	}
	return stop("before the run started");	// while the buffers were faulted in
}

} // namespace
