// hosts: --hosts HOST[:PATH],....  The same run on every host over ssh
// (SDB_SSH, SDB_REMOTE) with a common --start-at, at most --fanout
// sessions connecting at once, each remote run stoppable through its
// standard input (remote_script:
// Ctrl-C, --host-timeout), a status line per host on a terminal, and each
// remote run's JSON collected and merged as --merge does (run_hosts).
#pragma once

#include "base.h"
#include "signals.h"
#include "json.h"
#include "options.h"
#include "merge.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// The remote command for one host: SDB_PROGRESS=lines exported, SDB_REMOTE
// (default "sdb", given to the remote shell as is), then this run's options, each quoted, with -f the
// host's PATH, --json, and the common --start-at unless one was given
// (--html and --prom are this side's: the merged results').
std::string remote_command(const Options &opt, const HostSpec &h, double start_at)
{
	const char *remote = std::getenv("SDB_REMOTE");
	// A progress line a second for the status lines' rate, for a compound
	// SDB_REMOTE too ("cd /x && sdb"); sudo passes it only where told to.
	std::string cmd = std::string("export SDB_PROGRESS=lines; ") + (remote && *remote ? remote : "sdb");
	std::string file = opt.file;	// %h and %r expanded here; each host expands -f's pattern itself
	bool start_given = false;
	for (const std::string &g : opt.given) {
		std::string name = g.substr(0, g.find('='));
		if (name == "--file" && g.size() > 7)
			file = g.substr(7);
		if (name == "--hosts" || name == "--file" || name == "--json" || name == "--fanout" || name == "--host-timeout" ||
		    name == "--html" || name == "--prom")
			continue;
		if (name == "--start-at") {	// +SEC from here (parse_start_at made it absolute), not from each host's now
			start_given = true;
			if (g.size() > 11 && g[11] == '+') {
				cmd += " " + shell_quote(format("--start-at=%.3f", opt.start_at_ns / 1e9));
				continue;
			}
		}
		cmd += " " + shell_quote(g);
	}
	cmd += " " + shell_quote("--file=" + (h.path.empty() ? file : h.path)) + " --json";
	if (!start_given)
		cmd += " " + shell_quote(format("--start-at=%.3f", start_at));
	return cmd;
}

// SDB_SSH split on spaces, else "ssh"; an ssh gets -o BatchMode=yes (never a
// prompt; an -o BatchMode the user gave comes first and wins).
std::vector<std::string> ssh_command()
{
	std::vector<std::string> words;
	const char *env = std::getenv("SDB_SSH");
	std::istringstream in(env && *env ? env : "ssh");
	for (std::string w; in >> w;)
		words.push_back(w);
	if (words.empty())
		words.push_back("ssh");
	std::string base = words[0].substr(words[0].rfind('/') + 1);
	if (base == "ssh") {
		words.push_back("-o");
		words.push_back("BatchMode=yes");
	}
	return words;
}

// The remote command wrapped so that the end of its standard input stops
// it: sh runs sdb in the background and waits; a reader of the original
// standard input (fd 3: an asynchronous list's own is /dev/null) sends
// the remote sdb SIGTERM when it ends (an asynchronous list ignores
// SIGINT), so that the run stops and reports what it has.  This sdb ends
// it (closes its end of ssh's standard input) on Ctrl-C and at
// --host-timeout; a lost connection ends it too.  Its first line on
// standard error (connected_line) says the session is up: --fanout counts
// the sessions still connecting.
constexpr char connected_line[] = "sdb: connected";

std::string remote_script(const std::string &command)
{
	return "sh -c " + shell_quote("echo " + std::string(connected_line) + " >&2; exec 3<&0; " + command +
				      " </dev/null & p=$!; { read -r _ <&3; kill -TERM $p; } 2>/dev/null & w=$!; "
				      "wait $p; s=$?; kill $w 2>/dev/null; exit $s");
}

