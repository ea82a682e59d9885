// Unit tests for the pure parts of sdb.cpp: SIZE parsing, option parsing
// and validation, the random-order permutation, the latency histogram,
// JSON escaping, formatting and the timeline.  tests/cli.sh drives the
// real binary for everything that touches files and devices.
//
// sdb.cpp is compiled into this translation unit with SDB_NO_MAIN, so its
// internal functions are callable and there is no second copy of any code.
// It is included first so that it must stand on its own includes.
#define SDB_NO_MAIN
#include "../sdb.cpp"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <initializer_list>
#include <set>
#include <string>
#include <vector>

TEST_CASE("parse_size accepts numbers with binary suffixes")
{
	CHECK(parse_size("512") == 512u);
	CHECK(parse_size("1") == 1u);
	CHECK(parse_size("4k") == 4096u);
	CHECK(parse_size("4K") == 4096u);
	CHECK(parse_size("64m") == 64u * 1048576);
	CHECK(parse_size("64M") == 64u * 1048576);
	CHECK(parse_size("64MiB") == 64u * 1048576);
	CHECK(parse_size("64MB") == 64u * 1048576);
	CHECK(parse_size("4kiB") == 4096u);
	CHECK(parse_size("1G") == 1073741824u);
	CHECK(parse_size("2t") == 2ULL << 40);
	CHECK(parse_size("16777215t") == 16777215ULL << 40);	// largest t that fits
	CHECK(parse_size("18446744073709551615") == UINT64_MAX);
}

TEST_CASE("parse_size rejects zero, signs, junk and overflow")
{
	for (const char *bad : {"", "0", "0k", "-1", "+1", " 1", "1 ", "12x", "4kk", "k", "4KIB", "4ib",
				"4b", "1.5m", "0x10", "1e3", "18446744073709551616", "17179869184G", "16777216t",
				"99999999999999999999999"})
		CHECK_MESSAGE(!parse_size(bad), "accepted: " << std::string(bad));
}

TEST_CASE("parse_count and parse_seconds")
{
	CHECK(parse_count("1", 1, 4096) == 1u);
	CHECK(parse_count("4096", 1, 4096) == 4096u);
	CHECK(!parse_count("0", 1, 4096));
	CHECK(!parse_count("4097", 1, 4096));
	CHECK(!parse_count("-1", 1, 4096));
	CHECK(!parse_count("2x", 1, 4096));
	CHECK(!parse_count("", 1, 4096));
	CHECK(!parse_count("99999999999999", 1, 4096));
	CHECK(parse_seconds("10") == 10.0);
	CHECK(parse_seconds("0.5") == 0.5);
	CHECK(!parse_seconds("0"));
	CHECK(!parse_seconds("-1"));
	CHECK(!parse_seconds("inf"));
	CHECK(!parse_seconds("nan"));
	CHECK(!parse_seconds("1e3"));
	CHECK(!parse_seconds("3s"));
	CHECK(!parse_seconds(""));
	CHECK(!parse_seconds("99999999999"));
}

// getopt_long wants a mutable, null-terminated argv that outlives the parse.
struct Args {
	std::vector<std::string> str;
	std::vector<char *> ptr;

	Args(std::initializer_list<const char *> args) : str{"sdb"}
	{
		str.insert(str.end(), args.begin(), args.end());
		for (auto &s : str)
			ptr.push_back(&s[0]);
		ptr.push_back(nullptr);
	}
	Parsed parse() { return parse_args(static_cast<int>(str.size()), ptr.data()); }
};

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

