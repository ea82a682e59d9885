// Unit tests of src/options.h: parse_args() for every option and its usage
// errors, -f's %h and %r, --start-at's times.
#include "../../src/options.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

TEST_SUITE("options") {

TEST_CASE("parse_args: defaults and every option, short and long")
{
	Parsed p = Args{"-w", "-f", "x"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.op == Options::Op::write);
	CHECK(p.opt.file == "x");
	CHECK(p.opt.block_size == 0);	// resolved later: 1m seq, 4k rand
	CHECK(p.opt.size == 0);
	CHECK(p.opt.threads == 1);
	CHECK_FALSE(p.opt.random);
	CHECK(p.opt.time_limit == 0);
	CHECK(p.opt.queue_depth == 1);

	p = Args{"-r", "-f", "y", "-b", "4k", "-s", "8m", "-j", "3", "-m", "rand", "-t", "1.5", "-D", "-S", "-R",
		 "-T", "-v", "-q", "1", "--json", "--force"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.op == Options::Op::read);
	CHECK(p.opt.block_size == 4096);
	CHECK(p.opt.size == 8 * MiB);
	CHECK(p.opt.threads == 3);
	CHECK(p.opt.random);
	CHECK(p.opt.time_limit == 1.5);
	CHECK((p.opt.direct && p.opt.sync && p.opt.random_buffer && p.opt.timing && p.opt.verbose && p.opt.json &&
	       p.opt.force));

	p = Args{"--read", "--file=z", "--block-size", "64m", "--size=1g", "--threads", "2", "--mode", "seq",
		 "--time", "3", "--direct", "--sync", "--random-buffer", "--timing", "--verbose", "--queue-depth",
		 "1"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.file == "z");
	CHECK(p.opt.block_size == 64 * MiB);
	CHECK(p.opt.size == GiB);
	CHECK(p.opt.threads == 2);
	CHECK(p.opt.time_limit == 3.0);
	CHECK((p.opt.direct && p.opt.sync && p.opt.random_buffer && p.opt.timing && p.opt.verbose));

	p = Args{"--write", "-f", "c", "--cached"}.parse();
	REQUIRE_FALSE(p.error);
	CHECK(p.opt.cached);
}

TEST_CASE("parse_args: help and version win over everything else")
{
	CHECK(Args{"-h"}.parse().action == Action::help);
	CHECK(Args{"--help", "-x"}.parse().action == Action::help);
	CHECK(Args{"-V"}.parse().action == Action::version);
	CHECK(Args{"-w", "--version"}.parse().action == Action::version);
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
		{{"-w", "-f", "x", "--runs", "2"}, "--runs: only meaningful with --quick"},
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

TEST_CASE("parse_args: -T alone needs no target")
{
	Parsed p = Args{"-T"}.parse();
	CHECK_FALSE(p.error);
	CHECK(p.opt.op == Options::Op::none);
	CHECK(p.opt.timing);
}

TEST_CASE("expand_name: %h, %r and %% in -f; any other % is a usage error")
{
	std::string name;
	CHECK_FALSE(expand_name("/pfs/t.%h.%r", "node7", "3", name));
	CHECK(name == "/pfs/t.node7.3");
	CHECK_FALSE(expand_name("plain", "h", "0", name));
	CHECK(name == "plain");
	CHECK_FALSE(expand_name("100%%-%h%h", "a", "0", name));
	CHECK(name == "100%-aa");
	CHECK_FALSE(expand_name("%%h", "a", "0", name));	// a literal "%h"
	CHECK(name == "%h");
	Error e = expand_name("t.%q", "a", "0", name);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("-f t.%q: %q is not a pattern") != std::string::npos);
	e = expand_name("t.%", "a", "0", name);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("a lone % at the end") != std::string::npos);
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

TEST_CASE("parse_start_at: Unix seconds or +SEC, within a day of now")
{
	const std::int64_t now = 1764500000LL * 1000000000 + 123;
	std::int64_t at = 0;
	CHECK_FALSE(parse_start_at("1764500000.25", now, "--start-at", at));
	CHECK(at == 1764500000LL * 1000000000 + 250000000);
	CHECK_FALSE(parse_start_at("+2", now, "--start-at", at));
	CHECK(at == now + 2000000000);
	CHECK_FALSE(parse_start_at("+0.000001", now, "--start-at", at));
	CHECK(at == now + 1000);
	CHECK_FALSE(parse_start_at("1764500000.1234567891", now, "--start-at", at));	// nanoseconds kept, the rest dropped
	CHECK(at == 1764500000LL * 1000000000 + 123456789);
	CHECK_FALSE(parse_start_at("1764413601", now, "--start-at", at));	// a day ago, less a second: a warning later
	CHECK_FALSE(parse_start_at("+86400", now, "--start-at", at));
	for (const char *bad : {"", "+", ".", "x", "+x", "-5", "1e9", " 1764500000", "1764500000s", "+-1", "0x10",
				"99999999999999999999"}) {
		Error e = parse_start_at(bad, now, "--start-at", at);
		CHECK_MESSAGE(e.status == exit_usage, bad);
		CHECK_MESSAGE(e.msg.find("a time is Unix seconds") != std::string::npos, e.msg);
	}
	for (const char *far : {"+86401", "5", "1764413599", "1764586401", "9999999999"}) {
		Error e = parse_start_at(far, now, "--start-at", at);
		CHECK_MESSAGE(e.status == exit_usage, far);
		CHECK_MESSAGE(e.msg.find("more than a day") != std::string::npos, e.msg);
	}
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

TEST_CASE("parse_args: -s smaller than the -b given (or random mode's 4k) is a usage error")
{
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-w", "-f", "x", "-s", "100", "-b", "4k"}, "-s 100 B is smaller than one 4 KiB block:"},
		{{"-r", "-f", "x", "-s", "2k", "-m", "rand"}, "-s 2 KiB is smaller than one 4 KiB block (the default -b)"},
		{{"-M", "50", "-f", "x", "-s", "1m", "-b", "2m"}, "-s 1 MiB is smaller than one 2 MiB block"},
	};
	for (const Case &c : cases) {
		Parsed q = Args(c.args).parse();
		CHECK_MESSAGE(q.error.status == exit_usage, c.message);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg << " / " << c.message);
	}
	CHECK_FALSE(Args{"-w", "-f", "x", "-s", "1m"}.parse().error);	// one whole block
	CHECK_FALSE(Args{"-w", "-f", "x", "-s", "100"}.parse().error);	// no -b: the block is the size (make_plan)
	CHECK_FALSE(Args{"-w", "-f", "x", "-s", "5m", "-b", "4m"}.parse().error);	// the last block short: fine
}

