// modes: the command line held to its mode's rules, as sdb holds it
// (check_modes: check_given, then the chosen row's check).  The whole
// program is included, as tests/fuzz_parse.cpp does, since the rules of
// a mode live in its module.
#define SDB_NO_MAIN
#define SDB_TEST_CHECK check_modes
#include "../../sdb.cpp"
#include "scratch.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

TEST_SUITE("modes") {

TEST_CASE("chosen_mode: the first row that says so, in the table's order")
{
	CHECK(std::string(chosen_mode(Args{"--compare", "a", "b"}.parse().opt).name) == "--compare");
	CHECK(std::string(chosen_mode(Args{"-r", "-f", "x", "--sweep", "--explain"}.parse().opt).name) == "--sweep");
	CHECK(std::string(chosen_mode(Args{"-r", "-f", "x", "--explain"}.parse().opt).name) == "--explain");
	CHECK(std::string(chosen_mode(Args{"--quick", "-f", "d", "--explain"}.parse().opt).name) == "--explain");
	CHECK(std::string(chosen_mode(Args{"--quick", "-f", "d"}.parse().opt).name) == "--quick");
	CHECK(std::string(chosen_mode(Args{"--hosts", "h:/x", "-w"}.parse().opt).name) == "--hosts");
	CHECK(std::string(chosen_mode(Args{"-T"}.parse().opt).name) == "-T");
	CHECK(std::string(chosen_mode(Args{"-w", "-f", "x"}.parse().opt).name) == "-w, -r, -M");
}

TEST_CASE("parse_args: usage errors name the option and value")
{
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{}, "one of -w (write), -r (read) or -M (mix) is required"},
		{{"-w"}, "-f FILE is required with -w"},
		{{"-w", "-r", "-f", "x"}, "-w and -r: choose one"},
		{{"-r", "-f", "x", "-b", "12x"}, "-b 12x: invalid size"},
		{{"-r", "-f", "x", "--block-size=0"}, "--block-size 0: invalid size"},
		{{"-r", "-f", "x", "-s", "-5"}, "-s -5: invalid size"},
		{{"-r", "-f", "x", "-j", "0"}, "-j 0: threads must be"},
		{{"-r", "-f", "x", "--threads", "5000"}, "--threads 5000: threads must be"},
		{{"-r", "-f", "x", "-m", "random"}, "-m random: mode must be seq or rand"},
		{{"-r", "-f", "x", "-t", "-1"}, "-t -1: time must be"},
		{{"-r", "-f", "x", "-q", "0"}, "-q 0: queue depth must be"},
		{{"-r", "-f", "x", "-x"}, "-x: unknown option"},
		{{"-r", "-f", "x", "--nope"}, "--nope: unknown option"},
		{{"-r", "-f"}, "-f: missing argument"},
		{{"-r", "-f", "x", "--size"}, "--size: missing argument"},
		{{"-r", "-f", "x", "extra"}, "extra: unexpected argument"},
		{{"-r", "-f", ""}, "-f: empty file name"},
		{{"-r", "-f", "x", "-D", "--cached"}, "--cached and -D"},
		{{"-w", "-f", "x", "--keep"}, "--keep: only meaningful with --quick"},
		{{"--json", "-xw"}, "-x: unknown option"},
		{{"--time=1", "-?w"}, "-?: unknown option"},
		{{"-r", "-f", "x", "--json=1"}, "--json: takes no value"},
		{{"-r", "-f", "x", "-Db"}, "-b: missing argument"},
		{{"-T", "-f", "x"}, "-f x: needs -w, -r or -M"},
		{{"-T", "-D", "--cached"}, "--cached and -D"},
		{{"--quick"}, "--quick needs -f PATH"},
		{{"--quick", "-f", "d", "-m", "rand"}, "--quick and -m"},
		{{"--quick=fast", "-f", "d"}, "--quick=fast: unknown profile"},
		{{"--quick=", "-f", "d"}, "--quick=: unknown profile"},
		{{"--quick", "-f", "d", "--runs", "0"}, "--runs 0: runs must be"},
		{{"--quick", "-f", "d", "--runs=101"}, "--runs 101: runs must be"},
		{{"--quick", "-f", "d", "--runs"}, "--runs: missing argument"},
		{{"-w", "-f", "x", "--runs", "2", "--explain"}, "--runs: repeats a -w, -r or -M run or a --quick suite (--explain runs nothing)"},
		{{"-r", "-f", "x", "--runs", "2", "--probe"}, "--runs: repeats a -w, -r or -M run or a --quick suite (--probe runs once)"},
		{{"-w", "-f", "x", "--explain", "--json"}, "--explain and --json"},
		{{"-T", "--explain"}, "--explain: needs -w, -r, -M or --quick"},
		{{"-w", "-f", "x", "--explain=1"}, "--explain: takes no value"},
	};
	for (const Case &c : cases) {
		Parsed p = Args(c.args).parse();
		CHECK_MESSAGE(p.error.status == exit_usage, c.message);
		CHECK_MESSAGE(p.error.msg.find(c.message) != std::string::npos, p.error.msg);
		CHECK(p.error.msg.find('\n') == std::string::npos);
	}
}