TEST_CASE("quick profiles: CrystalDiskMark's rows, each written then read")
{
	auto names = [](const char *profile, bool uring) {
		std::vector<std::string> notes;
		std::string all;
		for (const QuickRow &r : quick_rows(*find_quick_profile(profile), uring, notes))
			all += (all.empty() ? "" : ", ") + r.name;
		return all;
	};
	CHECK(names("default", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ1M Q1T1 write, SEQ1M Q1T1 read, "
					"RND4K Q32T1 write, RND4K Q32T1 read, RND4K Q1T1 write, RND4K Q1T1 read");
	CHECK(names("nvme", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ128K Q32T1 write, SEQ128K Q32T1 read, "
				     "RND4K Q32T16 write, RND4K Q32T16 read, RND4K Q1T1 write, RND4K Q1T1 read");
	CHECK(names("real", true) == "SEQ1M Q1T1 write, SEQ1M Q1T1 read, RND4K Q1T1 write, RND4K Q1T1 read");
	// Without io_uring, the I/Os in flight come from threads instead.
	CHECK(names("nvme", false) == "SEQ1M Q1T8 write, SEQ1M Q1T8 read, SEQ128K Q1T32 write, SEQ128K Q1T32 read, "
				      "RND4K Q1T512 write, RND4K Q1T512 read, RND4K Q1T1 write, RND4K Q1T1 read");
	std::vector<std::string> notes;
	quick_rows(*find_quick_profile("default"), false, notes);
	CHECK(notes == std::vector<std::string>{
			       "io_uring is not available: SEQ1M Q8T1 runs as SEQ1M Q1T8 (8 threads at depth 1)",
			       "io_uring is not available: RND4K Q32T1 runs as RND4K Q1T32 (32 threads at depth 1)"});
	CHECK(names("mix", true) == "SEQ1M Q8T1 write, SEQ1M Q8T1 read, SEQ1M Q1T1 write, SEQ1M Q1T1 read, "
				    "RND4K Q32T1 write, RND4K Q32T1 read, RND4K Q1T1 write, RND4K Q1T1 read, "
				    "RND4K Q1T1 mix 70/30");
	CHECK(find_quick_profile("Default") == nullptr);
}

TEST_CASE("quick_options: a test's options, whole blocks per thread")
{
	Options o;
	o.time_limit = 2;
	QuickFile q;
	q.path = "/d/f";
	q.size = GiB + 4096;
	Options r = quick_options(o, q, {true, 4 * KiB, 32, 16}, false);
	CHECK(r.op == Options::Op::read);
	CHECK(r.random);
	CHECK(r.threads == 16);
	CHECK(r.queue_depth == 32);
	CHECK(r.size == 64 * MiB);	// whole blocks per thread
	CHECK(r.random_buffer);
	CHECK(r.time_limit == 2);
}

TEST_CASE("--explain: fio's words for sdb's run")
{
	CHECK(fio_size(4096) == "4k");
	CHECK(fio_size(MiB) == "1m");
	CHECK(fio_size(3 * GiB) == "3g");
	CHECK(fio_size(1000) == "1000");
	CHECK(fio_seconds(5) == "5");
	CHECK(fio_seconds(0.2) == "200ms");
	CHECK(fio_seconds(0.0001) == "1ms");
	CHECK(shell_word("/var/tmp/f.0") == "/var/tmp/f.0");
	CHECK(shell_word("a b") == "'a b'");
	CHECK(shell_word("it's") == "'it'\\''s'");
	CHECK(shell_word("") == "''");
	CHECK(fio_path("a:b") == "a\\:b");

	Options o;
	o.op = Options::Op::write;
	o.random = true;
	o.file = "/var/tmp/q";
	o.block_size = 4 * KiB;
	o.size = 64 * MiB;
	o.threads = 16;
	o.queue_depth = 32;
	o.direct = true;
	o.random_buffer = true;
	o.time_limit = 5;
	CHECK(fio_command(o, "RND4K-Q32T16-write", Files::regions) ==
	      "fio --name=RND4K-Q32T16-write --filename=/var/tmp/q --rw=randwrite --bs=4k --size=64m --numjobs=16 "
	      "--offset_increment=64m --group_reporting --thread --ioengine=io_uring --iodepth=32 --direct=1 "
	      "--runtime=5 --time_based --end_fsync=1 --invalidate=1 --scramble_buffers=1");
	o.op = Options::Op::read;
	o.random = false;
	o.block_size = MiB;
	o.threads = 1;
	o.queue_depth = 1;
	o.direct = false;
	o.time_limit = 0;
	o.cached = true;
	CHECK(fio_command(o, "sdb", Files::shared) ==
	      "fio --name=sdb --filename=/var/tmp/q --rw=read --bs=1m --size=64m --thread --ioengine=psync --iodepth=1 "
	      "--direct=0 --invalidate=0");
	o.op = Options::Op::write;
	o.threads = 2;
	o.cached = false;
	o.sync = true;
	o.random_buffer = false;
	CHECK(fio_command(o, "sdb", Files::per_thread) ==
	      "fio --name=sdb '--filename_format=/var/tmp/q.$jobnum' --rw=write --bs=1m --size=64m --numjobs=2 "
	      "--group_reporting --thread --ioengine=psync --iodepth=1 --direct=0 --sync=1 --end_fsync=1 "
	      "--invalidate=1 --zero_buffers");
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

TEST_CASE("MixChooser: a fixed sequence for a seed, and PCT% reads")
{
	MixChooser pinned(0x5db0000, 70);
	std::string seq;
	for (int i = 0; i < 24; i++)
		seq += pinned.read() ? 'r' : 'w';
	CHECK(seq == "rrrrrrrrwrrrrrrrwrrrrrrr");
	for (unsigned pct : {0u, 1u, 30u, 50u, 70u, 99u, 100u}) {
		MixChooser c(12345 + pct, pct);
		unsigned reads = 0;
		for (int i = 0; i < 10000; i++)
			reads += c.read();
		CHECK_MESSAGE(std::abs(static_cast<double>(reads) / 100 - pct) <= 2, "pct=" << pct << " reads=" << reads);
		if (pct == 0 || pct == 100)
			CHECK(reads == pct * 100);
	}
	MixChooser a(7, 50), b(7, 50), other(8, 50);
	unsigned same = 0, differ = 0;
	for (int i = 0; i < 1000; i++) {
		bool x = a.read();
		same += x == b.read();
		differ += x != other.read();
	}
	CHECK(same == 1000);
	CHECK(differ > 300);
}

TEST_CASE("--explain: --fsync, -M and --ramp in fio's words")
{
	Options o;
	o.op = Options::Op::mix;
	o.mix = 70;
	o.random = true;
	o.file = "f";
	o.block_size = 4 * KiB;
	o.size = 64 * MiB;
	o.direct = true;
	o.time_limit = 5;
	o.ramp = 2;
	CHECK(fio_command(o, "sdb", Files::shared) ==
	      "fio --name=sdb --filename=f --rw=randrw --rwmixread=70 --bs=4k --size=64m --thread --ioengine=psync "
	      "--iodepth=1 --direct=1 --runtime=5 --time_based --ramp_time=2 --end_fsync=1 --invalidate=1 --zero_buffers");
	o.op = Options::Op::write;
	o.random = false;
	o.direct = false;
	o.block_size = 2300;
	o.size = 22 * MiB;
	o.time_limit = 0;
	o.ramp = 0;
	o.fsync_every = 1;
	CHECK(fio_command(o, "etcd", Files::shared) ==
	      "fio --name=etcd --filename=f --rw=write --bs=2300 --size=22m --thread --ioengine=psync --iodepth=1 "
	      "--direct=0 --fdatasync=1 --end_fsync=1 --invalidate=1 --zero_buffers");
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
	Parsed p = Args{"-r", "-f", "x", "--start-at", "+1.5"}.parse();
	REQUIRE_FALSE(p.error);
	std::int64_t left = p.opt.start_at_ns - realtime_ns();
	CHECK(left > 1000000000);
	CHECK(left <= 1500000000);
	CHECK(Args{"--quick", "-f", "d", "--start-at", "+1"}.parse().error.msg.find("--start-at and --quick") !=
	      std::string::npos);
	CHECK(Args{"-w", "-f", "x", "--explain", "--start-at", "+1"}.parse().error.msg.find("--start-at and --explain") !=
	      std::string::npos);
	CHECK(Args{"-T", "--start-at", "+1"}.parse().error.msg.find("--start-at: needs -w, -r or -M") != std::string::npos);
	CHECK(Args{"-w", "-f", "x", "--start-at=soon"}.parse().error.status == exit_usage);
}

TEST_CASE("json_histogram and json_unix: a mergeable histogram, exact Unix times")
{
	Histogram h;
	CHECK(json_histogram(h) == "[]");
	h.add(5);
	h.add(5);
	h.add(1000);
	unsigned i = Histogram::index(1000);
	CHECK(json_histogram(h) == format("[[5, 5, 2], [%" PRIu64 ", %" PRIu64 ", 1]]", Histogram::low(i), Histogram::high(i)));
	CHECK(Histogram::low(i) <= 1000);
	CHECK(Histogram::high(i) >= 1000);
	CHECK(json_unix(1764500000LL * 1000000000 + 250081999) == "1764500000.250081");
	CHECK(json_unix(0) == "0.000000");
}

// Every value 0..n-1 exactly once in n outputs, and again in the next n.
void check_permutation(std::uint64_t n, std::uint64_t seed)
{
	Permutation perm(n, seed);
	for (int pass = 0; pass < 2; pass++) {
		std::vector<bool> seen(n, false);
		std::uint64_t out_of_range = 0, repeats = 0;
		for (std::uint64_t i = 0; i < n; i++) {
			std::uint64_t v = perm.next();
			if (v >= n) {
				out_of_range++;
				continue;
			}
			repeats += seen[v];
			seen[v] = true;
		}
		CHECK_MESSAGE(out_of_range == 0, "n=" << n << " seed=" << seed);
		CHECK_MESSAGE(repeats == 0, "n=" << n << " seed=" << seed);
	}
}

TEST_CASE("Permutation visits every block exactly once per pass")
{
	for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 4ULL, 5ULL, 7ULL, 8ULL, 9ULL, 100ULL, 1000ULL, 4093ULL, 65536ULL,
				65537ULL, 1ULL << 20})
		check_permutation(n, 42);
	for (std::uint64_t seed = 0; seed < 20; seed++)
		check_permutation(1000003, seed);	// a prime
}

TEST_CASE("Permutation is scrambled and seeded")
{
	const std::uint64_t n = 1 << 16;
	Permutation a(n, 1), b(n, 1), c(n, 2);
	std::uint64_t ascending = 0, same_as_b = 0, same_as_c = 0, prev = 0;
	for (std::uint64_t i = 0; i < n; i++) {
		std::uint64_t x = a.next();
		ascending += x == prev + 1;
		same_as_b += x == b.next();
		same_as_c += x == c.next();
		prev = x;
	}
	CHECK(same_as_b == n);		// reproducible
	CHECK(same_as_c < n / 100);	// another seed, another order
	CHECK(ascending < n / 100);	// not a sequential scan in disguise
}

TEST_CASE("Offsets: sequential passes and random passes cover every block once")
{
	Target t;
	t.size = 10 * 4096 + 100;	// ten blocks and a short one
	Offsets<false> seq(t, 4096, 1);
	std::uint64_t offset, total = 0, calls = 0;
	std::size_t len;
	while (seq.next(offset, len)) {
		CHECK(offset == total);
		total += len;
		calls++;
	}
	CHECK(total == t.size);
	CHECK(calls == 11);

	Offsets<true> rnd(t, 4096, 7);	// random: whole blocks only
	std::set<std::uint64_t> seen;
	while (rnd.next(offset, len)) {
		CHECK(len == 4096);
		CHECK(offset % 4096 == 0);
		seen.insert(offset);
		calls++;
	}
	CHECK(seen.size() == 10);
	CHECK(calls == 21);

	Offsets<true> timed(t, 4096, 7);	// time-based: pass after pass
	std::vector<int> visits(10, 0);
	int pass_ends = 0;
	for (int i = 0; i < 30; i++) {
		if (!timed.next(offset, len)) {	// the end of a pass: where its step goes
			pass_ends++;
			timed.rewind();
			REQUIRE(timed.next(offset, len));
		}
		visits[offset / 4096]++;
	}
	CHECK(std::count(visits.begin(), visits.end(), 3) == 10);
	CHECK(pass_ends == 2);
	CHECK_FALSE(timed.next(offset, len));
}

TEST_CASE("io_uring completions: the same event has the same outcome at every depth")
{
	Slot s;
	s.len = 65536;
	CHECK(settle<false>(s, 65536) == Settled::complete);
	s.done = 0;
	CHECK(settle<false>(s, 100) == Settled::partial);	// a short read at end of file ...
	CHECK(settle<false>(s, -EINVAL) == Settled::ended);	// ... and O_DIRECT's unaligned rest: end of file, as in transfer()
	CHECK(s.done == 100);
	s.done = 0;
	CHECK(settle<false>(s, -EINVAL) == Settled::failed);	// EINVAL before any byte: a real error
	CHECK(settle<true>(s, -EIO) == Settled::failed);
	CHECK(settle<true>(s, 0) == Settled::ended);		// a write that moved nothing
	CHECK(settle<false>(s, 0) == Settled::ended);
}

TEST_CASE("a failed io_uring_enter names the call, not an I/O at an offset")
{
	Error e = ring_error("data", EBADF);
	CHECK(e.status == exit_runtime);
	CHECK(e.msg == std::string("io_uring_enter: data: ") + std::strerror(EBADF));

	// The real loop: a ring whose fd is swapped for /dev/null after setup
	// (its mappings stay valid) makes io_uring_enter fail, and only that.
	char path[] = "/tmp/sdb-ring.XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, 65536) == 0);
	Plan plan;
	plan.opt.op = Options::Op::read;
	plan.opt.queue_depth = 4;
	plan.block_size = 4096;
	Target target;
	target.path = path;
	target.kind = Kind::file;
	target.size = target.existing = 65536;
	plan.targets.push_back(target);
	Buffer buffer;
	REQUIRE_FALSE(buffer.allocate(4 * 4096));
	Worker w;
	w.plan = &plan;
	w.target = &plan.targets[0];
	w.fd = Fd(dup(fd));
	w.buffer = buffer.data();
	plan.slot_stride = 4096;
	int ring_fd = open("/dev/null", O_RDONLY);	// the lowest free fd, which io_uring_setup takes next
	REQUIRE(ring_fd >= 0);
	close(ring_fd);
	w.ring = std::make_unique<Ring>();
	if (w.ring->setup(4, 4, 1)) {
		MESSAGE("io_uring unavailable: skipped");
	} else {
		w.ring->attach(fd, false, w.buffer, 4 * 4096, false);
		char link[64] = {};
		REQUIRE(readlink(format("/proc/self/fd/%d", ring_fd).c_str(), link, sizeof link - 1) > 0);
		REQUIRE(std::string(link) == "anon_inode:[io_uring]");
		int null_fd = open("/dev/null", O_RDONLY);
		REQUIRE(dup2(null_fd, ring_fd) == ring_fd);
		close(null_fd);
		g_stop.lower();
		w.start_ns = now_ns();
		uring_loop<Way::read, false>(w);
		CHECK(w.error.msg == std::string("io_uring_enter: ") + path + ": " + std::strerror(EOPNOTSUPP));
		g_stop.lower();
	}
	close(fd);
	unlink(path);
}

TEST_CASE("Ring: a wait for an I/O that does not come returns, and the I/O is reaped when it comes")
{
	int p[2];
	REQUIRE(pipe(p) == 0);
	Ring ring;
	if (ring.setup(2, 0, 1)) {
		MESSAGE("io_uring unavailable: skipped");
	} else {
		char buf[16];
		ring.attach(p[0], false, buf, 0, false);
		ring.queue(buf, sizeof buf, 0, 7);
		alarm(20);	// a wait that never returns ends the test here, as a failure
		CHECK(ring.submit_and_wait(1) == 0);	// nothing to read: the bounded wait ends
		unsigned index = 0;
		int res = 0;
		CHECK_FALSE(ring.reap(index, res));
		REQUIRE(write(p[1], "x", 1) == 1);
		while (!ring.reap(index, res))
			REQUIRE(ring.submit_and_wait(1) == 0);
		alarm(0);
		CHECK(index == 7);
		CHECK(res == 1);
	}
	close(p[0]);
	close(p[1]);
}

TEST_CASE("median and spread of the quick suite")
{
	CHECK(median({}) == 0);
	CHECK(median({3}) == 3);
	CHECK(median({5, 1, 3}) == 3);
	CHECK(median({4, 1, 3, 2}) == 2.5);
	QuickRow row{{false, MiB, 1, 1}, false, "SEQ1M Q1T1 read", {}};
	for (double bps : {300.0, 100.0, 200.0}) {
		QuickRun r;
		r.bytes_per_second = bps;
		row.runs.push_back(std::move(r));
	}
	Spread s = spread(row, bps_of);
	CHECK(s.median == 200);
	CHECK(s.min == 100);
	CHECK(s.max == 300);
}

TEST_CASE("stamp makes every 4 KiB of a block its own")
{
	std::vector<char> a(16384, 'x'), b(16384, 'x');
	stamp(a.data(), a.size(), 0, 1);
	stamp(b.data(), b.size(), 16384, 2);
	std::set<std::string> blocks;
	for (std::size_t at = 0; at < a.size(); at += 4096) {
		blocks.insert(std::string(a.data() + at, 4096));
		blocks.insert(std::string(b.data() + at, 4096));
	}
	CHECK(blocks.size() == 8);
	std::uint64_t first;
	std::memcpy(&first, b.data() + 4096, sizeof first);
	CHECK(first == 16384 + 4096);	// the block's own offset
}

TEST_CASE("--verify pattern: the same units for the same seed and offset, others elsewhere")
{
	std::vector<char> a(3 * verify_unit), b(3 * verify_unit), c(3 * verify_unit);
	write_units(a.data(), a.size(), 42, 8192, 7);
	write_units(b.data(), b.size(), 42, 8192, 7);
	write_units(c.data(), c.size(), 43, 8192, 7);
	CHECK(a == b);	// reproducible from (seed, offset) alone
	CHECK(a != c);
	std::set<std::string> units;
	for (std::size_t at = 0; at < a.size(); at += verify_unit) {
		units.insert(std::string(a.data() + at, verify_unit));
		units.insert(std::string(c.data() + at, verify_unit));
		CHECK(unit_header(a.data() + at).offset == 8192 + at);
		CHECK(unit_header(a.data() + at).seed == 42);
		CHECK(unit_header(a.data() + at).write == 7);
	}
	CHECK(units.size() == 6);
	// The bodies' bytes are spread evenly: every byte value within 25% of its share (8 sigma).
	std::vector<char> many(64 * verify_unit);
	write_units(many.data(), many.size(), 42, 0, 0);
	std::vector<unsigned> counts(256);
	for (std::size_t i = 0; i < many.size(); i++)
		if (i % verify_unit >= sizeof(UnitHeader))
			counts[static_cast<unsigned char>(many[i])]++;
	const double share = 64.0 * (verify_unit - sizeof(UnitHeader)) / 256;
	CHECK(*std::max_element(counts.begin(), counts.end()) < 1.25 * share);
	CHECK(*std::min_element(counts.begin(), counts.end()) > 0.75 * share);
}

TEST_CASE("--verify check: clean, zeros, misplaced, stale and corrupt units")
{
	const std::uint64_t seed = 0x1234567890abcdef;
	std::vector<char> unit(verify_unit);
	std::uint64_t found = 0;
	write_unit(unit.data(), seed, 65536, 3);
	CHECK(classify_unit(unit.data(), seed, 65536, std::nullopt, found) == UnitKind::good);
	CHECK(classify_unit(unit.data(), seed, 65536, 3, found) == UnitKind::good);
	CHECK(classify_unit(unit.data(), seed, 65536, 9, found) == UnitKind::stale);	// an earlier write's
	CHECK(classify_unit(unit.data(), seed + 1, 65536, std::nullopt, found) == UnitKind::stale);	// another run's
	CHECK(classify_unit(unit.data(), seed, 4096, std::nullopt, found) == UnitKind::misplaced);
	CHECK(found == 65536);	// the offset the unit was written for
	std::vector<char> zeros(verify_unit);
	CHECK(classify_unit(zeros.data(), seed, 4096, std::nullopt, found) == UnitKind::zeros);
	for (std::size_t at : {std::size_t{0}, std::size_t{13}, std::size_t{20}, std::size_t{31}, std::size_t{32},
			       std::size_t{2000}, verify_unit - 1}) {
		std::vector<char> flipped = unit;
		flipped[at] ^= 0x04;
		CHECK_MESSAGE(classify_unit(flipped.data(), seed, 65536, std::nullopt, found) == UnitKind::corrupt, at);
		CHECK(!unit_consistent(flipped.data()));
	}
	std::vector<char> one_byte(verify_unit);
	one_byte[100] = 1;	// not all zeros: corrupt
	CHECK(classify_unit(one_byte.data(), seed, 0, std::nullopt, found) == UnitKind::corrupt);
}

TEST_CASE("--verify tally: counts every bad unit, names the lowest, learns a reader's seed")
{
	const std::uint64_t seed = 99;
	std::vector<char> block(8 * verify_unit);
	write_units(block.data(), block.size(), seed, 0, 0);
	std::memset(block.data() + 5 * verify_unit, 0, verify_unit);
	write_unit(block.data() + 2 * verify_unit, seed, 1 << 20, 0);	// offset 8 KiB holds 1 MiB's unit
	std::memset(block.data(), 0, verify_unit);	// the first unit too: the seed comes from the next
	VerifyTally t;
	t.check_block(block.data(), block.size(), 0);
	CHECK(t.seeded);
	CHECK(t.seed == seed);
	CHECK(t.units == 8);
	CHECK(t.bad == 3);
	CHECK(t.kinds[static_cast<int>(UnitKind::zeros)] == 2);
	CHECK(t.kinds[static_cast<int>(UnitKind::misplaced)] == 1);
	CHECK(t.first_offset == 0);
	CHECK(t.first_kind == UnitKind::zeros);
	VerifyTally later;
	later.check_block(block.data() + verify_unit, 7 * verify_unit, verify_unit);
	CHECK(later.first_offset == 2 * verify_unit);
	CHECK(later.first_kind == UnitKind::misplaced);
	CHECK(later.first_found == 1 << 20);
	later.check_block(block.data(), verify_unit / 2, 0);	// no whole unit: nothing checked
	CHECK(later.units == 7);
}

TEST_CASE("--verify read-back: the last write to each block of a sequential time-based write")
{
	Plan plan;
	plan.block_size = 8192;
	Target t;
	t.size = 5 * 8192 + 4096;	// 6 blocks, the last one short
	Worker w;
	w.plan = &plan;
	w.target = &t;
	w.ops = 6 * 2 + 4;	// two passes, and four blocks of the third
	Written r = written_by(w);
	CHECK(r.end == t.size);
	CHECK(r.write_of(0) == 12);
	CHECK(r.write_of(3 * 8192 + 4096) == 15);
	CHECK(r.write_of(4 * 8192) == 10);	// written last in the second pass
	CHECK(r.write_of(5 * 8192) == 11);
	w.ops = 3;	// the first pass cut short
	r = written_by(w);
	CHECK(r.end == 3 * 8192);
	CHECK(r.write_of(2 * 8192 + 4096) == 2);
	plan.opt.random = true;	// random: the blocks the permutation gave, any write
	w.ops = 2;
	r = written_by(w);
	CHECK(r.end == 5 * 8192);
	CHECK(!r.write_of(0));
	unsigned have = 0;
	for (std::uint64_t at = 0; at < r.end; at += 4096)
		have += r.has(at);
	CHECK(have == 4);	// two blocks of two units
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

TEST_CASE("Histogram: exact small values, bounded error, ordered percentiles")
{
	Histogram h;
	CHECK(h.count() == 0);
	CHECK(h.percentile(0.5) == 0);
	CHECK(h.min() == 0);
	for (std::uint64_t v = 1; v <= 100000; v++)
		h.add(v * 1000);	// 1 us .. 100 ms, uniform
	CHECK(h.count() == 100000);
	CHECK(h.min() == 1000);
	CHECK(h.max() == 100000000);
	CHECK(h.mean() == 50000500);
	const double qs[] = {0.5, 0.9, 0.99, 0.999};
	for (double q : qs) {
		double exact = q * 100000 * 1000;
		double got = static_cast<double>(h.percentile(q));
		CHECK_MESSAGE(std::fabs(got - exact) / exact < 0.01, "q=" << q << " got " << got);
	}
	CHECK(h.percentile(1.0) == h.max());

	Histogram small;
	for (std::uint64_t v : {3, 3, 7, 200, 255})
		small.add(v);
	CHECK(small.percentile(0.2) == 3);	// below 256 every value has its own bucket
	CHECK(small.percentile(0.6) == 7);
	CHECK(small.percentile(1.0) == 255);
}

TEST_CASE("Histogram: buckets are contiguous and within 1% everywhere")
{
	unsigned last = 0;
	for (std::uint64_t v = 1; v < (1ULL << 40); v = v * 3 / 2 + 1) {
		unsigned i = Histogram::index(v);
		CHECK(i >= last);
		CHECK(i < Histogram::buckets);
		double mid = static_cast<double>(Histogram::midpoint(i));
		CHECK(std::fabs(mid - static_cast<double>(v)) / static_cast<double>(v) < 0.01);
		last = i;
	}
	CHECK(Histogram::index(UINT64_MAX) == Histogram::buckets - 1);
}

TEST_CASE("Histogram: merge adds counts")
{
	Histogram a, b;
	a.add(10);
	b.add(1000000);
	b.add(5);
	a.merge(b);
	CHECK(a.count() == 3);
	CHECK(a.min() == 5);
	CHECK(a.max() == 1000000);
}

TEST_CASE("Histogram: bucket bounds tile the values, and a saved histogram rebuilds its percentiles")
{
	for (unsigned i = 0; i + 1 < Histogram::buckets; i++) {
		REQUIRE(Histogram::low(i) <= Histogram::high(i));
		REQUIRE(Histogram::high(i) + 1 == Histogram::low(i + 1));
		REQUIRE(Histogram::index(Histogram::low(i)) == i);
		REQUIRE(Histogram::index(Histogram::high(i)) == i);
	}
	CHECK(Histogram::high(Histogram::buckets - 1) == UINT64_MAX);

	Histogram h, rebuilt;
	for (std::uint64_t v = 1000; v < 5000000; v = v * 21 / 20)
		h.add(v);
	for (unsigned i = 0; i < Histogram::buckets; i++)
		rebuilt.add_bucket(i, h.at(i));
	CHECK(rebuilt.count() == h.count());
	for (double q : {0.5, 0.9, 0.99})
		CHECK(rebuilt.percentile(q) == h.percentile(q));
	CHECK(rebuilt.min() <= h.min());
	CHECK(rebuilt.max() >= h.max());
}

TEST_CASE("json_string escapes what JSON requires")
{
	CHECK(json_string("plain") == "\"plain\"");
	CHECK(json_string("a\"b") == "\"a\\\"b\"");
	CHECK(json_string("a\\b") == "\"a\\\\b\"");
	CHECK(json_string("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
	CHECK(json_string(std::string("nul\0x", 5)) == "\"nul\\u0000x\"");
	CHECK(json_string("\x01\x1f\x7f") == "\"\\u0001\\u001f\\u007f\"");
	CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	CHECK(json_string("bad\xff") == "\"bad\\ufffd\"");
	CHECK(json_string("cut\xc3") == "\"cut\\ufffd\"");
	CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");		// overlong
	CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// surrogate
}

TEST_CASE("errors stay on one line")
{
	CHECK(one_line("bad\nsize\t1") == "bad?size?1");
}

TEST_CASE("IEC formatting")
{
	CHECK(format_bytes(100) == "100 B");
	CHECK(format_bytes(4096) == "4 KiB");
	CHECK(format_bytes(1536) == "1.50 KiB");
	CHECK(format_bytes(256 * MiB) == "256 MiB");
	CHECK(format_bytes(3 * GiB) == "3 GiB");
	CHECK(format_rate(204.7 * MiB) == "204.70 MiB/s");
	CHECK(format_rate(2.5 * GiB) == "2.50 GiB/s");
	CHECK(format_rate(512) == "0.50 KiB/s");
	CHECK(format_ns(850) == "850 ns");
	CHECK(format_ns(45200) == "45.2 us");
	CHECK(format_ns(1200000) == "1.2 ms");
	CHECK(rate(100, 0) == 0);
}

TEST_CASE("IEC formatting carries to the next unit where rounding reaches it")
{
	CHECK(format_bytes(1048575) == "1.00 MiB");	// not "1024.00 KiB"
	CHECK(format_bytes(1023) == "1023 B");
	CHECK(format_bytes(1048064) == "1023.50 KiB");
	CHECK(format_rate(GiB - 1.0) == "1.00 GiB/s");	// not "1024.00 MiB/s"
	CHECK(format_rate(MiB - 1.0) == "1.00 MiB/s");
	CHECK(format_rate(1023.99 * MiB) == "1023.99 MiB/s");
	CHECK(format_ns(999999) == "1.0 ms");	// not "1000.0 us"
	CHECK(format_ns(999949) == "999.9 us");
	CHECK(format_ns(999999999) == "1.00 s");
}

TEST_CASE("json_string: the document is valid UTF-8 whatever the bytes")
{
	CHECK(json_string("\xff\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// 0xFF is no lead byte
	CHECK(json_string("\xf5\x80\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");	// overlong '/'
	CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// a surrogate
	CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"");
	CHECK(json_string("\xe2\x82") == "\"\\ufffd\\ufffd\"");	// cut off
}

TEST_CASE("printable: names cannot drive the terminal")
{
	CHECK(printable("plain/name.0") == "plain/name.0");
	CHECK(printable("esc\x1b[2J") == "esc\\x1b[2J");
	CHECK(printable("new\nline") == "new\\x0aline");
	CHECK(printable("c1\xc2\x9b") == "c1\\xc2\\x9b");	// CSI as a C1 control
	CHECK(printable("bad\xff") == "bad\\xff");
	CHECK(printable("back\\slash") == "back\\\\slash");
	CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");
}

TEST_CASE("rotation keeps the direct-I/O alignment")
{
	Plan plan;
	plan.pool = MiB;
	Worker w;
	w.plan = &plan;
	plan.dio_align = 512;
	CHECK(rotation(w, 1) == 4096);
	CHECK(rotation(w, 256) == 0);	// 1 MiB of 4 KiB places
	plan.dio_align = 16384;
	for (std::uint64_t io = 0; io < 200; io++)
		CHECK(rotation(w, io) % 16384 == 0);
	CHECK(rotation(w, 1) == 16384);
	plan.dio_align = 2 * MiB;	// larger than the pool: no rotation, never a division by zero
	CHECK(rotation(w, 7) == 0);
}

// A write of a new file f in a directory of its own, which goes with it.
struct NewFileWrite {
	char dir[32] = "/tmp/sdb-test.XXXXXX";
	Options o;
	NewFileWrite(unsigned threads, std::uint64_t size)
	{
		REQUIRE(mkdtemp(dir));
		o.op = Options::Op::write;
		o.file = std::string(dir) + "/f";
		o.threads = threads;
		o.size = size;
	}
	~NewFileWrite() { rmdir(dir); }
};

TEST_CASE("make_plan: sizes whose regions pass the largest offset are usage errors")
{
	NewFileWrite t(3, std::uint64_t{1} << 62);	// the third region starts at 8 EiB
	Plan plan;
	Error e = make_plan(t.o, plan, nullptr, Files::regions);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("past the largest possible file offset") != std::string::npos);
	t.o.threads = 2;	// 2 x 4 EiB - 1 byte: the last offset still fits
	t.o.size = (std::uint64_t{1} << 62) - 1;
	t.o.block_size = 1;
	Plan fits;
	CHECK(make_plan(t.o, fits, nullptr, Files::regions).msg.find("largest possible file offset") == std::string::npos);
	CHECK(access(t.o.file.c_str(), F_OK) != 0);	// planning creates nothing
}

TEST_CASE("make_plan: Files::regions puts the threads in one file, a region each; per_thread a file each")
{
	NewFileWrite t(3, 8 * MiB);
	Plan shared, own;
	REQUIRE(!make_plan(t.o, shared, nullptr, Files::regions));
	REQUIRE(shared.targets.size() == 3);
	for (unsigned i = 0; i < 3; i++) {
		CHECK(shared.targets[i].path == t.o.file);
		CHECK(shared.targets[i].base == i * 8 * MiB);
	}
	REQUIRE(!make_plan(t.o, own));
	REQUIRE(own.targets.size() == 3);
	for (unsigned i = 0; i < 3; i++) {
		CHECK(own.targets[i].path == t.o.file + "." + std::to_string(i));
		CHECK(own.targets[i].base == 0);
	}
}

TEST_CASE("read_mounts: mountinfo's octal escapes are undone")
{
	CHECK(unescape_mount_field("/mnt/with\\040space") == "/mnt/with space");
	CHECK(unescape_mount_field("/a\\134b") == "/a\\b");
	CHECK(unescape_mount_field("/plain") == "/plain");
	bool root = false;
	for (const Mount &m : read_mounts())
		root = root || m.point == "/";
	CHECK(root);
}

TEST_CASE("timeline: steps, rates and the cliff")
{
	std::vector<Sample> samples;
	for (int i = 1; i <= 60; i++)	// 6 s: 100 MiB/s for 2 s, then 20 MiB/s
		samples.push_back({i / 10.0, static_cast<std::uint64_t>((i <= 20 ? i * 10 : 200 + (i - 20) * 2) * MiB / 1)});
	std::vector<Point> points = make_timeline(samples, 6.0, samples.back().bytes, timeline_step(6.0, 0.001, false));
	REQUIRE(points.size() >= 15);
	REQUIRE(points.size() <= 25);
	CHECK(points.front().bytes_per_second == doctest::Approx(100.0 * MiB).epsilon(0.02));
	CHECK(points.back().bytes_per_second == doctest::Approx(20.0 * MiB).epsilon(0.02));
	std::string fell = cliff(points);
	CHECK(fell.find("100.00 MiB/s") != std::string::npos);
	CHECK(fell.find("20.00 MiB/s sustained") != std::string::npos);
	CHECK(fell.find("first 2.") != std::string::npos);

	CHECK(timeline_step(600, 0.001, false) == 1.0);	// JSON: a sample a second
	CHECK(timeline_step(600, 0.001, true) == 30.0);	// the sparkline: twenty bars
	CHECK(timeline_step(3, 0.5, false) == 1.5);	// never shorter than three I/Os
	std::vector<Point> flat(12, Point{1, 50.0 * MiB});
	CHECK(cliff(flat).empty());
	std::string line = sparkline({{1, 0}, {2, 10}}, 0, 10);
	CHECK(line == "\u2581\u2588");
}

TEST_CASE("make_plan: defaults and sizes without touching the disk")
{
	Options o;
	o.op = Options::Op::write;
	o.file = "/dev/null";
	o.threads = 2;
	Plan plan;
	REQUIRE_FALSE(make_plan(o, plan));
	CHECK(plan.block_size == MiB);
	REQUIRE(plan.targets.size() == 2);
	CHECK(plan.targets[1].path == "/dev/null");	// devices are shared
	CHECK(plan.targets[1].size == GiB);
	CHECK(plan.buffers == 1);

	Options r = o;
	r.op = Options::Op::read;
	r.random = true;
	r.file = "/dev/zero";
	r.size = 8 * MiB;
	Plan rplan;
	REQUIRE_FALSE(make_plan(r, rplan));
	CHECK(rplan.block_size == 4096);
	CHECK(rplan.buffers == 2);	// reads: one buffer per thread

	r.size = 0;
	Plan none;
	Error e = make_plan(r, none);
	CHECK(e.status == exit_usage);
	CHECK(e.msg.find("-s SIZE is required") != std::string::npos);
}

// A sysfs fixture tree in a temporary directory, SDB_SYSFS pointing at it
// for as long as the object lives.
struct SysfsFixture {
	std::string root;
	SysfsFixture()
	{
		char tmpl[] = "/tmp/sdb-sysfs.XXXXXX";
		root = mkdtemp(tmpl) ? tmpl : "";
		setenv("SDB_SYSFS", root.c_str(), 1);
	}
	~SysfsFixture()
	{
		unsetenv("SDB_SYSFS");
		std::string cmd = "rm -rf '" + root + "'";
		CHECK(std::system(cmd.c_str()) == 0);
	}
	void write(const std::string &path, const std::string &text) const
	{
		for (std::size_t at = 1; (at = path.find('/', at)) != std::string::npos; at++)
			mkdir((root + path.substr(0, at)).c_str(), 0755);
		std::ofstream(root + path) << text << "\n";
	}
	void cache(unsigned index, const char *level, const char *size, const char *type) const
	{
		std::string dir = format("/devices/system/cpu/cpu0/cache/index%u/", index);
		write(dir + "level", level);
		write(dir + "size", size);
		write(dir + "type", type);
	}
};

TEST_CASE("last_level_cache: the highest data or unified level, from SDB_SYSFS")
{
	SysfsFixture fx;
	REQUIRE_FALSE(fx.root.empty());
	CHECK(last_level_cache() == 0);	// sysfs says nothing
	fx.cache(0, "1", "48K", "Data");
	fx.cache(1, "1", "32K", "Instruction");
	CHECK(last_level_cache() == 48 * KiB);
	fx.cache(2, "2", "1024K", "Unified");
	fx.cache(3, "3", "32768K", "Unified");
	CHECK(last_level_cache() == 32 * MiB);
	fx.cache(4, "4", "256M", "Instruction");	// never an instruction cache
	CHECK(last_level_cache() == 32 * MiB);
	fx.cache(5, "3", "64M", "Unified");	// two at the top level: the larger
	CHECK(last_level_cache() == 64 * MiB);
}

TEST_CASE("copy_size: four times the last-level cache, 64 MiB at least, within the memory budget")
{
	CHECK(copy_size(32 * MiB, 16 * GiB, 0) == 128 * MiB);
	CHECK(copy_size(0, 16 * GiB, 0) == 64 * MiB);		// no cache known
	CHECK(copy_size(2 * MiB, 16 * GiB, 0) == 64 * MiB);
	CHECK(copy_size(32 * MiB, 16 * GiB, GiB) == GiB);	// -T -b 1g: the block size
	CHECK(copy_size(256 * MiB, 4 * GiB, 0) == 512 * MiB);	// two buffers: a quarter of 4 GiB
	CHECK(copy_size(32 * MiB, 64 * MiB, 0) == 8 * MiB);
	CHECK(copy_size(32 * MiB, 0, 0) == MiB);
}

// The point of copy_size(): a copy the cache holds runs faster than the
// ceiling's copy.  Rates measured alternately, best of three each: a ratio
// on this machine, not a wall-clock time.
TEST_CASE("copy-ceiling test shows the ceiling below the cache-sized copy on this machine")
{
	std::uint64_t llc = last_level_cache();
	if (llc == 0) {
		MESSAGE("skipped: sysfs does not give the last-level cache size");
		return;
	}
	std::uint64_t big = copy_size(llc, available_memory(), 0), small = llc / 2;
	Buffer a, b;
	REQUIRE_FALSE(a.allocate(2 * big + 64));
	REQUIRE_FALSE(b.allocate(2 * small + 64));
	double best_big = 0, best_small = 0;
	for (int i = 0; i < 3; i++) {
		best_small = std::max(best_small, time_copy(b.data(), b.data() + small, small, 0.05).memcpy_bps);
		best_big = std::max(best_big, time_copy(a.data(), a.data() + big, big, 0.05).memcpy_bps);
	}
	MESSAGE(format("memcpy of %s: %s; of %s (the ceiling's size): %s", format_bytes(small).c_str(),
		       format_rate(best_small).c_str(), format_bytes(big).c_str(), format_rate(best_big).c_str()));
	CHECK(best_big < best_small);
}

// ------------------------------------------------------------ verification

// The fixture for the verification: a fake /sys with the symlinks real
// sysfs has (/sys/dev/block/M:m -> ../../devices/.../block/sda).
struct DeviceTree : SysfsFixture {
	void link(const std::string &path, const std::string &target) const
	{
		write(path + ".tmp", "");	// makes the directories
		unlink((root + path + ".tmp").c_str());
		CHECK(symlink(target.c_str(), (root + path).c_str()) == 0);
	}
	// A block device at devices/DIR, known as M:m, with a stat line.
	void disk(const std::string &dir, const std::string &majmin, const std::string &stat = "0 0 0 0 0 0 0 0 0 0 0") const
	{
		std::string name = dir.substr(dir.find_last_of('/') + 1);
		write("/devices/" + dir + "/stat", stat);
		write("/devices/" + dir + "/uevent", "MAJOR=0\nDEVNAME=" + name);
		link("/dev/block/" + majmin, "../../devices/" + dir);
	}
};

// A plan that reads a file on a file system whose device is dev.
Plan plan_on(dev_t dev, std::uint32_t fs_type = EXT4_SUPER_MAGIC, Kind kind = Kind::file)
{
	Plan p;
	p.opt.op = Options::Op::read;
	p.opt.file = "/data/f";
	Target t;
	t.path = "/data/f";
	t.kind = kind;
	t.size = GiB;
	p.targets.push_back(t);
	p.fs_dev = dev;
	p.fs_type = fs_type;
	return p;
}

const char *const sata_disk = "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda";

TEST_CASE("find_device: a partition counts as itself; the SATA link of its disk")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.disk(sata_disk, "8:0");
	fx.disk(std::string(sata_disk) + "/sda1", "8:1");
	fx.write(std::string("/devices/") + sata_disk + "/sda1/partition", "1");
	fx.write("/class/ata_link/link1/sata_spd", "6.0 Gbps");
	Device d = find_device(plan_on(makedev(8, 1)));
	CHECK(d.reason == "");
	CHECK(d.name == "sda1");
	CHECK(d.path == "/dev/sda1");
	REQUIRE(d.stats.size() == 1);
	CHECK(d.stats[0] == fx.root + "/devices/" + sata_disk + "/sda1/stat");
	CHECK(d.disks == std::vector<std::string>{"sda"});
	REQUIRE(d.link);
	CHECK(d.link->kind == "sata");
	CHECK(d.link->bytes_per_second == doctest::Approx(600e6));	// 6 Gbit/s, 8b/10b
	fx.write("/class/ata_link/link1/sata_spd", "<unknown>");
	CHECK_FALSE(find_device(plan_on(makedev(8, 1))).link);
	fx.write("/class/ata_link/link1/sata_spd", "1.5 Gbps");
	CHECK(find_device(plan_on(makedev(8, 0))).link->bytes_per_second == doctest::Approx(150e6));
}

TEST_CASE("find_device: NVMe's PCIe link, the nearest function's, and through a multipath subsystem")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string port = "/devices/pci0000:00/0000:00:01.1", fn = port + "/0000:01:00.0";
	fx.write(port + "/current_link_speed", "16.0 GT/s PCIe");
	fx.write(port + "/current_link_width", "16");
	fx.write(fn + "/current_link_speed", "8.0 GT/s PCIe");
	fx.write(fn + "/current_link_width", "4");
	fx.disk("pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0n1", "259:0");
	Device d = find_device(plan_on(makedev(259, 0), XFS_SUPER_MAGIC));
	CHECK(d.name == "nvme0n1");
	REQUIRE(d.link);
	CHECK(d.link->kind == "pcie");
	CHECK(d.link->bytes_per_second == doctest::Approx(8e9 * 4 * 128 / 130 / 8));	// 3.94 GB/s
	CHECK(d.link->how == "PCIe 8 GT/s x4, 128b/130b encoding");

	// Native multipath: the namespace lives under nvme-subsystem, its one
	// controller leads to the PCIe function.
	fx.disk("virtual/nvme-subsystem/nvme-subsys1/nvme1n1", "259:1");
	fx.link("/devices/virtual/nvme-subsystem/nvme-subsys1/nvme1", "../../../pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0");
	Device m = find_device(plan_on(makedev(259, 1)));
	REQUIRE(m.link);
	CHECK(m.link->bytes_per_second == doctest::Approx(8e9 * 4 * 128 / 130 / 8));
	fx.link("/devices/virtual/nvme-subsystem/nvme-subsys1/nvme2", "../../../pci0000:00/0000:00:01.1");
	CHECK_FALSE(find_device(plan_on(makedev(259, 1))).link);	// two controllers: the policy picks

	fx.write(fn + "/current_link_speed", "2.5 GT/s PCIe");	// PCIe 1: 8b/10b
	fx.write(fn + "/current_link_width", "1");
	CHECK(find_device(plan_on(makedev(259, 0))).link->bytes_per_second == doctest::Approx(250e6));
	fx.write(fn + "/current_link_speed", "Unknown");	// the root port's is not the drive's
	CHECK(find_device(plan_on(makedev(259, 0))).link->bytes_per_second == doctest::Approx(16e9 * 16 * 128 / 130 / 8));
}

TEST_CASE("find_device: a USB disk's speed and its usable share")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string hub = "/devices/pci0000:00/0000:00:14.0/usb2", dev = hub + "/2-1";
	fx.write(hub + "/speed", "10000");
	fx.write(hub + "/devnum", "1");
	fx.write(dev + "/speed", "5000");
	fx.write(dev + "/devnum", "3");
	fx.disk("pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb", "8:16");
	Device d = find_device(plan_on(makedev(8, 16)));
	REQUIRE(d.link);
	CHECK(d.link->kind == "usb");
	CHECK(d.link->bytes_per_second == doctest::Approx(500e6));	// 5 Gbit/s, 8b/10b: the device's, not the hub's
	fx.write(dev + "/speed", "480");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(53.248e6));
	fx.write(dev + "/speed", "10000");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(10e9 * 128 / 132 / 8));
	fx.write(dev + "/speed", "20000");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(20e9 * 128 / 132 / 8));
}