TEST_CASE("parse_args: -t and --ramp take 5s, 2m, 1h; range errors name the limits")
{
	CHECK(Args{"-w", "-f", "x", "-t", "5s"}.parse().opt.time_limit == 5);
	CHECK(Args{"-w", "-f", "x", "-t", "2m"}.parse().opt.time_limit == 120);
	CHECK(Args{"-w", "-f", "x", "-t", "1.5h"}.parse().opt.time_limit == 5400);
	CHECK(Args{"-w", "-f", "x", "--time=2.5"}.parse().opt.time_limit == 2.5);
	CHECK(Args{"-w", "-f", "x", "--ramp", "2m", "-t", "1"}.parse().opt.ramp == 120);
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-w", "-f", "x", "-t", "5x"}, "-t 5x: time must be a positive number of seconds, at most a year (366 days)"},
		{{"-w", "-f", "x", "-t", "367d"}, "-t 367d: time must be"},
		{{"-w", "-f", "x", "-t", "9000h"}, "-t 9000h: time must be a positive number of seconds, at most a year"},
		{{"-w", "-f", "x", "-t", "s"}, "-t s: time must be"},
		{{"-w", "-f", "x", "-t", "0m"}, "-t 0m: time must be"},
		{{"-w", "-f", "x", "--ramp", "1ms"}, "--ramp 1ms: ramp must be a positive number of seconds, at most a year"},
		{{"-w", "-f", "x", "--fsync", "1000000000"}, "--fsync 1000000000: writes per fdatasync must be a whole number from 1 to 999999999"},
	};
	for (const Case &c : cases) {
		Parsed q = Args(c.args).parse();
		CHECK_MESSAGE(q.error.status == exit_usage, c.message);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg << " / " << c.message);
	}
}

TEST_CASE("parse_args: an ambiguous long option names its candidates, an unknown one the nearest")
{
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"-w", "-f", "x", "--q", "4"}, "--q: ambiguous: --queue-depth or --quick?"},
		{{"-w", "-f", "x", "--qu"}, "--qu: ambiguous: --queue-depth or --quick?"},
		{{"-w", "-f", "x", "--ra", "1"}, "--ra: ambiguous: --random-buffer, --ramp or --rate?"},
		{{"-w", "-f", "x", "--queue-dpeth", "4"}, "--queue-dpeth: unknown option; did you mean --queue-depth?"},
		{{"-w", "-f", "x", "--verfy"}, "--verfy: unknown option; did you mean --verify?"},
		{{"-w", "-f", "x", "--blocksize=4k"}, "--blocksize: unknown option; did you mean --block-size?"},
		{{"-w", "-f", "x", "--nope"}, "--nope: unknown option; see sdb --help"},
		{{"-w", "-f", "x", "-x"}, "-x: unknown option; see sdb --help"},
	};
	for (const Case &c : cases) {
		Parsed q = Args(c.args).parse();
		CHECK_MESSAGE(q.error.status == exit_usage, c.message);
		CHECK_MESSAGE(q.error.msg.find(c.message) != std::string::npos, q.error.msg << " / " << c.message);
	}
	CHECK(Args{"-w", "-f", "x", "--que", "4"}.parse().opt.queue_depth == 4);	// a prefix of one option: that one
	CHECK(edit_distance("queue-dpeth", "queue-depth") == 1);
	CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("start_late_warning: a clock jump during --start-at's wait is not blamed on the preparation")
{
	const std::int64_t s = 1000000000, at = 1764500000 * s;
	std::string slow = start_late_warning(at, at + 3 * s, 3 * s);	// ready 3 s after the time
	CHECK(slow == "--start-at: the time was 3.000 s past when the threads were ready; the run started at once");
	std::string jump = start_late_warning(at, at - 5 * s, 3600 * s);	// ready 5 s early; the clock set an hour on
	CHECK(jump.find("the barrier opened 3600.000 s past the time, though the threads were ready 5.000 s before it") !=
	      std::string::npos);
	CHECK(jump.find("the real-time clock jumped forward (or sdb was stopped) during the wait") != std::string::npos);
	CHECK(jump.find("past when the threads were ready") == std::string::npos);
}

} // TEST_SUITE("options")
