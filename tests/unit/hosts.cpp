// Unit tests of src/hosts.h: the command each host runs, and ssh's.
#include "../../src/hosts.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <string>
#include <vector>

TEST_SUITE("hosts") {

TEST_CASE("remote_command: this run's options, quoted, with the host's PATH, a common start and progress lines")
{
	CHECK(shell_quote("it's $HOME") == "'it'\\''s $HOME'");
	unsetenv("SDB_REMOTE");
	Parsed p = Args{"-w", "-f", "/d/t", "--hosts", "a,b:/e/it's", "-s", "64m", "-D", "--json"}.parse();
	REQUIRE(!p.error);
	CHECK(remote_command(p.opt, p.opt.hosts[0], 1700000000.25) ==
	      "export SDB_PROGRESS=lines; sdb '--write' '--size=64m' '--direct' '--file=/d/t' --json '--start-at=1700000000.250'");
	CHECK(remote_command(p.opt, p.opt.hosts[1], 1700000000.25) ==
	      "export SDB_PROGRESS=lines; sdb '--write' '--size=64m' '--direct' '--file=/e/it'\\''s' --json '--start-at=1700000000.250'");
	setenv("SDB_REMOTE", "/opt/sdb/bin/sdb", 1);
	CHECK(remote_command(p.opt, p.opt.hosts[0], 1).rfind("export SDB_PROGRESS=lines; /opt/sdb/bin/sdb '--write'", 0) == 0);
	unsetenv("SDB_REMOTE");
	setenv("SDB_SSH", "ssh -p 2222  -i key", 1);
	CHECK(ssh_command() == std::vector<std::string>{"ssh", "-p", "2222", "-i", "key", "-o", "BatchMode=yes"});
	setenv("SDB_SSH", "/usr/local/bin/myrsh -x", 1);
	CHECK(ssh_command() == std::vector<std::string>{"/usr/local/bin/myrsh", "-x"});
	unsetenv("SDB_SSH");
	CHECK(ssh_command() == std::vector<std::string>{"ssh", "-o", "BatchMode=yes"});
	CHECK(last_error_line("sdb: warning: odd\nsdb: t: No space left on device\n") == "t: No space left on device");
	CHECK(last_error_line("Warning: Permanently added 'x'\r\nssh: connect to host x port 22: Connection refused\r\n") ==
	      "ssh: connect to host x port 22: Connection refused");
}

// The hosts of a --hosts list as "host|path" each, or the usage error.
std::string hosts_of(const char *list)
{
	std::vector<HostSpec> hosts;
	if (Error e = parse_hosts(list, "--hosts", hosts))
		return e.msg;
	std::string s;
	for (const HostSpec &h : hosts)
		s += (s.empty() ? "" : " ") + h.host + "|" + h.path;
	return s;
}

TEST_CASE("parse_hosts: users, IPv6 with and without brackets, ssh:// URIs")
{
	CHECK(hosts_of("a,b:/d/t") == "a| b|/d/t");
	CHECK(hosts_of("user@h:/d/t") == "user@h|/d/t");
	CHECK(hosts_of("[::1]:/d/t") == "::1|/d/t");
	CHECK(hosts_of("user@[::1]:/d/t") == "user@::1|/d/t");	// was host "user@[", path ":1]:/d/t"
	CHECK(hosts_of("user@[fe80::1%eth0]") == "user@fe80::1%eth0|");
	CHECK(hosts_of("user@::1") == "user@::1|");	// was host "user@", path ":1"
	CHECK(hosts_of("::1") == "::1|");
	CHECK(hosts_of("ssh://user@h:22") == "ssh://user@h:22|");	// was host "ssh", path "//user@h:22"
	CHECK(hosts_of("ssh://user@h:22/data/t") == "ssh://user@h:22|/data/t");
	CHECK(hosts_of("user@:/d") == "--hosts user@:/d: an empty host name (HOST[:PATH],...)");
	CHECK(hosts_of("-oProxyCommand=x") == "--hosts -oProxyCommand=x: \"-oProxyCommand=x\": a host name cannot start with '-'");
}

TEST_CASE("parse_hosts: ranges node[01-16], lists inside brackets, and their errors")
{
	CHECK(hosts_of("node[1-3]") == "node1| node2| node3|");
	CHECK(hosts_of("node[08-11]:/d") == "node08|/d node09|/d node10|/d node11|/d");
	CHECK(hosts_of("n[1-2,7],m") == "n1| n2| n7| m|");
	CHECK(hosts_of("rack[1-2]-node") == "rack1-node| rack2-node|");
	std::vector<HostSpec> hosts;
	REQUIRE(!parse_hosts("node[01-16]", "--hosts", hosts));
	CHECK(hosts.size() == 16);
	CHECK(hosts[15].label == "node16");
	CHECK(hosts_of("node[3-1]") == "--hosts node[3-1]: \"[3-1]\": a range is [A-B] or [A-B,C,...] of whole numbers, A <= B");
	CHECK(hosts_of("node[a-b]").find("a range is [A-B]") != std::string::npos);
	CHECK(hosts_of("node[0-999999]") == "--hosts node[0-999999]: over 100000 hosts");
}

TEST_CASE("remote_script: the end of standard input stops the remote sdb (SIGTERM), which reports")
{
	std::string script = remote_script("sdb '--write' --json");
	CHECK(script.rfind("sh -c 'echo sdb: connected >&2; exec 3<&0; sdb '\\''--write'\\'' --json </dev/null & p=$!;", 0) == 0);
	// Run it here: a stand-in "sdb" that waits for SIGINT, then prints its report.
	std::string stand_in = "trap 'echo stopped; exit 143' TERM; echo ready; while :; do sleep 0.05; done";
	std::string cmd = remote_script("sh -c " + shell_quote(stand_in));
	Fd in[2], out[2];
	REQUIRE(!make_pipe(in));
	REQUIRE(!make_pipe(out));
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		dup2(in[0].get(), 0);
		dup2(out[1].get(), 1);
		dup2(open("/dev/null", O_WRONLY), 2);	// its connected line
		execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char *>(nullptr));
		_exit(127);
	}
	in[0].reset();
	out[1].reset();
	std::string text;
	char buf[256];
	while (text.find("ready") == std::string::npos) {	// the sign: the stand-in is running
		ssize_t n = read(out[0].get(), buf, sizeof buf);
		REQUIRE(n > 0);
		text.append(buf, static_cast<std::size_t>(n));
	}
	in[1].reset();	// what Ctrl-C and --host-timeout do
	for (ssize_t n; (n = read(out[0].get(), buf, sizeof buf)) > 0;)
		text.append(buf, static_cast<std::size_t>(n));
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(text == "ready\nstopped\n");
	CHECK(WIFEXITED(status));
	CHECK(WEXITSTATUS(status) == 143);
}

