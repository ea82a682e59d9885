// hosts: --hosts HOST[:PATH],....  The same run on every host over ssh
// (SDB_SSH, SDB_REMOTE) with a common --start-at, each remote run's JSON
// collected and merged as --merge does (run_hosts).
#pragma once

#include "base.h"
#include "json.h"
#include "options.h"
#include "run.h"
#include "merge.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// The remote command for one host: SDB_REMOTE (default "sdb", given to the
// remote shell as is), then this run's options, each quoted, with -f the
// host's PATH, --json, and the common --start-at unless one was given.
std::string remote_command(const Options &opt, const HostSpec &h, double start_at)
{
	const char *remote = std::getenv("SDB_REMOTE");
	std::string cmd = remote && *remote ? remote : "sdb";
	std::string file = opt.file;	// %h and %r expanded here; each host expands -f's pattern itself
	bool start_given = false;
	for (const std::string &g : opt.given) {
		std::string name = g.substr(0, g.find('='));
		if (name == "--file" && g.size() > 7)
			file = g.substr(7);
		if (name == "--hosts" || name == "--file" || name == "--json")
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

// One remote run: the ssh process, its output, how it ended.
struct Remote {
	HostSpec spec;
	std::string label;		// HOST[:PATH] as given
	pid_t pid = -1;
	Fd out, err;			// read ends of its stdout and stderr
	std::string out_text, err_text;
	int status = -1;		// waitpid's, once reaped
	Error spawn_error;
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
// stdin /dev/null, stdout and stderr to pipes.
Error spawn_remote(Remote &r, const std::vector<std::string> &ssh, const std::string &command, const sigset_t &mask)
{
	Fd out[2], err[2];
	if (Error e = make_pipe(out))
		return e;
	if (Error e = make_pipe(err))
		return e;
	std::vector<std::string> words = ssh;
	words.push_back(r.spec.host);
	words.push_back(command);
	std::vector<char *> argv;
	for (std::string &w : words)
		argv.push_back(&w[0]);
	argv.push_back(nullptr);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
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
		if (line.empty() || line.rfind("sdb: warning: ", 0) == 0)
			continue;
		last = line;
		if (line.rfind("sdb: ", 0) == 0)
			sdb_line = line.substr(5);
	}
	return sdb_line.empty() ? last : sdb_line;
}

// How a remote run failed, or "" when its document is there to merge.
std::string remote_failure(const Remote &r, bool has_document, bool interrupted)
{
	if (r.spawn_error)
		return r.spawn_error.msg;
	std::string line = one_line(last_error_line(r.err_text));
	if (has_document)	// the run's own error (in its document) or none
		return "";
	if (interrupted)
		return "interrupted: stopped before its result came back";
	if (WIFSIGNALED(r.status))
		return format("ssh ended by SIG%s%s%s", sigabbrev_np(WTERMSIG(r.status)) ? sigabbrev_np(WTERMSIG(r.status)) : "?",
			      line.empty() ? "" : ": ", line.c_str());
	int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	if (code == 255)
		return (line.empty() ? std::string("ssh failed") : line) + " (ssh exit 255)";
	if (code == 127)
		return (line.empty() ? std::string("command not found") : line) +
		       " (exit 127: no sdb there? SDB_REMOTE names the remote command)";
	if (!line.empty())
		return line;
	return format("exit %d, and no result on its standard output", code);
}

// Reads every remote's output until each ssh has ended.  A signal sends
// each ssh SIGTERM (its session closes; the remote sdb stops and reports
// what it has), SIGKILL 1.5 s later or at a second signal; 2 s after the
// first, what has not ended is left.
void collect_remotes(std::vector<Remote> &remotes, int signal_fd, int &received)
{
	std::int64_t term_at = 0;
	bool killed = false;
	auto signal_all = [&](int sig) {
		for (Remote &r : remotes)
			if (r.pid > 0 && r.status < 0)
				kill(-r.pid, sig) == 0 || kill(r.pid, sig);
	};
	for (;;) {
		std::vector<pollfd> fds{{signal_fd, POLLIN, 0}};
		std::vector<std::pair<Remote *, bool>> owners{{nullptr, false}};
		for (Remote &r : remotes) {
			if (r.out)
				fds.push_back({r.out.get(), POLLIN, 0}), owners.push_back({&r, true});
			if (r.err)
				fds.push_back({r.err.get(), POLLIN, 0}), owners.push_back({&r, false});
		}
		for (Remote &r : remotes)
			if (r.pid > 0 && r.status < 0 && !r.out && !r.err) {
				int st;
				if (waitpid(r.pid, &st, WNOHANG) == r.pid)
					r.status = st;
			}
		bool running = std::any_of(remotes.begin(), remotes.end(), [](const Remote &r) { return r.pid > 0 && r.status < 0; });
		if (!running && fds.size() == 1)
			return;
		std::int64_t now = now_ns();
		if (term_at && !killed && now >= term_at + 1500000000) {
			signal_all(SIGKILL);
			killed = true;
		}
		if (term_at && now >= term_at + 2000000000) {	// leave what is left
			for (Remote &r : remotes) {
				r.out.reset();
				r.err.reset();
				if (r.pid > 0 && r.status < 0 && waitpid(r.pid, &r.status, WNOHANG) != r.pid)
					r.status = -1, r.pid = -1;
			}
			return;
		}
		if (poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR)
			return;
		if (fds[0].revents & POLLIN) {
			signalfd_siginfo info;
			if (read(signal_fd, &info, sizeof info) == sizeof info) {
				if (!received) {
					received = static_cast<int>(info.ssi_signo);
					term_at = now_ns();
					signal_all(SIGTERM);
				} else if (!killed) {
					signal_all(SIGKILL);
					killed = true;
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
			if (n > 0 && text.size() < 256 * MiB)
				text.append(chunk, static_cast<std::size_t>(n));
			else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				fd.reset();
		}
	}
}

// sdb --hosts HOST[:PATH],... plus a run's options: the run on every host
// at once over ssh, then merged as --merge merges.
int run_hosts(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	// Time for every ssh to connect and every sdb to prepare: 3 s, and a
	// little more for a long list (the connections are made in parallel).
	double start_at = realtime_ns() / 1e9 + 3 + 0.05 * static_cast<double>(opt.hosts.size() > 10 ? opt.hosts.size() - 10 : 0);
	std::vector<std::string> ssh = ssh_command();
	std::vector<Remote> remotes(opt.hosts.size());
	for (std::size_t i = 0; i < opt.hosts.size(); i++) {
		Remote &r = remotes[i];
		r.spec = opt.hosts[i];
		r.label = r.spec.host + (r.spec.path.empty() ? "" : ":" + r.spec.path);
		r.spawn_error = spawn_remote(r, ssh, remote_command(opt, r.spec, start_at), scope.old);
	}
	int received = 0;
	collect_remotes(remotes, scope.waiter.signal_fd(), received);
	std::vector<HostRun> runs;
	std::vector<std::string> errors;
	for (Remote &r : remotes) {
		HostRun run;
		run.source = printable(r.label);
		Json doc;
		bool loaded = false;
		if (!r.spawn_error && r.out_text.find_first_not_of(" \t\r\n") != std::string::npos)
			loaded = !parse_json(r.out_text, r.label, doc) && !load_run(doc, r.label, run);
		std::string failure = remote_failure(r, loaded, received != 0);
		if (loaded && !run.error.empty())
			failure = run.error;	// its own error, after it started: merged, and named
		if (!failure.empty()) {
			Error e = runtime_error("%s: %s", printable(r.label).c_str(), failure.c_str());
			print_error(e);
			errors.push_back(e.msg);
		}
		if (loaded)
			runs.push_back(std::move(run));
	}
	report_merged(out, runs, errors, opt.json, false, received != 0);
	if (received)
		return 128 + received;
	return errors.empty() ? exit_ok : exit_runtime;
}

} // namespace
