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

TEST_CASE("launcher_warnings: a relative --start-at under srun or mpirun")
{
	Parsed p = Args{"-w", "-f", "t", "--start-at", "+10"}.parse();
	REQUIRE(!p.error);
	for (const char *v : {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
		unsetenv(v);
	CHECK(launcher_warnings(p.opt).empty());
	setenv("SLURM_PROCID", "3", 1);
	std::vector<std::string> w = launcher_warnings(p.opt);
	REQUIRE(w.size() == 1);
	CHECK(w[0].rfind("--start-at +10 under a launcher (SLURM_PROCID is set): each rank counts from its own start", 0) == 0);
	Parsed absolute = Args{"-w", "-f", "t", "--start-at", format("%lld", static_cast<long long>(realtime_ns() / 1000000000 + 10)).c_str()}.parse();
	REQUIRE(!absolute.error);
	CHECK(launcher_warnings(absolute.opt).empty());
	unsetenv("SLURM_PROCID");
}

} // TEST_SUITE("options")