// What sdb keeps of a host's output: its standard output up to what a
// result may take (a -j 64 run's document, histograms and all, is 473 KB;
// -j 1024's about 7.5 MiB), the rest counted and let go; the last 64 KiB
// of its standard error (its progress lines, then its error).
constexpr std::size_t host_output_cap = 16 * MiB, host_error_tail = 64 * KiB;

// One remote run: the ssh process, its output, how it ended.
struct Remote {
	HostSpec spec;
	std::string label;		// HOST[:PATH] as given
	pid_t pid = -1;
	Fd in, out, err;		// the write end of its stdin, the read ends of its stdout and stderr
	std::string out_text, err_text;	// at most host_output_cap, and the last host_error_tail or so
	std::uint64_t out_bytes = 0;	// all it printed on its standard output
	int status = -1;		// waitpid's, once reaped
	Error spawn_error;
	bool spawned = false;
	bool connected = false;		// its connected_line came: ssh is no longer starting
	double start_at = 0;		// the common start (Unix seconds)
	std::int64_t spawned_ns = 0, stop_ns = 0;	// monotonic: when started, when asked to stop (0: not)
	bool timed_out = false, left = false;	// --host-timeout passed; ended by sdb without waiting further
	std::int64_t ended_ns = 0;
	bool ended() const { return spawned && (status >= 0 || left || spawn_error); }
};

// A pipe, both ends close-on-exec: [0] to read, [1] to write.
Error make_pipe(Fd (&ends)[2])
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return sys_error(errno, "pipe");
	ends[0] = Fd(fds[0]);
	ends[1] = Fd(fds[1]);
	return {};
}

// ssh HOST 'COMMAND' in a session of its own (no terminal: no prompt, and
// Ctrl-C reaches sdb alone), signals unblocked and at their defaults,
// stdin a pipe this sdb holds (its end stops the run: remote_script),
// stdout and stderr to pipes.
Error spawn_remote(Remote &r, const std::vector<std::string> &ssh, const std::string &command, const sigset_t &mask)
{
	Fd in[2], out[2], err[2];
	if (Error e = make_pipe(in))
		return e;
	if (Error e = make_pipe(out))
		return e;
	if (Error e = make_pipe(err))
		return e;
	std::vector<std::string> words = ssh;
	words.push_back(r.spec.host);
	words.push_back(remote_script(command));
	std::vector<char *> argv;
	for (std::string &w : words)
		argv.push_back(&w[0]);
	argv.push_back(nullptr);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, in[0].get(), 0);
	posix_spawn_file_actions_adddup2(&actions, out[1].get(), 1);
	posix_spawn_file_actions_adddup2(&actions, err[1].get(), 2);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	sigset_t all;
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setsigdefault(&attr, &all);
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
#ifdef POSIX_SPAWN_SETSID
	flags |= POSIX_SPAWN_SETSID;
#else
	flags |= POSIX_SPAWN_SETPGROUP;
#endif
	posix_spawnattr_setflags(&attr, flags);
	int rc = posix_spawnp(&r.pid, argv[0], &actions, &attr, argv.data(), environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		r.pid = -1;
		return sys_error(rc, "cannot run %s", ssh[0].c_str());
	}
	fcntl(in[1].get(), F_SETFL, O_NONBLOCK);
	r.in = std::move(in[1]);
	r.out = std::move(out[0]);
	r.err = std::move(err[0]);
	return {};
}

// The last line of a remote's stderr that says something: its own
// "sdb: ..." line if there is one, else ssh's last word.
std::string last_error_line(const std::string &err)
{
	std::string last, sdb_line;
	std::istringstream in(err);
	for (std::string line; std::getline(in, line);) {
		while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
			line.pop_back();
		if (line.empty() || line.rfind("sdb: warning: ", 0) == 0 || line.rfind("sdb: progress: ", 0) == 0)
			continue;
		last = line;
		if (line.rfind("sdb: ", 0) == 0)
			sdb_line = line.substr(5);
	}
	return sdb_line.empty() ? last : sdb_line;
}