TEST_CASE("parse_args: --fsync, -M/--mix and --ramp, and their usage errors")
{
	Parsed p = Args{"-M", "70", "-f", "x", "--fsync=4", "--ramp", "1.5"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.op == Options::Op::mix);
	CHECK(p.opt.mix == 70);
	CHECK(p.opt.fsync_every == 4);
	CHECK(p.opt.ramp == 1.5);
	CHECK(Args{"--mix=0", "-f", "x"}.parse().opt.mix == 0);
	CHECK(Args{"-M", "100", "-M", "100", "-f", "x"}.parse().opt.mix == 100);
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-M", "101", "-f", "x"}, "-M 101: the share of reads must be"},
		{{"--mix", "-1", "-f", "x"}, "--mix -1: the share of reads must be"},
		{{"--mix", "7x", "-f", "x"}, "--mix 7x: the share of reads must be"},
		{{"-M", "70", "-w", "-f", "x"}, "-M and -w or -r"},
		{{"-r", "-M", "70", "-f", "x"}, "-M and -w or -r"},
		{{"-w", "-f", "x", "--fsync", "0"}, "--fsync 0: writes per fdatasync"},
		{{"-w", "-f", "x", "--fsync", "x"}, "--fsync x: writes per fdatasync"},
		{{"-r", "-f", "x", "--fsync", "1"}, "--fsync and -r"},
		{{"-w", "-f", "x", "--fsync", "1", "-q", "4"}, "--fsync and -q 4"},
		{{"-T", "--fsync", "1"}, "--fsync: needs a test"},
		{{"-w", "-f", "x", "--ramp", "-1"}, "--ramp -1: ramp must be"},
		{{"-w", "-f", "x", "--ramp", "0"}, "--ramp 0: ramp must be"},
		{{"--quick", "-f", "d", "--ramp", "1"}, "--quick and --ramp"},
		{{"--quick", "-f", "d", "-M", "50"}, "--quick and -M"},
	};
	for (const Case &c : cases) {
		Parsed q = Args(c.args).parse();
		CHECK_MESSAGE(q.error.status == exit_usage, c.message);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg << " / " << c.message);
	}
}