TEST_CASE("find_device: dm and md count as themselves, slaves and disks listed; a loop device names its file")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.write("/class/ata_link/link1/sata_spd", "3.0 Gbps");
	fx.disk(sata_disk, "8:0");
	fx.disk(std::string(sata_disk) + "/sda2", "8:2");
	fx.write(std::string("/devices/") + sata_disk + "/sda2/partition", "2");
	fx.disk("virtual/block/dm-0", "254:0");
	fx.write("/devices/virtual/block/dm-0/dm/name", "vg-root");
	fx.link("/devices/virtual/block/dm-0/slaves/sda2", std::string("../../../../") + sata_disk + "/sda2");
	Device dm = find_device(plan_on(makedev(254, 0)));
	CHECK(dm.name == "dm-0");
	CHECK(dm.alias == "vg-root");
	CHECK(dm.stats == std::vector<std::string>{fx.root + "/devices/virtual/block/dm-0/stat"});
	CHECK(dm.slaves == std::vector<std::string>{"sda2"});
	CHECK(dm.disks == std::vector<std::string>{"sda"});
	REQUIRE(dm.link);	// one disk below: its link
	CHECK(dm.link->bytes_per_second == doctest::Approx(300e6));

	std::string other = "pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/block/sdb";
	fx.disk(other, "8:16");
	fx.disk("virtual/block/md0", "9:0");
	fx.link("/devices/virtual/block/md0/slaves/sda2", std::string("../../../../") + sata_disk + "/sda2");
	fx.link("/devices/virtual/block/md0/slaves/sdb", "../../../../" + other);
	Device md = find_device(plan_on(makedev(9, 0)));
	CHECK(md.name == "md0");
	CHECK(md.slaves == std::vector<std::string>{"sda2", "sdb"});
	CHECK(md.disks == std::vector<std::string>{"sda", "sdb"});
	CHECK_FALSE(md.link);	// two disks: no one link carries it all

	fx.disk("virtual/block/loop3", "7:3");
	fx.write("/devices/virtual/block/loop3/loop/backing_file", "/var/tmp/disk.img");
	Device loop = find_device(plan_on(makedev(7, 3), EXT4_SUPER_MAGIC, Kind::block));
	CHECK(loop.name == "loop3");
	CHECK(loop.path == "/dev/loop3");
	CHECK(loop.backing_file == "/var/tmp/disk.img");
	CHECK_FALSE(loop.link);
}