// How a remote run failed, or "" when its document is there to merge.
// load_error: why its standard output, if it had any, is not a document.
std::string remote_failure(const Remote &r, bool has_document, const std::string &load_error, bool interrupted)
{
	if (r.spawn_error)
		return r.spawn_error.msg;
	std::string line = one_line(last_error_line(r.err_text));
	if (has_document)	// the run's own error (in its document) or none
		return "";
	if (r.timed_out)
		return "no answer within --host-timeout: stopped" + (line.empty() ? std::string() : ": " + line);
	if (interrupted)
		return "interrupted: stopped before its result came back";
	if (r.left)
		return "did not end when stopped: left running";
	if (WIFSIGNALED(r.status))
		return format("ssh ended by SIG%s%s%s", sigabbrev_np(WTERMSIG(r.status)) ? sigabbrev_np(WTERMSIG(r.status)) : "?",
			      line.empty() ? "" : ": ", line.c_str());
	int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	if (code == 255)
		return (line.empty() ? std::string("ssh failed") : line) + " (ssh exit 255)";
	if (code == 127)
		return (line.empty() ? std::string("command not found") : line) +
		       " (exit 127: no sdb there? SDB_REMOTE names the remote command)";
	if (!load_error.empty() && (code == 0 || line.empty()))
		return load_error;	// output that is not a result: say why, not "no result"
	if (!line.empty())	// the remote sdb's own (exit 1 or 2), else what ended it, and how
		return code == 1 || code == 2 ? line : format("%s (exit %d)", line.c_str(), code);
	return format("exit %d, and no result on its standard output", code);
}

// The status lines (stderr on a terminal that takes escapes): a line per
// host, or for a long list one line of counts.
struct StatusLines {
	bool on = false;
	unsigned shown = 0;	// lines drawn last time
	std::int64_t next_ns = 0;

	StatusLines()
	{
		const char *term = std::getenv("TERM");
		on = isatty(2) && term && *term && std::strcmp(term, "dumb") != 0;
	}
	static std::string state(const Remote &r, double now_unix, std::int64_t now)
	{
		if (!r.spawned)
			return "queued (--fanout)";
		if (!r.connected && !r.ended())
			return format("connecting %.1f s", (now - r.spawned_ns) / 1e9);
		if (r.ended())
			return r.status == 0 ? "done" : r.spawn_error ? "failed" : format("ended (exit %d)", WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1);
		if (r.stop_ns)
			return format("stopping (%.1f s)", (now - r.stop_ns) / 1e9);
		if (now_unix < r.start_at)
			return format("started, the run begins in %.1f s", r.start_at - now_unix);
		return format("running %.1f s%s", now_unix - r.start_at, progress_words(r.err_text).c_str());
	}
	// The remote run's rate from its last whole "sdb: progress: S s, B
	// bytes" line (SDB_PROGRESS=lines; ssh may have delivered only part of
	// the newest): ", 1.21 GiB/s"; "" before one came.
	static std::string progress_words(const std::string &err)
	{
		std::size_t end = err.rfind('\n');
		std::size_t at = end == std::string::npos ? end : err.rfind("sdb: progress: ", end);
		if (at == std::string::npos)
			return "";
		double seconds = 0;
		unsigned long long bytes = 0;
		int n = 0;
		if (std::sscanf(err.c_str() + at, "sdb: progress: %lf s, %llu bytes%n", &seconds, &bytes, &n) != 2 || n == 0 ||
		    at + n > end || !(seconds > 0))
			return "";
		return ", " + format_rate(static_cast<double>(bytes) / seconds);
	}
	void draw(const std::vector<Remote> &remotes, bool force = false)
	{
		std::int64_t now = now_ns();
		if (!on || (!force && now < next_ns))
			return;
		next_ns = now + 250000000;
		double now_unix = realtime_ns() / 1e9;
		std::vector<std::string> lines;
		if (remotes.size() <= 20) {
			for (const Remote &r : remotes)
				lines.push_back(printable(r.label) + ": " + state(r, now_unix, now));
		} else {
			std::map<std::string, unsigned> counts;
			for (const Remote &r : remotes) {
				std::string s = state(r, now_unix, now);
				counts[s.substr(0, s.find_first_of(" (,"))]++;
			}
			std::string line = format("%zu hosts:", remotes.size());
			for (const auto &c : counts)
				line += format(" %u %s,", c.second, c.first.c_str());
			line.pop_back();
			lines.push_back(line);
		}
		std::string s = shown ? format("\033[%uA", shown) : "";
		for (const std::string &l : lines)
			s += "\r\033[K" + l.substr(0, 200) + "\n";
		shown = static_cast<unsigned>(lines.size());
		ssize_t ignored = write(2, s.data(), s.size());
		(void)ignored;
	}
	void erase()
	{
		if (!on || !shown)
			return;
		std::string s = format("\033[%uA\033[J", shown);
		ssize_t ignored = write(2, s.data(), s.size());
		(void)ignored;
		shown = 0;
	}
};