TEST_CASE("parse_args: --rate and --sweep, and their usage errors")
{
	Parsed p = Args{"-r", "-f", "x", "--rate", "5k"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.rate.per_second == 5000);
	CHECK_FALSE(p.opt.rate.bytes);
	p = Args{"-w", "-f", "x", "--rate=200m/s", "-q", "4"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.rate.per_second == 200.0 * 1048576);
	CHECK(p.opt.rate.bytes);
	p = Args{"-M", "70", "-f", "x", "--sweep", "-t", "2", "--html", "s.html"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.sweep);
	CHECK(p.opt.html == "s.html");
	CHECK_FALSE(Args{"-r", "-f", "x", "--sweep", "--explain"}.parse().error);
	CHECK(Args{"-r", "-f", "x"}.parse().opt.rate.per_second == 0);	// closed loop by default
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-r", "-f", "x", "--rate", "0"}, "--rate 0: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "-5"}, "--rate -5: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "5x"}, "--rate 5x: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "/s"}, "--rate /s: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "0/s"}, "--rate 0/s: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "nan"}, "--rate nan: a rate is a positive number"},
		{{"-r", "-f", "x", "--rate", "1e300"}, "--rate 1e300: a rate is a positive number"},
		{{"-T", "--rate", "5k"}, "--rate: needs a test"},
		{{"-T", "--sweep"}, "--sweep: needs a test"},
		{{"-r", "-f", "x", "--sweep", "--rate", "1k"}, "--sweep and --rate"},
		{{"-w", "-f", "x", "--sweep", "--verify"}, "--sweep and --verify"},
		{{"-r", "-f", "x", "--sweep", "--start-at", "+5"}, "--sweep and --start-at"},
		{{"-r", "-f", "x", "--sweep", "--hosts", "a,b"}, "--sweep and --hosts"},
		{{"--quick", "-f", "d", "--sweep"}, "--quick and --sweep"},
		{{"--quick", "-f", "d", "--rate", "1k"}, "--quick and --rate"},
	};
	for (const Case &c : cases) {
		Parsed q = Args(c.args).parse();
		CHECK_MESSAGE(q.error.status == exit_usage, c.message);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg << " / " << c.message);
	}
}

TEST_CASE("parse_args: -f is expanded once, with the launcher's rank")
{
	setenv("SLURM_PROCID", "5", 1);
	setenv("PMI_RANK", "9", 1);
	Parsed p = Args{"-w", "-f", "t.%r", "-j", "2"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.file == "t.5");	// SLURM_PROCID comes first
	unsetenv("SLURM_PROCID");
	p = Args{"-w", "-f", "t.%r"}.parse();
	CHECK(p.opt.file == "t.9");
	setenv("PMI_RANK", "x/y", 1);
	p = Args{"-w", "-f", "t.%r"}.parse();
	CHECK(p.error.status == exit_usage);
	CHECK(p.error.msg.find("PMI_RANK=x/y is not a rank") != std::string::npos);
	p = Args{"-w", "-f", "t.%h"}.parse();	// a bad rank matters only where %r is used
	CHECK_FALSE(p.error);
	p = Args{"-w", "-f", "t.%%r"}.parse();
	CHECK_FALSE(p.error);
	CHECK(p.opt.file == "t.%r");
	unsetenv("PMI_RANK");
	p = Args{"-w", "-f", "t.%r.%h"}.parse();
	CHECK(p.opt.file == "t.0." + short_host_name());
	CHECK(short_host_name().find('.') == std::string::npos);
	p = Args{"--quick", "-f", "d.%r"}.parse();
	CHECK(p.opt.file == "d.0");
	p = Args{"-r", "-f", "%z"}.parse();
	CHECK(p.error.msg == "-f %z: %z is not a pattern (%h host, %r rank, %% a percent sign)");
}

TEST_CASE("parse_args: --start-at is for one -w or -r run")
{
	std::int64_t before = realtime_ns();
	Parsed p = Args{"-r", "-f", "x", "--start-at", "+1.5"}.parse();
	std::int64_t after = realtime_ns();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.start_at_ns >= before + 1500000000);	// 1.5 s after the clock read during the parse
	CHECK(p.opt.start_at_ns <= after + 1500000000);
	CHECK(Args{"--quick", "-f", "d", "--start-at", "+1"}.parse().error.msg.find("--start-at and --quick") !=
	      std::string::npos);
	CHECK(Args{"-w", "-f", "x", "--explain", "--start-at", "+1"}.parse().error.msg.find("--start-at and --explain") !=
	      std::string::npos);
	CHECK(Args{"-T", "--start-at", "+1"}.parse().error.msg.find("--start-at: needs -w, -r or -M") != std::string::npos);
	CHECK(Args{"-w", "-f", "x", "--start-at=soon"}.parse().error.status == exit_usage);
}