TEST_CASE("btrfs: every device of the file system, counters summed, busy the busiest's")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	const std::string fsid = "0b7c1a2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b";
	CHECK(btrfs_devices(fsid).reason == "btrfs " + fsid + ": sysfs lists no devices");
	fx.disk("virtual/block/loop0", "7:0", "10 0 2048 5 20 0 4096 9 0 100 14");
	fx.disk(sata_disk, "8:0", "1 0 8 1 2 0 16 1 0 50 2");
	fx.link("/fs/btrfs/" + fsid + "/devices/loop0", "../../../../devices/virtual/block/loop0");
	fx.link("/fs/btrfs/" + fsid + "/devices/sda", std::string("../../../../devices/") + sata_disk);
	Device d = btrfs_devices(fsid);
	CHECK(d.reason == "");
	CHECK(d.name == "loop0+sda");
	CHECK(d.path == "/dev/loop0 /dev/sda");
	REQUIRE(d.stats.size() == 2);
	CHECK_FALSE(d.link);
	std::vector<std::string> before = read_stats(d.stats);
	fx.write("/devices/virtual/block/loop0/stat", "12 0 4096 5 30 0 8192 9 0 900 14");
	fx.write(std::string("/devices/") + sata_disk + "/stat", "3 0 2056 1 4 0 2064 1 0 450 2");
	std::optional<DiskDelta> delta = disk_delta(before, read_stats(d.stats));
	REQUIRE(delta);
	CHECK(delta->reads == 4);
	CHECK(delta->read_bytes == (2048 + 2048) * 512);
	CHECK(delta->write_bytes == (4096 + 2048) * 512);
	CHECK(delta->busy_ms == 800);	// the busiest device, not the sum
}

