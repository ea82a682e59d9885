// Unit tests of src/hosts.h: the command each host runs, and ssh's.
#include "../../src/hosts.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdlib>
#include <string>
#include <vector>

TEST_SUITE("hosts") {

TEST_CASE("remote_command: this run's options, quoted, with the host's PATH and a common start")
{
	CHECK(shell_quote("it's $HOME") == "'it'\\''s $HOME'");
	unsetenv("SDB_REMOTE");
	Parsed p = Args{"-w", "-f", "/d/t", "--hosts", "a,b:/e/it's", "-s", "64m", "-D", "--json"}.parse();
	REQUIRE(!p.error);
	CHECK(remote_command(p.opt, p.opt.hosts[0], 1700000000.25) ==
	      "sdb '--write' '--size=64m' '--direct' '--file=/d/t' --json '--start-at=1700000000.250'");
	CHECK(remote_command(p.opt, p.opt.hosts[1], 1700000000.25) ==
	      "sdb '--write' '--size=64m' '--direct' '--file=/e/it'\\''s' --json '--start-at=1700000000.250'");
	setenv("SDB_REMOTE", "/opt/sdb/bin/sdb", 1);
	CHECK(remote_command(p.opt, p.opt.hosts[0], 1).rfind("/opt/sdb/bin/sdb '--write'", 0) == 0);
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

} // TEST_SUITE("hosts")