// How the remote runs are driven: the ssh command, the signal mask for
// the children, the options, the sessions started so far (--fanout).
struct Fanout {
	const Options &opt;
	std::vector<std::string> ssh;
	const sigset_t &mask;
	std::size_t next = 0;		// the first host not started yet
	double start_at = 0;		// every run's common start, set with the first session

	// More sessions, while fewer than --fanout (64 unless given) are still
	// connecting; every run gets one --start-at, 3 s ahead and 0.05 s more
	// for each host past 10 (the sessions connect while it comes).
	void start_sessions(std::vector<Remote> &remotes)
	{
		if (next == 0)
			start_at = realtime_ns() / 1e9 + 3 + 0.05 * static_cast<double>(remotes.size() > 10 ? remotes.size() - 10 : 0);
		const std::size_t limit = opt.fanout ? opt.fanout : default_fanout;
		std::size_t connecting = static_cast<std::size_t>(std::count_if(
			remotes.begin(), remotes.end(), [](const Remote &r) { return r.spawned && !r.connected && !r.ended(); }));
		for (; next < remotes.size() && connecting < limit; next++, connecting++) {
			Remote &r = remotes[next];
			r.start_at = opt.start_at_ns ? opt.start_at_ns / 1e9 : start_at;
			r.spawned = true;
			r.spawned_ns = now_ns();
			r.spawn_error = spawn_remote(r, ssh, remote_command(opt, r.spec, start_at), mask);
		}
	}
};

// Takes a remote's connected_line out of what it printed on standard
// error (ssh's own words may come before it), once.
void note_connected(Remote &r)
{
	std::size_t at = r.err_text.find(std::string(connected_line) + "\n");
	if (at == std::string::npos || (at > 0 && r.err_text[at - 1] != '\n'))
		return;
	r.err_text.erase(at, sizeof connected_line);
	r.connected = true;
}

// Asks a remote run to stop (remote_script): its standard input closed.
void ask_stop(Remote &r, std::int64_t now)
{
	if (r.ended() || r.stop_ns)
		return;
	r.in.reset();
	r.stop_ns = now;
}

// A remote asked to stop: SIGTERM to its ssh after 1 s, SIGKILL after 1.5 s,
// left after 2 s (so that sdb stops within 2 s of Ctrl-C).
void press_stop(Remote &r, std::int64_t now)
{
	if (!r.stop_ns || r.ended() || r.pid <= 0)
		return;
	std::int64_t since = now - r.stop_ns;
	if (since >= 2000000000) {
		r.out.reset();
		r.err.reset();
		if (waitpid(r.pid, &r.status, WNOHANG) != r.pid) {
			r.status = -1;
			r.left = true;
		}
	} else if (since >= 1500000000) {
		kill(-r.pid, SIGKILL) == 0 || kill(r.pid, SIGKILL);
	} else if (since >= 1000000000) {
		kill(-r.pid, SIGTERM) == 0 || kill(r.pid, SIGTERM);
	}
}

