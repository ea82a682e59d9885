// Unit tests of src/run.h: the supervisor's nudge of a thread whose ring
// wait has made no progress, and of no thread outside that wait.
#include "../../src/run.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <atomic>
#include <memory>

#include <pthread.h>
#include <unistd.h>

namespace {

// A thread that waits in its own ring for a read of a pipe, as a worker
// waits at -q N, and records what the wait came to.
struct PipeWaiter {
	Worker *w = nullptr;	// its in_ring_wait, set around the wait as UringLoop does
	int p[2] = {-1, -1};
	std::atomic<bool> ready {false}, done {false};
	bool unavailable = false;
	int err = -1, res = 0;

	static void *main(void *arg)
	{
		auto &t = *static_cast<PipeWaiter *>(arg);
		Ring ring;
		if (ring.setup(2, 0, 1)) {
			t.unavailable = true;
			t.ready = true;
			return nullptr;
		}
		char buf[16];
		ring.attach(t.p[0], false, buf, 0, false);
		ring.queue(buf, sizeof buf, 0, 3);
		t.ready = true;
		unsigned index = 0;
		t.w->in_ring_wait = true;
		do
			t.err = ring.submit_and_wait(1);
		while (t.err == 0 && !ring.reap(index, t.res));
		t.w->in_ring_wait = false;
		t.done = true;
		return nullptr;
	}
};

// One worker, whose thread is this one, at a depth: what a Nudger watches.
struct ThisThread {
	Shared s;
	Plan plan;
	explicit ThisThread(unsigned depth)
	{
		s.workers.push_back(std::make_unique<Worker>());
		s.threads.push_back(pthread_self());
		plan.opt.queue_depth = depth;
	}
};

} // namespace

TEST_SUITE("run") {

TEST_CASE("Nudger: a thread at -q N without progress for a second gets SIGURG, once a second, and its wait goes on")
{
	PipeWaiter t;
	REQUIRE(pipe(t.p) == 0);
	Shared s;
	s.workers.push_back(std::make_unique<Worker>());
	t.w = s.workers[0].get();
	pthread_t th;
	REQUIRE(pthread_create(&th, nullptr, PipeWaiter::main, &t) == 0);
	s.threads.push_back(th);
	while (!t.ready)
		usleep(1000);
	if (t.unavailable) {
		MESSAGE("io_uring unavailable: skipped");
		pthread_join(th, nullptr);
		close(t.p[0]);
		close(t.p[1]);
		return;
	}
	Plan plan;
	plan.opt.queue_depth = 2;
	const std::int64_t t0 = 1000000000;
	Nudger nudger(s, plan, t0);
	const unsigned before = g_nudged.load();
	usleep(50000);	// the thread is in its wait (or about to be: the signal then interrupts nothing)
	nudger.tick(s, t0 + 500000000);	// half a second: not yet
	usleep(50000);
	CHECK(g_nudged.load() == before);
	nudger.tick(s, t0 + 1000000000);	// a second without a byte: nudged
	for (int i = 0; i < 1000 && g_nudged.load() == before; i++)
		usleep(1000);
	CHECK(g_nudged.load() == before + 1);
	nudger.tick(s, t0 + 1500000000);	// the next one a second after that one
	usleep(50000);
	CHECK(g_nudged.load() == before + 1);
	s.workers[0]->bytes_done.store(4096);	// progress: the clock starts again
	nudger.tick(s, t0 + 2100000000);
	nudger.tick(s, t0 + 3000000000);
	usleep(50000);
	CHECK(g_nudged.load() == before + 1);
	CHECK_FALSE(t.done.load());	// the nudge did not end the wait as an error
	REQUIRE(write(t.p[1], "y", 1) == 1);
	pthread_join(th, nullptr);
	CHECK(t.err == 0);
	CHECK(t.res == 1);
	close(t.p[0]);
	close(t.p[1]);
}

TEST_CASE("Nudger: at depth 1 nobody is nudged")
{
	ThisThread t(1);
	t.s.workers[0]->in_ring_wait = true;	// even one that says it waits
	Nudger nudger(t.s, t.plan, 0);
	const unsigned before = g_nudged.load();
	nudger.tick(t.s, 5000000000);
	CHECK(g_nudged.load() == before);
}

TEST_CASE("Nudger: a thread out of its ring's wait (in an fdatasync, say) is not nudged, however long")
{
	ThisThread t(32);	// in_ring_wait false: as in a pass end
	Nudger nudger(t.s, t.plan, 0);
	const unsigned before = g_nudged.load();
	nudger.tick(t.s, 1500000000);
	nudger.tick(t.s, 5000000000);
	CHECK(g_nudged.load() == before);
	t.s.workers[0]->in_ring_wait = true;	// back in the wait, still no byte: nudged at the next tick
	nudger.tick(t.s, 5100000000);
	CHECK(g_nudged.load() == before + 1);	// a signal to this thread: taken before pthread_kill returns
}

} // TEST_SUITE("run")