TEST_CASE("parse_args: --verify and what it cannot go with")
{
	Parsed ok = Args({"-w", "-f", "x", "--verify"}).parse();
	CHECK(!ok.error);
	CHECK(ok.opt.verify);
	CHECK(ok.opt.random_buffer);	// -R implied: the pattern is the content
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-w", "-f", "x", "--verify", "--cached"}, "--verify and --cached"},
		{{"-r", "-f", "x", "--verify", "-b", "2k"}, "--verify needs -b a multiple of 4k"},
		{{"-w", "-f", "x", "--verify", "-b", "6k"}, "--verify needs -b a multiple of 4k"},
		{{"-w", "-f", "x", "--verify", "-s", "4100"}, "--verify needs -s a multiple of 4k"},
		{{"-T", "--verify"}, "--verify: needs -w or -r"},
		{{"--quick", "-f", "d", "--verify"}, "--quick and --verify"},
		{{"-w", "-f", "x", "--verify=1"}, "--verify: takes no value"},
	};
	for (const Case &c : cases) {
		Parsed p = Args(c.args).parse();
		CHECK_MESSAGE(p.error.status == exit_usage, c.message);
		CHECK_MESSAGE(p.error.msg.find(c.message) != std::string::npos, p.error.msg);
	}
}

TEST_CASE("parse_args: --merge takes files, --hosts a list; neither goes with what it cannot use")
{
	Parsed p = Args{"--merge", "a.json", "-", "--json"}.parse();
	REQUIRE(!p.error);
	CHECK(p.opt.merge);
	CHECK(p.opt.merge_files == std::vector<std::string>{"a.json", "-"});
	p = Args{"--hosts", "n1,n2:/data/t,[::1]:/x,user@n3", "-w", "-f", "t", "-s", "64m", "-D"}.parse();
	REQUIRE(!p.error);
	REQUIRE(p.opt.hosts.size() == 4);
	CHECK(p.opt.hosts[0].host == "n1");
	CHECK(p.opt.hosts[0].path.empty());
	CHECK(p.opt.hosts[1].path == "/data/t");
	CHECK(p.opt.hosts[2].host == "::1");
	CHECK(p.opt.hosts[2].path == "/x");
	CHECK(p.opt.hosts[3].host == "user@n3");
	CHECK(!Args{"--hosts", "a:/x,b:/y", "-r"}.parse().error);	// every host has its PATH: no -f needed
	for (std::initializer_list<const char *> html : {std::initializer_list<const char *>{"--merge", "a", "--html", "p"},
							 {"--compare", "a", "b", "--json", "--html=p"},
							 {"--quick", "-f", "d", "--html", "p"},
							 {"--hosts", "h:/x", "-w", "--html", "p"}})
		CHECK_MESSAGE(!Args(html).parse().error, *html.begin());	// --html draws every mode's results
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"--merge"}, "--merge: needs FILE..."},
		{{"--merge", "a", "-w"}, "--merge and --write: --merge reads saved results"},
		{{"--merge", "a", "-f", "x"}, "--merge and --file: "},
		{{"--merge", "a", "--hosts", "h"}, "--merge and --hosts: "},
		{{"--html", "p", "-r", "-f", "x", "--explain"}, "--html: draws a -w, -r or -M run, a quick suite"},
		{{"--html", "p", "-T"}, "--html: draws a -w, -r or -M run, a quick suite"},
		{{"--compare", "a", "b", "--html", "p", "-w"}, "--compare and --write: "},
		{{"--compare", "-", "-"}, "--compare - -: standard input given twice"},
		{{"a.json"}, "a.json: unexpected argument"},
		{{"--hosts", "h", "--quick", "-f", "d"}, "--hosts and --quick: "},
		{{"--hosts", "h", "-w", "-f", "x", "--explain"}, "--hosts and --explain: "},
		{{"--hosts", "h", "-f", "x"}, "--hosts: needs -w, -r or -M"},
		{{"--hosts", "h,g:/x", "-w"}, "--hosts: needs -f FILE, or a PATH for every host"},
		{{"--hosts", "h,,g", "-w", "-f", "x"}, "--hosts h,,g: an empty host name"},
		{{"--hosts", "h:", "-w", "-f", "x"}, "--hosts h:: \"h:\": empty PATH after ':'"},
		{{"--hosts", "-oProxyCommand=x", "-w", "-f", "x"}, "a host name cannot start with '-'"},
		{{"--hosts", "a b", "-w", "-f", "x"}, "cannot hold spaces"},
	};
	for (const Case &c : cases) {
		Args a(c.args);
		Parsed q = a.parse();
		CHECK_MESSAGE(q.error.status == exit_usage, q.error.msg);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg);
	}
}