TEST_CASE("note_connected: the session's first line taken out of its stderr, after ssh's own words, once")
{
	Remote r;
	r.err_text = "sdb: connec";	// not all of it yet
	note_connected(r);
	CHECK_FALSE(r.connected);
	r.err_text = "Warning: Permanently added 'n1' to the list of known hosts.\nxsdb: connected\n";
	note_connected(r);
	CHECK_FALSE(r.connected);	// not a line of its own
	r.err_text = "Warning: Permanently added 'n1' to the list of known hosts.\nsdb: connected\nsdb: progress: 1.0 s, 5 bytes\n";
	note_connected(r);
	CHECK(r.connected);
	CHECK(r.err_text == "Warning: Permanently added 'n1' to the list of known hosts.\nsdb: progress: 1.0 s, 5 bytes\n");
}

TEST_CASE("remote_failure: output that is not a result says why, not \"no result\"")
{
	Remote r;
	r.spawned = true;
	r.status = 0;	// exit 0
	CHECK(remote_failure(r, false, "not valid JSON (byte 0: not a JSON value)", false) == "not valid JSON (byte 0: not a JSON value)");
	CHECK(remote_failure(r, false, "", false) == "exit 0, and no result on its standard output");
	r.err_text = "sdb: /d/t: No space left on device\n";
	r.status = 1 << 8;	// exit 1, its own error line
	CHECK(remote_failure(r, false, "not valid JSON (byte 0: not a JSON value)", false) == "/d/t: No space left on device");
	r.timed_out = true;
	CHECK(remote_failure(r, false, "", false).rfind("no answer within --host-timeout: stopped", 0) == 0);
	CHECK(remote_failure(r, true, "", false).empty());
}

} // TEST_SUITE("hosts")