TEST_CASE("find_device: no block device, with the reason")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	dev_t anon = makedev(0, 1048000);	// in no mount table
	CHECK(find_device(plan_on(anon, NFS_SUPER_MAGIC)).reason == "/data/f is on nfs, a network file system: no local block device counts its I/O");
	CHECK(find_device(plan_on(anon, 0x65735546)).reason == "/data/f is on fuse, a FUSE file system without a block device");
	CHECK(find_device(plan_on(anon, TMPFS_MAGIC)).reason == "/data/f is on tmpfs: files in memory, no block device");
	CHECK(find_device(plan_on(makedev(1, 3), TMPFS_MAGIC, Kind::chr)).reason ==
	      "/data/f is a character device: no block layer counts its I/O");
	Device none = find_device(plan_on(anon, 0x794c7630));
	CHECK(none.stats.empty());
	CHECK(none.reason.find("overlayfs (device 0:1048000), which has no block device") != std::string::npos);
}

TEST_CASE("parse_disk_stat: the kernel's lines of every age, and odd ones")
{
	auto s = parse_disk_stat("  7390917    37586 1196083602  3203393  2284785    32277 2625300072  8524592        0   775188 11790772    19441       46 743729440    60375    22006     2410");
	REQUIRE(s);
	CHECK(s->reads == 7390917);
	CHECK(s->read_sectors == 1196083602);
	CHECK(s->writes == 2284785);
	CHECK(s->write_sectors == 2625300072);
	CHECK(s->io_ticks == 775188);
	CHECK(parse_disk_stat("1 2 3 4 5 6 7 8 9 10 11"));	// before 4.18: 11 fields
	CHECK(parse_disk_stat("1 2 3 4 5 6 7 8 9 10"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9"));	// no io_ticks
	CHECK_FALSE(parse_disk_stat(""));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 -9 10 11"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9 x 11"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9 99999999999999999999999 11"));	// past 64 bits
	CHECK(parse_disk_stat("18446744073709551615 0 0 0 0 0 0 0 0 0")->reads == UINT64_MAX);
	CHECK_FALSE(disk_delta({"5 0 10 0 0 0 0 0 0 10"}, {"4 0 10 0 0 0 0 0 0 10"}));	// went backwards: reset
	CHECK_FALSE(disk_delta({"1 0 0 0 0 0 0 0 0 0"}, {""}));
	CHECK_FALSE(disk_delta({}, {}));
}

// A finished run of one thread: bytes claimed, wall and CPU time.
struct FakeRun {
	Execution ex;
	FakeRun(std::uint64_t bytes, double seconds, double cpu_seconds, const std::string &before, const std::string &after)
	{
		auto w = std::make_unique<Worker>();
		w->bytes = bytes;
		w->start_ns = 1000;
		w->end_ns = 1000 + static_cast<std::int64_t>(seconds * 1e9);
		w->cpu_ns = static_cast<std::int64_t>(cpu_seconds * 1e9);
		ex.shared.workers.push_back(std::move(w));
		ex.result.start_ns = 1000;
		ex.result.stats_before = {before};
		ex.result.stats_after = {after};
		ex.totals = add_up(ex.shared, ex.result.start_ns);
	}
};

// The verdict on a fake run, as seen through the device d.
Verdict judged(const Plan &p, const Device &d, FakeRun &run)
{
	run.ex.device = d;
	return judge(p, run.ex);
}

TEST_CASE("judge: delivered, busy and the first limit that applies")
{
	Plan p = plan_on(makedev(8, 0));
	Device d;
	d.name = "sda";
	d.path = "/dev/sda";
	d.stats = {"/sys/block/sda/stat"};
	// 1 GiB read in 2 s: 2097152 sectors; busy 1.96 s of 2.
	FakeRun busy(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1960");
	Verdict v = judged(p, d, busy);
	CHECK(v.measured);
	CHECK(v.confirmed);
	CHECK(v.bytes == GiB);
	CHECK(v.delivered == doctest::Approx(1.0));
	CHECK(v.busy == doctest::Approx(0.98));
	CHECK(v.limit == "device");
	CHECK(v.reason == "");

	FakeRun idle(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1000");
	CHECK(judged(p, d, idle).limit == "latency");
	d.link = Link{"sata", 530e6, "SATA 6 Gbps"};	// 512 MiB/s against 530 MB/s
	CHECK(judged(p, d, idle).limit == "link");
	d.link.reset();
	FakeRun cpu(GiB, 2, 1.9, "0 0 0 0 0 0 0 0 0 0", "8 0 2097152 0 0 0 0 0 0 1000");
	CHECK(judged(p, d, cpu).limit == "cpu");

	// A tenth reached the device: not confirmed, and no claim about latency.
	FakeRun hollow(GiB, 2, 0.5, "0 0 0 0 0 0 0 0 0 0", "1 0 209715 0 0 0 0 0 0 100");
	Verdict h = judged(p, d, hollow);
	CHECK_FALSE(h.confirmed);
	CHECK(h.delivered == doctest::Approx(0.1));
	CHECK(h.reason == "the device saw 10% of the bytes claimed");
	CHECK(h.limit == "unknown");
	CHECK(h.causes.find("page cache") != std::string::npos);
	CHECK(verdict_warnings(p, h).size() == 1);

	p.opt.cached = true;
	Verdict c = judged(p, d, busy);
	CHECK_FALSE(c.measured);
	CHECK_FALSE(c.confirmed);
	CHECK(c.reason == "page cache by request (--cached)");
	CHECK(c.limit == "memory");
	p.opt.cached = false;

	FakeRun unread(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "");
	Verdict u = judged(p, d, unread);
	CHECK_FALSE(u.confirmed);
	CHECK(u.reason == "the counters of sda could not be read at both ends");
	CHECK(u.limit == "unknown");
	CHECK(json_device(u).find("\"bytes\": null, \"delivered\": null, \"busy\": null, \"limit\": \"unknown\"") != std::string::npos);

	p.opt.op = Options::Op::write;	// writes count the sectors written
	FakeRun wrote(GiB, 2, 0.1, "0 0 0 0 0 0 0 0 0 0", "0 0 0 0 9 0 2097160 0 0 1990");
	Verdict w = judged(p, d, wrote);
	CHECK(w.bytes == GiB + 8 * 512);
	CHECK(w.confirmed);
	CHECK(json_device(w) == "{\"name\": \"sda\", \"path\": \"/dev/sda\", \"bytes\": 1073745920, \"delivered\": 1.000004, "
				"\"busy\": 0.995000, \"limit\": \"device\", \"link\": null, \"verified\": true, \"reason\": null}");
}

TEST_CASE("hollow_bytes: holes and unwritten extents, each byte once")
{
	char tmpl[] = "/var/tmp/sdb-holes.XXXXXX";
	int fd = mkstemp(tmpl);
	REQUIRE(fd >= 0);
	unlink(tmpl);
	Fd file(fd);
	std::vector<char> data(MiB, 'x');
	REQUIRE(ftruncate(fd, 4 * MiB) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 4 * MiB);	// sparse: all hole
	REQUIRE(pwrite(fd, data.data(), MiB, 0) == static_cast<ssize_t>(MiB));
	REQUIRE(fsync(fd) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 3 * MiB);
	CHECK(hollow_bytes(fd, 0, MiB) == 0);
	CHECK(hollow_bytes(fd, 512 * KiB, 2 * MiB) == MiB);
	if (fallocate(fd, 0, 2 * MiB, MiB) != 0) {
		MESSAGE("fallocate not supported here: unwritten extents untested");
		return;
	}
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 3 * MiB);	// the fallocate'd MiB reads as zeros too
	CHECK(hollow_bytes(fd, 2 * MiB, 3 * MiB) == MiB);
	REQUIRE(pwrite(fd, data.data(), MiB, 2 * MiB) == static_cast<ssize_t>(MiB));
	REQUIRE(fsync(fd) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 2 * MiB);
}

TEST_CASE("size_arg: what -s takes back")
{
	CHECK(size_arg(GiB) == "1g");
	CHECK(size_arg(3 * MiB) == "3m");
	CHECK(size_arg(MiB + 4 * KiB) == "1028k");
	CHECK(size_arg(1000) == "1000");
	CHECK(parse_size(size_arg(1536 * MiB)) == 1536 * MiB);
}

// ---------------------------------------------------------------- many hosts

namespace {
Json json_of(std::string_view text)
{
	Json v;
	Error e = parse_json(text, "t.json", v);
	REQUIRE_MESSAGE(!e, e.msg);
	return v;
}

std::string json_error(std::string_view text)
{
	Json v;
	return parse_json(text, "t.json", v).msg;
}
} // namespace

TEST_CASE("parse_json: every kind of value, escapes included")
{
	Json v = json_of(" {\"a\": [1, -2.5e3, 0, true, false, null], \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\ud800x\", "
			 "\"o\": {}, \"e\": []}\n");
	REQUIRE(v.type == Json::Type::object);
	const Json *a = v.find("a", Json::Type::array);
	REQUIRE(a);
	REQUIRE(a->items.size() == 6);
	CHECK(a->items[0].number == 1);
	CHECK(a->items[1].number == -2500);
	CHECK(a->items[3].type == Json::Type::boolean);
	CHECK(a->items[3].boolean);
	CHECK(!a->items[4].boolean);
	CHECK(a->items[5].type == Json::Type::null);
	CHECK(v.str("s") == "q\"\\/\b\f\n\r\t\u00e9\U0001F600\uFFFDx");	// a lone surrogate: U+FFFD
	CHECK(v.find("o", Json::Type::object));
	CHECK(v.find("e", Json::Type::array)->items.empty());
	CHECK(json_dump(v) == "{\"a\": [1, -2500, 0, true, false, null], \"s\": \"q\\\"\\\\/\\u0008\\u000c\\n\\u000d\\t\u00e9\U0001F600\uFFFDx\", "
			      "\"o\": {}, \"e\": []}");
	CHECK(json_of("12345678901").number == 12345678901.0);
}

TEST_CASE("parse_json: errors name the file and the byte offset")
{
	CHECK(json_error("") == "t.json: not valid JSON (byte 0: unexpected end of input)");
	CHECK(json_error("{\"a\": 1,}") == "t.json: not valid JSON (byte 8: expected a string (an object's key))");
	CHECK(json_error("[1 2]") == "t.json: not valid JSON (byte 3: expected ',' or ']')");
	CHECK(json_error("{} x") == "t.json: not valid JSON (byte 3: more after the end of the document)");
	CHECK(json_error("\"abc") == "t.json: not valid JSON (byte 4: unterminated string)");
	CHECK(json_error("\"a\nb\"") == "t.json: not valid JSON (byte 2: a control character inside a string)");
	CHECK(json_error("\"\\x\"") == "t.json: not valid JSON (byte 2: an unknown escape in a string)");
	CHECK(json_error("\"\\u12g4\"") == "t.json: not valid JSON (byte 5: \\u needs four hex digits)");
	for (const char *bad : {"01", "-", "1.", "1e", ".5", "+1", "tru", "nul", "NaN", "1e999", "[", "{\"a\" 1}"})
		CHECK_MESSAGE(!json_error(bad).empty(), "accepted: " << bad);
	CHECK(json_error(std::string(64, '[') + std::string(64, ']')).empty());
	CHECK(json_error(std::string(100000, '[')).find("nested too deeply") != std::string::npos);
	Json v;
	CHECK(parse_json("{", "-", v).msg.rfind("standard input: ", 0) == 0);
}

// A document as sdb writes it, with the keys --merge reads.
std::string sdb_document(const char *host, double start, double seconds, std::uint64_t bytes, const Histogram &h,
			 const char *options = "\"op\": \"write\", \"mode\": \"rand\", \"block_size\": 4096")
{
	return format("{\"version\": \"0.1.0\", \"host\": \"%s\", \"start_unix\": %.6f, \"end_unix\": %.6f, "
		      "\"options\": {%s, \"file\": \"%s.t\"}, \"threads\": [{\"id\": 0, \"histogram\": %s}], "
		      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %.6f}, "
		      "\"timeline\": [{\"t\": %.6f, \"unix\": %.6f, \"bytes_per_second\": %.6f}], \"warnings\": [], "
		      "\"interrupted\": false}",
		      host, start, start + seconds, options, host, json_histogram(h).c_str(), bytes, h.count(), seconds, seconds,
		      start + seconds, bytes / seconds);
}

HostRun loaded(const std::string &text, const char *name)
{
	HostRun r;
	r.source = name;
	Error e = load_run(json_of(text), name, r);
	REQUIRE_MESSAGE(!e, e.msg);
	return r;
}

TEST_CASE("merge: percentiles from the union of the saved histograms")
{
	Histogram a, b, c, all;
	std::uint64_t seed = 7;
	auto next = [&] { return seed = seed * 6364136223846793005ULL + 1442695040888963407ULL, seed >> 40; };
	for (int i = 0; i < 5000; i++) {
		std::uint64_t va = 20000 + next() % 100000, vb = 150000 + next() % 3000000, vc = 500 + next() % 1000;
		a.add(va), b.add(vb), c.add(vc);
		all.add(va), all.add(vb), all.add(vc);
	}
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 2, 1 << 20, a), "a.json"),
				  loaded(sdb_document("b", 1000.02, 2, 2 << 20, b), "b.json"),
				  loaded(sdb_document("c", 1000.04, 2, 3 << 20, c), "c.json")};
	Merged m = merge_runs(runs);
	// The union's histogram, as saved and read back, is the merged one.
	Histogram saved;
	for (unsigned i = 0; i < Histogram::buckets; i++)
		saved.add_bucket(i, all.at(i));
	CHECK(m.with_latency == 3);
	CHECK(m.latency.count() == all.count());
	for (unsigned i = 0; i < Histogram::buckets; i++)
		REQUIRE(m.latency.at(i) == all.at(i));
	for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) {
		CHECK(m.latency.percentile(q) == saved.percentile(q));
		// and within a bucket of the samples' own
		std::uint64_t exact = all.percentile(q);
		unsigned i = Histogram::index(exact);
		CHECK(m.latency.percentile(q) >= Histogram::low(i));
		CHECK(m.latency.percentile(q) <= Histogram::high(i));
	}
	CHECK(m.bytes == 6u << 20);
	CHECK(m.ops == 15000u);
	CHECK(m.threads == 3);
	CHECK(m.seconds == doctest::Approx(2.04));
	CHECK(m.together);
	CHECK(m.together_end - m.together_start == doctest::Approx(1.96));
	CHECK(m.together_bytes == doctest::Approx(6.0 * (1 << 20) * 1.96 / 2));
	CHECK(m.from_timelines);
	CHECK(m.warnings.empty());
}

