// signals: everything that talks with the outside of the process, one
// owner.  The stop flag (g_stop), the signals through a signalfd
// (SignalScope, Waiter), the quick suite's test file a second Ctrl-C
// still removes (g_cleanup, remove_if_same), and the way out for text:
// printed() renders a report in memory, deliver() writes it to stdout
// while the signals are watched, flush_output() and g_output_errno keep
// the first failed write to stdout, emit_warnings() writes to stderr.
#pragma once

#include "base.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <climits>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// The first failed write to stdout: by the time sdb_main() looks, errno has
// long moved on, so it is kept where the bytes leave, at each flush.
int g_output_errno = 0;

void flush_output(std::FILE *out)
{
	if (std::fflush(out) == EOF && g_output_errno == 0)
		g_output_errno = errno;
}

// The process's one stop flag.  The timed loops read it once per I/O
// (relaxed: a stop is seen at the next I/O).  It is raised by what ends a
// run early, and nothing else: a signal or a closed stdout (Waiter), a
// worker's error (fail()), a thread that could not start
// (start_workers()), a failed --verify read-back (read_all_back()), a
// run's question answered (supervise()'s enough: the flash suite's write
// at its cliff); and
// lowered in one place, where execute() begins a run.
class StopFlag {
public:
	bool raised() const { return raised_.load(std::memory_order_relaxed); }
	void raise() { raised_.store(true); }
	void lower() { raised_.store(false); }

private:
	std::atomic<bool> raised_{false};
};

StopFlag g_stop;

// 0 when path names the inode descriptor fd holds; else ESTALE (another
// file is there now), EBADF or lstat's errno.  Async-signal-safe.
int names_same(const char *path, int fd)
{
	struct stat held {}, now {};
	if (fd < 0 || fstat(fd, &held) != 0)
		return EBADF;
	if (lstat(path, &now) != 0)
		return errno;
	return now.st_dev == held.st_dev && now.st_ino == held.st_ino ? 0 : ESTALE;
}

// Remove path only while it still names the inode that descriptor fd
// holds (and so keeps from being freed and its number reused): a file
// renamed onto the path meanwhile is somebody else's and stays.  0, or
// why not: ESTALE when the path names another file now, else lstat's or
// unlink's errno.  Linux has no unlink by descriptor, so a rename onto
// the path between the lstat and the unlink (two system calls) still
// loses that file; the check closes the window of the whole run.
// Async-signal-safe (fstat, lstat, unlink, no allocation): the second
// Ctrl-C calls it on its way to _exit.
int remove_if_same(const char *path, int fd)
{
	if (int err = names_same(path, fd))
		return err;
	return unlink(path) == 0 ? 0 : errno;
}

// The quick suite's test file, removed even on a second Ctrl-C: its path
// and the descriptor that proves it is still sdb's (remove_if_same()).
struct CleanupFile {
	const char *path = nullptr;
	int fd = -1;
};

CleanupFile g_cleanup;

// Signals arrive through a signalfd (they are blocked in every thread; see
// SignalScope), worker news through the gate's eventfd: no signal handler ever
// runs, and no I/O call in a worker is interrupted by one.
class Waiter {
public:
	Waiter(Fd signal_fd, Fd wake_fd) : signal_fd_(std::move(signal_fd)), wake_fd_(std::move(wake_fd)) {}

	// Wait up to ms for a signal or a poke.  A second signal ends sdb at
	// once.  A pipe on stdout whose reader has gone (POLLERR on its write
	// end) counts as SIGPIPE now, not when the report is finally written.
	void wait(int ms, bool &interrupted)
	{
		pollfd fds[3] = {{signal_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}, {interrupted ? -1 : 1, 0, 0}};
		if (poll(fds, 3, ms) <= 0)
			return;
		std::uint64_t count;
		if (fds[1].revents & POLLIN) {
			ssize_t ignored = read(wake_fd_.get(), &count, sizeof count);
			(void)ignored;
		}
		if (fds[0].revents & POLLIN)
			take_signal(interrupted);
		else if (fds[2].revents & POLLERR)
			stop(SIGPIPE, interrupted);
	}

	// Outside a run (the -R fill, -T): has a signal come?  Never waits.
	bool interrupted()
	{
		bool seen = received_ != 0;
		take_signal(seen);
		return seen;
	}

	// The first signal that came, 0 while none did.
	int received() const { return received_; }

	// 128 + the signal's number, as a shell reports a process it ended.
	int exit_status() const { return 128 + received_; }

	// The error that ends a run a signal stopped before it began.
	Error interruption(const char *when) const
	{
		const char *name = sigabbrev_np(received_);
		return Error{exit_status(), format("interrupted by SIG%s %s", name ? name : "?", when)};
	}

	// Outside a run: the interruption if a signal has come, else none.
	Error stopped(const char *when) { return interrupted() ? interruption(when) : Error{}; }

	int signal_fd() const { return signal_fd_.get(); }
	int wake_fd() const { return wake_fd_.get(); }