// Reads every remote's output until each has ended, starting sessions as
// --fanout lets.  A signal asks every run to stop (and starts no further
// session); a second one kills every ssh.  --host-timeout
// asks a run that has not ended SEC seconds after its start to stop.
void collect_remotes(std::vector<Remote> &remotes, Fanout &fanout, int signal_fd, int &received,
		     StatusLines &status)
{
	for (;;) {
		std::int64_t now = now_ns();
		if (!received)
			fanout.start_sessions(remotes);
		for (Remote &r : remotes) {
			if (r.spawned && !r.ended() && !r.out && !r.err) {
				int st;
				if (waitpid(r.pid, &st, WNOHANG) == r.pid)
					r.status = st;
			}
			if (fanout.opt.host_timeout > 0 && r.spawned && !r.ended() && !r.stop_ns &&
			    now - r.spawned_ns > static_cast<std::int64_t>(fanout.opt.host_timeout * 1e9)) {
				r.timed_out = true;
				ask_stop(r, now);
			}
			press_stop(r, now);
		}
		status.draw(remotes);
		std::vector<pollfd> fds{{signal_fd, POLLIN, 0}};
		std::vector<std::pair<Remote *, bool>> owners{{nullptr, false}};
		for (Remote &r : remotes) {
			if (r.out)
				fds.push_back({r.out.get(), POLLIN, 0}), owners.push_back({&r, true});
			if (r.err)
				fds.push_back({r.err.get(), POLLIN, 0}), owners.push_back({&r, false});
		}
		bool running = std::any_of(remotes.begin(), remotes.end(), [](const Remote &r) { return r.spawned && !r.ended(); });
		if (!running && (received || fanout.next >= remotes.size()))
			return;
		if (poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR)
			return;
		if (fds[0].revents & POLLIN) {
			signalfd_siginfo info;
			if (read(signal_fd, &info, sizeof info) == sizeof info) {
				if (!received) {
					received = static_cast<int>(info.ssi_signo);
					for (Remote &r : remotes)
						ask_stop(r, now_ns());
				} else {
					for (Remote &r : remotes)
						if (r.pid > 0 && !r.ended())
							kill(-r.pid, SIGKILL) == 0 || kill(r.pid, SIGKILL);
				}
			}
		}
		for (std::size_t k = 1; k < fds.size(); k++) {
			if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			Remote &r = *owners[k].first;
			Fd &fd = owners[k].second ? r.out : r.err;
			std::string &text = owners[k].second ? r.out_text : r.err_text;
			char chunk[65536];
			ssize_t n = read(fd.get(), chunk, sizeof chunk);
			if (n > 0 && owners[k].second) {
				r.out_bytes += static_cast<std::size_t>(n);
				text.append(chunk, std::min(static_cast<std::size_t>(n), host_output_cap - std::min(host_output_cap, text.size())));
			} else if (n > 0) {
				text.append(chunk, static_cast<std::size_t>(n));
				if (!r.connected)
					note_connected(r);
				if (text.size() > 2 * host_error_tail) {	// from the line after the cut on
					std::size_t cut = text.size() - host_error_tail, nl = text.find('\n', cut);
					text.erase(0, nl == std::string::npos || nl + 1 == text.size() ? cut : nl + 1);
				}
			} else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
				fd.reset();
			}
		}
	}
}