TEST_CASE("merge: differing options, late starts, interrupted and warned inputs are flagged")
{
	Histogram h;
	h.add(1000);
	std::string late = sdb_document("b", 1000.5, 2, 100, h, "\"op\": \"write\", \"mode\": \"seq\", \"block_size\": 4096");
	std::string warned = sdb_document("c", 1000, 2, 100, h);
	warned.replace(warned.find("\"warnings\": []"), 14, "\"warnings\": [\"it was odd\"], \"error\": \"it broke\"");
	warned.replace(warned.find("\"interrupted\": false"), 20, "\"interrupted\": true");
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 2, 100, h), "a.json"), loaded(late, "b.json"),
				  loaded(warned, "c.json")};
	Merged m = merge_runs(runs);
	std::string all;
	for (const std::string &w : m.warnings)
		all += w + "\n";
	CHECK(all == "options differ: mode is \"rand\", \"seq\", \"rand\" (in input order)\n"
		     "c.json: interrupted: its results are partial\n"
		     "c.json: failed after it started: it broke\n"
		     "c.json warned: it was odd\n"
		     "starts 0.500 s apart (a.json first, b.json last): the rate while all ran is the one to compare\n");
}

TEST_CASE("merge: windows that do not overlap, documents without histograms or times")
{
	Histogram h;
	h.add(1000);
	std::vector<HostRun> runs{loaded(sdb_document("a", 1000, 1, 100, h), "a.json"),
				  loaded(sdb_document("b", 1005, 1, 300, h), "b.json")};
	Merged m = merge_runs(runs);
	CHECK(!m.together);
	CHECK(m.seconds == doctest::Approx(6));
	std::vector<HostRun> old{loaded("{\"version\": \"0\", \"options\": {}, \"threads\": [{\"id\": 0}], "
				       "\"total\": {\"bytes\": 10, \"ops\": 1, \"seconds\": 2}}", "old.json"),
				 loaded("{\"version\": \"0\", \"options\": {}, \"threads\": [{\"id\": 0}, {\"id\": 1}], "
				       "\"total\": {\"bytes\": 30, \"ops\": 3, \"seconds\": 4}}", "old2.json")};
	m = merge_runs(old);	// taken as threads of one run: started together
	CHECK(m.seconds == doctest::Approx(4));
	CHECK(m.threads == 3);
	CHECK(m.with_latency == 0);
	CHECK(m.together_end - m.together_start == doctest::Approx(2));
	CHECK(m.together_bytes == doctest::Approx(10 + 15));
	CHECK(!m.from_timelines);
}