TEST_CASE("--hosts @FILE: a host a line, # comments; --fanout and --host-timeout")
{
	std::string name_storage = scratch_name("sdb-hosts-XXXXXX");
	char *name = name_storage.data();
	int fd = mkstemp(name);
	REQUIRE(fd >= 0);
	const char text[] = "# the storage nodes\nnode[1-2]:/data/t\n\n  user@[::1]:/x   # loopback\nlast\n";
	REQUIRE(write(fd, text, sizeof text - 1) == static_cast<ssize_t>(sizeof text - 1));
	close(fd);
	std::string at = std::string("@") + name;
	Parsed p = Args{"-w", "-f", "t", "--hosts", at.c_str(), "--fanout", "2", "--host-timeout", "30"}.parse();
	REQUIRE_MESSAGE(!p.error, p.error.msg);
	REQUIRE(p.opt.hosts.size() == 4);
	CHECK(p.opt.hosts[0].host + p.opt.hosts[0].path == "node1/data/t");
	CHECK(p.opt.hosts[2].host == "user@::1");
	CHECK(p.opt.hosts[2].label == "user@[::1]:/x");
	CHECK(p.opt.hosts[3].host == "last");
	CHECK(p.opt.fanout == 2);
	CHECK(p.opt.host_timeout == 30);
	// Local options stay here.
	std::string cmd = remote_command(p.opt, p.opt.hosts[0], 1);
	CHECK(cmd.find("fanout") == std::string::npos);
	CHECK(cmd.find("host-timeout") == std::string::npos);
	unlink(name);
	Parsed missing = Args{"-w", "-f", "t", "--hosts", "@/nonexistent/hosts"}.parse();
	CHECK(missing.error.msg == "--hosts @/nonexistent/hosts: No such file or directory");
	CHECK(Args{"-w", "-f", "t", "--fanout", "2"}.parse().error.msg == "--fanout: only meaningful with --hosts");
	CHECK(Args{"-w", "-f", "t", "--hosts", "a", "--host-timeout", "0"}.parse().error.msg ==
	      "--host-timeout 0: the timeout must be a positive number of seconds, at most a year (366 days)");
	CHECK(Args{"-w", "-f", "t", "--hosts", "a", "--host-timeout", "99999999999"}.parse().error.msg ==
	      "--host-timeout 99999999999: the timeout must be a positive number of seconds, at most a year (366 days)");
	CHECK_FALSE(Args{"-w", "-f", "t", "--hosts", "a,b,c", "--fanout", "2", "--start-at", "+5"}.parse().error);	// all run at once
}

TEST_CASE("parse_args: --quick[=PROFILE], --runs, --explain")
{
	Parsed p = Args{"--quick", "-f", "d"}.parse();
	REQUIRE_FALSE(p.error);
	REQUIRE(p.opt.profile != nullptr);
	CHECK(std::string(p.opt.profile->name) == "default");
	CHECK(quick_runs(p.opt) == 3);
	CHECK(quick_seconds(p.opt) == 5);
	p = Args{"--quick=nvme", "-f", "d", "--runs", "1", "-t", "0.5", "--explain"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(std::string(p.opt.profile->name) == "nvme");
	CHECK(quick_runs(p.opt) == 1);
	CHECK(quick_seconds(p.opt) == 0.5);
	CHECK(p.opt.explain);
	p = Args{"-r", "-f", "x", "--explain"}.parse();
	CHECK_FALSE(p.error);
	p = Args{"--quick", "nvme", "-f", "d"}.parse();	// an optional argument takes '='
	CHECK(p.error.msg.find("nvme: unexpected argument") != std::string::npos);
}

} // TEST_SUITE("modes")