// One remote's output: its document merged (runs), or the host named with
// why not (failed, errors).  A document that came back from a run that was
// stopped (--host-timeout) is merged and the host still named.
void take_result(Remote &r, bool interrupted, std::vector<HostRun> &runs, std::vector<FailedHost> &failed,
		 std::vector<std::string> &errors)
{
	std::vector<HostRun> found;
	std::string load_error;
	if (r.out_bytes > r.out_text.size())
		load_error = format("printed %s on its standard output, more than the %s a result takes: not a result",
				    format_bytes(r.out_bytes).c_str(), format_bytes(host_output_cap).c_str());
	else if (!r.spawn_error && r.out_text.find_first_not_of(" \t\r\n") != std::string::npos)
		if (Error e = load_inputs(r.out_text, printable(r.label), found))
			load_error = format("its %s of output are not a result: %s", format_bytes(r.out_bytes).c_str(),
					    e.msg.substr(std::min(e.msg.size(), printable(r.label).size() + 2)).c_str());
	r.out_text = std::string();
	bool loaded = !found.empty() && load_error.empty();
	std::string failure = remote_failure(r, loaded, load_error, interrupted);
	if (loaded && !found[0].error.empty())
		failure = found[0].error;	// its own error, after it started: merged, and named
	if (loaded && r.timed_out)
		failure = "no answer within --host-timeout: stopped; its partial result is merged";
	if (!failure.empty()) {
		Error e = runtime_error("%s: %s", printable(r.label).c_str(), failure.c_str());
		print_error(e);
		errors.push_back(e.msg);
		if (!loaded)
			failed.push_back({printable(r.label), r.status >= 0 && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, failure});
	}
	if (loaded) {
		found[0].source = printable(r.label);
		runs.push_back(std::move(found[0]));
	}
}

// sdb --hosts HOST[:PATH],... plus a run's options: the run on every host
// at once over ssh (at most --fanout sessions connecting at a time), then
// merged as --merge merges.
// Ctrl-C or a host that times out stops the runs, which report what they
// have; what came back is merged.  doc, for --html: the merged document.
int run_hosts(const Options &opt, std::FILE *out, std::string *doc = nullptr)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	std::vector<Remote> remotes(opt.hosts.size());
	for (std::size_t i = 0; i < opt.hosts.size(); i++) {
		remotes[i].spec = opt.hosts[i];
		remotes[i].label = opt.hosts[i].label;
	}
	Fanout fanout{opt, ssh_command(), scope.old};
	StatusLines status;
	int received = 0;
	collect_remotes(remotes, fanout, scope.waiter.signal_fd(), received, status);
	status.draw(remotes, true);
	status.erase();
	std::vector<HostRun> runs;
	std::vector<FailedHost> failed;
	std::vector<std::string> errors;
	for (Remote &r : remotes) {
		if (!r.spawned) {	// never started: Ctrl-C came first
			failed.push_back({printable(r.label), -1, "interrupted: not started"});
			errors.push_back(printable(r.label) + ": interrupted: not started");
			continue;
		}
		take_result(r, received != 0, runs, failed, errors);
	}
	if (runs.empty())
		say_unwritten(opt, "no host gave a result");
	if (int status = report_merged(out, scope.waiter, runs, failed, errors, opt.json, false, received != 0, doc)) {
		if (doc)
			doc->clear();	// as a run's: no page of a report cut short
		return status;
	}
	if (received)
		return 128 + received;
	return errors.empty() ? exit_ok : exit_runtime;
}

// --hosts' rules: one test on each host, with somewhere to run it; then
// the test's own.
Error check_hosts(const Options &o)
{
	if (o.quick)
		return usage_error("--hosts and --quick: --hosts runs one test (-w, -r or -M) on each host");
	if (o.explain)
		return usage_error("--hosts and --explain: explain the run without --hosts");
	if (o.sweep)
		return usage_error("--sweep and --hosts: sweep one host at a time");
	if (o.op == Options::Op::none)
		return usage_error("--hosts: needs -w, -r or -M, the test to run on each host");
	bool paths = std::all_of(o.hosts.begin(), o.hosts.end(), [](const HostSpec &h) { return !h.path.empty(); });
	if (o.file.empty() && !paths)
		return usage_error("--hosts: needs -f FILE, or a PATH for every host (HOST:PATH)");
	return check_test(o);
}

const Mode hosts_mode = {"--hosts", [](const Options &o) { return !o.hosts.empty(); }, check_hosts, run_hosts};

} // namespace