TEST_CASE("load_run: foreign documents and bad histograms are errors naming the file")
{
	auto error = [](const char *text) {
		HostRun r;
		return load_run(json_of(text), "x.json", r).msg;
	};
	CHECK(error("[1]") == "x.json: not an sdb result (not a JSON object); --merge reads sdb --json output");
	CHECK(error("{\"a\": 1}") == "x.json: not an sdb result (no \"version\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"options\": {}}") ==
	      "x.json: not an sdb result (no \"total\"); --merge reads sdb --json output");
	CHECK(error("{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": \"many\"}}") ==
	      "x.json: not an sdb result (no total bytes and seconds); --merge reads sdb --json output");
	const char *head = "{\"version\": \"1\", \"options\": {}, \"total\": {\"bytes\": 1, \"seconds\": 1}, \"threads\": [{\"histogram\": ";
	CHECK(error((std::string(head) + "[[256, 258, 1]]}]}").c_str()) ==
	      "x.json: histogram bucket [256, 258] is not one of sdb's buckets");
	CHECK(error((std::string(head) + "[[1, 1]]}]}").c_str()) ==
	      "x.json: a histogram bucket is not [low_ns, high_ns, count]");
	CHECK(error((std::string(head) + "[[1, 1, -1]]}]}").c_str()) ==
	      "x.json: a histogram bucket is not [low_ns, high_ns, count]");
	CHECK(error((std::string(head) + "[[256, 257, 4], [5, 5, 1]]}]}").c_str()).empty());
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
	struct Case {
		std::initializer_list<const char *> args;
		const char *message;
	};
	const Case cases[] = {
		{{"--merge"}, "--merge: needs FILE..."},
		{{"--merge", "a", "-w"}, "--merge and --write: --merge reads saved results"},
		{{"--merge", "a", "-f", "x"}, "--merge and --file: "},
		{{"--merge", "a", "--hosts", "h"}, "--merge and --hosts: "},
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