	// Every signal still queued, taken so that none is left to kill sdb
	// when the mask is restored.
	void drain()
	{
		signalfd_siginfo info;
		while (read(signal_fd_.get(), &info, sizeof info) == sizeof info)
			continue;
	}

private:
	void take_signal(bool &interrupted)
	{
		signalfd_siginfo info;
		if (read(signal_fd_.get(), &info, sizeof info) != sizeof info)
			return;
		if (interrupted) {
			if (g_cleanup.path)
				remove_if_same(g_cleanup.path, g_cleanup.fd);
			const char msg[] = "\nsdb: interrupted again: exiting without results\n";
			ssize_t ignored = write(2, msg, sizeof msg - 1);
			(void)ignored;
			_exit(128 + static_cast<int>(info.ssi_signo));
		}
		stop(static_cast<int>(info.ssi_signo), interrupted);
	}
	void stop(int sig, bool &interrupted)
	{
		received_ = sig;
		interrupted = true;
		g_stop.raise();
	}

	Fd signal_fd_, wake_fd_;
	int received_ = 0;
};

// The signals that end sdb (INT, TERM, HUP, QUIT, PIPE, USR1/2, ALRM)
// blocked (the calling thread's mask is inherited by every worker) and
// routed to a signalfd; the gate's eventfd for worker news.  Each one
// stops the run, which reports what it has and exits 128 + its number.
// Every mode that runs something or prints a report (a run, the quick
// suite, --hosts, --sweep, --probe, --merge, --compare) holds one, and
// starts with: if (Error e = scope.error()) ...; its report to stdout goes
// through deliver() (below) while the scope still watches the signals.
struct SignalScope {
	sigset_t signals {}, old {};
	int err = 0;	// why the signalfd or the eventfd could not be made
	Waiter waiter;

	SignalScope() : waiter(made(block_signals(signals, old), err), made(eventfd(0, EFD_CLOEXEC), err)) {}
	SignalScope(const SignalScope &) = delete;
	SignalScope &operator=(const SignalScope &) = delete;
	// A signal that came after the run (while the report was printed) is
	// taken here: unblocked, it would kill sdb before stdout is flushed.
	~SignalScope()
	{
		flush_output(stdout);
		waiter.drain();
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
	}
	Error error() const { return err ? sys_error(err, "signalfd/eventfd") : Error{}; }

private:
	static int block_signals(sigset_t &signals, sigset_t &old)
	{
		sigemptyset(&signals);
		for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM})
			sigaddset(&signals, sig);
		pthread_sigmask(SIG_BLOCK, &signals, &old);
		return signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
	}
	// A descriptor just made, and the first failure's errno.
	static Fd made(int fd, int &err)
	{
		if (fd < 0 && !err)
			err = errno;
		return Fd(fd);
	}
};

// What print() writes, as a string (made in memory, so that no write to
// stdout can block while it is made).
template <typename Print>
std::string printed(Print print)
{
	char *text = nullptr;
	std::size_t len = 0;
	std::FILE *mem = open_memstream(&text, &len);
	if (!mem)
		throw std::bad_alloc();
	print(mem);
	std::fclose(mem);
	std::string s(text, len);
	std::free(text);
	return s;
}

// The report to out (stdout) while the signals sdb blocks are still
// watched: a pipe takes at most PIPE_BUF at a time, each when poll() says
// it has room, so a reader that stops reading cannot hold sdb past a
// Ctrl-C or TERM (128 + n: the report is cut short, one line says so), and
// a reader that goes away is SIGPIPE's 141, as for a program it ends.
// 0 when the text left, or on another error (kept in g_output_errno, as
// flush_output() does, for sdb_main() to report).
int deliver(std::FILE *out, const std::string &text, Waiter &waiter)
{
	flush_output(out);
	const int fd = fileno(out);
	struct stat st {};
	const bool pipe_like = fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
	const std::size_t step = pipe_like ? PIPE_BUF : text.size();
	for (std::size_t done = 0; done < text.size();) {
		pollfd fds[2] = {{fd, POLLOUT, 0}, {waiter.signal_fd(), POLLIN, 0}};
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents & POLLIN) {
			waiter.interrupted();	// a second signal ends sdb at once
			const char *name = sigabbrev_np(waiter.received());
			std::fprintf(stderr, "sdb: interrupted by SIG%s while standard output took the report: it is cut short\n",
				     name ? name : "?");
			return waiter.exit_status();
		}
		if (!(fds[0].revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)))	// the write says which
			continue;
		ssize_t n = write(fd, text.data() + done, std::min(step, text.size() - done));
		if (n < 0 && errno == EPIPE)
			return 128 + SIGPIPE;
		if (n < 0 && errno != EINTR && errno != EAGAIN) {
			if (!g_output_errno)
				g_output_errno = errno;
			break;
		}
		done += n > 0 ? static_cast<std::size_t>(n) : 0;
	}
	return 0;
}

void emit_warnings(const std::vector<std::string> &warnings)
{
	for (const std::string &w : warnings)
		std::fprintf(stderr, "sdb: warning: %s\n", one_line(w).c_str());
}

} // namespace
