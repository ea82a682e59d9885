// sdb - Simple Disk Benchmark: how fast does this file or device really
// stream data?  See sdb.1 for the user's view and LICENSE for the terms.
//
// One run, top to bottom, is the order of this file:
//   1. errors        Error values carried up to run(), printed as one line
//   2. numbers       SIZE parsing and the IEC formatting of sizes and rates
//   3. options       Options (with defaults), usage_text, parse_args()
//   4. targets       which path each thread uses, sizes, O_DIRECT alignment,
//                    block-device safety; make_plan() checks it all up front
//   5. buffers       aligned (huge-page) buffers, the /dev/urandom fill, the
//                    run's buffers; the --verify pattern and its check
//   6. statistics    the random-order Permutation and the latency Histogram
//   7. workers       prepare (open, readahead advice, lay out, evict), the
//                    timed loops (pread/pwrite, or io_uring for -q), the
//                    step at each pass end, the final fdatasync; the
//                    --verify read-back after a write
//   8. the run       start barrier, sampler, progress line, signals (routed
//                    to a signalfd by SignalScope)
//   9. plausibility  -T memory ceiling, -v environment, warnings on the
//                    target (before) and on the numbers (after the run)
//  10. verification  the block device under the target (sysfs), its
//                    counters against the bytes claimed, holes before a
//                    read, the link ceiling, and what limited the run
//  11. report        human report and JSON
//  12. execution     execute(): one plan, start to end; the --verify read-back
//  13. quick suite   --quick[=PROFILE]: CrystalDiskMark's tests, each written
//                    and read --runs times on one test file; --explain: the
//                    same runs (or a plain run) as fio command lines
// 13b. many hosts   --merge: sdb JSON documents read back (a small JSON
//                    parser) and merged into one report; --hosts: the
//                    run on every host at once over ssh, then merged
//  14. run(), main()
// Start reading at run().  Errors: the timed loops return -errno (no
// allocation where the I/O is timed); everything else returns an Error
// value, which run() prints as one line.  Everything but main() sits in an
// anonymous namespace; the tests include this file with SDB_NO_MAIN, so the
// same translation unit holds them and the code they call.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/btrfs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SDB_VERSION
#define SDB_VERSION "unknown"
#endif

namespace {

// ---------------------------------------------------------------- 1. errors

enum : int { exit_ok = 0, exit_runtime = 1, exit_usage = 2 };	// 128 + n: ended by signal n

// An error travels up to run() as a value; run() prints it as one line.
struct Error {
	int status = exit_ok;
	std::string msg;
	explicit operator bool() const { return status != exit_ok; }
};

[[gnu::format(printf, 1, 0)]] std::string vformat(const char *fmt, std::va_list ap)
{
	char small[256];
	std::va_list ap2;
	va_copy(ap2, ap);
	int n = std::vsnprintf(small, sizeof small, fmt, ap);
	std::string s;
	if (n >= 0 && static_cast<std::size_t>(n) < sizeof small) {
		s = small;
	} else if (n >= 0) {
		s.resize(static_cast<std::size_t>(n) + 1);
		std::vsnprintf(&s[0], s.size(), fmt, ap2);
		s.resize(static_cast<std::size_t>(n));
	}
	va_end(ap2);
	return s;
}

[[gnu::format(printf, 1, 2)]] std::string format(const char *fmt, ...)
{
	std::va_list ap;
	va_start(ap, fmt);
	std::string s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

[[gnu::format(printf, 1, 2)]] Error usage_error(const char *fmt, ...)
{
	std::va_list ap;
	va_start(ap, fmt);
	Error e{exit_usage, vformat(fmt, ap)};
	va_end(ap);
	return e;
}

// A runtime failure of a system call: the message gets ": strerror(err)".
[[gnu::format(printf, 2, 3)]] Error sys_error(int err, const char *fmt, ...)
{
	std::va_list ap;
	va_start(ap, fmt);
	Error e{exit_runtime, vformat(fmt, ap) + ": " + std::strerror(err)};
	va_end(ap);
	return e;
}

[[gnu::format(printf, 1, 2)]] Error runtime_error(const char *fmt, ...)
{
	std::va_list ap;
	va_start(ap, fmt);
	Error e{exit_runtime, vformat(fmt, ap)};
	va_end(ap);
	return e;
}

// Control characters a user typed (a newline inside -b) must not split
// the one line an error is.
std::string one_line(std::string s)
{
	for (char &c : s)
		if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
			c = '?';
	return s;
}

// The length of the valid UTF-8 sequence at s[i] (1 for ASCII), or 0
// where s[i] starts none: a stray continuation byte, a lead byte 0xC0,
// 0xC1 or 0xF5..0xFF, an overlong form, a surrogate, a cut-off sequence.
std::size_t utf8_sequence(std::string_view s, std::size_t i)
{
	auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
	unsigned char c = byte(0);
	if (c < 0x80)
		return 1;
	std::size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (len == 0 || i + len > s.size())
		return 0;
	for (std::size_t k = 1; k < len; k++)
		if ((byte(k) & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && byte(1) < 0xa0) || (c == 0xed && byte(1) >= 0xa0) ||	// overlong, surrogate
	    (c == 0xf0 && byte(1) < 0x90) || (c == 0xf4 && byte(1) >= 0x90))	// overlong, past U+10FFFF
		return 0;
	return len;
}

// A file name for the terminal: control characters and bytes that are not
// UTF-8 as \xHH (and the backslash doubled), so that a name cannot move the
// cursor, clear the screen or hide itself.
std::string printable(std::string_view s)
{
	std::string out;
	for (std::size_t i = 0; i < s.size();) {
		std::size_t len = utf8_sequence(s, i);
		auto c = static_cast<unsigned char>(s[i]);
		if (len == 0 || c < 0x20 || c == 0x7f || (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0)) {
			len = len ? len : 1;	// C1 controls (U+0080..U+009F) count as control characters too
			for (std::size_t k = 0; k < len; k++)
				out += format("\\x%02x", static_cast<unsigned char>(s[i + k]));
		} else if (c == '\\') {
			out += "\\\\";
		} else {
			out.append(s.substr(i, len));
		}
		i += len;
	}
	return out;
}

void print_error(const Error &e)
{
	std::fprintf(stderr, "sdb: %s\n", one_line(e.msg).c_str());
}

// The first failed write to stdout: by the time main() looks, errno has
// long moved on, so it is kept where the bytes leave, at each flush.
int g_output_errno = 0;

void flush_output(std::FILE *out)
{
	if (std::fflush(out) == EOF && g_output_errno == 0)
		g_output_errno = errno;
}

// --------------------------------------------------------------- 2. numbers

constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// SIZE: digits, an optional k/m/g/t (1024-based, either case), optionally
// followed by "iB" or "B".  Zero, signs, spaces, junk and overflow: nothing.
std::optional<std::uint64_t> parse_size(std::string_view s)
{
	std::uint64_t value = 0;
	std::size_t i = 0;
	for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned digit = static_cast<unsigned>(s[i] - '0');
		if (value > (UINT64_MAX - digit) / 10)
			return std::nullopt;
		value = value * 10 + digit;
	}
	if (i == 0 || value == 0)
		return std::nullopt;
	std::string_view suffix = s.substr(i);
	if (suffix.empty())
		return value;
	unsigned shift;
	switch (suffix[0]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: return std::nullopt;
	}
	suffix.remove_prefix(1);
	if (!suffix.empty() && suffix != "B" && suffix != "iB")
		return std::nullopt;
	if (value > (UINT64_MAX >> shift))
		return std::nullopt;
	return value << shift;
}

// A plain positive integer in [lo, hi] (thread count, queue depth).
std::optional<unsigned> parse_count(std::string_view s, unsigned lo, unsigned hi)
{
	unsigned long long value = 0;
	if (s.empty() || s.size() > 9)
		return std::nullopt;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		value = value * 10 + static_cast<unsigned>(c - '0');
	}
	if (value < lo || value > hi)
		return std::nullopt;
	return static_cast<unsigned>(value);
}

// Seconds for -t: a positive decimal number, at most a year.
std::optional<double> parse_seconds(const char *s)
{
	char *end = nullptr;
	errno = 0;
	double value = std::strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(value > 0) || value > 366.0 * 86400)
		return std::nullopt;
	for (const char *p = s; *p; p++)	// digits and one point only: no "inf", "0x1p3", " 1"
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return std::nullopt;
	return value;
}

// Would v, printed with `decimals` places, show `next` or more?  Then it
// belongs in the next unit: 999999 ns is "1.0 ms", not "1000.0 us".
bool rounds_up_to(double v, int decimals, double next)
{
	double scale = std::pow(10.0, decimals);
	return std::round(v * scale) / scale >= next;
}

// 268435456 -> "256 MiB", 1536 -> "1.50 KiB", 100 -> "100 B"
std::string format_bytes(std::uint64_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	unsigned u = 0;
	double v = static_cast<double>(n);
	while ((v >= 1024 || (u > 0 && rounds_up_to(v, 2, 1024))) && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0 || v == std::floor(v))
		return format("%.0f %s", v, units[u]);
	return format("%.2f %s", v, units[u]);
}

// Rates always with two decimals, in KiB/s, MiB/s or GiB/s.
std::string format_rate(double bytes_per_second)
{
	double mib = bytes_per_second / MiB;
	if (rounds_up_to(mib, 2, 1024))
		return format("%.2f GiB/s", bytes_per_second / GiB);
	if (rounds_up_to(bytes_per_second / KiB, 2, 1024))
		return format("%.2f MiB/s", mib);
	return format("%.2f KiB/s", bytes_per_second / KiB);
}

std::string format_ns(std::uint64_t ns)
{
	double v = static_cast<double>(ns);
	if (ns < 1000)
		return format("%" PRIu64 " ns", ns);
	if (!rounds_up_to(v / 1e3, 1, 1000))
		return format("%.1f us", v / 1e3);
	if (!rounds_up_to(v / 1e6, 1, 1000))
		return format("%.1f ms", v / 1e6);
	return format("%.2f s", v / 1e9);
}

double rate(std::uint64_t amount, double seconds)
{
	return seconds > 0 ? static_cast<double>(amount) / seconds : 0.0;
}

// --------------------------------------------------------------- 3. options

// Keep in step with sdb.1 and README: tests/cli.sh checks both ways.
constexpr char usage_text[] =
	"usage: sdb -w|-r|-M PCT -f FILE [options]  benchmark writes, reads or a mix\n"
	"       sdb -T [-b SIZE]                    time memory only\n"
	"       sdb --merge FILE... [--json]        one report from saved --json results\n"
	"  -w, --write             write test\n"
	"  -r, --read              read test\n"
	"  -M, --mix PCT           mixed test: each I/O a read with probability PCT% (0..100), else a write\n"
	"  -f, --file FILE         target: a file (FILE.0 .. FILE.N-1 with -j N) or a device\n"
	"  -b, --block-size SIZE   bytes per I/O (default 1m; 4k with -m rand)\n"
	"  -s, --size SIZE         bytes per thread (default: 1g to write, the target's size to read)\n"
	"  -j, --threads N         threads, 1..4096 (default 1)\n"
	"  -m, --mode MODE         seq or rand (default seq)\n"
	"  -t, --time SEC          run each thread SEC seconds, repeating passes (default one pass)\n"
	"  -D, --direct            open with O_DIRECT (bypass the page cache)\n"
	"  -S, --sync              open with O_SYNC\n"
	"  -R, --random-buffer     fill the write buffer from /dev/urandom (default zeros)\n"
	"  -T, --timing            time memset/memcpy/memmove: the memory ceiling\n"
	"  -q, --queue-depth N     I/Os in flight per thread through io_uring (default 1: plain pread/pwrite)\n"
	"  -v, --verbose           describe host, kernel, file system, device and buffers\n"
	"      --json              print one JSON document instead of the report\n"
	"      --cached            measure the page cache: no eviction, no fdatasync\n"
	"      --force             also write a block device, a file sdb did not create, a link\n"
	"      --quick[=PROFILE]   CrystalDiskMark's tests on a test file in -f DIR (-t, -s apply);\n"
	"                          PROFILE: default, nvme, real or mix\n"
	"      --keep              with --quick: keep the test file\n"
	"      --runs N            with --quick: runs per test, 1..100 (default 3)\n"
	"      --explain           print the equivalent fio command lines instead of running\n"
	"      --fsync N           with writes: fdatasync after every N writes, timed apart (-q 1 only)\n"
	"      --ramp SEC          run SEC seconds of the same I/O first, none of it counted\n"
	"      --start-at TIME     start when the clock reads TIME: Unix seconds, or +SEC from now\n"
	"      --verify            writes: a checkable pattern, read back after the run; reads: check each 4 KiB\n"
	"      --hosts LIST        run the test on each HOST[:PATH] of a comma list over ssh, merged\n"
	"      --merge FILE...     merge sdb --json documents (- for stdin) into one report\n"
	"  -V, --version           print the version and exit\n"
	"  -h, --help              print this help and exit\n"
	"SIZE: a positive number with an optional k, m, g or t (1024-based), e.g. 4k, 64m, 1GiB\n"
	"FILE: %h is the short host name, %r the launcher's rank (SLURM_PROCID ...), %% a %\n";

// The monotonic clock, in nanoseconds: every duration sdb measures.
std::int64_t now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The real-time clock, as Unix nanoseconds: --start-at and the report's
// Unix times.  Durations are always CLOCK_MONOTONIC (now_ns).
std::int64_t realtime_ns()
{
	timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The host name up to its first '.', as `hostname -s` prints it.
std::string short_host_name()
{
	char name[256] = {};
	if (gethostname(name, sizeof name - 1) != 0)
		return "";
	std::string host = name;
	return host.substr(0, host.find('.'));
}

// The rank a parallel launcher gave this process: the first of these that
// is set (Slurm, Open MPI, PMIx, MPICH/Intel MPI), else 0.  which: the
// variable it came from, for messages.
std::string launcher_rank(std::string &which)
{
	for (const char *name : {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
		if (const char *v = std::getenv(name); v && *v) {
			which = name;
			return v;
		}
	which.clear();
	return "0";
}

// -f's pattern: %h the host, %r the rank, %% a '%'.  Any other '%' is a
// usage error, so that a typo does not silently become part of a name.
Error expand_name(std::string_view pattern, std::string_view host, std::string_view rank, std::string &name)
{
	name.clear();
	for (std::size_t i = 0; i < pattern.size(); i++) {
		if (pattern[i] != '%') {
			name += pattern[i];
			continue;
		}
		char c = i + 1 < pattern.size() ? pattern[++i] : '\0';
		if (c == 'h')
			name.append(host);
		else if (c == 'r')
			name.append(rank);
		else if (c == '%')
			name += '%';
		else if (c == '\0')
			return usage_error("-f %s: a lone %% at the end (%%h host, %%r rank, %%%% a percent sign)",
					   std::string(pattern).c_str());
		else
			return usage_error("-f %s: %%%c is not a pattern (%%h host, %%r rank, %%%% a percent sign)",
					   std::string(pattern).c_str(), c);
	}
	return {};
}

// expand_name with this host and this launcher's rank, each checked only
// where the pattern uses it: a name part, not a path or an option.
Error expand_file(std::string &file)
{
	if (file.find('%') == std::string::npos)
		return {};
	auto uses = [&](char c) {	// %c itself, not the "%c" of a "%%c"
		for (std::size_t i = 0; i + 1 < file.size(); i++)
			if (file[i] == '%' && file[++i] == c)
				return true;
		return false;
	};
	std::string host, rank, which;
	if (uses('h')) {
		host = short_host_name();
		if (host.empty() || host.find('/') != std::string::npos)
			return runtime_error("-f %s: %%h: no usable host name (\"%s\")", file.c_str(), host.c_str());
	}
	rank = launcher_rank(which);
	if (uses('r') &&
	    (rank.size() > 9 || rank.find_first_not_of("0123456789") != std::string::npos))
		return usage_error("-f %s: %%r: %s=%s is not a rank (a whole number)", file.c_str(), which.c_str(),
				   rank.c_str());
	std::string name;
	if (Error e = expand_name(file, host, rank, name))
		return e;
	if (name.empty())
		return usage_error("-f %s: the name is empty once expanded", file.c_str());
	file = name;
	return {};
}

// --start-at TIME: Unix seconds ("1764500000.25") or "+SEC" from now, as
// Unix nanoseconds.  A time more than a day from now either way is a
// mistake (a "5" meant as "+5", milliseconds for seconds), not a plan.
constexpr std::int64_t start_at_reach_ns = 86400 * std::int64_t{1000000000};

Error parse_start_at(const char *arg, std::int64_t now, const std::string &name, std::int64_t &at)
{
	std::string_view s = arg;
	bool relative = !s.empty() && s[0] == '+';
	if (relative)
		s.remove_prefix(1);
	std::int64_t whole = 0, frac = 0, scale = 100000000;
	std::size_t i = 0;
	for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 12; i++)
		whole = whole * 10 + (s[i] - '0');
	bool digits = i > 0;
	if (i < s.size() && s[i] == '.')
		for (i++; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10) {
			frac += (s[i] - '0') * scale;
			digits = true;
		}
	if (!digits || i != s.size())
		return usage_error("%s %s: a time is Unix seconds (e.g. 1764500000.25) or +SEC from now (e.g. +5)",
				   name.c_str(), arg);
	at = std::min<std::int64_t>(whole, 4000000000) * 1000000000 + frac;	// 2096: refused below, no overflow
	if (relative)
		at += now;
	if (at - now > start_at_reach_ns || now - at > start_at_reach_ns)
		return usage_error("%s %s: more than a day %s; give Unix seconds within a day of now, or +SEC", name.c_str(),
				   arg, at > now ? "ahead" : "ago");
	return {};
}

struct QuickProfile;
const QuickProfile *find_quick_profile(std::string_view name);
Error quick_profile_error(const QuickProfile &p, const std::string &option);

// --hosts: one entry of HOST[:PATH],...
struct HostSpec {
	std::string host;
	std::string path;	// empty: this run's -f
};

struct Options {
	enum class Op { none, write, read, mix };
	Op op = Op::none;
	bool random = false;		// -m rand
	std::string file;
	std::uint64_t block_size = 0;	// 0: 1m sequential, 4k random
	std::uint64_t size = 0;		// 0: 1g for writes, the target's size for reads
	unsigned threads = 1;
	double time_limit = 0;		// seconds; 0: one pass
	unsigned queue_depth = 1;
	unsigned mix = 0;		// -M: the percentage of reads (op mix)
	unsigned fsync_every = 0;	// --fsync N; 0: off
	double ramp = 0;		// --ramp: seconds run before the timed window; 0: none
	bool direct = false;
	bool sync = false;
	bool random_buffer = false;
	bool timing = false;
	bool verbose = false;
	bool json = false;
	bool cached = false;
	bool force = false;
	bool quick = false;
	const QuickProfile *profile = nullptr;	// --quick=PROFILE; with --quick, never null
	bool keep = false;
	unsigned runs = 0;		// --runs; 0: not given (3 with --quick)
	bool explain = false;
	std::int64_t start_at_ns = 0;	// --start-at, as Unix nanoseconds; 0: start when ready
	bool verify = false;		// --verify (sets random_buffer too: the pattern is the content)
	bool merge = false;		// --merge: merge_files are the operands
	std::vector<std::string> merge_files;
	std::vector<HostSpec> hosts;	// --hosts
	std::vector<std::string> given;	// not an option: every option given, as --long[=value], for --hosts
};

enum class Action { run, help, version };

struct Parsed {
	Action action = Action::run;
	Options opt;
	Error error;
};

enum : int { opt_json = 256, opt_cached, opt_force, opt_quick, opt_keep, opt_runs, opt_explain, opt_fsync, opt_ramp,
	     opt_start_at, opt_verify, opt_hosts, opt_merge };

const option long_options[] = {
	{"write", no_argument, nullptr, 'w'},
	{"read", no_argument, nullptr, 'r'},
	{"mix", required_argument, nullptr, 'M'},
	{"file", required_argument, nullptr, 'f'},
	{"block-size", required_argument, nullptr, 'b'},
	{"size", required_argument, nullptr, 's'},
	{"threads", required_argument, nullptr, 'j'},
	{"mode", required_argument, nullptr, 'm'},
	{"time", required_argument, nullptr, 't'},
	{"direct", no_argument, nullptr, 'D'},
	{"sync", no_argument, nullptr, 'S'},
	{"random-buffer", no_argument, nullptr, 'R'},
	{"timing", no_argument, nullptr, 'T'},
	{"queue-depth", required_argument, nullptr, 'q'},
	{"verbose", no_argument, nullptr, 'v'},
	{"version", no_argument, nullptr, 'V'},
	{"help", no_argument, nullptr, 'h'},
	{"json", no_argument, nullptr, opt_json},
	{"cached", no_argument, nullptr, opt_cached},
	{"force", no_argument, nullptr, opt_force},
	{"quick", optional_argument, nullptr, opt_quick},
	{"keep", no_argument, nullptr, opt_keep},
	{"runs", required_argument, nullptr, opt_runs},
	{"explain", no_argument, nullptr, opt_explain},
	{"fsync", required_argument, nullptr, opt_fsync},
	{"ramp", required_argument, nullptr, opt_ramp},
	{"start-at", required_argument, nullptr, opt_start_at},
	{"verify", no_argument, nullptr, opt_verify},
	{"hosts", required_argument, nullptr, opt_hosts},
	{"merge", no_argument, nullptr, opt_merge},
	{nullptr, 0, nullptr, 0},
};
constexpr char short_options[] = ":wrM:f:b:s:j:m:t:DSRTq:vVh";

// How the user spelled an option, for messages: "-b" or "--block-size".
std::string option_name(int c, int long_index)
{
	if (long_index >= 0)
		return std::string("--") + long_options[long_index].name;
	return format("-%c", c);
}

Error set_size(std::uint64_t &size, const char *arg, const std::string &name)
{
	auto v = parse_size(arg);
	if (!v)
		return usage_error("%s %s: invalid size (a positive number with an optional k, m, g or t suffix)",
				   name.c_str(), arg);
	size = *v;
	return {};
}

// --hosts HOST[:PATH],...: a host may not start with "-" (ssh would take
// it for an option), nor hold spaces or control characters; "[v6]:PATH"
// for an IPv6 address with a path.
Error parse_hosts(std::string_view list, const std::string &name, std::vector<HostSpec> &hosts)
{
	hosts.clear();
	for (std::size_t begin = 0;;) {
		std::size_t comma = list.find(',', begin);
		std::string_view entry = list.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
		HostSpec h;
		std::size_t colon = entry.find(':');
		if (!entry.empty() && entry[0] == '[' && entry.find(']') != std::string_view::npos) {
			std::size_t close = entry.find(']');
			h.host = std::string(entry.substr(1, close - 1));
			colon = entry.size() > close + 1 && entry[close + 1] == ':' ? close + 1 : std::string_view::npos;
			if (colon == std::string_view::npos && entry.size() > close + 1)
				return usage_error("%s %s: \"%s\": after ']' only \":PATH\"", name.c_str(), std::string(list).c_str(),
						   std::string(entry).c_str());
		} else {
			h.host = std::string(entry.substr(0, colon));
		}
		if (colon != std::string_view::npos) {
			h.path = std::string(entry.substr(colon + 1));
			if (h.path.empty())
				return usage_error("%s %s: \"%s\": empty PATH after ':'", name.c_str(), std::string(list).c_str(),
						   std::string(entry).c_str());
		}
		if (h.host.empty())
			return usage_error("%s %s: an empty host name (HOST[:PATH],...)", name.c_str(), std::string(list).c_str());
		if (h.host[0] == '-')
			return usage_error("%s %s: \"%s\": a host name cannot start with '-'", name.c_str(),
					   std::string(list).c_str(), h.host.c_str());
		for (char c : h.host)
			if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
				return usage_error("%s %s: a host name cannot hold spaces or control characters", name.c_str(),
						   std::string(list).c_str());
		hosts.push_back(std::move(h));
		if (comma == std::string_view::npos)
			break;
		begin = comma + 1;
	}
	return {};
}

Error set_option(Options &o, int c, const char *arg, const std::string &name)
{
	switch (c) {
	case 'w': case 'r': case 'M': {
		auto op = c == 'w' ? Options::Op::write : c == 'r' ? Options::Op::read : Options::Op::mix;
		if (o.op != Options::Op::none && o.op != op)
			return usage_error(op == Options::Op::mix || o.op == Options::Op::mix
						   ? "-M and -w or -r: a mix does both; choose one"
						   : "-w and -r: choose one");
		o.op = op;
		if (c == 'M') {
			auto v = parse_count(arg, 0, 100);
			if (!v)
				return usage_error("%s %s: the share of reads must be a whole number from 0 to 100", name.c_str(), arg);
			o.mix = *v;
		}
		break;
	}
	case 'f': o.file = arg;
		  if (o.file.empty()) return usage_error("%s: empty file name", name.c_str());
		  break;
	case 'b':
		if (Error e = set_size(o.block_size, arg, name))
			return e;
		break;
	case 's':
		if (Error e = set_size(o.size, arg, name))
			return e;
		break;
	case 'j': {
		auto v = parse_count(arg, 1, 4096);
		if (!v) return usage_error("%s %s: threads must be a whole number from 1 to 4096", name.c_str(), arg);
		o.threads = *v;
		break;
	}
	case 'q': {
		auto v = parse_count(arg, 1, 4096);
		if (!v) return usage_error("%s %s: queue depth must be a whole number from 1 to 4096", name.c_str(), arg);
		o.queue_depth = *v;
		break;
	}
	case 'm':
		if (std::strcmp(arg, "seq") == 0) o.random = false;
		else if (std::strcmp(arg, "rand") == 0) o.random = true;
		else return usage_error("%s %s: mode must be seq or rand", name.c_str(), arg);
		break;
	case 't': {
		auto v = parse_seconds(arg);
		if (!v) return usage_error("%s %s: time must be a positive number of seconds", name.c_str(), arg);
		o.time_limit = *v;
		break;
	}
	case 'D': o.direct = true; break;
	case 'S': o.sync = true; break;
	case 'R': o.random_buffer = true; break;
	case 'T': o.timing = true; break;
	case 'v': o.verbose = true; break;
	case opt_json: o.json = true; break;
	case opt_cached: o.cached = true; break;
	case opt_force: o.force = true; break;
	case opt_quick: {
		o.quick = true;
		o.profile = find_quick_profile(arg ? arg : "default");
		if (!o.profile)
			return usage_error("%s=%s: unknown profile (default, nvme, real or mix)", name.c_str(), arg);
		if (Error e = quick_profile_error(*o.profile, name))
			return e;
		break;
	}
	case opt_keep: o.keep = true; break;
	case opt_runs: {
		auto v = parse_count(arg, 1, 100);
		if (!v) return usage_error("%s %s: runs must be a whole number from 1 to 100", name.c_str(), arg);
		o.runs = *v;
		break;
	}
	case opt_explain: o.explain = true; break;
	case opt_fsync: {
		auto v = parse_count(arg, 1, 999999999);
		if (!v) return usage_error("%s %s: writes per fdatasync must be a whole number from 1", name.c_str(), arg);
		o.fsync_every = *v;
		break;
	}
	case opt_ramp: {
		auto v = parse_seconds(arg);
		if (!v) return usage_error("%s %s: ramp must be a positive number of seconds", name.c_str(), arg);
		o.ramp = *v;
		break;
	}
	case opt_start_at:
		if (Error e = parse_start_at(arg, realtime_ns(), name, o.start_at_ns))
			return e;
		break;
	case opt_verify: o.verify = o.random_buffer = true; break;
	case opt_hosts:
		if (Error e = parse_hosts(arg, name, o.hosts))
			return e;
		break;
	case opt_merge: o.merge = true; break;
	}
	return {};
}

// --verify checks whole 4 KiB units, from the device.
Error check_verify(const Options &o)
{
	if (!o.verify)
		return {};
	if (o.op == Options::Op::none)
		return usage_error("--verify: needs -w or -r, a test whose data to check");
	if (o.cached)
		return usage_error("--verify and --cached: the check is of what the device gives back, not the page cache");
	if (o.block_size % (4 * KiB))
		return usage_error("-b %" PRIu64 ": --verify needs -b a multiple of 4k (each 4 KiB unit is checked)",
				   o.block_size);
	if (o.size % (4 * KiB))
		return usage_error("-s %" PRIu64 ": --verify needs -s a multiple of 4k (each 4 KiB unit is checked)", o.size);
	if (o.op == Options::Op::mix)
		return usage_error("--verify and -M: a mix reads what it may be rewriting; verify a -w run, then -r it");
	if (o.ramp > 0)
		return usage_error("--verify and --ramp: the ramp's writes would be checked as the run's; leave one out");
	return {};
}

// An option as --hosts passes it on: its long name, "=" and its value.
std::string canonical_option(int c, const char *arg)
{
	for (const option *o = long_options; o->name; o++)
		if (o->val == c)
			return std::string("--") + o->name + (arg ? std::string("=") + arg : "");
	return format("-%c", c);
}

// Options that are fine one by one but not together.
Error check_combination(const Options &o)
{
	if (o.merge) {	// reads results, runs nothing: only --json goes with it
		for (const std::string &g : o.given)
			if (g != "--merge" && g != "--json")
				return usage_error("--merge and %s: --merge reads saved results, it runs nothing",
						   g.substr(0, g.find('=')).c_str());
		if (o.merge_files.empty())
			return usage_error("--merge: needs FILE... (sdb --json documents; - for standard input)");
		return {};
	}
	if (!o.hosts.empty()) {
		if (o.quick)
			return usage_error("--hosts and --quick: --hosts runs one test (-w, -r or -M) on each host");
		if (o.explain)
			return usage_error("--hosts and --explain: explain the run without --hosts");
		if (o.op == Options::Op::none)
			return usage_error("--hosts: needs -w, -r or -M, the test to run on each host");
		bool paths = std::all_of(o.hosts.begin(), o.hosts.end(), [](const HostSpec &h) { return !h.path.empty(); });
		if (o.file.empty() && !paths)
			return usage_error("--hosts: needs -f FILE, or a PATH for every host (HOST:PATH)");
	}
	if (o.keep && !o.quick)
		return usage_error("--keep: only meaningful with --quick");
	if (o.runs && !o.quick)
		return usage_error("--runs: only meaningful with --quick");
	if (o.explain && o.json)
		return usage_error("--explain and --json: the explanation is fio command lines, not JSON");
	if (o.explain && o.op == Options::Op::none && !o.quick)
		return usage_error("--explain: needs -w, -r, -M or --quick, a test to explain");
	if (o.start_at_ns && (o.quick || o.explain))
		return usage_error("--start-at and %s: a start time is for one run (-w, -r or -M)",
				   o.quick ? "--quick" : "--explain");
	if (o.start_at_ns && o.op == Options::Op::none)
		return usage_error("--start-at: needs -w, -r or -M, a run to start");
	if (o.quick) {
		if (o.file.empty())
			return usage_error("--quick needs -f PATH: a directory, or a new file name");
		const struct {
			bool given;
			const char *name;
		} fixed[] = {
			{o.op == Options::Op::write, "-w"}, {o.op == Options::Op::read, "-r"}, {o.random, "-m"},
			{o.block_size != 0, "-b"}, {o.threads != 1, "-j"}, {o.queue_depth != 1, "-q"}, {o.direct, "-D"},
			{o.sync, "-S"}, {o.cached, "--cached"}, {o.timing, "-T"}, {o.verbose, "-v"},
			{o.op == Options::Op::mix, "-M"}, {o.fsync_every != 0, "--fsync"}, {o.ramp > 0, "--ramp"}, {o.verify, "--verify"},
		};
		for (const auto &f : fixed)
			if (f.given)
				return usage_error("--quick and %s: the quick suite sets its own tests", f.name);
		return {};
	}
	if (o.cached && o.direct)
		return usage_error("--cached and -D: O_DIRECT bypasses the cache --cached asks to measure");
	if (o.op == Options::Op::none && (o.fsync_every || o.ramp > 0))
		return usage_error("%s: needs a test: -w, -r or -M", o.fsync_every ? "--fsync" : "--ramp");
	if (o.fsync_every && o.op == Options::Op::read)
		return usage_error("--fsync and -r: fdatasync follows writes; use -w or -M");
	if (o.fsync_every && o.queue_depth > 1)
		return usage_error("--fsync and -q %u: a sync after every N writes needs them in order; use -q 1 "
				   "(-j N for syncs in parallel)", o.queue_depth);
	if (Error e = check_verify(o))
		return e;
	if (o.op == Options::Op::none) {
		if (!o.timing)
			return usage_error("one of -w (write), -r (read) or -M (mix) is required; see sdb --help");
		if (!o.file.empty())
			return usage_error("-f %s: needs -w, -r or -M (-T alone times memory only)", o.file.c_str());
		return {};
	}
	if (o.file.empty() && o.hosts.empty())
		return usage_error("-f FILE is required with %s",
				   o.op == Options::Op::write ? "-w" : o.op == Options::Op::read ? "-r" : "-M");
	return {};
}

// getopt_long's '?' or ':' as a message.  An unknown letter inside a group
// ("-xw") leaves optind on the group, so argv[optind - 1] is not always the
// culprit: optopt says which kind it was (0 or a long option's value: a
// long option; a letter of short_options: a long option given "=value").
Error option_error(int c, const std::string &given)
{
	bool is_long = c == ':' ? given.rfind("--", 0) == 0
				: optopt == 0 || optopt > 255 || (optopt != ':' && std::strchr(short_options, optopt));
	std::string bad = is_long ? given.substr(0, given.find('=')) : format("-%c", optopt);
	if (c == ':')
		return usage_error("%s: missing argument", bad.c_str());
	if (is_long && optopt)
		return usage_error("%s: takes no value", bad.c_str());
	return usage_error("%s: unknown option; see sdb --help", bad.c_str());
}

// Never exits or prints; re-entrant (optind = 0) so tests can call it often.
Parsed parse_args(int argc, char *argv[])
{
	Parsed p;
	int c;
	opterr = 0;
	optind = 0;
	int long_index = -1;
	while ((c = getopt_long(argc, argv, short_options, long_options, &long_index)) != -1) {
		if (c == 'h' || c == 'V') {
			p.action = c == 'h' ? Action::help : Action::version;
			return p;
		}
		if (c == '?' || c == ':') {
			p.error = option_error(c, argv[optind - 1]);
			return p;
		}
		if ((p.error = set_option(p.opt, c, optarg, option_name(c, long_index))))
			return p;
		p.opt.given.push_back(canonical_option(c, optarg));
		long_index = -1;
	}
	if (p.opt.merge) {	// the operands are the documents
		p.opt.merge_files.assign(argv + optind, argv + argc);
		p.error = check_combination(p.opt);
		return p;
	}
	if (optind < argc && find_quick_profile(argv[optind])) {
		p.error = usage_error("%s: unexpected argument (a profile goes after --quick=: --quick=%s)", argv[optind],
				      argv[optind]);
		return p;
	}
	if (optind < argc) {
		p.error = usage_error("%s: unexpected argument (the target goes after -f)", argv[optind]);
		return p;
	}
	p.error = check_combination(p.opt);
	if (!p.error && !p.opt.file.empty())	// once, here: plan, report, JSON and FILE.N all see the name
		p.error = expand_file(p.opt.file);
	return p;
}

// --------------------------------------------------------------- 4. targets

enum class Kind { missing, file, block, chr };

// A descriptor that closes itself.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	Fd(Fd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = o.fd_;
			o.fd_ = -1;
		}
		return *this;
	}
	~Fd() { reset(); }
	int get() const { return fd_; }
	explicit operator bool() const { return fd_ >= 0; }
	void reset()
	{
		if (fd_ >= 0)
			close(fd_);
		fd_ = -1;
	}

private:
	int fd_ = -1;
};

// Which inode a path named when it was checked: the open that does the
// I/O must find the same one, or the checks said nothing about it.
struct Identity {
	dev_t dev = 0;
	ino_t ino = 0;
	bool operator==(const Identity &o) const { return dev == o.dev && ino == o.ino; }
	bool operator!=(const Identity &o) const { return !(*this == o); }
};

Identity identity_of(const struct stat &st) { return {st.st_dev, st.st_ino}; }

struct Target {
	std::string path;
	Kind kind = Kind::missing;
	std::uint64_t base = 0;		// first byte of this thread's region
	std::uint64_t size = 0;		// bytes in the region
	std::uint64_t existing = 0;	// current size of a file, capacity of a block device
	Identity id;			// what was checked (not for Kind::missing)
	bool follow = false;		// a symlink, followed because of --force
};

// Where a run's threads do their I/O on a file: a file each (FILE.0 ..
// FILE.N-1 with -j N), or regions of one file, one a thread (the quick
// suite's test file).  A device is always shared, in regions.
enum class Files { per_thread, regions };

// Everything decided before any thread starts or any file is created.
struct Plan {
	Options opt;
	std::uint64_t block_size = 0;
	std::uint64_t slot_stride = 0;	// from one slot's buffer to the next: whole pages
	std::uint64_t pool = 0;		// -R writes of small blocks: random bytes to rotate through
	unsigned buffers = 0;		// one shared by all threads for zero-buffer writes; else
					// one per thread (reads, and -R writes, stamped per I/O)
	unsigned slots = 1;		// I/O buffers in each: the queue depth (1 when shared)
	// io_uring: most SQEs per io_uring_enter (0: all that are queued).  At
	// QD32 on a virtio disk 4 gave more IOPS than 1 (a syscall per I/O)
	// and than all at once (the device idles while the batch is built).
	unsigned submit_batch = 4;
	// io_uring: completions one io_uring_enter waits for; 0: one, or a
	// quarter of the depth where every I/O goes to io-wq (see ring_for()).
	unsigned wait_batch = 0;
	std::vector<Target> targets;
	unsigned dio_align = 0;		// bytes; 0 without -D
	std::string dio_align_source;
	std::uint32_t fs_type = 0;	// statfs f_type of the target's file system
	dev_t fs_dev = 0;		// device of that file system, or the block device
	std::string backing_device;	// fuseblk: the block device flushed (BLKFLSBUF) before reads
	int backing_error = 0;		// fuseblk: why it cannot be flushed (errno)
	Fd exclusive;			// O_EXCL hold on a block device during writes
	std::uint64_t verify_seed = 0;	// --verify writes: from /dev/urandom, in every unit's header
};

bool is_write(const Options &o) { return o.op == Options::Op::write; }
bool is_mix(const Options &o) { return o.op == Options::Op::mix; }
// A write or a mix: the target is opened for writing, with every rule
// about what sdb may overwrite.
bool writes_target(const Options &o) { return o.op == Options::Op::write || o.op == Options::Op::mix; }

std::string dirname_of(const std::string &path)
{
	auto slash = path.find_last_of('/');
	if (slash == std::string::npos)
		return ".";
	return slash == 0 ? "/" : path.substr(0, slash);
}

std::string read_line(const std::string &path)
{
	std::ifstream in(path);
	std::string line;
	std::getline(in, line);
	return line;
}

// A path under sysfs: "/sys" + path, or under $SDB_SYSFS, which tests
// point at a fixture tree.
std::string sysfs(const std::string &path)
{
	const char *root = std::getenv("SDB_SYSFS");
	return (root && *root ? std::string(root) : std::string("/sys")) + path;
}

std::string sysfs_dev(dev_t dev)
{
	return sysfs(format("/dev/block/%u:%u", major(dev), minor(dev)));
}

// The device node of a block device's sysfs directory, from its uevent's
// DEVNAME (a dm device's is dm-N, not its /dev/mapper name).
std::string device_node(const std::string &dir)
{
	std::ifstream uevent(dir + "/uevent");
	std::string line;
	while (std::getline(uevent, line))
		if (line.rfind("DEVNAME=", 0) == 0)
			return "/dev/" + line.substr(8);
	return "/dev/" + dir.substr(dir.find_last_of('/') + 1);
}

std::string fs_name(std::uint32_t type)
{
	switch (type) {
	case EXT4_SUPER_MAGIC: return "ext2/3/4";
	case TMPFS_MAGIC: return "tmpfs";
	case RAMFS_MAGIC: return "ramfs";
	case XFS_SUPER_MAGIC: return "xfs";
	case BTRFS_SUPER_MAGIC: return "btrfs";
	case 0x2fc12fc1: return "zfs";
	case NFS_SUPER_MAGIC: return "nfs";
	case 0x65735546: return "fuse";
	case 0xf2f52010: return "f2fs";
	case 0x794c7630: return "overlayfs";
	case MSDOS_SUPER_MAGIC: return "vfat";
	case 0x5346544e: return "ntfs";
	default: return format("0x%x", type);
	}
}

bool memory_fs(std::uint32_t type) { return type == TMPFS_MAGIC || type == RAMFS_MAGIC; }

// One line of /proc/self/mountinfo: what is mounted where, from what.
struct Mount {
	dev_t dev = 0;			// the file system's st_dev
	std::string point, type, source;
};

// mountinfo writes space, tab, newline and backslash in paths as \ooo.
std::string unescape_mount_field(const std::string &s)
{
	std::string out;
	for (std::size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
			out += static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8));
			i += 3;
		} else {
			out += s[i];
		}
	}
	return out;
}

std::vector<Mount> read_mounts()
{
	std::vector<Mount> mounts;
	std::ifstream in("/proc/self/mountinfo");
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		std::string id, parent, numbers, root, point, word;
		fields >> id >> parent >> numbers >> root >> point;
		while (fields >> word && word != "-")
			continue;	// mount options and optional fields
		Mount m;
		unsigned ma = 0, mi = 0;
		if (std::sscanf(numbers.c_str(), "%u:%u", &ma, &mi) != 2 || !(fields >> m.type >> m.source))
			continue;
		m.dev = makedev(ma, mi);
		m.point = unescape_mount_field(point);
		m.source = unescape_mount_field(m.source);
		mounts.push_back(std::move(m));
	}
	return mounts;
}

// The file system's own name ("ext4", not "ext2/3/4") from the mount table.
std::string mounted_fs_type(dev_t dev, std::uint32_t magic)
{
	for (const Mount &m : read_mounts())
		if (m.dev == dev)
			return m.type;
	return fs_name(magic);
}

bool fuse_fs(std::uint32_t type) { return type == 0x65735546; }

// Why O_DIRECT on path may be buffered I/O, or "" when nothing says so.  A
// file system that cannot do direct I/O on a file (ext4 data=journal, some
// btrfs files) quietly does buffered I/O instead, and says so only in
// statx: STATX_DIOALIGN answered with an offset alignment of 0.
std::string direct_io_doubt(const std::string &path)
{
#ifdef STATX_DIOALIGN
	struct statx stx {};
	if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN) &&
	    stx.stx_dio_offset_align == 0)
		return "statx reports no direct I/O for this file";
#else
	(void)path;
#endif
	return "";
}

// Drop a block device's own cache (BLKFLSBUF, root only): 0 or errno.
int flush_device(const std::string &device)
{
	int fd = open(device.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int err = ioctl(fd, BLKFLSBUF, 0) == 0 ? 0 : errno;
	close(fd);
	return err;
}

// A block-backed FUSE file system (ntfs-3g on fuseblk): the daemon reads
// the device through the device's page cache, which evicting the file's
// pages does not touch.  Find the device and try a flush now, so that the
// warning before the run can say whether reads will reach it.
void find_backing_device(Plan &plan)
{
	const Target &t = plan.targets[0];
	if (!fuse_fs(plan.fs_type) || t.kind == Kind::block || t.kind == Kind::chr || plan.opt.cached ||
	    mounted_fs_type(plan.fs_dev, plan.fs_type) != "fuseblk")
		return;
	std::string device = device_node(sysfs_dev(plan.fs_dev));
	plan.backing_error = flush_device(device);
	if (!plan.backing_error)
		plan.backing_device = device;
}

// O_DIRECT alignment for a path (or the directory a new file goes into).
// statx STATX_DIOALIGN where the kernel has it, BLKSSZGET on block devices,
// else the logical block size of the file system's device, else 4096.
unsigned dio_alignment(const std::string &path, Kind kind, dev_t fs_dev, std::string &source)
{
	if (kind == Kind::block) {
		int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
		int lbs = 0;
		if (fd >= 0 && ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0) {
			close(fd);
			source = "BLKSSZGET";
			return static_cast<unsigned>(lbs);
		}
		if (fd >= 0)
			close(fd);
	}
#ifdef STATX_DIOALIGN
	struct statx stx {};
	const std::string &probe = kind == Kind::missing ? dirname_of(path) : path;
	if (statx(AT_FDCWD, probe.c_str(), 0, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0) {
		source = "statx";
		return std::max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
	}
#endif
	if (kind != Kind::chr) {
		unsigned long lbs = std::strtoul(read_line(sysfs_dev(fs_dev) + "/queue/logical_block_size").c_str(), nullptr, 10);
		if (lbs == 0)	// a partition: the queue lives with the whole disk
			lbs = std::strtoul(read_line(sysfs_dev(fs_dev) + "/../queue/logical_block_size").c_str(), nullptr, 10);
		if (lbs >= 512 && lbs <= 65536 && (lbs & (lbs - 1)) == 0) {
			source = "logical block size";
			return static_cast<unsigned>(lbs);
		}
	}
	source = "default";
	return 4096;
}

// The loop devices whose backing file is the inode `st` describes (a
// regular file, or a block device node, compared by device number).
std::vector<std::string> loop_users(const struct stat &st)
{
	std::vector<std::string> loops;
	DIR *d = opendir("/sys/block");
	if (!d)
		return loops;
	while (dirent *e = readdir(d)) {
		if (std::strncmp(e->d_name, "loop", 4) != 0)
			continue;
		std::string backing = read_line(format("/sys/block/%s/loop/backing_file", e->d_name));
		const std::string deleted = " (deleted)";
		if (backing.size() > deleted.size() && backing.compare(backing.size() - deleted.size(), deleted.size(), deleted) == 0)
			continue;	// its file is gone: it cannot be this one
		struct stat b {};
		if (backing.empty() || stat(backing.c_str(), &b) != 0)
			continue;
		bool same = S_ISBLK(st.st_mode) ? S_ISBLK(b.st_mode) && b.st_rdev == st.st_rdev
						 : S_ISREG(b.st_mode) && identity_of(b) == identity_of(st);
		if (same)
			loops.push_back(std::string("/dev/") + e->d_name);
	}
	closedir(d);
	std::sort(loops.begin(), loops.end());
	return loops;
}

// A swap area that is this file or device (/proc/swaps escapes as mountinfo does).
bool is_swap(const struct stat &st)
{
	std::ifstream in("/proc/swaps");
	std::string line;
	std::getline(in, line);	// the header
	while (std::getline(in, line)) {
		std::string path = unescape_mount_field(line.substr(0, line.find_first_of(" \t")));
		struct stat s {};
		if (stat(path.c_str(), &s) != 0)
			continue;
		if (S_ISBLK(st.st_mode) ? S_ISBLK(s.st_mode) && s.st_rdev == st.st_rdev : identity_of(s) == identity_of(st))
			return true;
	}
	return false;
}

std::string device_users(dev_t dev, unsigned depth, dev_t via = 0);

// Who uses a regular file as a disk: a loop device (and whoever uses that),
// a swap area, a mount of the file itself (fuse2fs, ntfs-3g on an image).
// Empty when nobody does.
std::string file_users(const struct stat &st, unsigned depth)
{
	for (const std::string &loop : loop_users(st)) {
		struct stat l {};
		std::string deeper = depth < 8 && stat(loop.c_str(), &l) == 0 ? device_users(l.st_rdev, depth + 1) : "";
		return "it backs the loop device " + loop + (deeper.empty() ? "" : ", which is " + deeper);
	}
	if (is_swap(st))
		return "it is an active swap area";
	for (const Mount &m : read_mounts()) {
		struct stat s {};
		if (!m.source.empty() && m.source[0] == '/' && stat(m.source.c_str(), &s) == 0 && S_ISREG(s.st_mode) &&
		    identity_of(s) == identity_of(st))
			return "it is mounted on " + m.point;
	}
	return "";
}

// Who uses a block device: a mount of it or of a partition, a holder (md,
// LVM, dm-crypt), a swap area, a loop device it backs (other than `via`,
// the loop device asking), or, for a loop device, whoever uses what it is
// backed by.  Empty when nobody does.
std::string device_users(dev_t dev, unsigned depth, dev_t via)
{
	std::vector<std::pair<std::string, dev_t>> devs{{"", dev}};
	std::string sys = sysfs_dev(dev);
	if (DIR *d = opendir(sys.c_str())) {
		while (dirent *e = readdir(d)) {
			std::string part = sys + "/" + e->d_name;
			if (e->d_name[0] == '.' || access((part + "/partition").c_str(), F_OK) != 0)
				continue;
			unsigned ma = 0, mi = 0;
			if (std::sscanf(read_line(part + "/dev").c_str(), "%u:%u", &ma, &mi) == 2)
				devs.push_back({e->d_name, makedev(ma, mi)});
		}
		closedir(d);
	}
	std::vector<Mount> mounts = read_mounts();
	for (auto &[part, num] : devs) {
		std::string who = part.empty() ? "" : "partition " + part + " ";
		for (const Mount &m : mounts)
			if (m.dev == num)
				return who + "mounted on " + m.point;
		std::string holders = sysfs_dev(num) + "/holders";
		if (DIR *d = opendir(holders.c_str())) {
			std::string name;
			while (dirent *e = readdir(d))
				if (e->d_name[0] != '.')
					name = e->d_name;
			closedir(d);
			if (!name.empty())
				return who + "held by " + name + " (md, LVM or device mapper)";
		}
		struct stat node {};
		node.st_mode = S_IFBLK;
		node.st_rdev = num;
		if (is_swap(node))
			return who + "an active swap area";
		for (const std::string &loop : loop_users(node)) {
			struct stat l {};
			if (stat(loop.c_str(), &l) != 0 || l.st_rdev != via)
				return who + "the backing device of " + loop;
		}
	}
	// A loop device passes its writes on to its backing file or device.
	std::string backing = read_line(sys + "/loop/backing_file");
	struct stat b {};
	if (!backing.empty() && depth < 8 && stat(backing.c_str(), &b) == 0) {
		std::string users = S_ISBLK(b.st_mode) ? device_users(b.st_rdev, depth + 1, dev) : "";
		if (S_ISREG(b.st_mode)) {	// other loop devices on the same file count, this one not
			for (const std::string &loop : loop_users(b)) {
				struct stat l {};
				if (stat(loop.c_str(), &l) == 0 && l.st_rdev != dev && !device_users(l.st_rdev, depth + 1).empty())
					users = "also behind " + loop + ", which is " + device_users(l.st_rdev, depth + 1);
			}
			if (users.empty() && is_swap(b))
				users = "an active swap area";
		}
		if (!users.empty())
			return "backed by " + backing + ", " + users;
	}
	return "";
}

// Writing to a block device (--force given): nobody using it, and an O_EXCL hold
// for the whole run so that nobody mounts it meanwhile.
Error claim_block_device(const std::string &path, dev_t rdev, Plan &plan)
{
	std::string users = device_users(rdev, 0);
	if (!users.empty())
		return runtime_error("%s is in use (%s): refusing to write to it, even with --force", path.c_str(), users.c_str());
	plan.exclusive = Fd(open(path.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
	if (!plan.exclusive && errno == EBUSY)
		return runtime_error("%s is in use (open with O_EXCL: %s): refusing to write to it, even with --force",
				     path.c_str(), std::strerror(errno));
	if (!plan.exclusive)
		return sys_error(errno, "open: %s", path.c_str());
	return {};
}

// A block device's capacity; an error when it cannot even be opened
// (EACCES must not read as "a device of 0 bytes").
Error block_device_size(const std::string &path, std::uint64_t &bytes)
{
	bytes = 0;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_error(errno, "open: %s", path.c_str());
	int err = ioctl(fd, BLKGETSIZE64, &bytes) == 0 ? 0 : errno;
	close(fd);
	if (err)
		return sys_error(err, "BLKGETSIZE64: %s", path.c_str());
	return {};
}

// Character devices that are safe to write: the rest (/dev/sg*, /dev/mtd*,
// /dev/port ...) may be hardware, and need --force like a block device.
bool harmless_char_device(dev_t rdev)
{
	return major(rdev) == 1 && (minor(rdev) == 3 || minor(rdev) == 5 || minor(rdev) == 7);	// null, zero, full
}

// The mark sdb leaves on the files it creates: it rewrites those freely,
// and empty files, and nothing else without --force.
constexpr char owner_xattr[] = "user.sdb";

bool sticky_shared_dir(const std::string &dir)
{
	struct stat st {};
	return stat(dir.c_str(), &st) == 0 && (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
}

// May sdb write over this existing regular file?  Asked of the open
// descriptor fd, whose fstat is st.  `ours`: a file this sdb made (the
// quick suite's), known by identity where no mark can be kept.
Error check_overwrite(const Target &t, int fd, const struct stat &st, const Options &o, const Identity *ours)
{
	const char *path = t.path.c_str();
	std::string users = file_users(st, 0);
	if (!users.empty())
		return runtime_error("%s is in use (%s): refusing to write to it, even with --force", path, users.c_str());
	if (o.force || (ours && *ours == identity_of(st)))
		return {};
	if (st.st_nlink > 1)
		return usage_error("%s has %ju links: writing to it changes the file under its other names too; "
				   "add --force if you mean it", path, static_cast<std::uintmax_t>(st.st_nlink));
	if (st.st_size == 0)
		return {};
	char mark[16];
	if (fgetxattr(fd, owner_xattr, mark, sizeof mark) >= 0)
		return {};
	if (errno == ENOTSUP)
		return usage_error("%s exists, and its file system keeps no extended attributes to tell sdb's own files by: "
				   "add --force to overwrite it", path);
	return usage_error("%s exists and sdb did not create it: add --force to overwrite it "
			   "(sdb rewrites only its own files and empty ones)", path);
}

// A symlink as the target of a write: only with --force, and never one in
// a sticky world-writable directory (/tmp), where anybody may have planted it.
Error check_symlink(const Target &t, const Options &o)
{
	if (!writes_target(o))
		return {};
	if (!o.force)
		return usage_error("%s is a symbolic link: sdb writes through one only with --force", t.path.c_str());
	std::string dir = dirname_of(t.path);
	if (sticky_shared_dir(dir))
		return runtime_error("%s is a symbolic link in %s, a sticky world-writable directory: "
				     "refusing to follow it, even with --force", t.path.c_str(), dir.c_str());
	return {};
}

// A path that does not exist yet, for a write: its directory must exist,
// and not be /dev (a mistyped device name would become a file in RAM).
Error inspect_missing(Target &t, struct stat &st)
{
	std::string dir = dirname_of(t.path);
	if (stat(dir.c_str(), &st) != 0)
		return sys_error(errno, "%s", t.path.c_str());
	if (!S_ISDIR(st.st_mode))
		return sys_error(ENOTDIR, "%s", t.path.c_str());
	for (const Mount &m : read_mounts())
		if (m.dev == st.st_dev && m.type == "devtmpfs")
			return runtime_error("%s: no such device, and sdb creates no files in %s (a mistyped device name?)",
					     t.path.c_str(), dir.c_str());
	t.kind = Kind::missing;
	return {};
}

// A regular file to be written: open it for real (it has no side effects
// on a regular file) and ask the descriptor, which must be the inode the
// path named a moment ago.
Error inspect_file_for_write(Target &t, const struct stat &st, const Options &o, const Identity *ours)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (t.follow ? 0 : O_NOFOLLOW);
	Fd fd(open(t.path.c_str(), flags));
	if (!fd && errno == EACCES)	// writable but not readable
		fd = Fd(open(t.path.c_str(), (flags & ~O_ACCMODE) | O_WRONLY));
	if (!fd)
		return sys_error(errno, "open: %s", t.path.c_str());
	struct stat now {};
	if (fstat(fd.get(), &now) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (identity_of(now) != identity_of(st))
		return runtime_error("%s changed while sdb was checking it: refusing to use it", t.path.c_str());
	return check_overwrite(t, fd.get(), now, o, ours);
}

// What one path is and whether sdb may use it, learned from a descriptor:
// O_PATH opens no device and never waits on a FIFO; O_NOFOLLOW shows a
// symlink as one.  st: the target's stat (its directory's, when missing).
Error inspect(Target &t, const Options &o, const Identity *ours, struct stat &st)
{
	Fd fd(open(t.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
	if (!fd && errno == ENOENT && writes_target(o))
		return inspect_missing(t, st);
	if (!fd || fstat(fd.get(), &st) != 0)
		return sys_error(errno, "%s", t.path.c_str());
	if (S_ISLNK(st.st_mode)) {
		if (Error e = check_symlink(t, o))
			return e;
		fd = Fd(open(t.path.c_str(), O_PATH | O_CLOEXEC));
		if (!fd && errno == ENOENT && writes_target(o))
			return runtime_error("%s is a symbolic link to nothing: sdb creates new files only at the path it is given",
					     t.path.c_str());
		if (!fd || fstat(fd.get(), &st) != 0)
			return sys_error(errno, "%s", t.path.c_str());
		t.follow = true;
	}
	t.id = identity_of(st);
	if (S_ISDIR(st.st_mode))
		return sys_error(EISDIR, "%s", t.path.c_str());
	if (S_ISBLK(st.st_mode)) {
		t.kind = Kind::block;
		if (writes_target(o) && !o.force)	// before touching the device at all
			return usage_error("%s is a block device: writing destroys its data; add --force if you mean it",
					   t.path.c_str());
		return block_device_size(t.path, t.existing);
	}
	if (S_ISCHR(st.st_mode)) {
		t.kind = Kind::chr;
		if (writes_target(o) && !o.force && !harmless_char_device(st.st_rdev))
			return usage_error("%s is a character device that may be hardware: add --force to write to it",
					   t.path.c_str());
		return {};
	}
	if (!S_ISREG(st.st_mode))
		return runtime_error("%s: not a regular file or a device (%s)", t.path.c_str(),
				     S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "unknown kind");
	t.kind = Kind::file;
	t.existing = static_cast<std::uint64_t>(st.st_size);
	return writes_target(o) ? inspect_file_for_write(t, st, o, ours) : Error{};
}

// The file system under the first target (or the block device itself),
// and the O_EXCL hold on a block device that is to be written.
Error note_file_system(Plan &plan, const Target &t, const struct stat &st)
{
	plan.fs_dev = t.kind == Kind::block ? st.st_rdev : st.st_dev;
	struct statfs sfs {};
	std::string probe = t.kind == Kind::missing ? dirname_of(t.path) : t.path;
	if (statfs(probe.c_str(), &sfs) == 0)
		plan.fs_type = static_cast<std::uint32_t>(sfs.f_type);
	if (t.kind == Kind::block && writes_target(plan.opt))
		return claim_block_device(t.path, st.st_rdev, plan);
	return {};
}

// The list of targets: FILE, FILE.0..FILE.N-1, or one device (or, for
// Files::regions, one file) for all.
Error make_targets(Plan &plan, const Identity *ours, Files files)
{
	const Options &o = plan.opt;
	struct stat st {};
	bool exists = stat(o.file.c_str(), &st) == 0;
	bool shared = o.threads == 1 || files == Files::regions ||
		      (exists && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)));
	if (!shared && exists && S_ISDIR(st.st_mode))
		return sys_error(EISDIR, "%s", o.file.c_str());
	for (unsigned i = 0; i < (shared ? 1 : o.threads); i++) {
		Target t;
		t.path = shared ? o.file : format("%s.%u", o.file.c_str(), i);
		struct stat tst {};
		if (Error e = inspect(t, o, ours, tst))
			return e;
		if (!shared && (t.kind == Kind::block || t.kind == Kind::chr))	// --force and the in-use checks are for -f itself
			return runtime_error("%s is a device: with -j, FILE.0 .. FILE.N-1 must be regular files "
					     "(give the device itself to -f)", t.path.c_str());
		if (i == 0)
			if (Error e = note_file_system(plan, t, tst))
				return e;
		plan.targets.push_back(t);
	}
	if (shared)
		plan.targets.assign(o.threads, plan.targets[0]);
	return {};
}

// The largest offset a file or device can have (off_t).
constexpr std::uint64_t max_offset = INT64_MAX;

// Bytes per thread and where each thread's region starts.
Error size_targets(Plan &plan, Files files)
{
	const Options &o = plan.opt;
	for (std::size_t i = 0; i < plan.targets.size(); i++) {
		Target &t = plan.targets[i];
		if (o.size) {
			t.size = o.size;
		} else if (is_write(o) || (is_mix(o) && (t.kind == Kind::missing || (t.kind == Kind::file && t.existing == 0)))) {
			t.size = GiB;	// a mix on a new or empty file: laid out to 1 GiB first
		} else if (t.kind == Kind::chr) {
			return usage_error("-s SIZE is required to read the character device %s", t.path.c_str());
		} else if (t.kind == Kind::block) {
			t.size = t.existing / o.threads / plan.block_size * plan.block_size;
		} else {
			t.size = t.existing;
		}
		if (t.size == 0)
			return runtime_error("%s: %s, nothing to read", t.path.c_str(),
					     t.kind == Kind::block ? "device smaller than one block per thread" : "file is empty");
		if (t.kind == Kind::block || files == Files::regions)
			t.base = i * t.size;
		if (t.size > max_offset || (t.base && t.base / i != t.size) || t.base > max_offset - t.size)
			return usage_error("-s %s: %u region(s) of it end past the largest possible file offset (8 EiB)",
					   format_bytes(t.size).c_str(), static_cast<unsigned>(i + 1));
		if (t.kind == Kind::block && t.existing < t.base + t.size)
			return runtime_error("%s: short device: %s, but %u thread(s) x %s need more", t.path.c_str(),
					     format_bytes(t.existing).c_str(), o.threads, format_bytes(t.size).c_str());
		if (o.random && t.size < plan.block_size)
			return usage_error("-s %s is smaller than one %s block: random mode has nothing to do",
					   format_bytes(t.size).c_str(), format_bytes(plan.block_size).c_str());
	}
	return {};
}

// With -D, every I/O length and offset must be a multiple of dio_align.
Error check_alignment(Plan &plan)
{
	const Options &o = plan.opt;
	const Target &t = plan.targets[0];
	plan.dio_align = dio_alignment(t.path, t.kind, plan.fs_dev, plan.dio_align_source);
	unsigned a = plan.dio_align;
	if (plan.block_size % a)
		return usage_error("-b %" PRIu64 ": O_DIRECT on %s needs multiples of %u bytes", plan.block_size,
				   t.path.c_str(), a);
	for (const Target &x : plan.targets) {
		std::uint64_t tail = o.random ? 0 : x.size % plan.block_size;
		if (tail % a || x.base % a)
			return usage_error("-s %" PRIu64 ": O_DIRECT on %s needs a size that is a multiple of %u bytes%s",
					   x.size, x.path.c_str(), a, o.size ? "" : " (the file's size is not; give -s)");
	}
	return {};
}

// A number from a one-line file (a cgroup limit); nothing for "max".
std::optional<std::uint64_t> read_number(const std::string &path)
{
	std::string line = read_line(path);
	if (line.empty() || line[0] < '0' || line[0] > '9')
		return std::nullopt;
	return std::strtoull(line.c_str(), nullptr, 10);
}

// The page cache a cgroup holds: its usage counts it, but it can be reclaimed.
std::uint64_t cgroup_cache(const std::string &dir, bool v1)
{
	std::ifstream in(dir + "/memory.stat");
	std::string key;
	std::uint64_t value = 0;
	while (in >> key >> value)
		if (key == (v1 ? "total_cache" : "file"))
			return value;
	return 0;
}

// What the memory cgroup this process is in (v2, or v1's memory
// controller) still lets it use: limit less usage, the least of it and its
// ancestors'.  UINT64_MAX when no limit applies.
std::uint64_t cgroup_headroom()
{
	std::ifstream in("/proc/self/cgroup");
	std::string line;
	std::uint64_t room = UINT64_MAX;
	while (std::getline(in, line)) {	// "0::/path" (v2), "4:memory:/path" (v1)
		std::size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1);
		if (c1 == std::string::npos || c2 == std::string::npos)
			continue;
		std::string controllers = "," + line.substr(c1 + 1, c2 - c1 - 1) + ",";
		bool v1 = controllers.find(",memory,") != std::string::npos;
		if (!v1 && controllers != ",,")
			continue;
		for (const char *root : v1 ? std::vector<const char *>{"/sys/fs/cgroup/memory"}
					   : std::vector<const char *>{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
			for (std::string path = line.substr(c2 + 1);; path = dirname_of(path)) {
				std::string dir = root + (path == "/" ? "" : path);
				auto limit = read_number(dir + (v1 ? "/memory.limit_in_bytes" : "/memory.max"));
				auto usage = read_number(dir + (v1 ? "/memory.usage_in_bytes" : "/memory.current"));
				if (limit && usage && *limit < max_offset) {
					std::uint64_t used = *usage - std::min(*usage, cgroup_cache(dir, v1));
					room = std::min(room, *limit - std::min(*limit, used));
				}
				if (path.empty() || path == "/" || path == ".")
					break;
			}
		}
	}
	return room;
}

// Memory sdb may use: the kernel's MemAvailable, or less where a memory
// cgroup limits this process (a container, a systemd slice).
std::uint64_t available_memory()
{
	std::ifstream in("/proc/meminfo");
	std::string key;
	std::uint64_t kib = 0, have = 0;
	while (in >> key >> kib)
		if (key == "MemAvailable:") {
			have = kib * KiB;
			break;
		}
	if (have == 0)
		have = static_cast<std::uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	have = std::min(have, cgroup_headroom());
	rlimit as {};	// ulimit -v: address space, of which some is mapped already
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
		std::ifstream status("/proc/self/status");
		std::uint64_t mapped = 0;
		while (status >> key)
			if (key == "VmSize:" && status >> mapped)
				break;
		have = std::min<std::uint64_t>(have, as.rlim_cur - std::min<std::uint64_t>(as.rlim_cur, mapped * KiB));
	}
	return have;
}

// a * b + c, or UINT64_MAX when that does not fit.
std::uint64_t saturating(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0)
{
	std::uint64_t r;
	if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
		return UINT64_MAX;
	return r;
}

std::uint64_t histogram_bytes();	// section 6

// The I/O buffers and each thread's latency histogram must fit in memory
// with room to spare: checked before anything is allocated.
Error check_memory(Plan &plan)
{
	// The latency histogram, and --fsync's, and a mix's for reads and writes.
	unsigned per_thread = 1 + (plan.opt.fsync_every ? 1 : 0) + (is_mix(plan.opt) ? 2 : 0);
	std::uint64_t histograms = saturating(plan.opt.threads, saturating(per_thread, histogram_bytes()));
	std::uint64_t need = saturating(saturating(plan.slot_stride, plan.slots), plan.buffers, histograms);
	std::uint64_t have = available_memory();
	if (need > have / 10 * 9)
		return usage_error("-b %s: %u buffer(s) of %u block(s) need %s of memory, but only %s is available",
				   format_bytes(plan.block_size).c_str(), plan.buffers, plan.slots,
				   need == UINT64_MAX ? "more than 16 EiB" : format_bytes(need).c_str(),
				   format_bytes(have).c_str());
	return {};
}

// --verify: a target that gives back what was written, in whole units,
// and the seed of a write.
Error plan_verify(Plan &plan)
{
	const Options &o = plan.opt;
	if (!o.verify)
		return {};
	for (const Target &t : plan.targets) {
		if (is_write(o) && t.kind == Kind::chr)
			return usage_error("--verify: %s is a character device: what is written there cannot be read back",
					   t.path.c_str());
		if (t.size % (4 * KiB))
			return usage_error("--verify: %s is %" PRIu64 " bytes, not a multiple of 4k: give -s", t.path.c_str(),
					   t.size);
	}
	if (is_write(o) && getrandom(&plan.verify_seed, sizeof plan.verify_seed, 0) != sizeof plan.verify_seed)
		return sys_error(errno, "--verify: cannot read a seed from /dev/urandom");
	return {};
}

// Where buffers (slots, rotations in the pool) start: on whole pages, or on
// the direct-I/O alignment where that is larger.
std::uint64_t buffer_step(const Plan &plan)
{
	return std::max<std::uint64_t>(4096, plan.dio_align);
}

// Check everything that can be checked before touching a target.  ours:
// a file this sdb made (the quick suite's), which it may rewrite.
Error make_plan(const Options &opt, Plan &plan, const Identity *ours = nullptr, Files files = Files::per_thread)
{
	plan.opt = opt;
	plan.block_size = opt.block_size ? opt.block_size : opt.random ? 4 * KiB : MiB;
	if (plan.block_size > max_offset)
		return usage_error("-b %s: larger than the largest possible file offset (8 EiB)",
				   format_bytes(plan.block_size).c_str());
	if (Error e = make_targets(plan, ours, files))
		return e;
	if (Error e = size_targets(plan, files))
		return e;
	if (Error e = plan_verify(plan))
		return e;
	if (opt.direct)
		if (Error e = check_alignment(plan))
			return e;
	find_backing_device(plan);
	std::uint64_t largest = 0;
	for (const Target &t : plan.targets)
		largest = std::max(largest, t.size);
	std::uint64_t buffer_size = std::min(plan.block_size, largest);	// one I/O's
	if (plan.dio_align)
		buffer_size = (buffer_size + plan.dio_align - 1) / plan.dio_align * plan.dio_align;
	// Reads need a buffer per thread and I/O in flight; so do -R writes,
	// whose blocks are stamped before they go.  Those also start at a
	// rotating place in 1 MiB of random bytes when blocks are small, so that
	// a compression record (ZFS, btrfs: 128 KiB) never holds one block twice.
	// A mix has both: each thread's slots to write from, then as many to
	// read into, so that a read never changes what the next write sends.
	bool shared = is_write(opt) && !opt.random_buffer;
	plan.pool = writes_target(opt) && opt.random_buffer && !opt.verify && plan.block_size < MiB ? MiB : 0;
	plan.slot_stride = (buffer_size + buffer_step(plan) - 1) / buffer_step(plan) * buffer_step(plan) + plan.pool;
	plan.buffers = shared ? 1 : opt.threads;
	plan.slots = shared ? 1 : is_mix(opt) ? 2 * opt.queue_depth : opt.queue_depth;
	if (const char *batch = std::getenv("SDB_SUBMIT_BATCH"))
		plan.submit_batch = parse_count(batch, 0, 4096).value_or(plan.submit_batch);
	if (const char *batch = std::getenv("SDB_WAIT_BATCH"))
		plan.wait_batch = parse_count(batch, 0, 4096).value_or(plan.wait_batch);
	return check_memory(plan);
}

// --------------------------------------------------------------- 5. buffers

constexpr std::size_t huge_page = 2 * MiB;

// An anonymous mapping, page-aligned; from 256 KiB up 2 MiB-aligned, rounded
// up to whole 2 MiB and advised to use huge pages: a 1 MiB O_DIRECT request
// from 4 KiB pages (256 segments) is split by a device that takes fewer
// segments per request (virtio: 254); from one huge page it is not.
// The memory is touched here so that no page fault lands in a timed loop.
class Buffer {
public:
	Buffer() = default;
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;
	~Buffer() { release(); }

	Error allocate(std::size_t size)
	{
		release();
		if (size > SIZE_MAX / 4)
			return sys_error(ENOMEM, "cannot allocate a %s buffer", format_bytes(size).c_str());
		std::size_t align = size >= huge_page / 8 ? huge_page : static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
		std::size_t length = (size + align - 1) / align * align;
		std::size_t mapped = length + align;
		void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return sys_error(errno, "cannot allocate a %s buffer", format_bytes(size).c_str());
		auto addr = reinterpret_cast<std::uintptr_t>(p);
		auto start = (addr + align - 1) / align * align;
		if (start > addr)
			munmap(p, start - addr);
		std::size_t tail = mapped - (start - addr) - length;
		if (tail)
			munmap(reinterpret_cast<void *>(start + length), tail);
		data_ = reinterpret_cast<char *>(start);
		size_ = length;
		if (align == huge_page)
			madvise(data_, size_, MADV_HUGEPAGE);
		std::memset(data_, 0, size_);
		return {};
	}
	char *data() const { return data_; }
	std::size_t size() const { return size_; }

private:
	void release()
	{
		if (data_)
			munmap(data_, size_);
		data_ = nullptr;
		size_ = 0;
	}
	char *data_ = nullptr;
	std::size_t size_ = 0;
};

// Bytes of a mapping backed by transparent huge pages (for -v).
std::uint64_t huge_page_bytes(const void *addr)
{
	std::ifstream smaps("/proc/self/smaps");
	std::string line;
	bool inside = false;
	auto want = reinterpret_cast<std::uintptr_t>(addr);
	while (std::getline(smaps, line)) {
		unsigned long lo = 0, hi = 0;
		if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
			inside = want >= lo && want < hi;
		} else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
			return std::strtoull(line.c_str() + 14, nullptr, 10) * KiB;
		}
	}
	return 0;
}

// Fill from the kernel's random source (what /dev/urandom reads), one
// chunk per core in parallel: a 64 MiB random buffer must not be the slow
// part of a quick check.  In 4 MiB pieces, asking `stop()` (on the calling
// thread) every few milliseconds, so that Ctrl-C is not kept waiting by a
// large buffer: stop() returns the Error that ends the fill, or none.
template <typename Stop>
Error fill_random(char *data, std::size_t size, Stop stop)
{
	const std::size_t piece = 4 * MiB;
	unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
	std::size_t chunk = size < 16 * MiB ? size : (size / workers + piece - 1) / piece * piece;
	std::atomic<int> failure{0};	// an errno from getrandom, or EINTR: stopped
	std::atomic<unsigned> running{0};
	Error stopped;
	auto interrupted = [&] {
		if (!stopped)
			stopped = stop();
		return bool(stopped);
	};
	auto fill = [&](std::size_t from, std::size_t to) {
		while (from < to && failure == 0) {
			ssize_t n = getrandom(data + from, std::min(to - from, piece), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				failure = n < 0 ? errno : EIO;
				return;
			}
			from += static_cast<std::size_t>(n);
		}
	};
	std::vector<std::thread> helpers;
	for (std::size_t from = chunk; from < size; from += chunk) {
		try {
			running++;
			helpers.emplace_back([&, from] {
				fill(from, std::min(size, from + chunk));
				running--;
			});
		} catch (const std::exception &) {	// no thread to be had: this one does it
			running--;
			for (std::size_t at = from; at < std::min(size, from + chunk) && failure == 0; at += piece) {
				fill(at, std::min({size, from + chunk, at + piece}));
				if (interrupted())
					failure = EINTR;
			}
		}
	}
	for (std::size_t at = 0; at < std::min(size, chunk) && failure == 0; at += piece) {
		fill(at, std::min({size, chunk, at + piece}));
		if (interrupted())
			failure = EINTR;
	}
	while (running > 0 && failure == 0) {
		if (interrupted())
			failure = EINTR;
		else
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	for (auto &h : helpers)
		h.join();
	if (stopped)
		return stopped;
	if (failure)
		return sys_error(failure, "-R: cannot read random data");
	return {};
}

// The --verify pattern.  Every 4 KiB unit written is checkable on its own,
// with nothing kept in memory but the run's seed: a 32-byte header
//   tag (a magic number and a check of the rest), seed, offset, write number
// and a body of 508 words that only the seed and the unit's offset make.
// A unit read back at another offset names the offset it was written for,
// which is how a device that wraps around (fake capacity) shows itself.
// The body comes from sixteen interleaved xorshift64 streams seeded by
// splitmix64: no multiply per word, and sixteen independent chains that
// the compiler keeps in vector registers: on one core here 11 GiB/s made
// and 13 GiB/s checked (four streams: 6).  Nothing compresses it.
constexpr std::size_t verify_unit = 4096;
constexpr std::uint64_t verify_magic = 0x56626473;	// the tag's high half: "sdbV" at bytes 4-7

struct UnitHeader {
	std::uint64_t tag, seed, offset, write;
};

// stale: a whole unit of an earlier write or of another run, where the last
// write was lost.  The contract names three kinds of bad unit (zeros,
// misplaced, corrupt): a stale unit is reported as corrupt, and its
// description says which corruption it is.
enum class UnitKind { good, zeros, misplaced, stale, corrupt };
constexpr const char *unit_kind_names[] = {"good", "zeros", "misplaced", "corrupt", "corrupt"};

std::uint64_t splitmix64(std::uint64_t x)
{
	x += 0x9e3779b97f4a7c15;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
	return x ^ (x >> 31);
}

std::uint64_t unit_tag(std::uint64_t seed, std::uint64_t offset, std::uint64_t write)
{
	return verify_magic << 32 | (splitmix64(seed ^ splitmix64(offset ^ splitmix64(write))) & 0xffffffff);
}

// The body of the unit at offset, sixteen words at a time, to `each`
// (which stores or compares n of them at word i): the same words for the
// same seed and offset, always.
template <typename Each>
void unit_body(std::uint64_t seed, std::uint64_t offset, Each each)
{
	constexpr unsigned lanes = 16;
	constexpr std::size_t words = (verify_unit - sizeof(UnitHeader)) / 8;
	std::uint64_t key = splitmix64(seed ^ splitmix64(offset));
	std::uint64_t s[lanes];
	for (unsigned j = 0; j < lanes; j++)
		s[j] = splitmix64(key + j) | 1;	// xorshift never leaves 0
	for (std::size_t i = 0; i < words; i += lanes) {
		for (unsigned j = 0; j < lanes; j++) {
			s[j] ^= s[j] << 13;
			s[j] ^= s[j] >> 7;
			s[j] ^= s[j] << 17;
		}
		each(i, s, std::min<std::size_t>(lanes, words - i));
	}
}

void write_unit(char *unit, std::uint64_t seed, std::uint64_t offset, std::uint64_t write)
{
	const UnitHeader h = {unit_tag(seed, offset, write), seed, offset, write};
	std::memcpy(unit, &h, sizeof h);
	char *body = unit + sizeof h;
	unit_body(seed, offset, [body](std::size_t i, const std::uint64_t *v, std::size_t n) {
		if (n == 16)
			std::memcpy(body + 8 * i, v, 8 * 16);	// a constant size: inlined
		else
			std::memcpy(body + 8 * i, v, 8 * n);
	});
}

// Every 4 KiB of a block of len bytes (a multiple of 4 KiB) at offset.
void write_units(char *block, std::size_t len, std::uint64_t seed, std::uint64_t offset, std::uint64_t write)
{
	for (std::size_t at = 0; at + verify_unit <= len; at += verify_unit)
		write_unit(block + at, seed, offset + at, write);
}

UnitHeader unit_header(const char *unit)
{
	UnitHeader h;
	std::memcpy(&h, unit, sizeof h);
	return h;
}

bool body_matches(const char *unit, std::uint64_t seed, std::uint64_t offset)
{
	const char *body = unit + sizeof(UnitHeader);
	std::uint64_t diff = 0;
	unit_body(seed, offset, [body, &diff](std::size_t i, const std::uint64_t *v, std::size_t n) {
		for (std::size_t j = 0; j < n; j++) {
			std::uint64_t have;
			std::memcpy(&have, body + 8 * (i + j), 8);
			diff |= have ^ v[j];
		}
	});
	return diff == 0;
}

// A whole unit as some --verify run wrote it, for whatever seed and offset
// its header names.
bool unit_consistent(const char *unit)
{
	const UnitHeader h = unit_header(unit);
	return h.tag == unit_tag(h.seed, h.offset, h.write) && body_matches(unit, h.seed, h.offset);
}

// What the unit read at offset is, for a run with this seed.  write: the
// number of the last write to it where that is known (sequential writes),
// else any write counts.  found: the offset its header names.
UnitKind classify_unit(const char *unit, std::uint64_t seed, std::uint64_t offset,
		       std::optional<std::uint64_t> write, std::uint64_t &found)
{
	const UnitHeader h = unit_header(unit);
	found = h.offset;
	if (h.seed == seed && h.offset == offset && (!write || h.write == *write) &&
	    h.tag == unit_tag(seed, offset, h.write) && body_matches(unit, seed, offset))
		return UnitKind::good;
	if (std::all_of(unit, unit + verify_unit, [](char c) { return c == 0; }))
		return UnitKind::zeros;
	if (!unit_consistent(unit))
		return UnitKind::corrupt;
	if (h.seed == seed && h.offset != offset)
		return UnitKind::misplaced;
	return UnitKind::stale;	// another run's unit, or an earlier write's
}

// One thread's check of the units it read (-r) or read back (-w).  A
// reader learns the seed from the first whole unit it reads.
struct VerifyTally {
	std::uint64_t seed = 0;
	bool seeded = false;
	std::uint64_t units = 0, bad = 0;
	std::uint64_t kinds[5] = {};
	UnitKind first_kind = UnitKind::good;	// the lowest bad offset's
	std::uint64_t first_offset = 0, first_found = 0;

	void check(const char *unit, std::uint64_t offset, std::optional<std::uint64_t> write = std::nullopt)
	{
		if (!seeded && unit_consistent(unit)) {
			seed = unit_header(unit).seed;
			seeded = true;
		}
		std::uint64_t found = 0;
		UnitKind kind = classify_unit(unit, seed, offset, write, found);
		units++;
		if (kind == UnitKind::good)
			return;
		kinds[static_cast<int>(kind)]++;
		if (bad++ == 0 || offset < first_offset) {
			first_kind = kind;
			first_offset = offset;
			first_found = found;
		}
	}
	// Every whole unit of a block read at offset.
	void check_block(const char *block, std::size_t len, std::uint64_t offset)
	{
		for (std::size_t at = 0; at + verify_unit <= len; at += verify_unit)
			check(block + at, offset + at);
	}
};

// The run's buffers, filled from /dev/urandom for -R writes.  stop(when)
// returns the Error that ends the run (a signal came) or none: asked during
// the fill and once the buffers are faulted in.
template <typename Stop>
Error allocate_buffers(const Plan &plan, std::vector<std::unique_ptr<Buffer>> &buffers, Stop stop, double &fill_seconds)
{
	for (unsigned i = 0; i < plan.buffers; i++) {
		buffers.push_back(std::make_unique<Buffer>());
		if (Error e = buffers.back()->allocate(plan.slot_stride * plan.slots))
			return e;
	}
	if (plan.opt.random_buffer && is_write(plan.opt) && !plan.opt.verify) {	// --verify writes its pattern
		std::int64_t start = now_ns();
		for (auto &b : buffers)
			if (Error e = fill_random(b->data(), b->size(), [&] { return stop("while filling the buffer (-R)"); }))
				return e;
		fill_seconds = (now_ns() - start) / 1e9;
	}
	return stop("before the run started");	// while the buffers were faulted in
}

// ------------------------------------------------------------ 6. statistics

// A pseudo-random order of 0..n-1 with O(1) memory.  An LCG modulo 2^k
// (k = bits to hold n-1; a = 1 mod 4 and c odd give the full period 2^k)
// walks every k-bit state once per period; a bijection of k-bit values
// (xorshift, odd multiply, xorshift) scrambles the LCG's weak low bits;
// values >= n are skipped (cycle walking).  Any n consecutive outputs are
// a permutation of 0..n-1, and since n > 2^(k-1) fewer than 2 steps are
// taken per output on average.
class Permutation {
public:
	Permutation(std::uint64_t n, std::uint64_t seed) : n_(n)
	{
		unsigned bits = 0;
		while (bits < 64 && (n - 1) >> bits)
			bits++;
		mask_ = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
		shift_ = std::max(1u, bits / 2);
		state_ = mix(seed) & mask_;
		increment_ = (mix(seed + 1) | 1) & mask_;
		multiplier_ = mix(seed + 2) | 1;
	}

	std::uint64_t next()
	{
		for (;;) {
			state_ = (state_ * 6364136223846793005ULL + increment_) & mask_;
			std::uint64_t x = state_;
			x ^= x >> shift_;
			x = (x * multiplier_) & mask_;
			x ^= x >> shift_;
			if (x < n_)
				return x;
		}
	}

private:
	static std::uint64_t mix(std::uint64_t z)	// splitmix64
	{
		z += 0x9e3779b97f4a7c15ULL;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	std::uint64_t n_, mask_, state_, increment_, multiplier_;
	unsigned shift_;
};

// Latency in nanoseconds, HdrHistogram-style: values below 256 exactly,
// above that 128 linear sub-buckets per power of two (< 0.8% wide), fixed
// memory, O(1) add.  Percentiles are reported as bucket midpoints.
class Histogram {
public:
	static constexpr unsigned sub_bits = 7;
	static constexpr unsigned sub_count = 1u << sub_bits;		// 128
	static constexpr unsigned buckets = 2 * sub_count + (63 - sub_bits) * sub_count;

	Histogram() : counts_(buckets, 0) {}

	void add(std::uint64_t v)
	{
		counts_[index(v)]++;
		count_++;
		sum_ += v;
		min_ = std::min(min_, v);
		max_ = std::max(max_, v);
	}

	void merge(const Histogram &h)
	{
		for (unsigned i = 0; i < buckets; i++)
			counts_[i] += h.counts_[i];
		count_ += h.count_;
		sum_ += h.sum_;
		min_ = std::min(min_, h.min_);
		max_ = std::max(max_, h.max_);
	}

	// Back to no samples: what a --ramp ran is not counted.
	void reset()
	{
		std::fill(counts_.begin(), counts_.end(), 0);
		count_ = sum_ = max_ = 0;
		min_ = UINT64_MAX;
	}

	std::uint64_t count() const { return count_; }
	std::uint64_t min() const { return count_ ? min_ : 0; }
	std::uint64_t max() const { return max_; }
	std::uint64_t mean() const { return count_ ? sum_ / count_ : 0; }

	// The value at or below which a fraction q (0..1) of the samples lie.
	std::uint64_t percentile(double q) const
	{
		if (count_ == 0)
			return 0;
		auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
		if (rank >= count_)
			return max_;
		rank = std::max<std::uint64_t>(rank, 1);
		std::uint64_t seen = 0;
		for (unsigned i = 0; i < buckets; i++) {
			seen += counts_[i];
			if (seen >= rank)
				return std::clamp(midpoint(i), min(), max_);
		}
		return max_;
	}

	static unsigned index(std::uint64_t v)
	{
		if (v < 2 * sub_count)
			return static_cast<unsigned>(v);
		unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(v));
		unsigned shift = msb - sub_bits;
		return (shift + 1) * sub_count + static_cast<unsigned>(v >> shift) - sub_count;
	}

	static std::uint64_t midpoint(unsigned i) { return low(i) + (width(i) >> 1); }

	// Bucket i holds the values low(i) .. high(i), both included.
	static std::uint64_t low(unsigned i)
	{
		if (i < 2 * sub_count)
			return i;
		return static_cast<std::uint64_t>(i % sub_count + sub_count) << (i / sub_count - 1);
	}
	static std::uint64_t high(unsigned i) { return low(i) + width(i) - 1; }

	// The samples in bucket i.
	std::uint64_t at(unsigned i) const { return counts_[i]; }

	// n samples known only by their bucket (a saved histogram): counted at
	// the bucket's midpoint, clamped to the bucket's bounds for min and max.
	void add_bucket(unsigned i, std::uint64_t n)
	{
		if (n == 0)
			return;
		counts_[i] += n;
		count_ += n;
		sum_ += midpoint(i) * n;
		min_ = std::min(min_, low(i));
		max_ = std::max(max_, high(i));
	}

private:
	static std::uint64_t width(unsigned i) { return i < 2 * sub_count ? 1 : std::uint64_t{1} << (i / sub_count - 1); }

	std::vector<std::uint64_t> counts_;
	std::uint64_t count_ = 0, sum_ = 0, min_ = UINT64_MAX, max_ = 0;
};

std::uint64_t histogram_bytes() { return Histogram::buckets * sizeof(std::uint64_t); }

// -M PCT: whether each I/O of a mix is a read, with probability PCT%, from
// splitmix64 over a seed: reproducible, another sequence for each thread
// and repeat, independent of the offsets' order.  A draw is a multiply and
// a few shifts; the modulo's bias (2^64 mod 100 in 2^64) is nil.
class MixChooser {
public:
	MixChooser(std::uint64_t seed, unsigned read_percent) : state_(seed), percent_(read_percent) {}

	bool read()
	{
		std::uint64_t z = splitmix64(state_);
		state_ += 0x9e3779b97f4a7c15ULL;	// the step splitmix64 adds: the next draw's input
		return z % 100 < percent_;
	}

private:
	std::uint64_t state_;
	unsigned percent_;
};

// --------------------------------------------------------------- 7. workers

// CPU time of the calling thread, read before and after the timed phase
// (never inside it): a thread on a CPU all the time was limited by it.
std::int64_t thread_cpu_ns()
{
	timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::atomic<bool> g_stop{false};	// set on a signal or another thread's error
const char *g_cleanup_path = nullptr;	// the quick suite's test file, removed even on a second Ctrl-C

// The most one read or write moves on Linux (MAX_RW_COUNT); longer I/Os
// come back short and are continued.
constexpr std::size_t max_transfer = 0x7ffff000;

// io_uring through raw syscalls and the kernel's UAPI header: no liburing,
// sdb depends on libc only.  One ring per thread, used by that thread only,
// which is what the setup flags tell the kernel (see setup()).
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

class Ring {
public:
	Ring() = default;
	Ring(const Ring &) = delete;
	Ring &operator=(const Ring &) = delete;
	~Ring()
	{
		if (sqes_ != MAP_FAILED)
			munmap(sqes_, sqes_len_);
		if (cq_map_ != MAP_FAILED && cq_map_ != sq_map_)
			munmap(cq_map_, cq_len_);
		if (sq_map_ != MAP_FAILED)
			munmap(sq_map_, sq_len_);
		if (fd_ >= 0)
			close(fd_);
	}

	// A ring of entries SQEs.  submit_batch: the most SQEs handed to one
	// io_uring_enter (0: all that are queued); wait_batch: the completions
	// one io_uring_enter waits for (at most all in flight).
	//
	// The flags suit one thread that submits and reaps: SINGLE_ISSUER lets
	// the kernel skip its locking for other submitters; DEFER_TASKRUN (6.1)
	// runs completion work only when this thread asks for completions, so a
	// completion never interrupts it and the wait wakes it once for
	// wait_batch of them, not once each; COOP_TASKRUN (5.19) is the half of
	// that an older kernel has.  A kernel that does not know a flag refuses
	// it with EINVAL: the next set is tried, down to none.
	Error setup(unsigned entries, unsigned submit_batch, unsigned wait_batch)
	{
		static const unsigned tries[] = {
			IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
			IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
			IORING_SETUP_COOP_TASKRUN,
			0,
		};
		io_uring_params p {};
		submit_batch_ = submit_batch;
		wait_batch_ = std::max(wait_batch, 1u);
		for (unsigned flags : tries) {
			p = io_uring_params {};
			p.flags = flags;
			fd_ = static_cast<int>(syscall(__NR_io_uring_setup, entries, &p));
			if (fd_ >= 0 || errno != EINVAL)
				break;
		}
		if (fd_ < 0)
			return unavailable(entries, errno);
		sq_len_ = p.sq_off.array + p.sq_entries * sizeof(unsigned);
		cq_len_ = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
		bounded_wait_ = p.features & IORING_FEAT_EXT_ARG;
		bool single = p.features & IORING_FEAT_SINGLE_MMAP;
		if (single)
			sq_len_ = cq_len_ = std::max(sq_len_, cq_len_);
		sq_map_ = mmap(nullptr, sq_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, IORING_OFF_SQ_RING);
		if (sq_map_ == MAP_FAILED)
			return unavailable(entries, errno);
		cq_map_ = single ? sq_map_ : mmap(nullptr, cq_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, IORING_OFF_CQ_RING);
		if (cq_map_ == MAP_FAILED)
			return unavailable(entries, errno);
		sqes_len_ = p.sq_entries * sizeof(io_uring_sqe);
		sqes_ = mmap(nullptr, sqes_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, IORING_OFF_SQES);
		if (sqes_ == MAP_FAILED)
			return unavailable(entries, errno);
		auto *sq = static_cast<char *>(sq_map_);
		auto *cq = static_cast<char *>(cq_map_);
		sq_tail_ = reinterpret_cast<unsigned *>(sq + p.sq_off.tail);
		sq_mask_ = *reinterpret_cast<unsigned *>(sq + p.sq_off.ring_mask);
		cq_head_ = reinterpret_cast<unsigned *>(cq + p.cq_off.head);
		cq_tail_ = reinterpret_cast<unsigned *>(cq + p.cq_off.tail);
		cq_mask_ = *reinterpret_cast<unsigned *>(cq + p.cq_off.ring_mask);
		cqes_ = reinterpret_cast<io_uring_cqe *>(cq + p.cq_off.cqes);
		tail_ = *sq_tail_;
		// The SQ array maps ring slot i to SQE i, once and for all.
		auto *sq_array = reinterpret_cast<unsigned *>(sq + p.sq_off.array);
		for (unsigned i = 0; i < p.sq_entries; i++)
			sq_array[i] = i;
		flags_ = p.flags;
		return {};
	}

	// The descriptor and the buffer every I/O of this ring uses, registered
	// with the kernel where it takes them: a fixed file spares the
	// descriptor lookup and reference per I/O, a fixed buffer the page
	// pinning (get_user_pages) per I/O.  Registration is an optimisation: a
	// refusal (RLIMIT_MEMLOCK for the buffer, an old kernel) leaves the
	// plain READ/WRITE.  punted: the target cannot be tried without
	// blocking (no FMODE_NOWAIT: zram, brd, some FUSE files), so the kernel
	// hands every I/O to an io-wq worker after a first attempt that must
	// fail; IOSQE_ASYNC skips that attempt.
	void attach(int fd, bool write, char *buffer, std::size_t len, bool punted)
	{
		io_uring_sqe &t = template_;
		t = io_uring_sqe {};
		t.opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
		t.fd = fd;
		t.flags = punted ? IOSQE_ASYNC : 0;
		if (syscall(__NR_io_uring_register, fd_, IORING_REGISTER_FILES, &fd, 1) == 0) {
			t.fd = 0;
			t.flags |= IOSQE_FIXED_FILE;
		}
		iovec whole = {buffer, len};
		if (len > 0 && syscall(__NR_io_uring_register, fd_, IORING_REGISTER_BUFFERS, &whole, 1) == 0) {
			t.opcode = write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
			t.buf_index = 0;
		}
	}

	// An I/O of len bytes at offset into buf, which lies in the attached
	// buffer; index comes back with its completion.
	void queue(char *buf, std::size_t len, std::uint64_t offset, unsigned index)
	{
		io_uring_sqe *sqe = static_cast<io_uring_sqe *>(sqes_) + (tail_ & sq_mask_);
		*sqe = template_;
		sqe->addr = reinterpret_cast<std::uintptr_t>(buf);
		sqe->len = static_cast<std::uint32_t>(std::min<std::size_t>(len, max_transfer));	// the rest is requeued
		sqe->off = offset;
		sqe->user_data = index;
		tail_++;
		pending_++;
	}

	// The same for a mix, whose I/Os go either way on one descriptor.
	void queue(char *buf, std::size_t len, std::uint64_t offset, unsigned index, bool write)
	{
		queue(buf, len, offset, index);
		io_uring_sqe *sqe = static_cast<io_uring_sqe *>(sqes_) + ((tail_ - 1) & sq_mask_);
		bool fixed = template_.opcode == IORING_OP_READ_FIXED || template_.opcode == IORING_OP_WRITE_FIXED;
		sqe->opcode = fixed ? (write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED)
				    : (write ? IORING_OP_WRITE : IORING_OP_READ);
	}

	// Submit what is queued and wait for wait_batch completions (or all
	// inflight, if fewer): 0 or errno.
	int submit_and_wait(unsigned inflight)
	{
		__atomic_store_n(sq_tail_, tail_, __ATOMIC_RELEASE);
		while (submit_batch_ > 0 && pending_ > submit_batch_)
			if (int err = enter(submit_batch_, 0, 0))
				return err;
		return enter(pending_, std::min(wait_batch_, std::max(inflight, 1u)), IORING_ENTER_GETEVENTS);
	}

	bool reap(unsigned &index, int &res)
	{
		unsigned head = *cq_head_;
		if (head == __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE))
			return false;
		const io_uring_cqe &cqe = cqes_[head & cq_mask_];
		index = static_cast<unsigned>(cqe.user_data);
		res = cqe.res;
		__atomic_store_n(cq_head_, head + 1, __ATOMIC_RELEASE);
		return true;
	}

	unsigned flags() const { return flags_; }
	const io_uring_sqe &sqe_template() const { return template_; }

private:
	static Error unavailable(unsigned entries, int err)
	{
		return runtime_error("-q %u: io_uring is not available: %s%s", entries, std::strerror(err),
				     err == ENOSYS ? " (this kernel has no io_uring)"
				     : err == EPERM ? " (disabled by the kernel.io_uring_disabled sysctl or a seccomp filter)"
						    : "");
	}

	// A wait is bounded (100 ms) where the kernel can (5.11+): a wake-up
	// the kernel lost once left a -q 32 run here for minutes, all 32 I/Os
	// done but not reaped (6.18, DEFER_TASKRUN); entering again reaps them.
	// A wait that times out returns 0, and the loop enters again.
	int enter(unsigned submit, unsigned wait, unsigned flags)
	{
		__kernel_timespec bound {0, 100000000};
		io_uring_getevents_arg arg {};
		arg.sigmask_sz = _NSIG / 8;
		arg.ts = reinterpret_cast<std::uintptr_t>(&bound);
		const bool bounded = bounded_wait_ && (flags & IORING_ENTER_GETEVENTS);
		for (;;) {
			long n = bounded ? syscall(__NR_io_uring_enter, fd_, submit, wait, flags | IORING_ENTER_EXT_ARG, &arg,
						   sizeof arg)
					 : syscall(__NR_io_uring_enter, fd_, submit, wait, flags, nullptr, 0);
			if (n >= 0) {
				pending_ -= std::min(pending_, static_cast<unsigned>(n));
				return 0;
			}
			if (bounded && errno == ETIME)	// nothing was submitted: nothing pending changed
				return 0;
			if (errno != EINTR && errno != EAGAIN && errno != EBUSY)
				return errno;
		}
	}

	io_uring_sqe template_ {};	// what every SQE of this ring starts from
	int fd_ = -1;
	void *sq_map_ = MAP_FAILED, *cq_map_ = MAP_FAILED, *sqes_ = MAP_FAILED;
	std::size_t sq_len_ = 0, cq_len_ = 0, sqes_len_ = 0;
	unsigned *sq_tail_ = nullptr, *cq_head_ = nullptr, *cq_tail_ = nullptr;
	unsigned sq_mask_ = 0, cq_mask_ = 0, tail_ = 0, pending_ = 0, submit_batch_ = 0, wait_batch_ = 1, flags_ = 0;
	io_uring_cqe *cqes_ = nullptr;
	bool bounded_wait_ = false;	// IORING_FEAT_EXT_ARG: a wait can have a timeout
};

// One I/O in flight at queue depth > 1.
struct Slot {
	std::uint64_t offset = 0;
	std::size_t len = 0, done = 0;
	std::int64_t queued_ns = 0;	// when the I/O was queued: its latency starts here
	bool write = false;		// a mix: which way this one goes
};

struct Gate;

struct alignas(64) Worker {
	unsigned id = 0;
	unsigned run = 0;		// which run of a quick-suite test (RunId): its own random order
	Gate *gate = nullptr;		// the start barrier
	const Target *target = nullptr;
	const Plan *plan = nullptr;
	char *buffer = nullptr;
	std::unique_ptr<Ring> ring;	// queue depth > 1
	int fd = -1;

	std::atomic<std::uint64_t> bytes_done{0};	// read by the sampler
	std::uint64_t bytes = 0, ops = 0;
	std::int64_t start_ns = 0, end_ns = 0;
	std::int64_t loop_end_ns = 0;	// writes: the last I/O's end, before the final fdatasync
	std::int64_t cpu_ns = 0;	// this thread's CPU time from start_ns to end_ns
	std::int64_t cpu_start_ns = 0;
	std::int64_t ramp_end_ns = 0;	// --ramp: when the timed window opens; 0 once it has
	std::atomic<bool> counting{false};	// past the ramp (or done): the sampler may count its bytes
	int cpu = -1;
	unsigned passes = 0;		// passes over [0,SIZE) begun, the last maybe cut short by -t
	std::optional<std::uint64_t> eof_at;	// a read reached end of file here, before SIZE
	bool laid_out = false;		// random writes: the file was written first
	std::optional<Identity> created;	// the file this thread created
	double resident = 0;		// fraction of the file still cached after eviction
	double cached_before = -1;	// --cached reads of a file: fraction cached at the start
	Histogram latency;
	std::optional<Histogram> sync_latency;	// --fsync: each fdatasync, apart from the I/O
	std::optional<Histogram> read_latency, write_latency;	// a mix's two sides (latency: both)
	std::uint64_t read_bytes = 0, read_ops = 0, write_bytes = 0, write_ops = 0;
	VerifyTally verify;		// --verify: the units this thread checked
	Error error;
};

// The full transfer at one offset, continuing partial transfers and
// retrying EINTR.  Returns the bytes moved (short only at end of file) or
// -errno, with the offset of the part that failed in failed_at.
template <bool Write>
ssize_t transfer(int fd, char *buf, std::size_t len, std::uint64_t offset, std::uint64_t &failed_at)
{
	std::size_t done = 0;
	while (done < len) {
		ssize_t n = Write ? pwrite(fd, buf + done, len - done, static_cast<off_t>(offset + done))
				  : pread(fd, buf + done, len - done, static_cast<off_t>(offset + done));
		if (n > 0) {
			done += static_cast<std::size_t>(n);
		} else if (n == 0) {
			if (Write) {
				failed_at = offset + done;
				return -EIO;	// pwrite moved nothing: never loop forever
			}
			break;
		} else if (errno == EINVAL && !Write && done > 0) {
			break;	// O_DIRECT after a short read at end of file: the rest is unaligned
		} else if (errno != EINTR) {
			failed_at = offset + done;
			return -errno;
		}
	}
	return static_cast<ssize_t>(done);
}

// Where I/O number io starts in a -R buffer with a random pool (Plan::pool):
// a rotating place, in steps that keep the direct-I/O alignment, so that a
// compression record never holds the same random bytes twice.
std::size_t rotation(const Worker &w, std::uint64_t io)
{
	const std::uint64_t step = buffer_step(*w.plan), places = w.plan->pool / step;
	return places ? static_cast<std::size_t>(io % places * step) : 0;
}

// With -R every 4 KiB of every block written starts with its own offset and
// the I/O's number: without that, one random buffer written over and over
// is the same block again and again, which deduplicating storage keeps once.
// The rest stays random, so nothing compresses either.

void stamp(char *block, std::size_t len, std::uint64_t offset, std::uint64_t io)
{
	for (std::size_t at = 0; at + 16 <= len; at += 4096) {
		const std::uint64_t words[2] = {offset + at, io};
		std::memcpy(block + at, words, sizeof words);
	}
}

// What a -R write puts into its block before it goes: the stamp, or with
// --verify every unit's header and body (the whole block is the pattern).
void mark(const Worker &w, char *block, std::size_t len, std::uint64_t offset, std::uint64_t io)
{
	if (w.plan->opt.verify)
		write_units(block, len, w.plan->verify_seed, offset, io);
	else
		stamp(block, len, offset, io);
}

// The descriptor the I/O goes through.  A new file is created here, and
// only here (O_EXCL: never one that appeared since it was checked), and
// marked as sdb's; an existing target must still be the inode make_plan()
// checked.  O_NONBLOCK until then: a FIFO swapped in cannot hang the open.
Error open_target(Worker &w)
{
	const Options &o = w.plan->opt;
	const Target &t = *w.target;
	int flags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (is_mix(o) ? O_RDWR : is_write(o) ? O_WRONLY : O_RDONLY);
	if (t.kind == Kind::missing)
		flags |= O_CREAT | O_EXCL | O_NOFOLLOW;	// never O_TRUNC: see check_overwrite()
	else if (!t.follow)
		flags |= O_NOFOLLOW;
	if (o.direct)
		flags |= O_DIRECT;
	if (o.sync)
		flags |= O_SYNC;
	w.fd = open(t.path.c_str(), flags, 0644);
	if (w.fd < 0 && errno == EEXIST && t.kind == Kind::missing)
		return runtime_error("%s appeared while sdb was starting: refusing to write to it", t.path.c_str());
	if (w.fd < 0 && errno == EINVAL && o.direct)
		return runtime_error("open: %s: O_DIRECT (-D) is not supported here: %s", t.path.c_str(), std::strerror(errno));
	if (w.fd < 0)
		return sys_error(errno, "open: %s", t.path.c_str());
	struct stat st {};
	if (fstat(w.fd, &st) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (t.kind == Kind::missing) {
		w.created = identity_of(st);
		fsetxattr(w.fd, owner_xattr, "1", 1, 0);	// where it fails, see check_overwrite()
	} else if (identity_of(st) != t.id) {
		return runtime_error("%s changed while sdb was starting: refusing to use it", t.path.c_str());
	}
	if (fcntl(w.fd, F_SETFL, fcntl(w.fd, F_GETFL) & ~O_NONBLOCK) != 0)
		return sys_error(errno, "fcntl: %s", t.path.c_str());
	return {};
}

// Random writes into a file shorter than SIZE would measure allocation, not
// overwrites: write it sequentially first, untimed (fio does the same).  A
// mix must find every block it reads: the file is laid out to SIZE.
Error lay_out(Worker &w)
{
	const Target &t = *w.target;
	const std::uint64_t bs = w.plan->block_size;
	const bool whole = w.plan->opt.random;		// random mode uses whole blocks only
	const std::uint64_t end = t.base + (whole ? t.size / bs * bs : t.size);
	struct stat st {};
	if (fstat(w.fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) >= end)
		return {};
	for (std::uint64_t pos = static_cast<std::uint64_t>(st.st_size) / bs * bs; pos < end; pos += bs) {
		if (g_stop.load(std::memory_order_relaxed))
			return {};
		std::size_t len = static_cast<std::size_t>(std::min(bs, end - pos));
		char *buffer = w.buffer;
		if (w.plan->opt.random_buffer) {
			buffer += rotation(w, pos / bs);
			mark(w, buffer, len, pos, pos / bs);
		}
		std::uint64_t failed_at = pos;
		ssize_t n = transfer<true>(w.fd, buffer, len, pos, failed_at);
		if (n < 0)
			return sys_error(static_cast<int>(-n), "write: %s at offset %" PRIu64 " (laying out)", t.path.c_str(),
					 failed_at);
	}
	if (fdatasync(w.fd) != 0)
		return sys_error(errno, "fdatasync: %s", t.path.c_str());
	w.laid_out = true;
	return {};
}

// Fraction of [0,size) of a file that is in the page cache (mincore).
double cached_fraction(int fd, std::uint64_t base, std::uint64_t size)
{
	std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	size += base % page;
	base -= base % page;
	if (size == 0)
		return 0;
	const std::uint64_t window = GiB;	// mincore wants a byte per page: 256 KiB a window
	std::vector<unsigned char> vec(window / page);
	std::uint64_t in_core = 0, pages = 0;
	for (std::uint64_t at = 0; at < size; at += window) {
		std::size_t len = static_cast<std::size_t>(std::min(window, size - at));
		void *map = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(base + at));
		if (map == MAP_FAILED)
			return 0;
		std::size_t n = (len + page - 1) / page;
		if (mincore(map, len, vec.data()) == 0)
			for (std::size_t i = 0; i < n; i++)
				in_core += vec[i] & 1;
		pages += n;
		munmap(map, len);
	}
	return static_cast<double>(in_core) / static_cast<double>(pages);
}

// Fraction of the file's part of this thread's region in the page cache.
double region_cached(const Worker &w)
{
	const Target &t = *w.target;
	return t.existing > t.base ? cached_fraction(w.fd, t.base, std::min(t.size, t.existing - t.base)) : 0;
}

// Drop the thread's region from the page cache, and on fuseblk the backing
// device's cache the FUSE daemon reads through: 0 or -errno.
int drop_cached(const Worker &w)
{
	const Target &t = *w.target;
	if (int err = posix_fadvise(w.fd, static_cast<off_t>(t.base), static_cast<off_t>(t.size), POSIX_FADV_DONTNEED))
		return -err;
	if (!w.plan->backing_device.empty())
		if (int err = flush_device(w.plan->backing_device))
			return -err;
	return 0;
}

// A read not meant to measure the cache starts with the target's pages
// evicted, with -D too: some file systems turn O_DIRECT into buffered I/O.
// Dirty pages must be written first or they cannot be dropped.
void evict(Worker &w)
{
	const Target &t = *w.target;
	if (t.kind == Kind::chr)
		return;
	fdatasync(w.fd);
	drop_cached(w);
	if (t.kind == Kind::file)
		w.resident = region_cached(w);
}

// Readahead that follows the pattern, as fio's default does: none for
// random reads (else a share of them are cache hits of an earlier
// readahead), a larger window for sequential ones.
void advise_readahead(const Worker &w)
{
	const Target &t = *w.target;
	if (t.kind != Kind::chr)
		posix_fadvise(w.fd, static_cast<off_t>(t.base), static_cast<off_t>(t.size),
			      w.plan->opt.random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
}

// Whether the target can be tried without blocking (FMODE_NOWAIT), asked
// the way io_uring asks it: a read with RWF_NOWAIT is refused with
// EOPNOTSUPP where it cannot.  A write's descriptor cannot read: the same
// inode is opened again for reading; if that fails, the answer is "can".
bool blocks_always(const Worker &w)
{
	const Options &o = w.plan->opt;
	int fd = w.fd;
	if (is_write(o)) {
		fd = open(format("/proc/self/fd/%d", w.fd).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (o.direct ? O_DIRECT : 0));
		if (fd < 0)
			return false;
	}
	// Its own buffer: a write's may be shared by every thread.
	const std::size_t len = std::max<std::size_t>(w.plan->dio_align, 4096);
	void *scratch = std::aligned_alloc(len, len);
	iovec one = {scratch, len};
	bool refused = scratch && preadv2(fd, &one, 1, static_cast<off_t>(w.target->base), RWF_NOWAIT) < 0 && errno == EOPNOTSUPP;
	std::free(scratch);
	if (fd != w.fd)
		close(fd);
	return refused;
}

// The thread's ring for -q: set up, with the target and the slot buffers
// registered.  Untimed, in prepare().  Where every I/O goes to an io-wq
// worker, each completion would wake this thread on its own: it waits for
// a quarter of the depth instead (the workers, not the depth, bound what
// runs at once there).  Elsewhere it waits for one, as fio does, so that
// the device always has the full depth.
Error ring_for(Worker &w)
{
	const Plan &plan = *w.plan;
	const unsigned depth = plan.opt.queue_depth;
	const bool punted = blocks_always(w);
	unsigned wait = plan.wait_batch ? plan.wait_batch : punted ? std::max(depth / 4, 1u) : 1;
	w.ring = std::make_unique<Ring>();
	if (Error e = w.ring->setup(depth, plan.submit_batch, wait))
		return e;
	w.ring->attach(w.fd, is_write(plan.opt), w.buffer, plan.slot_stride * plan.slots, punted);
	return {};
}

// -r --verify: the seed of the run that wrote the target, from the unit at
// the start of the thread's region, read before the eviction (untimed).
// Where that unit is not a whole one, the first whole unit read gives it.
void learn_seed(Worker &w)
{
	const std::size_t len = std::max<std::size_t>(w.plan->dio_align, verify_unit);
	if (len <= w.plan->slot_stride &&
	    pread(w.fd, w.buffer, len, static_cast<off_t>(w.target->base)) == static_cast<ssize_t>(len) &&
	    unit_consistent(w.buffer)) {
		w.verify.seed = unit_header(w.buffer).seed;
		w.verify.seeded = true;
	}
}

Error prepare(Worker &w)
{
	const Options &o = w.plan->opt;
	if (Error e = open_target(w))
		return e;
	if (!o.cached)
		advise_readahead(w);
	if (o.queue_depth > 1)
		if (Error e = ring_for(w))
			return e;
	if (((is_write(o) && o.random) || is_mix(o)) && w.target->kind != Kind::block && w.target->kind != Kind::chr)
		if (Error e = lay_out(w))
			return e;
	if (o.fsync_every)
		w.sync_latency.emplace();
	if (is_mix(o)) {
		w.read_latency.emplace();
		w.write_latency.emplace();
	}
	if (!is_write(o) && o.verify)
		learn_seed(w);
	if (!is_write(o) && !o.cached)
		evict(w);
	// --cached means to measure the cache: say how much of it was there.
	if (!is_write(o) && o.cached && w.target->kind == Kind::file)
		w.cached_before = region_cached(w);
	return {};
}

// Where the next I/O goes: sequential passes over [0,size), or every block
// once per pass in the Permutation's order.  next() is false when the pass
// is over; rewind() begins the next one (the random order goes on).
template <bool Random>
class Offsets {
public:
	Offsets(const Target &t, std::uint64_t block_size, std::uint64_t seed)
		: size_(t.size), bs_(block_size), blocks_(t.size / block_size), left_(blocks_),
		  order_(Random ? blocks_ : 1, seed)
	{
	}

	bool next(std::uint64_t &offset, std::size_t &len)
	{
		if (Random) {
			if (left_ == 0)
				return false;
			left_--;
			offset = order_.next() * bs_;
			len = static_cast<std::size_t>(bs_);
		} else {
			if (pos_ >= size_)
				return false;
			offset = pos_;
			len = static_cast<std::size_t>(std::min(bs_, size_ - pos_));
			pos_ += len;
		}
		return true;
	}

	void rewind()
	{
		left_ = blocks_;
		pos_ = 0;
	}

private:
	std::uint64_t size_, bs_, blocks_, left_, pos_ = 0;
	Permutation order_;
};

// The random order: fixed for a given run (reproducible), but another one
// for each thread, for reads and writes, and for each quick-suite repeat, so
// that a read does not replay the order the preceding write left in caches.
std::uint64_t order_seed(const Worker &w)
{
	const Options &o = w.plan->opt;
	return 0x5db0000 + w.id + (std::uint64_t{is_write(o)} << 32) + (std::uint64_t{is_mix(o)} << 33) +
	       (std::uint64_t{w.run} << 40);
}

// A mix's reads and writes: another sequence than the offsets' order.
std::uint64_t mix_seed(const Worker &w) { return order_seed(w) ^ 0x6d69780000000000ULL; }

// The end of the timed window; during a --ramp, -t after the ramp's end.
std::int64_t deadline_of(const Worker &w)
{
	return (w.ramp_end_ns ? w.ramp_end_ns : w.start_ns) + static_cast<std::int64_t>(w.plan->opt.time_limit * 1e9);
}

// The first error is the one to report; it stops every thread.
void fail(Worker &w, Error e)
{
	if (w.error)
		return;
	w.error = std::move(e);
	g_stop.store(true, std::memory_order_relaxed);
}

void fail_io(Worker &w, bool write, int err, std::uint64_t offset)
{
	fail(w, sys_error(err, "%s: %s at offset %" PRIu64, write ? "write" : "read", w.target->path.c_str(), offset));
}

// io_uring_enter itself failed: no I/O at any offset did.
Error ring_error(const std::string &path, int err)
{
	return sys_error(err, "io_uring_enter: %s", path.c_str());
}

// Every pass of a time-based run starts from the device: a read drops what
// the pass brought into the page cache before it is read again, a write
// makes the pass durable (else the next pass rewrites dirty pages and only
// the last state reaches the device).  Once per pass, inside the timing: it
// is part of the cost of reaching the device.  0 or -errno.
// A mix does both: its writes made durable, then its pages dropped.
int end_pass(const Worker &w)
{
	if (w.plan->opt.cached || w.target->kind == Kind::chr)
		return 0;
	if (!writes_target(w.plan->opt))
		return drop_cached(w);
	if (fdatasync(w.fd) != 0 && errno != EINVAL && errno != EROFS)	// EINVAL: nothing to flush
		return -errno;
	return is_mix(w.plan->opt) ? drop_cached(w) : 0;
}

// A pass is over: true when a time-based run goes on with the next one.
// now becomes the end of the pass-end step, so that the step is timed but
// not taken for the latency of the I/O that follows it.
// A --ramp repeats passes until it is over, with -t or without.
template <bool Random>
bool next_pass(Worker &w, Offsets<Random> &offsets, std::int64_t &now)
{
	const bool ramping = w.ramp_end_ns != 0;
	if (!(w.plan->opt.time_limit > 0 || ramping) || g_stop.load(std::memory_order_relaxed))
		return false;
	if (int err = end_pass(w)) {
		fail(w, sys_error(-err, "%s: %s (end of pass %u)", writes_target(w.plan->opt) ? "fdatasync" : "posix_fadvise",
				  w.target->path.c_str(), w.passes));
		return false;
	}
	now = now_ns();
	if (!ramping && now >= deadline_of(w))
		return false;
	offsets.rewind();
	w.passes++;
	return true;
}

// --fsync: the sync after every N writes, timed into its own histogram.
// now: the last write's end on entry, the sync's end on return, so that
// the sync is not taken for the latency of the write that follows it.
bool sync_step(Worker &w, std::int64_t &now)
{
	if (fdatasync(w.fd) != 0 && errno != EINVAL && errno != EROFS) {	// EINVAL: nothing to flush
		fail(w, sys_error(errno, "fdatasync: %s (--fsync)", w.target->path.c_str()));
		return false;
	}
	std::int64_t end = now_ns();
	w.sync_latency->add(static_cast<std::uint64_t>(end - now));
	now = end;
	return true;
}

// What a worker counted, dropped: its histograms, its sides, its bytes done.
void drop_counts(Worker &w)
{
	w.latency.reset();
	for (std::optional<Histogram> *h : {&w.sync_latency, &w.read_latency, &w.write_latency})
		if (*h)
			(*h)->reset();
	w.read_bytes = w.read_ops = w.write_bytes = w.write_ops = 0;
	w.bytes_done.store(0, std::memory_order_relaxed);
}

// --ramp is over: the first I/O to end at or after the ramp's end was the
// ramp's last; all counted so far is dropped and the timed window opens
// at now.  With -t the I/O goes on where it is (fio's ramp_time).  Without
// -t the window is one pass: the offsets start over (the random order goes
// on, so every block comes once), and what a read's ramp brought into the
// page cache is dropped first, before the window (a write's dirty pages
// stay, as they would in the steady state the ramp is there to reach).
template <bool Random>
void open_window(Worker &w, Offsets<Random> &offsets, std::int64_t &now)
{
	const Options &o = w.plan->opt;
	w.ramp_end_ns = 0;
	drop_counts(w);
	if (!(o.time_limit > 0)) {
		if (!is_write(o) && !o.cached && w.target->kind != Kind::chr)
			drop_cached(w);
		offsets.rewind();
		now = now_ns();
	}
	w.passes = 1;
	w.start_ns = now;
	w.cpu_start_ns = thread_cpu_ns();
	w.counting.store(true);
}

// Which way a loop's I/Os go: all reads, all writes, or a mix (-M), where
// each I/O draws its way.  The way is a template argument, so that a read
// or a write loop carries nothing of the mix but constants.
enum class Way { read, write, mix };

// The loop's counts into the worker: a mix's two sides apart, and its
// latency histogram both sides'.
template <Way W>
void end_loop(Worker &w, const std::uint64_t (&bytes)[2], const std::uint64_t (&ops)[2], std::int64_t end)
{
	if (W == Way::mix) {
		w.read_bytes = bytes[0];
		w.read_ops = ops[0];
		w.write_bytes = bytes[1];
		w.write_ops = ops[1];
		w.latency.merge(*w.read_latency);
		w.latency.merge(*w.write_latency);
	}
	w.bytes = bytes[0] + bytes[1];
	w.ops = ops[0] + ops[1];
	w.end_ns = end;
}

// The timed loop at queue depth 1: the I/O call, one clock read per I/O
// (the end of one I/O is the start of the next), a histogram add and a
// relaxed counter store.  The end of a pass is where next() is false
// anyway, so its step costs the loop nothing.  With -R, rotation() and
// stamp() also run here, inside the timing: a modulo and 16 bytes per
// 4 KiB, measured at 3.1-4.8 M against 3.3-4.9 M writes of 4 KiB a second
// to /dev/null (alternated): under 1% of any real device's I/O time.
// With --verify, mark() makes the whole pattern here instead (about 0.05 s
// of CPU per GiB), and a read checks each unit after its I/O; the clock is
// read again after either, so that they count in the rate, not in the
// latency of an I/O.  A mix writes from the thread's first slot and reads
// into its second (see make_plan), so that no read changes what a write
// sends; its two sides are counted apart, and the latency histogram gets
// both at the end.
template <Way W, bool Random>
void io_loop(Worker &w)
{
	const Target &t = *w.target;
	const Plan &plan = *w.plan;
	const bool time_based = plan.opt.time_limit > 0;
	std::int64_t deadline = deadline_of(w);
	Offsets<Random> offsets(t, plan.block_size, order_seed(w));
	MixChooser choose(mix_seed(w), plan.opt.mix);
	const bool stamped = W != Way::read && plan.opt.random_buffer;
	const unsigned sync_every = W != Way::read ? plan.opt.fsync_every : 0;
	const bool verifying = plan.opt.verify;	// never with a mix
	char *const read_buffer = W == Way::mix ? w.buffer + plan.slot_stride : w.buffer;
	Histogram *latency[2] = {&w.latency, &w.latency};	// [0]: reads, [1]: writes
	if (W == Way::mix) {
		latency[0] = &*w.read_latency;
		latency[1] = &*w.write_latency;
	}
	std::uint64_t bytes[2] = {0, 0}, ops[2] = {0, 0}, offset, failed_at = 0;
	unsigned unsynced = 0;
	std::size_t len;
	std::int64_t prev = w.start_ns;

	w.passes = 1;
	while (offsets.next(offset, len) || (next_pass(w, offsets, prev) && offsets.next(offset, len))) {
		const bool write = W == Way::mix ? !choose.read() : W == Way::write;
		char *buffer = read_buffer;
		if (write) {
			buffer = w.buffer;
			if (stamped) {
				buffer += rotation(w, ops[1]);
				mark(w, buffer, len, t.base + offset, ops[1]);
			}
			if (verifying)	// the pattern counts in the rate, not in the write's latency
				prev = now_ns();
		}
		ssize_t n = write ? transfer<true>(w.fd, buffer, len, t.base + offset, failed_at)
				  : transfer<false>(w.fd, buffer, len, t.base + offset, failed_at);
		std::int64_t now = now_ns();
		if (n < 0) {
			fail_io(w, write, static_cast<int>(-n), failed_at);
			break;
		}
		if (n == 0) {	// end of file: nothing was read, so no I/O to count
			w.eof_at = t.base + offset;
			break;
		}
		latency[write]->add(static_cast<std::uint64_t>(now - prev));
		prev = now;
		bytes[write] += static_cast<std::uint64_t>(n);
		ops[write]++;
		w.bytes_done.store(bytes[0] + bytes[1], std::memory_order_relaxed);
		if (!write && verifying) {	// the check counts in the rate, not in the next read's latency
			w.verify.check_block(buffer, static_cast<std::size_t>(n), t.base + offset);
			prev = now_ns();
		}
		if (static_cast<std::size_t>(n) < len) {
			w.eof_at = t.base + offset + static_cast<std::uint64_t>(n);
			break;
		}
		if (write && sync_every && ++unsynced == sync_every) {
			unsynced = 0;
			if (!sync_step(w, prev))
				break;
		}
		if (w.ramp_end_ns && prev >= w.ramp_end_ns) {
			bytes[0] = bytes[1] = ops[0] = ops[1] = 0;
			unsynced = 0;
			open_window(w, offsets, prev);
			deadline = deadline_of(w);
		}
		if (g_stop.load(std::memory_order_relaxed) || (time_based && prev >= deadline))
			break;
	}
	end_loop<W>(w, bytes, ops, prev);
}

// What one io_uring completion makes of its slot.
enum class Settled {
	failed,		// an error: the run stops
	partial,	// some bytes moved: continue the rest in the same slot
	ended,		// nothing more came: end of file, or a write that cannot go on
	complete,	// the whole I/O is done
};

// An EINVAL after a short O_DIRECT read is end of file (the rest is
// unaligned), as transfer() decides it at queue depth 1.
template <bool Write>
Settled settle(Slot &s, int res)
{
	if (res == -EINVAL && !Write && s.done > 0)
		return Settled::ended;
	if (res < 0)
		return Settled::failed;
	s.done += static_cast<std::size_t>(res);
	if (s.done >= s.len)
		return Settled::complete;
	return res > 0 ? Settled::partial : Settled::ended;
}

// After open_window() without -t, the offsets start over: the slots the
// ended pass left idle (done: nothing of theirs in flight) take the new
// pass's first offsets.  The I/Os still in flight from the ramp end in the
// window and are counted there.
template <typename Refill>
void refill_idle(const std::vector<Slot> &slots, bool &pass_over, Refill &refill, std::int64_t now)
{
	if (!pass_over)
		return;
	pass_over = false;
	for (unsigned i = 0; i < slots.size(); i++)
		if (slots[i].done >= slots[i].len)
			refill(i, now);
}

// The timed loop at queue depth N: N I/Os in flight through io_uring.  Each
// slot owns a buffer (reads) and the time it was queued; a completion is
// timed with one clock read, which is also the queue time of the I/O that
// refills its slot.  At the end of a pass the slots drain before the
// pass-end step, then all are refilled.  A mix draws each slot's way as it
// is refilled: slot i writes from buffer slot i and reads into slot
// depth + i.
template <Way W, bool Random>
void uring_loop(Worker &w)
{
	const Target &t = *w.target;
	const Plan &plan = *w.plan;
	const bool time_based = plan.opt.time_limit > 0;
	std::int64_t deadline = deadline_of(w);
	const unsigned depth = plan.opt.queue_depth;
	Offsets<Random> offsets(t, plan.block_size, order_seed(w));
	MixChooser choose(mix_seed(w), plan.opt.mix);
	Ring &ring = *w.ring;
	std::vector<Slot> slots(depth);
	Histogram *latency[2] = {&w.latency, &w.latency};	// [0]: reads, [1]: writes
	if (W == Way::mix) {
		latency[0] = &*w.read_latency;
		latency[1] = &*w.write_latency;
	}
	std::uint64_t bytes[2] = {0, 0}, ops[2] = {0, 0};
	std::int64_t last = w.start_ns;
	unsigned inflight = 0;
	bool pass_over = false;		// this pass has no more offsets
	bool finished = false;		// no more I/O at all: stop, deadline, error or end of file

	const bool stamped = W != Way::read && plan.opt.random_buffer;
	const bool verifying = plan.opt.verify;	// never with a mix
	// A buffer per slot, or one shared by every write of zeros.
	const std::size_t stride = W == Way::write && !stamped ? 0 : plan.slot_stride;
	std::vector<char *> starts(depth);
	std::uint64_t writes_queued = 0;	// the -R stamp and the pool rotation
	auto queue = [&](unsigned i) {	// what is left of slot i's I/O
		const Slot &s = slots[i];
		if (W == Way::mix)	// each I/O its own way; else the ring's template has it
			ring.queue(starts[i] + s.done, s.len - s.done, t.base + s.offset + s.done, i, s.write);
		else
			ring.queue(starts[i] + s.done, s.len - s.done, t.base + s.offset + s.done, i);
	};
	auto refill = [&](unsigned i, std::int64_t now) {
		Slot &s = slots[i];
		if (finished || pass_over)
			return;
		if (!offsets.next(s.offset, s.len)) {
			pass_over = true;
			return;
		}
		s.done = 0;
		s.queued_ns = now;
		s.write = W == Way::mix ? !choose.read() : W == Way::write;
		if (s.write) {
			starts[i] = w.buffer + i * stride;
			if (stamped) {
				starts[i] += rotation(w, writes_queued);
				mark(w, starts[i], s.len, t.base + s.offset, writes_queued);
				if (verifying)	// the pattern counts in the rate, not in the write's latency
					s.queued_ns = now_ns();
			}
			writes_queued++;
		} else {
			starts[i] = w.buffer + (W == Way::mix ? depth + i : i) * stride;
		}
		queue(i);
		inflight++;
	};
	auto count = [&](const Slot &s, std::int64_t now) {
		latency[s.write]->add(static_cast<std::uint64_t>(now - s.queued_ns));
		ops[s.write]++;
		last = now;
	};

	w.passes = 1;
	for (unsigned i = 0; i < depth; i++)
		refill(i, w.start_ns);
	while (inflight > 0) {
		if (int err = ring.submit_and_wait(inflight)) {
			fail(w, ring_error(t.path, err));
			break;
		}
		std::int64_t now = now_ns();
		unsigned index;
		int res;
		while (ring.reap(index, res)) {
			Slot &s = slots[index];
			inflight--;
			bool stop = g_stop.load(std::memory_order_relaxed);
			if (stop || (time_based && now >= deadline))
				finished = true;
			if (res > 0)
				bytes[s.write] += static_cast<std::uint64_t>(res);
			switch (s.write ? settle<true>(s, res) : settle<false>(s, res)) {
			case Settled::failed:
				fail_io(w, s.write, -res, t.base + s.offset + s.done);
				finished = true;
				break;
			case Settled::partial:
				if (stop) {	// what moved is an I/O, cut short
					count(s, now);
					break;
				}
				queue(index);
				inflight++;
				break;
			case Settled::ended:
				if (s.write)
					fail_io(w, true, EIO, t.base + s.offset + s.done);
				else
					w.eof_at = t.base + s.offset + s.done;
				finished = true;
				if (s.done > 0)
					count(s, now);
				break;
			case Settled::complete:
				count(s, now);
				if (!s.write && verifying)	// before the slot is refilled; not in the next read's latency
					w.verify.check_block(starts[index], s.len, t.base + s.offset);
				refill(index, !s.write && verifying ? now_ns() : now);
				break;
			}
		}
		w.bytes_done.store(bytes[0] + bytes[1], std::memory_order_relaxed);
		if (w.ramp_end_ns && now >= w.ramp_end_ns && !finished) {
			bytes[0] = bytes[1] = ops[0] = ops[1] = 0;
			last = now;
			open_window(w, offsets, last);
			deadline = deadline_of(w);
			refill_idle(slots, pass_over, refill, last);
		}
		if (inflight == 0 && pass_over && !finished && next_pass(w, offsets, last)) {
			pass_over = false;
			for (unsigned i = 0; i < depth; i++)
				refill(i, last);
		}
	}
	end_loop<W>(w, bytes, ops, last);
}

// Why fdatasync belongs inside the timing: without it a buffered write
// measures how fast the page cache accepts data, not the device.  Devices
// with no cache to flush (/dev/null) answer EINVAL, which is fine.
void finish_write(Worker &w)
{
	if (w.plan->opt.cached || w.error)
		return;
	w.loop_end_ns = w.end_ns;
	if (fdatasync(w.fd) != 0 && errno != EINVAL && errno != EROFS) {
		w.error = sys_error(errno, "fdatasync: %s", w.target->path.c_str());
		g_stop.store(true, std::memory_order_relaxed);
	}
	w.end_ns = now_ns();
}

// A run stopped during its --ramp (a signal, an error) counted nothing.
void discard_ramp(Worker &w)
{
	w.ramp_end_ns = 0;
	w.bytes = w.ops = 0;
	drop_counts(w);	// the counting.store(true) after this publishes it
	w.start_ns = w.end_ns;
	w.loop_end_ns = 0;
	w.passes = 0;
}

// The loop for this way, depth and pattern.
template <Way W>
void run_loop(Worker &w)
{
	const Options &o = w.plan->opt;
	if (o.queue_depth > 1)
		o.random ? uring_loop<W, true>(w) : uring_loop<W, false>(w);
	else
		o.random ? io_loop<W, true>(w) : io_loop<W, false>(w);
}

// ramp_end_ns, for --ramp, was set before the barrier opened.
void timed_phase(Worker &w)
{
	const Options &o = w.plan->opt;
	w.cpu_start_ns = thread_cpu_ns();
	w.start_ns = now_ns();
	w.cpu = sched_getcpu();
	w.counting.store(w.ramp_end_ns == 0);
	if (is_mix(o))
		run_loop<Way::mix>(w);
	else if (is_write(o))
		run_loop<Way::write>(w);
	else
		run_loop<Way::read>(w);
	if (writes_target(o))
		finish_write(w);
	if (w.ramp_end_ns)
		discard_ramp(w);
	w.cpu_ns = thread_cpu_ns() - w.cpu_start_ns;
	w.counting.store(true);
}

// --verify after a write: which units of a thread's region it left to be
// checked, and the number of the last write to each where that is known.
// Sequential writes number their I/Os in offset order, pass after pass, so
// with -t the last write to each block is known and an earlier pass's unit
// found there is stale (the last write was lost); random writes are checked
// for any write of this run.  A time-based random write cut short in its
// first pass checks only the blocks it wrote (the permutation replayed).
struct Written {
	std::uint64_t end = 0;		// units at [0,end) of the region
	std::uint64_t block_size = 0, blocks = 0, last_io = 0;
	bool numbered = false;		// sequential: write_of() is known
	std::vector<bool> only;		// random, first pass cut short: the blocks written

	bool has(std::uint64_t at) const { return only.empty() || only[at / block_size]; }
	std::optional<std::uint64_t> write_of(std::uint64_t at) const
	{
		if (!numbered)
			return std::nullopt;
		std::uint64_t b = at / block_size, pass = last_io / blocks, pos = last_io % blocks;
		return (b <= pos ? pass : pass - 1) * blocks + b;
	}
};

Written written_by(const Worker &w)
{
	const Target &t = *w.target;
	Written r;
	r.block_size = w.plan->block_size;
	if (!w.plan->opt.random) {
		r.blocks = (t.size + r.block_size - 1) / r.block_size;
		r.numbered = w.ops > 0;
		r.last_io = w.ops - 1;
		r.end = w.ops >= r.blocks ? t.size : w.ops * r.block_size;
		return r;
	}
	r.blocks = t.size / r.block_size;
	r.end = r.blocks * r.block_size;
	if (w.ops < r.blocks) {	// a laid-out file may still hold older data below its old size
		r.only.assign(r.blocks, false);
		Offsets<true> offsets(t, r.block_size, order_seed(w));
		std::uint64_t offset;
		std::size_t len;
		for (std::uint64_t i = 0; i < w.ops && offsets.next(offset, len); i++)
			r.only[offset / r.block_size] = true;
	}
	return r;
}

// The thread's target opened again to read it back: O_DIRECT where it
// takes it, else buffered; evicted either way (some file systems turn
// O_DIRECT into buffered I/O), and on fuseblk the device's cache too.
Error reopen_for_check(const Worker &w, bool direct, Fd &fd)
{
	const Target &t = *w.target;
	fd = Fd(open(t.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (t.follow ? 0 : O_NOFOLLOW) | (direct ? O_DIRECT : 0)));
	if (!fd)
		return sys_error(errno, "open: %s (--verify read-back)", t.path.c_str());
	struct stat st {};
	if (fstat(fd.get(), &st) != 0)
		return sys_error(errno, "fstat: %s", t.path.c_str());
	if (identity_of(st) != (w.created ? *w.created : t.id))
		return runtime_error("%s changed during the run: not reading it back (--verify)", t.path.c_str());
	posix_fadvise(fd.get(), static_cast<off_t>(t.base), static_cast<off_t>(t.size), POSIX_FADV_DONTNEED);
	if (!w.plan->backing_device.empty())
		flush_device(w.plan->backing_device);
	return {};
}

// Read the thread's region back and check every unit the write left,
// untimed, in 1 MiB reads; done: bytes read so far, for the progress line.
Error read_back(Worker &w, std::atomic<std::uint64_t> &done)
{
	const Target &t = *w.target;
	const Written written = written_by(w);
	w.verify = VerifyTally{};
	w.verify.seed = w.plan->verify_seed;
	w.verify.seeded = true;
	const std::size_t chunk = MiB;
	Buffer buffer;
	if (Error e = buffer.allocate(chunk))
		return e;
	Fd fd;
	bool direct = reopen_for_check(w, true, fd).status == exit_ok;
	if (!direct)
		if (Error e = reopen_for_check(w, false, fd))
			return e;
	for (std::uint64_t pos = 0; pos < written.end && !g_stop.load(std::memory_order_relaxed);) {
		std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, written.end - pos));
		std::uint64_t failed_at = t.base + pos;
		ssize_t n = transfer<false>(fd.get(), buffer.data(), len, t.base + pos, failed_at);
		if (n == -EINVAL && direct) {	// O_DIRECT refused after all: buffered
			direct = false;
			if (Error e = reopen_for_check(w, false, fd))
				return e;
			continue;
		}
		if (n < 0)
			return sys_error(static_cast<int>(-n), "read: %s at offset %" PRIu64 " (--verify read-back)",
					 t.path.c_str(), failed_at);
		if (static_cast<std::size_t>(n) < len)
			return runtime_error("%s ends at offset %" PRIu64 ", before the end of what was written (--verify read-back)",
					     t.path.c_str(), t.base + pos + static_cast<std::uint64_t>(n));
		for (std::size_t at = 0; at < len; at += verify_unit)
			if (written.has(pos + at))
				w.verify.check(buffer.data() + at, t.base + pos + at, written.write_of(pos + at));
		pos += len;
		done.store(pos, std::memory_order_relaxed);
	}
	return {};
}

// ------------------------------------------------------------- 8. the run

// The start barrier: workers prepare, report ready, then wait for the gate.
// The last worker to get ready, and every worker that finishes, pokes an
// eventfd so that the supervising main thread wakes at once.
struct Gate {
	std::mutex mutex;
	std::condition_variable cv;
	bool open = false;
	std::atomic<unsigned> workers{0};
	std::atomic<unsigned> ready{0};
	std::atomic<unsigned> done{0};
	int wake_fd = -1;

	void poke() const
	{
		std::uint64_t one = 1;
		ssize_t ignored = write(wake_fd, &one, sizeof one);
		(void)ignored;
	}
	void arrive()
	{
		if (ready.fetch_add(1) + 1 == workers)
			poke();
		std::unique_lock<std::mutex> lock(mutex);
		cv.wait(lock, [this] { return open; });
	}
	void release()
	{
		{
			std::lock_guard<std::mutex> lock(mutex);
			open = true;
		}
		cv.notify_all();
	}
	void leave()
	{
		done.fetch_add(1);
		poke();
	}
};

// Which run of a plan this is, beyond the plan: the quick suite runs each
// test --runs times, each with its own random order, and names the test on
// the progress line.  A plain run is run 0, unnamed.
struct RunId {
	unsigned index = 0;
	std::string label;
};

// The workers of one run, their threads and the barrier they start at.
struct Shared {
	Gate gate;
	std::vector<std::unique_ptr<Worker>> workers;
	std::vector<pthread_t> threads;	// those that started
};

void *worker_main(void *arg)
{
	Worker &w = *static_cast<Worker *>(arg);
	w.error = prepare(w);
	if (w.error)
		g_stop.store(true, std::memory_order_relaxed);
	w.gate->arrive();
	if (!w.error && !g_stop.load())
		timed_phase(w);
	if (w.fd >= 0)
		close(w.fd);
	w.gate->leave();
	return nullptr;
}

struct Sample {
	double t;		// seconds since the start
	std::uint64_t bytes;	// all threads together
};

struct RunResult {
	std::int64_t start_ns = 0;
	std::int64_t start_unix_ns = 0;	// the same instant on the real-time clock
	std::int64_t start_late_ns = 0;	// after --start-at's time; 0 without it
	std::vector<Sample> samples;
	rusage usage_before {}, usage_after {};
	bool interrupted = false;
	std::vector<std::string> stat_files;	// the devices' counters (see verification)
	std::vector<std::string> stats_before, stats_after;	// their lines at the barrier and at the end
};

// What a run adds up to, computed once after it (add_up) and read by every
// report: the human one, the JSON, the verdict, the quick suite.
struct Totals {
	std::uint64_t bytes = 0, ops = 0;
	std::uint64_t read_bytes = 0, read_ops = 0, write_bytes = 0, write_ops = 0;	// a mix's sides
	double wall = 0;	// barrier to the last thread's end, its final fdatasync included
	double io = 0;		// barrier to the last I/O's return: the timeline stops here, since
				// a final fdatasync moves no bytes of its own and would read as 0 B/s
	double together = 0;	// barrier to the first thread's last I/O: all threads running
	double longest_io = 0;	// the longest mean time of one I/O among the threads
};

Totals add_up(const Shared &s, std::int64_t start_ns)
{
	Totals t;
	std::int64_t last_end = start_ns, last_io = start_ns, first_io = INT64_MAX;
	for (auto &w : s.workers) {
		t.bytes += w->bytes;
		t.ops += w->ops;
		t.read_bytes += w->read_bytes;
		t.read_ops += w->read_ops;
		t.write_bytes += w->write_bytes;
		t.write_ops += w->write_ops;
		std::int64_t io_end = w->loop_end_ns ? w->loop_end_ns : w->end_ns;
		last_end = std::max(last_end, w->end_ns);
		last_io = std::max(last_io, io_end);
		first_io = std::min(first_io, io_end);
		if (w->ops)
			t.longest_io = std::max(t.longest_io, (w->end_ns - w->start_ns) / 1e9 / static_cast<double>(w->ops));
	}
	t.wall = (last_end - start_ns) / 1e9;
	t.io = (last_io - start_ns) / 1e9;
	t.together = first_io == INT64_MAX ? 0 : (first_io - start_ns) / 1e9;
	return t;
}

// The block-layer counters of the devices under the target, as text: read
// as the barrier opens and after the last thread ends, judged later.
std::vector<std::string> read_stats(const std::vector<std::string> &files)
{
	std::vector<std::string> lines;
	for (const std::string &f : files)
		lines.push_back(read_line(f));
	return lines;
}

std::uint64_t total_done(const Shared &s)
{
	std::uint64_t sum = 0;
	for (auto &w : s.workers)
		sum += w->bytes_done.load(std::memory_order_relaxed);
	return sum;
}

// All the bytes a run is to move: the end the progress line counts to.
std::uint64_t planned_bytes(const Plan &plan)
{
	std::uint64_t sum = 0;
	for (const Target &t : plan.targets)
		sum += t.size;
	return sum;
}

// The live status line: only to a terminal, never with --json.
void draw_progress(const Plan &plan, const std::string &label, std::uint64_t bytes, double elapsed)
{
	double bps = rate(bytes, elapsed);
	double eta;
	if (plan.opt.time_limit > 0)
		eta = std::max(0.0, plan.opt.time_limit - elapsed);
	else
		eta = bps > 0 ? static_cast<double>(planned_bytes(plan) - std::min(bytes, planned_bytes(plan))) / bps : 0;
	std::fprintf(stderr, "\r%s%s  %s  %.1f s  ETA %.0f s\033[K", label.c_str(), format_bytes(bytes).c_str(),
		     format_rate(bps).c_str(), elapsed, eta);
	std::fflush(stderr);
}

// Signals arrive through a signalfd (they are blocked in every thread; see
// SignalScope), worker news through the gate's eventfd: no signal handler ever
// runs, and no I/O call in a worker is interrupted by one.
struct Waiter {
	int signal_fd = -1;
	int wake_fd = -1;
	mutable int received = 0;	// the first signal that came, 0 while none did

	// Wait up to ms for a signal or a poke.  A second signal ends sdb at
	// once.  A pipe on stdout whose reader has gone (POLLERR on its write
	// end) counts as SIGPIPE now, not when the report is finally written.
	void wait(int ms, bool &interrupted) const
	{
		pollfd fds[3] = {{signal_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}, {interrupted ? -1 : 1, 0, 0}};
		if (poll(fds, 3, ms) <= 0)
			return;
		std::uint64_t count;
		if (fds[1].revents & POLLIN) {
			ssize_t ignored = read(wake_fd, &count, sizeof count);
			(void)ignored;
		}
		if (fds[0].revents & POLLIN) {
			take_signal(interrupted);
		} else if (fds[2].revents & POLLERR) {
			received = SIGPIPE;
			interrupted = true;
			g_stop.store(true);
		}
	}

	// Outside a run (the -R fill, -T): has a signal come?  Never waits.
	bool interrupted() const
	{
		bool seen = received != 0;
		take_signal(seen);
		return seen;
	}

	// 128 + the signal's number, as a shell reports a process it ended.
	int exit_status() const { return 128 + received; }

	// The error that ends a run a signal stopped before it began.
	Error interruption(const char *when) const
	{
		const char *name = sigabbrev_np(received);
		return Error{exit_status(), format("interrupted by SIG%s %s", name ? name : "?", when)};
	}

	// Outside a run: the interruption if a signal has come, else none.
	Error stopped(const char *when) const { return interrupted() ? interruption(when) : Error{}; }

private:
	void take_signal(bool &interrupted) const
	{
		signalfd_siginfo info;
		if (read(signal_fd, &info, sizeof info) != sizeof info)
			return;
		if (interrupted) {
			if (g_cleanup_path)
				unlink(g_cleanup_path);
			const char msg[] = "\nsdb: interrupted again: exiting without results\n";
			ssize_t ignored = write(2, msg, sizeof msg - 1);
			(void)ignored;
			_exit(128 + static_cast<int>(info.ssi_signo));
		}
		received = static_cast<int>(info.ssi_signo);
		interrupted = true;
		g_stop.store(true);
	}
};

// The signals that end sdb (INT, TERM, HUP, QUIT, PIPE, USR1/2, ALRM)
// blocked (the calling thread's mask is inherited by every worker) and
// routed to a signalfd; the gate's eventfd for worker news.  Each one
// stops the run, which reports what it has and exits 128 + its number.
struct SignalScope {
	sigset_t signals {}, old {};
	Waiter waiter;

	SignalScope()
	{
		sigemptyset(&signals);
		for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM})
			sigaddset(&signals, sig);
		pthread_sigmask(SIG_BLOCK, &signals, &old);
		waiter.signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
		waiter.wake_fd = eventfd(0, EFD_CLOEXEC);
	}
	// A signal that came after the run (while the report was printed) is
	// taken here: unblocked, it would kill sdb before stdout is flushed.
	~SignalScope()
	{
		flush_output(stdout);
		signalfd_siginfo info;
		while (waiter.signal_fd >= 0 && read(waiter.signal_fd, &info, sizeof info) == sizeof info)
			continue;
		close(waiter.signal_fd);
		close(waiter.wake_fd);
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
	}
	bool ok() const { return waiter.signal_fd >= 0 && waiter.wake_fd >= 0; }
};

// --start-at: every thread is ready; hold the gate until the real-time
// clock reads `at`.  Signals and worker news are watched in steps of at
// most 0.1 s (a clock set meanwhile is noticed too), ending about 2 ms
// early; the rest is one absolute clock_nanosleep, which wakes within a
// fraction of a millisecond.
void wait_for_start(std::int64_t at, const Waiter &waiter, bool &interrupted)
{
	const std::int64_t ms = 1000000;
	for (;;) {
		std::int64_t left = at - realtime_ns();
		if (left <= 0 || interrupted || g_stop.load())
			return;
		if (left > 3 * ms) {	// poll()'s whole milliseconds: at least 1, at most 100
			waiter.wait(static_cast<int>(std::min<std::int64_t>(left - 2 * ms, 100 * ms) / ms), interrupted);
			continue;
		}
		timespec ts{static_cast<time_t>(at / 1000000000), static_cast<long>(at % 1000000000)};
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR)
			continue;
		return;
	}
}

// Every worker is past its --ramp (or done): its bytes_done counts the
// timed window only.
bool all_counting(const Shared &s)
{
	for (auto &w : s.workers)
		if (!w->counting.load())
			return false;
	return true;
}

// --ramp: the barrier opens, the workers run the ramp, and the timed
// window opens at its end: the device's counters and the CPU time are read
// then, and the run's clock starts there.  Each worker drops what it
// counted at its first I/O to end after that moment (see open_window()).
void run_ramp(Shared &s, const Plan &plan, RunResult &r, const Waiter &waiter)
{
	std::int64_t ramp_end = now_ns() + static_cast<std::int64_t>(plan.opt.ramp * 1e9);
	for (auto &w : s.workers)
		w->ramp_end_ns = ramp_end;
	s.gate.release();
	unsigned n = s.gate.workers;
	for (std::int64_t now = now_ns(); now < ramp_end && s.gate.done.load() < n; now = now_ns())
		waiter.wait(static_cast<int>(std::min<std::int64_t>((ramp_end - now + 999999) / 1000000, 100)), r.interrupted);
	r.stats_before = read_stats(r.stat_files);
	getrusage(RUSAGE_SELF, &r.usage_before);
	// A ramp cut short (Ctrl-C, every worker ended by an error) opens its
	// empty window when it stopped, not at the ramp's end still ahead.
	std::int64_t now = now_ns();
	r.start_ns = std::min(now, ramp_end);
	r.start_unix_ns = realtime_ns() - (now - r.start_ns);
}

// Main thread while the workers run: the sampler, the progress line and the
// signal handling all live here, so the workers only do I/O.
void supervise(Shared &s, const Plan &plan, const RunId &id, RunResult &r, const Waiter &waiter)
{
	unsigned n = s.gate.workers;
	while (s.gate.ready.load() < n)
		waiter.wait(100, r.interrupted);
	if (plan.opt.start_at_ns)
		wait_for_start(plan.opt.start_at_ns, waiter, r.interrupted);
	if (plan.opt.start_at_ns)
		r.start_late_ns = std::max<std::int64_t>(0, realtime_ns() - plan.opt.start_at_ns);
	if (plan.opt.ramp > 0 && !g_stop.load()) {
		run_ramp(s, plan, r, waiter);
	} else {
		r.stats_before = read_stats(r.stat_files);
		getrusage(RUSAGE_SELF, &r.usage_before);
		r.start_ns = now_ns();
		r.start_unix_ns = realtime_ns();
		s.gate.release();
	}
	bool tty = !plan.opt.json && isatty(2);
	bool drawn = false;
	const std::int64_t tick = 100000000;	// a sample every 0.1 s
	std::int64_t next_sample = r.start_ns + tick;
	std::int64_t next_draw = r.start_ns + (id.label.empty() ? 1000000000 : tick);
	while (s.gate.done.load() < n) {
		std::int64_t now = now_ns();
		if (now < next_sample) {
			waiter.wait(static_cast<int>((next_sample - now + 999999) / 1000000), r.interrupted);
			continue;
		}
		next_sample += tick;
		if (!all_counting(s))	// a worker still in its ramp: its bytes are not the window's
			continue;
		r.samples.push_back({(now - r.start_ns) / 1e9, total_done(s)});
		if (tty && now >= next_draw) {
			draw_progress(plan, id.label, r.samples.back().bytes, r.samples.back().t);
			drawn = true;
			next_draw = now + 250000000;
		}
	}
	r.stats_after = read_stats(r.stat_files);	// every thread is done: after the final fdatasync
	getrusage(RUSAGE_SELF, &r.usage_after);
	if (drawn)
		std::fprintf(stderr, "\r\033[K");
}

Error start_workers(Shared &s, const Plan &plan, const RunId &id, std::vector<std::unique_ptr<Buffer>> &buffers)
{
	unsigned n = plan.opt.threads;
	s.gate.workers = n;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * KiB);
	for (unsigned i = 0; i < n; i++) {
		auto w = std::make_unique<Worker>();
		w->id = i;
		w->run = id.index;
		w->plan = &plan;
		w->target = &plan.targets[i];
		w->buffer = buffers[buffers.size() == 1 ? 0 : i]->data();
		w->gate = &s.gate;
		s.workers.push_back(std::move(w));
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_t th;
		int err = pthread_create(&th, &attr, worker_main, s.workers[i].get());
		if (err) {
			pthread_attr_destroy(&attr);
			g_stop.store(true);
			s.gate.workers = i;	// the missing threads will never be ready
			s.workers.resize(i);
			if (s.gate.ready.load() == i)
				s.gate.poke();
			return sys_error(err, "cannot start thread %u of %u", i + 1, n);
		}
		s.threads.push_back(th);
	}
	pthread_attr_destroy(&attr);
	return {};
}

// ---------------------------------------------------------- 9. plausibility

struct MemoryRates {
	double memset_bps = 0, memcpy_bps = 0, memmove_bps = 0;
	std::uint64_t bytes = 0;
};

// The fastest pass of op over `bytes`, repeated for at least min_seconds:
// it is a ceiling, and right after a run the mean of the passes ranged
// 13-18 GiB/s where the fastest was 19 every time.  A signal (through
// waiter) ends it early.
template <typename Op>
double best_rate(std::uint64_t bytes, double min_seconds, const Waiter *waiter, Op op)
{
	double best = 0;
	std::int64_t start = now_ns(), now = start;
	while (now - start < min_seconds * 1e9 || best == 0) {
		if (waiter && waiter->interrupted())	// stop at once, not after every operation
			return best;
		std::int64_t before = now;
		op();
		now = now_ns();
		best = std::max(best, rate(bytes, (now - before) / 1e9));
	}
	return best;
}

// memcpy from [src, src+bytes) to [dst, ...): the ceiling a read or write
// that "moves" data through memory cannot beat.
MemoryRates time_copy(char *src, char *dst, std::uint64_t bytes, double min_seconds)
{
	MemoryRates m;
	m.bytes = bytes;
	volatile char sink = 0;
	m.memcpy_bps = best_rate(bytes, min_seconds, nullptr, [&] { std::memcpy(dst, src, bytes); sink = dst[1]; });
	return m;
}

// -T's three rates over [src, src+bytes) and [dst, ...); dst needs 64
// bytes beyond bytes (memmove shifts by a cache line).
MemoryRates time_memory_ops(char *src, char *dst, std::uint64_t bytes, double min_seconds, const Waiter *waiter)
{
	MemoryRates m;
	m.bytes = bytes;
	volatile char sink = 0;
	m.memcpy_bps = best_rate(bytes, min_seconds, waiter, [&] { std::memcpy(dst, src, bytes); sink = dst[1]; });
	m.memset_bps = best_rate(bytes, min_seconds, waiter,
				 [&] { std::memset(src, static_cast<int>(sink), bytes); sink = src[bytes / 2]; });
	m.memmove_bps = best_rate(bytes, min_seconds, waiter, [&] { std::memmove(dst + 64, dst, bytes); sink = dst[65]; });
	return m;
}

// The last-level cache: the size of CPU 0's highest-level data or unified
// cache, 0 when sysfs does not say.
std::uint64_t last_level_cache()
{
	std::string dir = sysfs("/devices/system/cpu/cpu0/cache/index");
	unsigned top = 0;
	std::uint64_t bytes = 0;
	for (unsigned i = 0; i < 64; i++) {
		std::string index = dir + std::to_string(i);
		std::string type = read_line(index + "/type");
		if (type.empty())
			break;
		unsigned level = static_cast<unsigned>(std::strtoul(read_line(index + "/level").c_str(), nullptr, 10));
		std::uint64_t size = parse_size(read_line(index + "/size")).value_or(0);
		if (type == "Instruction" || level < top)
			continue;
		bytes = level > top ? size : std::max(bytes, size);
		top = level;
	}
	return bytes;
}

// Bytes the memory ceiling copies: four times the last-level cache, since
// a copy the cache holds measures the cache (on a CPU with 32 MiB of L3,
// 16 MiB ran at 36 GiB/s, 128 MiB at 19); at least 64 MiB and at least
// at_least; its two buffers within a quarter of the available memory.
std::uint64_t copy_size(std::uint64_t llc, std::uint64_t available, std::uint64_t at_least)
{
	std::uint64_t bytes = std::max({4 * llc, 64 * MiB, at_least});
	return std::min(bytes, std::max<std::uint64_t>(available / 8, MiB));
}

// A copy the last-level cache holds measures the cache: said when the
// memory at hand (a cgroup, ulimit -v) allowed no larger one.
std::vector<std::string> memory_warnings(const MemoryRates &m)
{
	std::uint64_t llc = last_level_cache();
	if (m.bytes >= 4 * llc)
		return {};
	return {format("-T copied only %s (all the memory limit allows), less than 4 x the %s last-level cache: "
		       "these are cache rates, above what memory sustains", format_bytes(m.bytes).c_str(),
		       format_bytes(llc).c_str())};
}

// -T: the memory ceiling over copy_size() (the block size if larger), each
// operation for at least 0.2 s.
MemoryRates time_memory(std::uint64_t block_size, const Waiter *waiter = nullptr)
{
	std::uint64_t bytes = copy_size(last_level_cache(), available_memory(), block_size);
	Buffer a, b;
	if (a.allocate(bytes) || b.allocate(bytes + 64))
		return {};	// nothing timed: bytes 0 says so
	return time_memory_ops(a.data(), b.data(), bytes, 0.2, waiter);
}

// The cheap ceiling behind the "faster than memory" warning: memcpy of
// copy_size() bytes between the halves of the I/O buffer when it is large
// enough (already faulted in), else between two halves of a scratch buffer.
MemoryRates copy_ceiling(Buffer &io)
{
	std::uint64_t bytes = copy_size(last_level_cache(), available_memory(), 0);
	if (io.size() / 2 >= bytes + 64)
		return time_copy(io.data(), io.data() + io.size() / 2, bytes, 0.05);
	Buffer scratch;
	if (scratch.allocate(2 * bytes + 64))
		return {};
	return time_copy(scratch.data(), scratch.data() + bytes, bytes, 0.05);
}

struct Environment {
	std::string host, kernel, fs, device, scheduler;
	std::string logical_block, physical_block, rotational;
	std::uint64_t buffer_bytes = 0, buffer_huge = 0;
};

// The block device under the target: its sysfs directory, climbing from a
// partition to the whole disk for the queue settings.
std::string queue_dir(dev_t dev, std::string &name)
{
	char real[PATH_MAX];
	std::string sys = sysfs_dev(dev);
	if (!realpath(sys.c_str(), real))
		return "";
	std::string dir = real;
	name = dir.substr(dir.find_last_of('/') + 1);
	if (access((dir + "/partition").c_str(), F_OK) == 0)
		dir = dirname_of(dir);
	return dir + "/queue";
}

Environment describe(const Plan &plan, const Buffer &buffer)
{
	Environment env;
	utsname u {};
	if (uname(&u) == 0) {
		env.host = u.nodename;
		env.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
	}
	env.fs = plan.targets.empty() ? "" : plan.targets[0].kind == Kind::block ? "none (block device)"
				: mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (!plan.targets.empty() && plan.targets[0].kind == Kind::chr)
		env.fs = "none (character device)";
	std::string queue = queue_dir(plan.fs_dev, env.device);
	if (!queue.empty()) {
		env.scheduler = read_line(queue + "/scheduler");
		env.logical_block = read_line(queue + "/logical_block_size");
		env.physical_block = read_line(queue + "/physical_block_size");
		env.rotational = read_line(queue + "/rotational");
	}
	if (env.device.empty())
		env.device = format("%u:%u (no block device)", major(plan.fs_dev), minor(plan.fs_dev));
	env.buffer_bytes = buffer.size();
	env.buffer_huge = buffer.data() ? huge_page_bytes(buffer.data()) : 0;
	return env;
}

// The kernel's name for a block device (a partition's whole disk), "" when
// dev is none (the anonymous device of tmpfs, NFS or btrfs).
std::string disk_name(dev_t dev)
{
	char real[PATH_MAX];
	if (!realpath(sysfs_dev(dev).c_str(), real))
		return "";
	std::string dir = real;
	if (access((dir + "/partition").c_str(), F_OK) == 0)
		dir = dirname_of(dir);
	return dir.substr(dir.find_last_of('/') + 1);
}

// What backs a memory block device, known by its driver's names: zram
// (zramN), brd (ramN), pmem (pmemN); "" for any other disk.
std::string memory_backing(const std::string &disk)
{
	auto named = [&](std::string_view prefix) {
		return disk.size() > prefix.size() && disk.compare(0, prefix.size(), prefix) == 0 &&
		       disk[prefix.size()] >= '0' && disk[prefix.size()] <= '9';
	};
	if (named("zram"))
		return "zram, compressed memory";
	if (named("ram"))
		return "brd, a RAM disk";
	if (named("pmem"))
		return "pmem, persistent memory";
	return "";
}

// zram returns a page it stores as "same-filled" (zeros, say) and a page
// never written without reading any stored data: a read of them measures
// nothing but the kernel.  mm_stat's first field is the bytes of data
// stored, its sixth the same-filled pages.
struct ZramUse {
	std::uint64_t disk = 0, stored = 0, same = 0;	// bytes
};

std::optional<ZramUse> zram_use(const std::string &disk)
{
	ZramUse z;
	unsigned long long stored = 0, same = 0, skip = 0;
	std::string stat = read_line(sysfs("/block/" + disk + "/mm_stat"));
	if (std::sscanf(stat.c_str(), "%llu %llu %llu %llu %llu %llu", &stored, &skip, &skip, &skip, &skip, &same) != 6)
		return std::nullopt;
	z.disk = std::strtoull(read_line(sysfs("/block/" + disk + "/disksize")).c_str(), nullptr, 10);
	z.stored = stored;
	z.same = same * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
	return z;
}

// A read from zram that would mostly return pages zram does not store: for
// the device itself, its share of such pages; for a file on it, the
// same-filled pages against the bytes the read covers.
std::string zram_read_warning(const Plan &plan, const std::string &disk)
{
	std::optional<ZramUse> z = zram_use(disk);
	if (!z || z->disk == 0)
		return "";
	const Target &t = plan.targets[0];
	if (t.kind == Kind::block) {
		std::uint64_t hollow = z->disk - std::min(z->disk, z->stored);
		if (hollow * 10 <= z->disk)
			return "";
		return format("%.0f%% of %s (%s of %s) is same-filled pages (zeros) or never written: zram returns them "
			      "without reading stored data; write the range with -R first",
			      100.0 * hollow / z->disk, disk.c_str(), format_bytes(hollow).c_str(), format_bytes(z->disk).c_str());
	}
	std::uint64_t covered = 0;
	for (const Target &x : plan.targets)
		covered += x.existing > x.base ? std::min(x.size, x.existing - x.base) : 0;
	if (z->same * 10 <= covered)
		return "";
	return format("%s holds %s of same-filled pages (zeros), in this file or another: up to %.0f%% of the %s read "
		      "may return without reading stored data", disk.c_str(), format_bytes(z->same).c_str(),
		      std::min(100.0, 100.0 * z->same / std::max<std::uint64_t>(covered, 1)), format_bytes(covered).c_str());
}

// Memory block devices: the target itself, or under its file's file system.
void memory_target_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Options &o = plan.opt;
	const Target &t = plan.targets[0];
	if (t.kind == Kind::chr)
		return;
	std::string disk = disk_name(plan.fs_dev);
	std::string backing = memory_backing(disk);
	if (backing.empty())
		return;
	w.push_back(format("%s %s %s (%s), a memory-backed block device: this measures memory, not a disk",
			   t.path.c_str(), t.kind == Kind::block ? "is" : "is on", disk.c_str(), backing.c_str()));
	if (disk.compare(0, 4, "zram") != 0)
		return;
	if (writes_target(o) && !o.random_buffer)
		w.push_back(format("%s stores pages of zeros as nothing: a zero buffer is meaningless there; use -R",
				   disk.c_str()));
	std::string hollow = is_write(o) ? "" : zram_read_warning(plan, disk);
	if (!hollow.empty())
		w.push_back(hollow);
}

// -D on a file whose file system says it cannot do direct I/O there.
void direct_io_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Target &t = plan.targets[0];
	if (!plan.opt.direct || t.kind != Kind::file)
		return;
	std::string doubt = direct_io_doubt(t.path);
	if (!doubt.empty())
		w.push_back(format("-D may be buffered I/O on %s (%s): reads are still evicted first", t.path.c_str(),
				   doubt.c_str()));
}

// FUSE: O_DIRECT and eviction reach the FUSE file, not what its daemon reads.
void fuse_warnings(const Plan &plan, std::vector<std::string> &w)
{
	const Target &t = plan.targets[0];
	if (!fuse_fs(plan.fs_type) || plan.opt.cached || t.kind == Kind::block || t.kind == Kind::chr)
		return;
	std::string what = format("%s is on FUSE (%s): -D and cache eviction stop at the FUSE file, and the daemon "
				  "may read through its own cache", t.path.c_str(),
				  mounted_fs_type(plan.fs_dev, plan.fs_type).c_str());
	if (!plan.backing_device.empty())
		what += format("; its block device %s is flushed (BLKFLSBUF) before reads and after each pass",
			       plan.backing_device.c_str());
	else if (plan.backing_error)
		what += format(": flushing its block device failed (BLKFLSBUF: %s), read numbers may come from the "
			       "daemon's or the device's cache", std::strerror(plan.backing_error));
	else
		what += ": read numbers may come from the daemon's cache";
	w.push_back(what);
}

std::string hollow_warning(const Plan &plan);	// verification, below

// What the target is, said before the run starts (and kept for the report):
// a user can stop a long run that cannot measure what it seems to.
std::vector<std::string> target_warnings(const Plan &plan)
{
	std::vector<std::string> w;
	memory_target_warnings(plan, w);
	direct_io_warnings(plan, w);
	fuse_warnings(plan, w);
	if (std::string hollow = hollow_warning(plan); !hollow.empty())
		w.push_back(hollow);
	return w;
}

// A file on tmpfs or ramfs.  Only files: a device node's file system is
// devtmpfs (TMPFS_MAGIC), which says nothing about the device.
bool on_memory_fs(const Plan &plan)
{
	Kind kind = plan.targets[0].kind;
	return (kind == Kind::file || kind == Kind::missing) && memory_fs(plan.fs_type);
}

// Numbers that would mislead, said in words.
std::vector<std::string> plausibility(const Plan &plan, const Shared &s, const MemoryRates *mem)
{
	std::vector<std::string> w;
	const Options &o = plan.opt;
	const Target &t0 = plan.targets[0];
	if (on_memory_fs(plan))
		w.push_back(format("%s is on %s: this measures memory, not a disk", t0.path.c_str(),
				   fs_name(plan.fs_type).c_str()));
	struct stat st {};
	if (t0.kind == Kind::chr && total_done(s) > 0 && stat(t0.path.c_str(), &st) == 0 && harmless_char_device(st.st_rdev))
		w.push_back(format("%s has no device behind it: this measures the %s system call, not a device",
				   t0.path.c_str(), is_write(o) ? "write" : "read"));
	if (writes_target(o) && !o.random_buffer && t0.kind != Kind::chr)
		w.push_back("the buffer is all zeros: compressing or deduplicating storage will look faster; use -R");
	if (!is_write(o) && !o.direct && !o.cached && on_memory_fs(plan))
		w.push_back("the page cache cannot be evicted on a memory file system: reads come from memory");
	for (auto &wk : s.workers) {
		if (wk->eof_at)
			w.push_back(format("%s: end of file at offset %" PRIu64 ", before the %s asked for (%s)",
					   wk->target->path.c_str(), *wk->eof_at, format_bytes(wk->target->size).c_str(),
					   wk->passes > 1 ? "the file shrank during the run" : "the file is shorter than that"));
		if (wk->cached_before >= 0 && wk->cached_before < 0.9)
			w.push_back(format("%s: %.0f%% was in the page cache before this --cached run: the rest came from the device",
					   wk->target->path.c_str(), wk->cached_before * 100));
		if (wk->resident > 0.02 && !on_memory_fs(plan))
			w.push_back(format("%s: %.0f%% of the file stayed in the page cache after eviction: reads may come from memory",
					   wk->target->path.c_str(), wk->resident * 100));
		if (mem && mem->memcpy_bps > 0 && !o.cached && !on_memory_fs(plan) && t0.kind != Kind::chr) {
			double secs = (wk->end_ns - wk->start_ns) / 1e9;
			double bps = rate(wk->bytes, secs);
			if (bps > mem->memcpy_bps)
				w.push_back(format("thread %u ran at %s, faster than this machine copies memory (%s): that is a cache, not the device",
						   wk->id, format_rate(bps).c_str(), format_rate(mem->memcpy_bps).c_str()));
		}
	}
	return w;
}

// --------------------------------------------------------- 10. verification

// sdb checks what it claims against what the kernel's block layer saw: the
// device under the target is found in sysfs (no root needed), its stat
// counters are read as the barrier opens and after the last thread ends
// (supervise()), and the verdict says what share of the claimed bytes
// reached the device and what limited the run.

// The most the link between host and device moves in one direction.
struct Link {
	std::string kind;		// "pcie", "sata" or "usb"
	double bytes_per_second = 0;
	std::string how;		// what the ceiling is made of, for -v
};

// The block device(s) whose counters stand for the target.
struct Device {
	std::string name, path;		// "vda", "/dev/vda"; several (btrfs): "sda+sdb", "/dev/sda /dev/sdb"
	std::string alias;		// a dm device's own name ("vg-root")
	std::vector<std::string> stats;	// the stat file of each device: their counters are summed
	std::vector<std::string> slaves;	// what a dm or md device is made of (-v)
	std::vector<std::string> disks;	// the whole disks at the bottom (-v)
	std::string backing_file;	// a loop device's
	std::optional<Link> link;
	std::string reason;		// no device: why not (stats is empty)
};

std::string base_name(const std::string &path) { return path.substr(path.find_last_of('/') + 1); }

std::string real_path(const std::string &path)
{
	char real[PATH_MAX];
	return realpath(path.c_str(), real) ? std::string(real) : std::string();
}

// A directory's entries but . and .., sorted; none when it cannot be read.
std::vector<std::string> dir_entries(const std::string &dir)
{
	std::vector<std::string> names;
	DIR *d = opendir(dir.c_str());
	if (!d)
		return names;
	while (dirent *e = readdir(d))
		if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, ".."))
			names.push_back(e->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	return names;
}

// A number that starts a sysfs value ("8.0 GT/s PCIe", "6.0 Gbps"), if it
// is followed by unit.
std::optional<double> leading_number(const std::string &s, std::string_view unit)
{
	char *end = nullptr;
	double v = std::strtod(s.c_str(), &end);
	if (end == s.c_str() || !(v > 0) || !std::isfinite(v) || std::string_view(end).substr(0, unit.size()) != unit)
		return std::nullopt;
	return v;
}

// PCIe (an NVMe drive's own function, or the controller of a SATA or USB
// one): the transfer rate per lane times the lanes, less the line
// encoding: 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s (PCIe 3.0) on.
std::optional<Link> pcie_link(const std::string &dir)
{
	std::string speed = read_line(dir + "/current_link_speed");
	std::optional<unsigned> width = parse_count(read_line(dir + "/current_link_width"), 1, 64);
	std::optional<double> gts = leading_number(speed, " GT/s");
	if (!gts || !width)
		return std::nullopt;
	bool dense = *gts >= 8;
	return Link{"pcie", *gts * 1e9 * *width * (dense ? 128.0 / 130 : 8.0 / 10) / 8,
		    format("PCIe %g GT/s x%u, %s encoding", *gts, *width, dense ? "128b/130b" : "8b/10b")};
}

// SATA: the port's link speed (ataN: /sys/class/ata_link/linkN), 8b/10b.
std::optional<Link> sata_link(const std::string &dir)
{
	unsigned port = 0;
	char rest = 0;
	if (std::sscanf(base_name(dir).c_str(), "ata%u%c", &port, &rest) != 1)
		return std::nullopt;
	std::string speed = read_line(sysfs(format("/class/ata_link/link%u/sata_spd", port)));
	std::optional<double> gbps = leading_number(speed, " Gbps");
	if (!gbps)
		return std::nullopt;
	return Link{"sata", *gbps * 1e9 * 0.8 / 8, format("SATA %g Gbps, 8b/10b encoding", *gbps)};
}

// USB: the device's speed in Mbit/s and the share of it bulk transfers
// (what storage uses) can carry.
std::optional<Link> usb_link(const std::string &dir)
{
	if (access((dir + "/devnum").c_str(), F_OK) != 0)
		return std::nullopt;
	struct Usable {
		const char *speed;
		double bytes_per_second;
		const char *share;
	};
	static const Usable usable[] = {
		{"12", 19 * 64 * 1000.0, "19 bulk packets of 64 bytes per 1 ms frame"},
		{"480", 13 * 512 * 8000.0, "13 bulk packets of 512 bytes per 125 us microframe"},
		{"5000", 5e9 * 8 / 10 / 8, "8b/10b encoding"},
		{"10000", 10e9 * 128 / 132 / 8, "128b/132b encoding"},
		{"20000", 20e9 * 128 / 132 / 8, "two lanes, 128b/132b encoding"},
	};
	std::string speed = read_line(dir + "/speed");
	for (const Usable &u : usable)
		if (speed == u.speed)
			return Link{"usb", u.bytes_per_second, format("USB %s Mbit/s, usable: %s", u.speed, u.share)};
	return std::nullopt;
}

// The link nearest the disk on its way up the device tree.
std::optional<Link> link_above(std::string dir)
{
	std::string top = real_path(sysfs("/devices"));
	while (!top.empty() && dir.size() > top.size() && dir.compare(0, top.size() + 1, top + "/") == 0) {
		if (auto link = usb_link(dir))
			return link;
		if (auto link = sata_link(dir))
			return link;
		if (auto link = pcie_link(dir))
			return link;
		dir = dirname_of(dir);
	}
	return std::nullopt;
}

// An NVMe namespace with native multipathing sits under
// /devices/virtual/nvme-subsystem/nvme-subsysN, away from its PCIe
// function: its controller (the subsystem's nvmeN link) leads there.  With
// two controllers the multipath policy picks the link: none is named.
std::string nvme_controller(const std::string &disk)
{
	std::string subsystem = dirname_of(disk);
	if (base_name(subsystem).rfind("nvme-subsys", 0) != 0)
		return "";
	std::vector<std::string> controllers;
	for (const std::string &e : dir_entries(subsystem)) {
		unsigned n = 0;
		char rest = 0;
		if (std::sscanf(e.c_str(), "nvme%u%c", &n, &rest) == 1)
			controllers.push_back(real_path(subsystem + "/" + e));
	}
	return controllers.size() == 1 ? controllers[0] : "";
}

std::optional<Link> link_of(const std::string &disk)
{
	std::string controller = nvme_controller(disk);
	return link_above(controller.empty() ? disk : controller);
}

// The whole disks at the bottom of a stack of dm and md devices (for a
// partition, its disk), as sysfs directories.
void bottom_disks(const std::string &dir, std::vector<std::string> &disks, unsigned depth = 0)
{
	std::vector<std::string> slaves = dir_entries(dir + "/slaves");
	if (slaves.empty() || depth > 16) {
		std::string disk = access((dir + "/partition").c_str(), F_OK) == 0 ? dirname_of(dir) : dir;
		if (std::find(disks.begin(), disks.end(), disk) == disks.end())
			disks.push_back(disk);
		return;
	}
	for (const std::string &s : slaves) {
		std::string below = real_path(dir + "/slaves/" + s);
		if (!below.empty())
			bottom_disks(below, disks, depth + 1);
	}
}

// One block device, by its sysfs directory: a partition, dm or md device
// counts as itself; the link is the one of the disk below, if one.
Device device_at(const std::string &dir)
{
	Device d;
	d.name = base_name(dir);
	d.path = device_node(dir);
	d.alias = read_line(dir + "/dm/name");
	d.stats = {dir + "/stat"};
	d.slaves = dir_entries(dir + "/slaves");
	d.backing_file = read_line(dir + "/loop/backing_file");
	std::vector<std::string> disks;
	bottom_disks(dir, disks);
	for (const std::string &disk : disks)
		d.disks.push_back(base_name(disk));
	if (disks.size() == 1)
		d.link = link_of(disks[0]);
	return d;
}

// The file system id of the btrfs holding path, as sysfs spells it
// (/sys/fs/btrfs/FSID); "" when the ioctl fails.
std::string btrfs_fsid(const std::string &path)
{
	Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	btrfs_ioctl_fs_info_args info {};
	if (!fd || ioctl(fd.get(), BTRFS_IOC_FS_INFO, &info) != 0)
		return "";
	const unsigned char *u = info.fsid;
	return format("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
		      u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

// btrfs gives its files an anonymous st_dev: its devices are the ones
// sysfs lists for the file system, and all of them together stand for it.
Device btrfs_devices(const std::string &fsid)
{
	std::string dir = sysfs("/fs/btrfs/" + fsid + "/devices");
	Device all;
	for (const std::string &name : dir_entries(dir)) {
		std::string real = real_path(dir + "/" + name);
		if (real.empty())
			continue;
		Device d = device_at(real);
		if (all.stats.empty()) {
			all = d;
			continue;
		}
		all.name += "+" + d.name;
		all.path += " " + d.path;
		all.stats.push_back(d.stats[0]);
		all.slaves.insert(all.slaves.end(), d.slaves.begin(), d.slaves.end());
		all.disks.insert(all.disks.end(), d.disks.begin(), d.disks.end());
		all.backing_file.clear();
		all.link.reset();	// which link carries what is the allocator's choice
	}
	if (all.stats.empty())
		all.reason = format("btrfs %s: sysfs lists no devices", fsid.c_str());
	return all;
}

bool network_fs(const std::string &type)
{
	for (const char *net : {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "afs", "virtiofs", "glusterfs"})
		if (type == net)
			return true;
	return false;
}

// Why a file system's files have no block device to count their I/O.
std::string no_device_reason(const Plan &plan)
{
	const std::string &path = plan.targets[0].path;
	std::string type = mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (network_fs(type))
		return format("%s is on %s, a network file system: no local block device counts its I/O", path.c_str(),
			      type.c_str());
	if (fuse_fs(plan.fs_type))
		return format("%s is on %s, a FUSE file system without a block device", path.c_str(), type.c_str());
	return format("%s is on %s (device %u:%u), which has no block device in sysfs", path.c_str(), type.c_str(),
		      major(plan.fs_dev), minor(plan.fs_dev));
}

// The device under the target: a block device itself, else the one of its
// file system; or none, with the reason.
Device find_device(const Plan &plan)
{
	const Target &t = plan.targets[0];
	Device none;
	if (t.kind == Kind::chr) {
		none.reason = format("%s is a character device: no block layer counts its I/O", t.path.c_str());
		return none;
	}
	if (t.kind != Kind::block && memory_fs(plan.fs_type)) {
		none.reason = format("%s is on %s: files in memory, no block device", t.path.c_str(),
				     fs_name(plan.fs_type).c_str());
		return none;
	}
	if (t.kind != Kind::block && plan.fs_type == BTRFS_SUPER_MAGIC) {
		std::string fsid = btrfs_fsid(t.kind == Kind::missing ? dirname_of(t.path) : t.path);
		if (!fsid.empty())
			return btrfs_devices(fsid);
	}
	std::string dir = real_path(sysfs_dev(plan.fs_dev));
	if (!dir.empty() && access((dir + "/stat").c_str(), R_OK) == 0)
		return device_at(dir);
	none.reason = no_device_reason(plan);
	return none;
}

// One line of a block device's stat file (Documentation/block/stat.rst):
// reads, reads merged, sectors read, ms reading, writes, writes merged,
// sectors written, ms writing, in flight, io_ticks (ms busy), then more
// on newer kernels.  A sector is 512 bytes, whatever the device's own.
struct DiskStat {
	std::uint64_t reads = 0, read_sectors = 0, writes = 0, write_sectors = 0, io_ticks = 0;
};

std::optional<DiskStat> parse_disk_stat(const std::string &line)
{
	std::istringstream in(line);
	std::uint64_t field[10];
	std::string word;
	for (std::uint64_t &f : field) {
		if (!(in >> word) || word.size() > 20 || word.find_first_not_of("0123456789") != std::string::npos)
			return std::nullopt;
		errno = 0;
		f = std::strtoull(word.c_str(), nullptr, 10);
		if (errno == ERANGE)
			return std::nullopt;
	}
	return DiskStat{field[0], field[2], field[4], field[6], field[9]};
}

// What the devices did between two readings: sectors summed over the
// devices, the busy time of the busiest one.  Nothing when a reading is
// missing or a counter went backwards (the device was reset or replaced).
struct DiskDelta {
	std::uint64_t reads = 0, read_bytes = 0, writes = 0, write_bytes = 0, busy_ms = 0;
};

std::optional<DiskDelta> disk_delta(const std::vector<std::string> &before, const std::vector<std::string> &after)
{
	if (before.empty() || before.size() != after.size())
		return std::nullopt;
	DiskDelta d;
	for (std::size_t i = 0; i < before.size(); i++) {
		std::optional<DiskStat> a = parse_disk_stat(before[i]), b = parse_disk_stat(after[i]);
		if (!a || !b || b->reads < a->reads || b->read_sectors < a->read_sectors || b->writes < a->writes ||
		    b->write_sectors < a->write_sectors || b->io_ticks < a->io_ticks)
			return std::nullopt;
		d.reads += b->reads - a->reads;
		d.read_bytes += (b->read_sectors - a->read_sectors) * 512;
		d.writes += b->writes - a->writes;
		d.write_bytes += (b->write_sectors - a->write_sectors) * 512;
		d.busy_ms = std::max(d.busy_ms, b->io_ticks - a->io_ticks);
	}
	return d;
}

// The bytes in fd's [start, end) that lie in unwritten extents (fallocate'd
// space, which reads as zeros without I/O), from FIEMAP; 0 where the file
// system has no FIEMAP.
std::uint64_t unwritten_bytes(int fd, std::uint64_t start, std::uint64_t end)
{
	constexpr unsigned batch = 32;
	alignas(fiemap) char space[sizeof(fiemap) + batch * sizeof(fiemap_extent)];
	auto *map = reinterpret_cast<fiemap *>(space);
	std::uint64_t unwritten = 0;
	for (std::uint64_t at = start; at < end;) {
		std::memset(space, 0, sizeof space);
		map->fm_start = at;
		map->fm_length = end - at;
		map->fm_extent_count = batch;
		if (ioctl(fd, FS_IOC_FIEMAP, map) != 0 || map->fm_mapped_extents == 0)
			break;
		std::uint64_t next = at;
		bool last = false;
		for (unsigned i = 0; i < map->fm_mapped_extents; i++) {
			const fiemap_extent &e = map->fm_extents[i];
			std::uint64_t lo = std::max<std::uint64_t>(e.fe_logical, at);
			std::uint64_t hi = std::min<std::uint64_t>(e.fe_logical + e.fe_length, end);
			if ((e.fe_flags & FIEMAP_EXTENT_UNWRITTEN) && hi > lo)
				unwritten += hi - lo;
			next = std::max<std::uint64_t>(next, e.fe_logical + e.fe_length);
			last = last || (e.fe_flags & FIEMAP_EXTENT_LAST);
		}
		if (last || next <= at)
			break;
		at = next;
	}
	return unwritten;
}

// The bytes of [start, end) of a file that read as zeros without I/O:
// holes (SEEK_DATA/SEEK_HOLE) and, in the data between them, unwritten
// extents.  (ext4 already counts an unwritten extent as a hole here: each
// byte is counted once either way.)
std::uint64_t hollow_bytes(int fd, std::uint64_t start, std::uint64_t end)
{
	std::uint64_t hollow = 0;
	for (std::uint64_t at = start; at < end;) {
		off_t data = lseek(fd, static_cast<off_t>(at), SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)	// no data from here to the end of the file
				hollow += end - at;
			break;
		}
		std::uint64_t from = std::min(static_cast<std::uint64_t>(data), end);
		hollow += from - at;
		if (from >= end)
			break;
		off_t hole = lseek(fd, data, SEEK_HOLE);
		std::uint64_t to = hole < 0 ? end : std::min(static_cast<std::uint64_t>(hole), end);
		hollow += unwritten_bytes(fd, from, to);
		if (to <= from)
			break;
		at = to;
	}
	return hollow;
}

// The share of what a read of the plan's files will cover that is holes
// or unwritten extents; 0 for devices and writes.
double hollow_share(const Plan &plan)
{
	if (is_write(plan.opt))
		return 0;
	std::uint64_t hollow = 0, covered = 0;
	for (const Target &t : plan.targets) {
		if (t.kind != Kind::file || t.existing <= t.base)
			continue;
		std::uint64_t end = t.base + std::min(t.size, t.existing - t.base);
		Fd fd(open(t.path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (t.follow ? 0 : O_NOFOLLOW)));
		if (!fd)
			continue;
		hollow += hollow_bytes(fd.get(), t.base, end);
		covered += end - t.base;
	}
	return covered ? static_cast<double>(hollow) / static_cast<double>(covered) : 0;
}

// SIZE as the command line takes it: 1073741824 -> "1g".
std::string size_arg(std::uint64_t bytes)
{
	for (auto [unit, suffix] : {std::pair{GiB, 'g'}, std::pair{MiB, 'm'}, std::pair{KiB, 'k'}})
		if (bytes >= unit && bytes % unit == 0)
			return format("%" PRIu64 "%c", bytes / unit, suffix);
	return std::to_string(bytes);
}

std::string rewrite_hint(const Plan &plan)
{
	return format("write it first: sdb -w -f %s -s %s -R (with --force for a file sdb did not make)",
		      plan.opt.file.c_str(), size_arg(plan.targets[0].size).c_str());
}

// Before a read: holes and unwritten extents would be read as zeros by the
// file system, and the device would never see those bytes.
std::string hollow_warning(const Plan &plan)
{
	double share = hollow_share(plan);
	if (share <= 0.01)
		return "";
	return format("%.0f%% of what this read covers is holes or unwritten (fallocate'd) extents: the file system "
		      "returns zeros there without reading the device; %s", share * 100, rewrite_hint(plan).c_str());
}

// What a run's numbers are worth, against the device's counters.
struct Verdict {
	Device device;
	bool measured = false;		// counters read at both ends
	std::uint64_t claimed = 0;	// bytes the threads report
	std::uint64_t bytes = 0;	// bytes the device saw in the test's direction (a mix: both)
	std::uint64_t read_bytes = 0, read_claimed = 0, write_bytes = 0, write_claimed = 0;	// a mix's sides
	double delivered = 0;		// bytes / claimed; a mix: the lesser of its sides' shares
	double busy = 0;		// io_ticks over the wall time, at most 1
	std::string limit;		// "memory", "device", "link", "cpu", "latency" or "unknown"
	std::string limit_why;		// the evidence, in words
	bool verified = false;
	std::string reason;		// why not verified ("" when it is)
	std::string causes;		// delivered under 0.90: what may have served the rest
};

// The largest share of its own wall time a thread spent on a CPU, and
// which thread.
double busiest_thread(const Shared &s, unsigned &id)
{
	double most = 0;
	for (auto &w : s.workers) {
		double share = w->end_ns > w->start_ns ? static_cast<double>(w->cpu_ns) / (w->end_ns - w->start_ns) : 0;
		if (share > most) {
			most = share;
			id = w->id;
		}
	}
	return most;
}

// The first limit that applies: memory, device, link, cpu, latency;
// unknown where no counters rule out the device, or where the device did
// not see the bytes (its latency then says nothing about the rate).
void find_limit(const Plan &plan, const Shared &s, double seconds, Verdict &v)
{
	const Options &o = plan.opt;
	unsigned id = 0;
	double cpu = busiest_thread(s, id);
	double moved = rate(v.measured ? v.bytes : v.claimed, seconds);
	if (o.cached || on_memory_fs(plan)) {
		v.limit = "memory";
		v.limit_why = o.cached ? "the page cache, by request" : fs_name(plan.fs_type) + " keeps files in memory";
	} else if (v.measured && v.busy >= 0.9) {
		v.limit = "device";
		v.limit_why = "busy for the whole run";
	} else if (v.device.link && moved >= 0.9 * v.device.link->bytes_per_second) {
		v.limit = "link";
		v.limit_why = format("%s at most, %s: %s", format_rate(v.device.link->bytes_per_second).c_str(),
				     v.device.link->how.c_str(), format_rate(moved).c_str());
	} else if (cpu >= 0.9) {
		v.limit = "cpu";
		v.limit_why = format("thread %u was on a CPU %.0f%% of its time", id, std::min(cpu, 1.0) * 100);
	} else if (v.verified) {	// the device saw the bytes, was idle at times, and nothing else was full
		v.limit = "latency";
		v.limit_why = format("%u I/O%s in flight per thread, %u thread%s: -q or -j may go faster", o.queue_depth,
				     o.queue_depth == 1 ? "" : "s", o.threads, o.threads == 1 ? "" : "s");
	} else {
		v.limit = "unknown";
	}
}

bool compressing_fs(const Plan &plan)
{
	return plan.fs_type == BTRFS_SUPER_MAGIC || plan.fs_type == 0x2fc12fc1 || plan.fs_type == 0xf2f52010;
}

// What may have served the bytes the device did not see, for this target.
std::string likely_causes(const Plan &plan, double hollow)
{
	const Options &o = plan.opt;
	std::vector<std::string> c;
	if (hollow > 0.01)
		c.push_back(format("holes or unwritten extents (%.0f%% of the range: write it first with -w -R)", hollow * 100));
	if (fuse_fs(plan.fs_type))
		c.push_back("a FUSE cache (the daemon's own, or the page cache of its device)");
	if (writes_target(o) && !o.random_buffer)
		c.push_back("compression or deduplication of the all-zero buffer (use -R)");
	else if (compressing_fs(plan))
		c.push_back("compression or deduplication by the file system");
	if (!is_write(o))
		c.push_back(o.direct ? "the page cache, where the file system turns O_DIRECT into buffered I/O"
				     : "the page cache (pages it kept despite the eviction)");
	if (writes_target(o))
		c.push_back("a cache the final fdatasync did not reach");
	std::string s;
	for (const std::string &x : c)
		s += (s.empty() ? "" : "; ") + x;
	return s;
}

// One run of a plan (see execute()): workers prepare, the barrier opens,
// the main thread supervises until the last worker is done.
struct Execution {
	Shared shared;
	RunResult result;
	Totals totals;			// added up once, after the run
	Device device;			// whose counters check the run
	Error error;
};

// A mix: the reads against the device's reads, the writes against its
// writes, each on its own (a surplus of one side must not hide a shortfall
// of the other); delivered is the lesser share of a side that claimed any.
void judge_mix(const Totals &t, const DiskDelta &d, Verdict &v)
{
	v.read_bytes = d.read_bytes;
	v.write_bytes = d.write_bytes;
	v.read_claimed = t.read_bytes;
	v.write_claimed = t.write_bytes;
	v.bytes = d.read_bytes + d.write_bytes;
	v.delivered = 0;
	bool first = true;
	for (auto [seen, claimed] : {std::pair{d.read_bytes, t.read_bytes}, std::pair{d.write_bytes, t.write_bytes}}) {
		if (!claimed)
			continue;
		double share = static_cast<double>(seen) / static_cast<double>(claimed);
		v.delivered = first ? share : std::min(v.delivered, share);
		first = false;
	}
}

// Device bytes against claimed bytes, busy time, and the limit.  seconds:
// the run's wall time, barrier to the last thread's end.
Verdict judge(const Plan &plan, const Execution &ex)
{
	const Device &device = ex.device;
	const double seconds = ex.totals.wall;
	Verdict v;
	v.device = device;
	v.claimed = ex.totals.bytes;
	std::optional<DiskDelta> d = disk_delta(ex.result.stats_before, ex.result.stats_after);
	if (plan.opt.cached) {
		v.reason = "page cache by request (--cached)";
	} else if (!device.reason.empty()) {
		v.reason = device.reason;
	} else if (!d) {
		v.reason = format("the counters of %s could not be read at both ends", device.name.c_str());
	} else {
		v.measured = true;
		v.bytes = is_write(plan.opt) ? d->write_bytes : d->read_bytes;
		v.delivered = v.claimed ? static_cast<double>(v.bytes) / static_cast<double>(v.claimed) : 0;
		if (is_mix(plan.opt))
			judge_mix(ex.totals, *d, v);
		v.busy = seconds > 0 ? std::min(1.0, d->busy_ms / 1e3 / seconds) : 0;
		v.verified = v.claimed > 0 && v.delivered >= 0.9;
		if (v.claimed == 0)
			v.reason = "nothing was claimed";
		else if (!v.verified)
			v.reason = format("the device saw %.0f%% of the bytes claimed", v.delivered * 100);
		if (!v.verified && v.claimed)
			v.causes = likely_causes(plan, hollow_share(plan));
	}
	find_limit(plan, ex.shared, seconds, v);
	return v;
}

// A rate worth checking against the memory ceiling: over 1 GiB/s, and not
// vouched for by the device's counters, which a memory-backed device (zram,
// brd, pmem) cannot do.  The check costs a copy of 4 x the last-level cache:
// about 60 ms for the quick check, which its verdict now spares.
bool suspicious(const Plan &plan, const Verdict &v, double bytes_per_second)
{
	bool vouched = v.verified && memory_backing(disk_name(plan.fs_dev)).empty();
	return !plan.opt.cached && !vouched && bytes_per_second > 1.0 * GiB;
}

// The warnings a verdict adds: too few bytes reached the device; or none
// could be counted behind a FUSE or network file system, which caches.
std::vector<std::string> verdict_warnings(const Plan &plan, const Verdict &v)
{
	std::vector<std::string> w;
	const char *op = is_mix(plan.opt) ? "read and written" : is_write(plan.opt) ? "written" : "read";
	if (v.measured && v.claimed && !v.verified)
		w.push_back(format("%s saw %s %s of the %s claimed (%.0f%%); likely causes: %s", v.device.name.c_str(),
				   format_bytes(v.bytes).c_str(), op, format_bytes(v.claimed).c_str(), v.delivered * 100,
				   v.causes.c_str()));
	std::string type = mounted_fs_type(plan.fs_dev, plan.fs_type);
	if (!v.measured && !plan.opt.cached && !v.device.reason.empty() && (fuse_fs(plan.fs_type) || network_fs(type)))
		w.push_back(format("unverifiable: %s; its numbers may come from the %s's cache", v.device.reason.c_str(),
				   fuse_fs(plan.fs_type) ? "FUSE daemon" : "client"));
	return w;
}

// -------------------------------------------------------------- 11. report

// Unix nanoseconds as seconds to the microsecond: "1764500000.250081".
std::string json_unix(std::int64_t ns)
{
	return format("%" PRId64 ".%06" PRId64, ns / 1000000000, ns % 1000000000 / 1000);
}

struct Point {
	double t;
	double bytes_per_second;
};

// Raw 0.1 s samples folded into steps of at least `step` seconds.  Bytes
// count when an I/O completes, so a step shorter than a few I/Os would
// swing between zero and a burst: see timeline_step().
std::vector<Point> make_timeline(const std::vector<Sample> &samples, double seconds, std::uint64_t total, double step)
{
	std::vector<Point> points;
	Sample last{0, 0};
	for (const Sample &s : samples) {
		if (s.t > seconds)
			break;
		if (s.t - last.t >= step * 0.999) {
			points.push_back({s.t, rate(s.bytes - last.bytes, s.t - last.t)});
			last = s;
		}
	}
	if (seconds - last.t > step / 2 || points.empty())
		points.push_back({seconds, rate(total - std::min(total, last.bytes), seconds - last.t)});
	return points;
}

// JSON: about a twentieth of the run, 0.1 s to 1 s (so about a sample a
// second for long runs); the sparkline: a twentieth, however long.  Either
// way at least three times the longest mean I/O time of a thread.
double timeline_step(double seconds, double io_seconds, bool sparkline)
{
	double step = std::round(seconds / 20 * 10) / 10;
	step = sparkline ? std::max(step, 0.1) : std::clamp(step, 0.1, 1.0);
	return std::max(step, 3 * io_seconds);
}

std::string sparkline(const std::vector<Point> &points, double lo, double hi)
{
	static const char *const bars[] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
	std::string s;
	for (const Point &p : points) {
		int level = hi > lo ? static_cast<int>((p.bytes_per_second - lo) / (hi - lo) * 7.999) : 7;
		s += bars[std::clamp(level, 0, 7)];
	}
	return s;
}

// When the last third runs well below the first (a write cache filling
// up, thermal throttling): the burst rate, when it fell, the sustained rate.
std::string cliff(const std::vector<Point> &points)
{
	std::size_t n = points.size(), third = n / 3;
	if (third < 2)
		return "";
	double first = 0, last = 0;
	for (std::size_t i = 0; i < third; i++) {
		first += points[i].bytes_per_second;
		last += points[n - 1 - i].bytes_per_second;
	}
	first /= static_cast<double>(third);
	last /= static_cast<double>(third);
	if (!(last < first * 0.7))
		return "";
	double fell = points.back().t;
	for (std::size_t i = 0; i < n; i++)
		if (points[i].bytes_per_second < (first + last) / 2) {
			fell = i ? points[i - 1].t : 0;
			break;
		}
	return format("Rate fell: %s for the first %.1f s, then %s sustained", format_rate(first).c_str(), fell,
		      format_rate(last).c_str());
}

// --verify, all threads together.
struct VerifySummary {
	std::uint64_t units = 0, bad = 0, kinds[5] = {};
	std::uint64_t bytes = 0;	// read to check them
	double seconds = 0;		// -w: the read-back's; -r: the run's, which checked as it read
	bool read_back = false;		// -w: read back after the run; -r: checked as read
	bool complete = true;		// false: a signal stopped it, the rest is unchecked
	const Worker *first = nullptr;	// the first thread (by id) with a bad unit
};

// What the reports print: the plan, and its execution once it ran (none
// for -T alone).
struct Report {
	const Plan *plan = nullptr;
	const Execution *ex = nullptr;
	std::optional<MemoryRates> memory;
	std::optional<Environment> env;
	std::optional<Verdict> verdict;
	std::optional<VerifySummary> verify;	// --verify, when the check ran
	double fill_seconds = -1;	// -R, for the header
	std::vector<std::string> warnings;
	std::string error;		// the run's one-line error, if it failed after starting
};

// CPU time of the whole process (all threads) during the run.
struct CpuTime {
	double user = 0, system = 0;
};

CpuTime cpu_time(const RunResult &r)
{
	auto secs = [](const timeval &tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
	return {secs(r.usage_after.ru_utime) - secs(r.usage_before.ru_utime),
		secs(r.usage_after.ru_stime) - secs(r.usage_before.ru_stime)};
}

std::string describe_run(const Plan &p)
{
	const Options &o = p.opt;
	std::string flags;
	if (o.direct) flags += ", O_DIRECT";
	if (o.sync) flags += ", O_SYNC";
	if (o.cached) flags += ", cached";
	if (o.queue_depth > 1) flags += format(", queue depth %u", o.queue_depth);
	if (o.fsync_every) flags += format(", fdatasync every %u write%s", o.fsync_every, o.fsync_every == 1 ? "" : "s");
	if (o.ramp > 0) flags += format(", %g s ramp first (not counted)", o.ramp);
	std::string limit = o.time_limit > 0 ? format(", %g s per thread", o.time_limit) : "";
	std::string size = p.targets.empty() ? "" : format_bytes(p.targets[0].size) + " per thread";
	for (const Target &t : p.targets)
		if (t.size != p.targets[0].size)
			size = "sizes per thread differ (each file's own)";
	std::string op = is_mix(o) ? format("mix %u%% read", o.mix) : is_write(o) ? "write" : "read";
	return format("%s %s, %s blocks, %s, %u thread%s%s%s", op.c_str(),
		      o.random ? "rand" : "seq", format_bytes(p.block_size).c_str(), size.c_str(), o.threads,
		      o.threads == 1 ? "" : "s", limit.c_str(), flags.c_str());
}

void print_memory(std::FILE *out, const MemoryRates &m)
{
	std::fprintf(out, "Memory (%s): memset %s, memcpy %s, memmove %s\n", format_bytes(m.bytes).c_str(),
		     format_rate(m.memset_bps).c_str(), format_rate(m.memcpy_bps).c_str(),
		     format_rate(m.memmove_bps).c_str());
}

void print_environment(std::FILE *out, const Report &r)
{
	const Environment &e = *r.env;
	std::fprintf(out, "Host: %s, %s\n", e.host.c_str(), e.kernel.c_str());
	std::fprintf(out, "Target: %s on %s, device %s, scheduler %s, blocks %s/%s bytes (logical/physical), rotational %s\n",
		     printable(r.plan->targets[0].path).c_str(), e.fs.c_str(), e.device.c_str(),
		     e.scheduler.empty() ? "-" : e.scheduler.c_str(), e.logical_block.empty() ? "-" : e.logical_block.c_str(),
		     e.physical_block.empty() ? "-" : e.physical_block.c_str(), e.rotational.empty() ? "-" : e.rotational.c_str());
	if (r.plan->opt.direct)
		std::fprintf(out, "O_DIRECT alignment: %u bytes (from %s)\n", r.plan->dio_align,
			     r.plan->dio_align_source.c_str());
	std::fprintf(out, "Buffer: %s x %u, %s in huge pages\n", format_bytes(e.buffer_bytes).c_str(),
		     r.plan->buffers, format_bytes(e.buffer_huge).c_str());
}

std::string latency_summary(const Histogram &h)
{
	return format("latency min %s, avg %s, p99 %s, max %s", format_ns(h.min()).c_str(), format_ns(h.mean()).c_str(),
		      format_ns(h.percentile(0.99)).c_str(), format_ns(h.max()).c_str());
}

// A mix's side: "read  70.1%: 12.00 MiB/s, 3072.00 IOPS, latency ...".
void print_side(std::FILE *out, const char *name, std::uint64_t bytes, std::uint64_t ops, std::uint64_t all_ops,
		double secs, const Histogram &latency)
{
	std::fprintf(out, "           %-5s %5.1f%%: %s, %.2f IOPS, %s\n", name,
		     all_ops ? 100.0 * static_cast<double>(ops) / static_cast<double>(all_ops) : 0.0,
		     format_rate(rate(bytes, secs)).c_str(), rate(ops, secs), latency_summary(latency).c_str());
}

void print_thread(std::FILE *out, const Worker &w, bool latency)
{
	double secs = (w.end_ns - w.start_ns) / 1e9;
	std::fprintf(out, "Thread %2u (CPU: %2d): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops\n", w.id, w.cpu,
		     secs, format_rate(rate(w.bytes, secs)).c_str(), rate(w.ops, secs), w.ops);
	if (latency)
		std::fprintf(out, "           %s\n", latency_summary(w.latency).c_str());
	if (w.read_latency) {
		print_side(out, "read", w.read_bytes, w.read_ops, w.ops, secs, *w.read_latency);
		print_side(out, "write", w.write_bytes, w.write_ops, w.ops, secs, *w.write_latency);
	}
	if (const auto &h = w.sync_latency)	// the numbers etcd's guidance asks for: p99 under 10 ms
		std::fprintf(out, "           Sync: %" PRIu64 " fdatasync, mean %s, p99 %s, p99.9 %s, max %s\n", h->count(),
			     format_ns(h->mean()).c_str(), format_ns(h->percentile(0.99)).c_str(),
			     format_ns(h->percentile(0.999)).c_str(), format_ns(h->max()).c_str());
}

// One side of a mix (&Worker::read_latency or write_latency), every thread's.
Histogram side_latency(const Shared &s, std::optional<Histogram> Worker::*side)
{
	Histogram h;
	for (auto &w : s.workers)
		h.merge(*((*w).*side));
	return h;
}

// A mix's two sides over all threads.
void print_total_sides(std::FILE *out, const Report &r)
{
	const Totals &t = r.ex->totals;
	print_side(out, "read", t.read_bytes, t.read_ops, t.ops, t.wall, side_latency(r.ex->shared, &Worker::read_latency));
	print_side(out, "write", t.write_bytes, t.write_ops, t.ops, t.wall,
		   side_latency(r.ex->shared, &Worker::write_latency));
}

// "limited by the device", with the evidence where it adds some.
std::string describe_limit(const Verdict &v)
{
	if (v.limit == "unknown")
		return "limit unknown";
	std::string what = v.limit == "cpu" ? "the CPU" : v.limit == "device" || v.limit == "link" ? "the " + v.limit : v.limit;
	if (v.limit == "device" || v.limit_why.empty())
		return "limited by " + what;
	return "limited by " + what + " (" + v.limit_why + ")";
}

// With -v: what the device is and what it sits on.
void print_device_detail(std::FILE *out, const Device &d)
{
	if (d.stats.empty())
		return;
	std::string detail = d.path;
	if (!d.alias.empty())
		detail += " (" + d.alias + ")";
	auto list = [](const std::vector<std::string> &v) {
		std::string s;
		for (const std::string &x : v)
			s += (s.empty() ? "" : ", ") + x;
		return s;
	};
	if (!d.slaves.empty())
		detail += ", over " + list(d.slaves);
	if (!(d.disks.size() == 1 && d.disks[0] == d.name))
		detail += ", disk" + std::string(d.disks.size() == 1 ? " " : "s ") + list(d.disks);
	if (!d.backing_file.empty())
		detail += ", backing file " + printable(d.backing_file);
	detail += d.link ? format(", link %s: %s", d.link->how.c_str(), format_rate(d.link->bytes_per_second).c_str())
			 : ", no link ceiling in sysfs";
	std::fprintf(out, "Device detail: %s\n", detail.c_str());
}

// "1.00 GiB read", or for a mix each side against its own claim: "700 MiB
// read of 700 MiB claimed (100%), 300 MiB written of 300 MiB claimed (100%)".
std::string device_bytes(const Options &o, const Verdict &v)
{
	if (!is_mix(o))
		return format_bytes(v.bytes) + (is_write(o) ? " written" : " read");
	auto share = [](std::uint64_t seen, std::uint64_t claimed) {
		return claimed ? format(" (%.0f%%)", 100.0 * static_cast<double>(seen) / static_cast<double>(claimed)) : "";
	};
	return format("%s read of %s claimed%s, %s written of %s claimed%s", format_bytes(v.read_bytes).c_str(),
		      format_bytes(v.read_claimed).c_str(), share(v.read_bytes, v.read_claimed).c_str(),
		      format_bytes(v.write_bytes).c_str(), format_bytes(v.write_claimed).c_str(),
		      share(v.write_bytes, v.write_claimed).c_str());
}

// The verdict in one line: what the device saw of the bytes claimed, how
// busy it was, and what limited the run.
void print_verdict(std::FILE *out, const Report &r)
{
	const Verdict &v = *r.verdict;
	if (v.measured && is_mix(r.plan->opt))
		std::fprintf(out, "Device: %s, %s, busy %.0f%%: %s\n", v.device.name.c_str(), device_bytes(r.plan->opt, v).c_str(),
			     v.busy * 100, describe_limit(v).c_str());
	else if (v.measured)
		std::fprintf(out, "Device: %s, %s of %s claimed (%.0f%%), busy %.0f%%: %s\n", v.device.name.c_str(),
			     device_bytes(r.plan->opt, v).c_str(), format_bytes(v.claimed).c_str(), v.delivered * 100, v.busy * 100,
			     describe_limit(v).c_str());
	else
		std::fprintf(out, "Device: %s%sunverifiable: %s; %s\n", v.device.name.c_str(),
			     v.device.name.empty() ? "" : ", ", v.reason.c_str(), describe_limit(v).c_str());
	if (r.env)
		print_device_detail(out, v.device);
}

// A real-time instant as the local clock shows it, to the microsecond:
// "2025-11-30 12:00:00.250081 +0100".
std::string format_unix(std::int64_t ns)
{
	time_t secs = static_cast<time_t>(ns / 1000000000);
	tm local {};
	char date[64] = "?", zone[16] = "";
	if (localtime_r(&secs, &local)) {
		std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &local);
		std::strftime(zone, sizeof zone, "%z", &local);
	}
	return format("%s.%06ld %s", date, static_cast<long>(ns % 1000000000 / 1000), zone);
}

// When the timed window opened (the barrier, or the end of a --ramp), and
// with --start-at how long after its time the barrier opened.
std::string describe_start(const RunResult &r, const Options &o)
{
	std::string s = format("Started at %s (Unix %s)", format_unix(r.start_unix_ns).c_str(),
			       json_unix(r.start_unix_ns).c_str());
	if (o.ramp > 0)
		s += format(", the end of the %g s ramp", o.ramp);
	if (o.start_at_ns)
		s += format("%s %s after --start-at's %s", o.ramp > 0 ? " begun" : ",",
			    format_ns(static_cast<std::uint64_t>(r.start_late_ns)).c_str(), json_unix(o.start_at_ns).c_str());
	return s;
}

// The header line's word on the data: what a write's buffer holds, and
// that --verify's pattern is made, or its check done, inside the timing.
std::string data_content(const Options &o)
{
	if (o.verify)
		return is_write(o) ? ", --verify pattern made per I/O (timed)" : ", each 4 KiB checked as read (timed)";
	return !writes_target(o) ? "" : o.random_buffer ? ", random buffer" : ", zero buffer";
}

// "the first at offset N of FILE: misplaced (...)", for the report and the error.
std::string describe_first_bad(const VerifySummary &v)
{
	const VerifyTally &t = v.first->verify;
	std::string what;
	switch (t.first_kind) {
	case UnitKind::zeros: what = "zeros (a lost write)"; break;
	case UnitKind::misplaced:
		what = format("misplaced (the data written for offset %" PRIu64 ": the device wraps around)", t.first_found);
		break;
	case UnitKind::stale:
		what = "corrupt (a whole unit of an earlier write or another run: the last write was lost)";
		break;
	default: what = "corrupt"; break;
	}
	return format("the first at offset %" PRIu64 " of %s: %s", t.first_offset, printable(v.first->target->path).c_str(),
		      what.c_str());
}

void print_verify(std::FILE *out, const Report &r)
{
	if (!r.verify) {
		std::fprintf(out, "Verify: not read back: the write did not finish\n");
		return;
	}
	const VerifySummary &v = *r.verify;
	std::string how = v.read_back ? format("read back in %.3f s (%s, untimed)", v.seconds,
					       format_rate(rate(v.bytes, v.seconds)).c_str())
				      : std::string("checked as read");
	if (!v.bad) {
		std::fprintf(out, "Verify: %" PRIu64 " units of 4 KiB %s: %s\n", v.units, how.c_str(),
			     v.complete ? "all as written" : "none bad before the interruption, the rest unchecked");
		return;
	}
	std::string kinds;
	const std::uint64_t counts[] = {v.kinds[1], v.kinds[2], v.kinds[3] + v.kinds[4]};
	const char *names[] = {"zeros", "misplaced", "corrupt"};
	for (int k = 0; k < 3; k++)
		if (counts[k])
			kinds += format("%s%" PRIu64 " %s", kinds.empty() ? "" : ", ", counts[k], names[k]);
	std::fprintf(out, "Verify: %" PRIu64 " units of 4 KiB %s: %" PRIu64 " bad (%s), %s\n", v.units, how.c_str(), v.bad,
		     kinds.c_str(), describe_first_bad(v).c_str());
}

void print_human(std::FILE *out, const Report &r)
{
	const Plan &p = *r.plan;
	const Options &o = p.opt;
	if (r.env)
		print_environment(out, r);
	if (r.memory && o.timing)
		print_memory(out, *r.memory);
	std::fprintf(out, "sdb %s: %s%s: %s\n", SDB_VERSION, describe_run(p).c_str(), data_content(o).c_str(),
		     printable(o.file).c_str());
	if (r.fill_seconds >= 0) {
		std::uint64_t filled = p.slot_stride * p.slots * p.buffers;
		std::fprintf(out, "Buffer filled from /dev/urandom: %s in %.3f s (%s)\n", format_bytes(filled).c_str(),
			     r.fill_seconds, format_rate(rate(filled, r.fill_seconds)).c_str());
	}
	const Totals &t = r.ex->totals;
	if (o.start_at_ns || r.env)
		std::fprintf(out, "%s\n", describe_start(r.ex->result, o).c_str());
	for (auto &w : r.ex->shared.workers)
		if (w->cached_before >= 0)
			std::fprintf(out, "Cached before the run: %.0f%% of %s%s\n", w->cached_before * 100,
				     w->target->path.c_str(), o.threads > 1 ? format(" (thread %u)", w->id).c_str() : "");
	for (auto &w : r.ex->shared.workers)
		if (w->laid_out)
			std::fprintf(out, "Laid out %s to %s before the %s (untimed)\n", printable(w->target->path).c_str(),
				     format_bytes(w->target->size).c_str(), is_mix(o) ? "mix" : "random writes");
	for (auto &w : r.ex->shared.workers)
		print_thread(out, *w, o.random || o.fsync_every || is_mix(o));
	if (o.threads > 1)
		std::fprintf(out, "Total (%u threads): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops, %s\n", o.threads,
			     t.wall, format_rate(rate(t.bytes, t.wall)).c_str(), rate(t.ops, t.wall), t.ops,
			     format_bytes(t.bytes).c_str());
	if (o.threads > 1 && is_mix(o))
		print_total_sides(out, r);
	if (r.verdict)
		print_verdict(out, r);
	if (o.verify)
		print_verify(out, r);
	if (t.wall - t.io > 0.05 * t.wall && t.wall - t.io >= 0.01)
		std::fprintf(out, "Final fdatasync: %.3f s of the %.3f s timed (%s)\n", t.wall - t.io, t.wall,
			     o.direct ? "the device flushing its write cache"
				      : "what the page cache held when the last write returned");
	double step = timeline_step(t.io, t.longest_io, true);
	if (t.wall >= 2 && t.io >= 2 * step) {
		auto points = make_timeline(r.ex->result.samples, t.io, t.bytes, step);
		double lo = points[0].bytes_per_second, hi = lo;
		for (const Point &pt : points) {
			lo = std::min(lo, pt.bytes_per_second);
			hi = std::max(hi, pt.bytes_per_second);
		}
		std::fprintf(out, "Timeline: %s  min %s, max %s%s\n", sparkline(points, lo, hi).c_str(),
			     format_rate(lo).c_str(), format_rate(hi).c_str(),
			     o.ramp > 0 ? format(", from the end of the %g s ramp", o.ramp).c_str() : "");
		while (!points.empty() && points.back().t > t.together + step / 2)
			points.pop_back();
		std::string fell = cliff(points);
		if (!fell.empty())
			std::fprintf(out, "%s\n", fell.c_str());
	}
	CpuTime cpu = cpu_time(r.ex->result);
	std::fprintf(out, "CPU: %.2f s user, %.2f s system\n", cpu.user, cpu.system);
	if (r.ex->result.interrupted)
		std::fprintf(out, "Interrupted: the results above are partial\n");
}

// JSON strings: quotes, backslashes and control characters escaped; bytes
// that are not UTF-8 (file names may hold any) become U+FFFD, so that the
// document is always valid UTF-8.
std::string json_string(std::string_view s)
{
	std::string out = "\"";
	for (std::size_t i = 0; i < s.size();) {
		auto c = static_cast<unsigned char>(s[i]);
		std::size_t len = utf8_sequence(s, i);
		if (c == '"' || c == '\\') {
			out += '\\';
			out += static_cast<char>(c);
		} else if (c == '\n') {
			out += "\\n";
		} else if (c == '\t') {
			out += "\\t";
		} else if (c < 0x20 || c == 0x7f) {
			out += format("\\u%04x", c);
		} else if (len == 0) {
			out += "\\ufffd";
			len = 1;
		} else {
			out.append(s.substr(i, len));
		}
		i += len ? len : 1;
	}
	return out + "\"";
}

std::string json_number(double v)
{
	if (!std::isfinite(v))
		return "0";
	return format("%.6f", v);
}

std::string json_bool(bool b) { return b ? "true" : "false"; }

std::string json_options(const Plan &p)
{
	const Options &o = p.opt;
	return format("{\"op\": \"%s\", \"mode\": \"%s\", \"file\": %s, \"block_size\": %" PRIu64
		      ", \"size\": %" PRIu64 ", \"threads\": %u, \"time_limit\": %s, \"direct\": %s, \"sync\": %s, "
		      "\"random_buffer\": %s, \"cached\": %s, \"queue_depth\": %u, \"mix\": %s, \"fsync\": %s, \"ramp\": %s, \"verify\": %s}",
		      is_mix(o) ? "mix" : is_write(o) ? "write" : "read", o.random ? "rand" : "seq", json_string(o.file).c_str(), p.block_size,
		      p.targets.empty() ? 0 : p.targets[0].size, o.threads,
		      o.time_limit > 0 ? json_number(o.time_limit).c_str() : "null", json_bool(o.direct).c_str(),
		      json_bool(o.sync).c_str(), json_bool(o.random_buffer).c_str(), json_bool(o.cached).c_str(),
		      o.queue_depth, is_mix(o) ? std::to_string(o.mix).c_str() : "null",
		      o.fsync_every ? std::to_string(o.fsync_every).c_str() : "null",
		      o.ramp > 0 ? json_number(o.ramp).c_str() : "null", json_bool(o.verify).c_str());
}

std::string json_latency(const Histogram &h)
{
	return format("{\"min\": %" PRIu64 ", \"mean\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
		      ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		      h.min(), h.mean(), h.percentile(0.5), h.percentile(0.9), h.percentile(0.99), h.percentile(0.999),
		      h.max());
}

// The non-empty buckets of a latency histogram, each [low, high, count]
// with both bounds included: enough to merge histograms exactly later.
std::string json_histogram(const Histogram &h)
{
	std::string s = "[";
	for (unsigned i = 0; i < Histogram::buckets; i++)
		if (h.at(i))
			s += format("%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", s.size() > 1 ? ", " : "", Histogram::low(i),
				    Histogram::high(i), h.at(i));
	return s + "]";
}

// A mix's side: {"bytes", "ops", "bytes_per_second", "iops", "latency_ns"}.
std::string json_side(std::uint64_t bytes, std::uint64_t ops, double secs, const Histogram &latency)
{
	return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"bytes_per_second\": %s, \"iops\": %s, "
		      "\"latency_ns\": %s}", bytes, ops, json_number(rate(bytes, secs)).c_str(),
		      json_number(rate(ops, secs)).c_str(), json_latency(latency).c_str());
}

// --fsync's syncs: {"ops", "latency_ns"}; null without --fsync.
std::string json_sync(const std::optional<Histogram> &h)
{
	if (!h)
		return "null";
	return format("{\"ops\": %" PRIu64 ", \"latency_ns\": %s}", h->count(), json_latency(*h).c_str());
}

std::string json_thread(const Worker &w)
{
	double secs = (w.end_ns - w.start_ns) / 1e9;
	std::string cached_before = w.cached_before >= 0 ? json_number(w.cached_before) : "null";
	return format("{\"id\": %u, \"file\": %s, \"cpu\": %d, \"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
		      ", \"passes\": %u, \"seconds\": %s, \"sync_seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s"
		      ", \"latency_ns\": %s, \"cached_before\": %s, \"sync\": %s, \"read\": %s, \"write\": %s"
		      ", \"histogram\": %s}",
		      w.id, json_string(w.target->path).c_str(), w.cpu, w.bytes, w.ops, w.passes, json_number(secs).c_str(),
		      json_number(w.loop_end_ns ? (w.end_ns - w.loop_end_ns) / 1e9 : 0).c_str(),
		      json_number(rate(w.bytes, secs)).c_str(), json_number(rate(w.ops, secs)).c_str(),
		      json_latency(w.latency).c_str(), cached_before.c_str(), json_sync(w.sync_latency).c_str(),
		      w.read_latency ? json_side(w.read_bytes, w.read_ops, secs, *w.read_latency).c_str() : "null",
		      w.write_latency ? json_side(w.write_bytes, w.write_ops, secs, *w.write_latency).c_str() : "null",
		      json_histogram(w.latency).c_str());
}

// The total's read and write sides: null unless a mix.
std::string json_total_sides(const Report &r)
{
	const Totals &t = r.ex->totals;
	if (!is_mix(r.plan->opt))
		return "\"read\": null, \"write\": null";
	return "\"read\": " + json_side(t.read_bytes, t.read_ops, t.wall, side_latency(r.ex->shared, &Worker::read_latency)) +
	       ", \"write\": " + json_side(t.write_bytes, t.write_ops, t.wall, side_latency(r.ex->shared, &Worker::write_latency));
}

std::string json_memory(const MemoryRates &m)
{
	return format("{\"memset\": %s, \"memcpy\": %s, \"memmove\": %s, \"bytes\": %" PRIu64 "}",
		      json_number(m.memset_bps).c_str(), json_number(m.memcpy_bps).c_str(),
		      json_number(m.memmove_bps).c_str(), m.bytes);
}

std::string json_environment(const Report &r)
{
	const Environment &e = *r.env;
	return format("{\"host\": %s, \"kernel\": %s, \"filesystem\": %s, \"device\": %s, \"scheduler\": %s, "
		      "\"logical_block_size\": %s, \"physical_block_size\": %s, \"rotational\": %s, \"dio_align\": %u, "
		      "\"buffer_bytes\": %" PRIu64 ", \"buffer_huge_page_bytes\": %" PRIu64 "}",
		      json_string(e.host).c_str(), json_string(e.kernel).c_str(), json_string(e.fs).c_str(),
		      json_string(e.device).c_str(), json_string(e.scheduler).c_str(),
		      json_string(e.logical_block).c_str(), json_string(e.physical_block).c_str(),
		      json_string(e.rotational).c_str(), r.plan->dio_align, e.buffer_bytes, e.buffer_huge);
}

std::string json_warnings(const std::vector<std::string> &warnings)
{
	std::string s = "[";
	for (std::size_t i = 0; i < warnings.size(); i++)
		s += (i ? ", " : "") + json_string(warnings[i]);
	return s + "]";
}

std::string json_string_or_null(const std::string &s) { return s.empty() ? "null" : json_string(s); }

std::string json_device(const Verdict &v)
{
	const Device &d = v.device;
	std::string link = d.link ? format("{\"kind\": %s, \"bytes_per_second\": %s}", json_string(d.link->kind).c_str(),
					   json_number(d.link->bytes_per_second).c_str())
				  : "null";
	return format("{\"name\": %s, \"path\": %s, \"bytes\": %s, \"delivered\": %s, \"busy\": %s, \"limit\": %s, "
		      "\"link\": %s, \"verified\": %s, \"reason\": %s}",
		      json_string_or_null(d.stats.empty() ? "" : d.name).c_str(),
		      json_string_or_null(d.stats.empty() ? "" : d.path).c_str(),
		      v.measured ? std::to_string(v.bytes).c_str() : "null",
		      v.measured && v.claimed ? json_number(v.delivered).c_str() : "null",
		      v.measured ? json_number(v.busy).c_str() : "null", json_string(v.limit).c_str(), link.c_str(),
		      json_bool(v.verified).c_str(), json_string_or_null(v.reason).c_str());
}

// The last thread's end on the real-time clock: the start plus the wall
// time measured on the monotonic one, so that a clock step cannot bend it.
std::int64_t end_unix_ns(const RunResult &r, const Totals &t)
{
	return r.start_unix_ns + std::llround(t.wall * 1e9);
}

std::string json_verify(const std::optional<VerifySummary> &verify)
{
	if (!verify)
		return "null";
	const VerifySummary &v = *verify;
	std::string first = "null";
	if (v.first) {
		const VerifyTally &t = v.first->verify;
		bool elsewhere = t.first_kind == UnitKind::misplaced;
		first = format("{\"file\": %s, \"offset\": %" PRIu64 ", \"kind\": \"%s\", \"found_offset\": %s}",
			       json_string(v.first->target->path).c_str(), t.first_offset,
			       unit_kind_names[static_cast<int>(t.first_kind)],
			       elsewhere ? std::to_string(t.first_found).c_str() : "null");
	}
	return format("{\"units\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"kinds\": {\"zeros\": %" PRIu64
		      ", \"misplaced\": %" PRIu64 ", \"corrupt\": %" PRIu64
		      "}, \"first_bad\": %s, \"read_back\": %s, \"complete\": %s, \"seconds\": %s, \"bytes_per_second\": %s}",
		      v.units, v.bad, v.kinds[1], v.kinds[2], v.kinds[3] + v.kinds[4], first.c_str(),
		      json_bool(v.read_back).c_str(), json_bool(v.complete).c_str(), json_number(v.seconds).c_str(),
		      json_number(rate(v.bytes, v.seconds)).c_str());
}

void print_json(std::FILE *out, const Report &r)
{
	std::string doc = format("{\"version\": %s, \"host\": %s", json_string(SDB_VERSION).c_str(),
				 json_string(short_host_name()).c_str());
	if (r.plan && r.ex) {
		const Totals &t = r.ex->totals;
		const RunResult &run = r.ex->result;
		doc += ",\n \"options\": " + json_options(*r.plan);
		doc += format(",\n \"start_unix\": %s, \"end_unix\": %s, \"start_late\": %s",
			      json_unix(run.start_unix_ns).c_str(), json_unix(end_unix_ns(run, t)).c_str(),
			      json_number(run.start_late_ns / 1e9).c_str());
		doc += ",\n \"threads\": [";
		for (std::size_t i = 0; i < r.ex->shared.workers.size(); i++)
			doc += (i ? ",\n  " : "\n  ") + json_thread(*r.ex->shared.workers[i]);
		doc += format("],\n \"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
			      ", \"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, %s}",
			      t.bytes, t.ops, json_number(t.wall).c_str(), json_number(rate(t.bytes, t.wall)).c_str(),
			      json_number(rate(t.ops, t.wall)).c_str(), json_total_sides(r).c_str());
		CpuTime cpu = cpu_time(r.ex->result);
		doc += format(",\n \"cpu\": {\"user_seconds\": %s, \"system_seconds\": %s}", json_number(cpu.user).c_str(),
			      json_number(cpu.system).c_str());
		if (r.verdict)
			doc += ",\n \"device\": " + json_device(*r.verdict);
		if (r.plan->opt.verify)
			doc += ",\n \"verify\": " + json_verify(r.verify);
		doc += ",\n \"timeline\": [";
		auto points = make_timeline(r.ex->result.samples, t.io, t.bytes, timeline_step(t.io, t.longest_io, false));
		for (std::size_t i = 0; i < points.size(); i++)
			doc += format("%s{\"t\": %s, \"unix\": %s, \"bytes_per_second\": %s}", i ? ", " : "",
				      json_number(points[i].t).c_str(),
				      json_unix(run.start_unix_ns + std::llround(points[i].t * 1e9)).c_str(),
				      json_number(points[i].bytes_per_second).c_str());
		doc += "]";
	}
	if (r.memory)
		doc += ",\n \"memory\": " + json_memory(*r.memory);
	if (r.env)
		doc += ",\n \"environment\": " + json_environment(r);
	doc += ",\n \"warnings\": " + json_warnings(r.warnings);
	if (!r.error.empty())
		doc += ",\n \"error\": " + json_string(r.error);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(r.ex && r.ex->result.interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// ------------------------------------------------------------ 12. execution

void emit_warnings(const std::vector<std::string> &warnings)
{
	for (const std::string &w : warnings)
		std::fprintf(stderr, "sdb: warning: %s\n", one_line(w).c_str());
}

// -T alone: the memory ceiling and nothing else.
int run_memory_only(const Options &opt, std::FILE *out)
{
	Report r;
	r.memory = time_memory(opt.block_size ? opt.block_size : MiB);
	if (r.memory->bytes == 0) {
		print_error(runtime_error("-T: cannot allocate memory for the timing buffers"));
		return exit_runtime;
	}
	r.warnings = memory_warnings(*r.memory);
	emit_warnings(r.warnings);
	opt.json ? print_json(out, r) : print_memory(out, *r.memory);
	return exit_ok;
}

// 4096 threads each hold a target fd (and a ring fd at -q > 1): more than
// the usual soft limit of 1024, well within the usual hard limit.
void raise_fd_limit()
{
	rlimit r {};
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

// What to show when a run ends in an error: results if any I/O was timed.
bool ran_any(const Shared &s)
{
	for (auto &w : s.workers)
		if (w->start_ns)
			return true;
	return false;
}

// A run that never started (a thread could not open its file, a signal
// came first) leaves none of the files it created behind.
void remove_created(const Shared &s)
{
	for (auto &w : s.workers) {
		struct stat st {};
		if (w->created && lstat(w->target->path.c_str(), &st) == 0 && identity_of(st) == *w->created)
			unlink(w->target->path.c_str());
	}
}

void execute(const Plan &plan, const RunId &id, std::vector<std::unique_ptr<Buffer>> &buffers, const Waiter &waiter,
	     Execution &ex)
{
	ex.shared.gate.wake_fd = waiter.wake_fd;
	ex.device = find_device(plan);
	if (!plan.opt.cached)	// --cached measures the page cache on purpose: nothing to check
		ex.result.stat_files = ex.device.stats;
	ex.error = start_workers(ex.shared, plan, id, buffers);
	supervise(ex.shared, plan, id, ex.result, waiter);
	for (pthread_t th : ex.shared.threads)
		pthread_join(th, nullptr);
	for (auto &w : ex.shared.workers)
		if (!ex.error && w->error)
			ex.error = w->error;
	ex.totals = add_up(ex.shared, ex.result.start_ns);
	if (!ran_any(ex.shared))
		remove_created(ex.shared);
}

// --verify after a write: every thread's region read back at once, one
// thread each, with Ctrl-C and a progress line as during the run.
Error read_all_back(const Plan &plan, Execution &ex, const Waiter &waiter, VerifySummary &v)
{
	auto &workers = ex.shared.workers;
	const std::size_t n = workers.size();
	std::vector<std::atomic<std::uint64_t>> done(n);
	std::vector<Error> errors(n);
	std::atomic<std::size_t> finished{0};
	auto job = [&](std::size_t i) {
		errors[i] = read_back(*workers[i], done[i]);
		if (errors[i])
			g_stop.store(true);
		finished++;
		ex.shared.gate.poke();
	};
	auto read_so_far = [&] {
		std::uint64_t sum = 0;
		for (auto &d : done)
			sum += d.load(std::memory_order_relaxed);
		return sum;
	};
	for (auto &d : done)
		d.store(0);
	std::int64_t start = now_ns();
	std::vector<std::thread> threads;
	for (std::size_t i = 0; i < n; i++) {
		try {
			threads.emplace_back(job, i);
		} catch (const std::system_error &) {	// no thread to be had: this one reads
			job(i);
		}
	}
	const bool tty = !plan.opt.json && isatty(2);
	bool drawn = false;
	while (finished.load() < n) {
		waiter.wait(250, ex.result.interrupted);
		double elapsed = (now_ns() - start) / 1e9;
		if (tty && elapsed >= 1) {
			std::uint64_t bytes = read_so_far();
			std::fprintf(stderr, "\rVerifying: %s of %s  %s  %.1f s\033[K", format_bytes(bytes).c_str(),
				     format_bytes(planned_bytes(plan)).c_str(), format_rate(rate(bytes, elapsed)).c_str(), elapsed);
			drawn = true;
		}
	}
	for (auto &th : threads)
		th.join();
	if (drawn)
		std::fprintf(stderr, "\r\033[K");
	v.seconds = (now_ns() - start) / 1e9;
	v.bytes = read_so_far();
	for (Error &e : errors)
		if (e)
			return e;
	return {};
}

// --verify: the threads' checks added up; after a write, read back first.
// Nothing after a write that failed or was interrupted: what it left is
// not what it meant to write.  A -r checked as it read, inside the run.
std::optional<VerifySummary> check_written(const Plan &plan, Execution &ex, const Waiter &waiter)
{
	VerifySummary v;
	if (is_write(plan.opt)) {
		if (ex.error || ex.result.interrupted)
			return std::nullopt;
		v.read_back = true;
		ex.error = read_all_back(plan, ex, waiter, v);
		v.complete = !ex.result.interrupted;
	} else {
		v.complete = !ex.result.interrupted;
		v.seconds = ex.totals.wall;
		v.bytes = ex.totals.bytes;
	}
	for (auto &w : ex.shared.workers) {
		const VerifyTally &t = w->verify;
		v.units += t.units;
		v.bad += t.bad;
		for (int k = 0; k < 5; k++)
			v.kinds[k] += t.kinds[k];
		if (t.bad && !v.first)
			v.first = w.get();
	}
	return v;
}

Error verify_failure(const VerifySummary &v)
{
	return runtime_error("--verify: %" PRIu64 " of %" PRIu64 " units of 4 KiB bad; %s", v.bad, v.units,
			     describe_first_bad(v).c_str());
}

// ------------------------------------------ 13. the quick suite, --explain

// sdb --quick[=PROFILE]: CrystalDiskMark's tests on one incompressible test
// file, each written and then read, each run --runs times for -t seconds,
// reported as medians with their ranges.  CrystalDiskMark names a test by
// its pattern, block size, depth and threads: SEQ1M Q8T1 is sequential
// 1 MiB I/O, 8 in flight (io_uring, as -q 8), one thread (-j 1).
struct QuickTest {
	bool random;
	std::uint64_t block_size;
	unsigned depth, threads;
	int mix = -1;		// a mixed test (-M): the percentage of reads, in one row
};

// The one table the parser, the header, the suite and --explain all read.
struct QuickProfile {
	const char *name;
	const char *about;			// for the header
	std::vector<QuickTest> tests;
	const char *missing = nullptr;		// what this sdb lacks to run it
};

const QuickProfile quick_profiles[] = {
	{"default", "CrystalDiskMark's default",
	 {{false, MiB, 8, 1}, {false, MiB, 1, 1}, {true, 4 * KiB, 32, 1}, {true, 4 * KiB, 1, 1}}},
	{"nvme", "CrystalDiskMark's NVMe SSD profile",
	 {{false, MiB, 8, 1}, {false, 128 * KiB, 32, 1}, {true, 4 * KiB, 32, 16}, {true, 4 * KiB, 1, 1}}},
	{"real", "CrystalDiskMark's real-world profile", {{false, MiB, 1, 1}, {true, 4 * KiB, 1, 1}}},
	{"mix", "the default profile plus RND4K Q1T1 mix 70/30",
	 {{false, MiB, 8, 1}, {false, MiB, 1, 1}, {true, 4 * KiB, 32, 1}, {true, 4 * KiB, 1, 1}, {true, 4 * KiB, 1, 1, 70}}},
};

const QuickProfile *find_quick_profile(std::string_view name)
{
	for (const QuickProfile &p : quick_profiles)
		if (name == p.name)
			return &p;
	return nullptr;
}

Error quick_profile_error(const QuickProfile &p, const std::string &option)
{
	if (!p.missing)
		return {};
	return usage_error("%s=%s: needs %s", option.c_str(), p.name, p.missing);
}

constexpr unsigned quick_default_runs = 3;
constexpr double quick_default_seconds = 5;

unsigned quick_runs(const Options &o) { return o.runs ? o.runs : quick_default_runs; }
double quick_seconds(const Options &o) { return o.time_limit > 0 ? o.time_limit : quick_default_seconds; }

// "SEQ1M Q8T1", "RND4K Q32T16": CrystalDiskMark's names.
std::string quick_name(const QuickTest &t)
{
	std::uint64_t b = t.block_size;
	std::string size = b % MiB == 0 ? format("%" PRIu64 "M", b / MiB) : format("%" PRIu64 "K", b / KiB);
	std::string mix = t.mix >= 0 ? format(" mix %d/%d", t.mix, 100 - t.mix) : "";
	return format("%s%s Q%uT%u%s", t.random ? "RND" : "SEQ", size.c_str(), t.depth, t.threads, mix.c_str());
}

std::string quick_test_list(const QuickProfile &p)
{
	std::string list;
	for (const QuickTest &t : p.tests)
		list += (list.empty() ? "" : ", ") + quick_name(t);
	return list;
}

struct QuickRun {
	double bytes_per_second = 0, iops = 0, seconds = 0;
	Histogram latency;
	double delivered = -1;		// the device's share of the bytes; -1: not counted
	std::string causes;		// under 0.90: what may have served the rest
};

// One test in one direction: "SEQ1M Q8T1 read".
struct QuickRow {
	QuickTest test;
	bool write;
	std::string name;
	std::vector<QuickRun> runs;
};

// The rows of a profile in order, each test written and then read (the
// read finds what its write left).  Without io_uring, the I/Os a test keeps
// in flight come from as many threads at depth 1: the same load on the
// device, more CPU; notes says so.
std::vector<QuickRow> quick_rows(const QuickProfile &p, bool uring, std::vector<std::string> &notes)
{
	std::vector<QuickRow> rows;
	for (const QuickTest &asked : p.tests) {
		QuickTest t = asked;
		if (t.depth > 1 && !uring) {
			t = {asked.random, asked.block_size, 1, asked.depth * asked.threads, asked.mix};
			notes.push_back(format("io_uring is not available: %s runs as %s (%u threads at depth 1)",
					       quick_name(asked).c_str(), quick_name(t).c_str(), t.threads));
		}
		if (t.mix >= 0)	// a mix both writes and reads: one row
			rows.push_back({t, true, quick_name(t), {}});
		else
			for (bool write : {true, false})
				rows.push_back({t, write, quick_name(t) + (write ? " write" : " read"), {}});
	}
	return rows;
}

struct QuickFile {
	std::string path;
	bool device = false;		// a block device: never created or removed
	bool created = false;		// sdb made it, so sdb removes it
	Identity id;			// of the file sdb made
	bool direct = true;
	std::string buffered_why;	// why not O_DIRECT
	std::uint64_t size = 0;
	std::string why;		// how the size was chosen
};

// Every test needs a block in flight per slot and thread, even where
// io_uring is missing and the slots become threads: 8 x 1 MiB for SEQ1M Q8T1.
Error check_quick_size(const QuickFile &q, const QuickProfile &p)
{
	std::uint64_t least = 0;
	for (const QuickTest &t : p.tests)
		least = std::max<std::uint64_t>(least, t.block_size * t.depth * t.threads);
	if (q.size < least)
		return usage_error("--quick -s %s: the %s profile needs at least %s (its largest test's blocks in flight)",
				   format_bytes(q.size).c_str(), p.name, format_bytes(least).c_str());
	return {};
}

// The test file: PATH itself (a new file or a block device), or a new file
// in the directory PATH.  Never an existing file: the suite removes its
// file at the end, and must not remove one it did not make.
Error choose_quick_file(const Options &o, QuickFile &q)
{
	struct stat st {};
	bool exists = stat(o.file.c_str(), &st) == 0;
	std::string dir = dirname_of(o.file);
	q.path = o.file;
	if (exists && S_ISDIR(st.st_mode)) {
		dir = o.file;
		q.path = format("%s/sdb-quick.%d", o.file.c_str(), static_cast<int>(getpid()));
	} else if (exists && S_ISBLK(st.st_mode)) {
		q.device = true;
	} else if (exists) {
		return usage_error("--quick -f %s: the file exists; --quick makes (and removes) its own test file: "
				   "give a directory or a new file name", o.file.c_str());
	}
	if (q.device) {
		std::uint64_t capacity;
		if (Error e = block_device_size(q.path, capacity))
			return e;
		q.size = o.size ? o.size : std::min(4 * GiB, capacity / MiB * MiB);
		q.why = o.size ? "set by -s" : "4 GiB, or the whole device if smaller";
		if (q.size > capacity)
			return runtime_error("%s: short device: %s", q.path.c_str(), format_bytes(capacity).c_str());
		return check_quick_size(q, *o.profile);
	}
	struct statvfs vfs {};
	if (statvfs(dir.c_str(), &vfs) != 0)
		return sys_error(errno, "%s", dir.c_str());
	std::uint64_t free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
	if (o.size) {
		q.size = o.size;
		q.why = "set by -s";
	} else {
		// 1 GiB at least, 4 GiB (past the DRAM cache of most drives)
		// where that leaves three quarters of the free space alone.
		q.size = free_bytes >= 16 * GiB ? 4 * GiB : GiB;
		q.why = format("%s: at least 1 GiB, 4 GiB where 16 GiB are free, to outgrow drive caches; %s free",
			       format_bytes(q.size).c_str(), format_bytes(free_bytes).c_str());
	}
	if (q.size > max_offset)
		return usage_error("--quick -s %s: larger than the largest possible file offset (8 EiB)",
				   format_bytes(q.size).c_str());
	if (vfs.f_blocks > 0 && q.size > free_bytes / 17 * 16)	// room to spare; ramfs counts no blocks
		return runtime_error("%s: %s free, the %s test file does not fit (use -s)", dir.c_str(),
				     format_bytes(free_bytes).c_str(), format_bytes(q.size).c_str());
	return check_quick_size(q, *o.profile);
}

// Options for one test in one direction on the test file; a test's
// threads share the file, each in its own region.
Options quick_options(const Options &o, const QuickFile &q, const QuickTest &t, bool write)
{
	Options r;
	r.op = t.mix >= 0 ? Options::Op::mix : write ? Options::Op::write : Options::Op::read;
	r.mix = t.mix >= 0 ? static_cast<unsigned>(t.mix) : 0;
	r.random = t.random;
	r.file = q.path;
	r.block_size = t.block_size;
	r.threads = t.threads;
	r.size = q.size / t.threads / t.block_size * t.block_size;
	r.time_limit = quick_seconds(o);
	r.queue_depth = t.depth;
	r.direct = q.direct;
	r.random_buffer = true;
	r.force = o.force;
	r.json = o.json;
	return r;
}

// The layout: one sequential pass of 1 MiB writes over the whole file.
Options layout_options(const Options &o, const QuickFile &q)
{
	Options r = quick_options(o, q, {false, MiB, 1, 1}, true);
	r.time_limit = 0;
	return r;
}

bool io_uring_works()
{
	Ring ring;
	return !ring.setup(4, 0, 1);
}

// One run of one test as it ended: its numbers, the warnings it raised,
// whether a signal cut it short, and the error that ended it, if any.
struct QuickOutcome {
	QuickRun run;
	std::vector<std::string> warnings;
	bool interrupted = false;
	Error error;
};

// One run of one test: plan, buffers, execute, and the numbers kept.  With
// ceiling, the run's rate is checked against the memory ceiling, measured
// on the first run above 1 GiB/s and kept for the rest.
QuickOutcome quick_run(const Options &opt, const Identity *ours, const Waiter &waiter, const RunId &id,
		       std::optional<MemoryRates> *ceiling)
{
	QuickOutcome out;
	Plan plan;
	double fill = 0;
	std::vector<std::unique_ptr<Buffer>> buffers;
	out.error = make_plan(opt, plan, ours, Files::regions);
	if (!out.error)
		out.error = allocate_buffers(plan, buffers, [&](const char *when) { return waiter.stopped(when); }, fill);
	if (out.error)
		return out;
	g_stop.store(false);
	Execution ex;
	execute(plan, id, buffers, waiter, ex);
	out.interrupted = ex.result.interrupted;
	QuickRun &run = out.run;
	for (auto &w : ex.shared.workers)
		run.latency.merge(w->latency);
	run.seconds = ex.totals.wall;
	run.bytes_per_second = rate(ex.totals.bytes, run.seconds);
	run.iops = rate(ex.totals.ops, run.seconds);
	Verdict verdict = judge(plan, ex);
	run.delivered = verdict.measured && verdict.claimed ? verdict.delivered : -1;
	run.causes = verdict.causes;
	if (ceiling && !*ceiling && suspicious(plan, verdict, run.bytes_per_second))
		*ceiling = copy_ceiling(*buffers[0]);
	if (ceiling && *ceiling && (*ceiling)->memcpy_bps > 0 && run.bytes_per_second > (*ceiling)->memcpy_bps &&
	    !on_memory_fs(plan))
		out.warnings.push_back(format("%s%s, faster than this machine copies memory (%s): that is a cache, not the device",
					      id.label.c_str(), format_rate(run.bytes_per_second).c_str(),
					      format_rate((*ceiling)->memcpy_bps).c_str()));
	for (const std::string &w : plausibility(plan, ex.shared, nullptr))
		out.warnings.push_back(w);
	out.error = ex.error;
	return out;
}

// Create the test file (O_EXCL, marked as sdb's, known by its identity
// from now on) and find out whether it takes O_DIRECT: opening it with the
// flag tells whether it is refused; FUSE and statx tell whether it would be
// honoured.  Where not, the suite runs buffered with eviction rather than
// record O_DIRECT that was buffered I/O.
Error probe_direct(QuickFile &q, bool keep)
{
	if (!q.device) {
		Fd made(open(q.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
		struct stat st {};
		if (!made || fstat(made.get(), &st) != 0)
			return sys_error(errno, "open: %s", q.path.c_str());
		fsetxattr(made.get(), owner_xattr, "1", 1, 0);
		q.id = identity_of(st);
		q.created = true;
		g_cleanup_path = keep ? nullptr : q.path.c_str();
	}
	Fd fd(open(q.path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_DIRECT));
	if (!fd && errno == EINVAL) {
		q.direct = false;
		q.buffered_why = "open refuses it";
		return {};
	}
	if (!fd) {
		Error e = sys_error(errno, "open: %s", q.path.c_str());
		if (q.created)
			unlink(q.path.c_str());
		g_cleanup_path = nullptr;
		return e;
	}
	struct statfs sfs {};
	if (!q.device && fstatfs(fd.get(), &sfs) == 0 && fuse_fs(static_cast<std::uint32_t>(sfs.f_type)))
		q.buffered_why = "FUSE: the daemon may read through its own cache";
	else if (!q.device)
		q.buffered_why = direct_io_doubt(q.path);
	q.direct = q.buffered_why.empty();
	return {};
}

double median(std::vector<double> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Spread {
	double median = 0, min = 0, max = 0;
};

template <typename F>
Spread spread(const QuickRow &row, F value)
{
	std::vector<double> v;
	for (const QuickRun &r : row.runs)
		v.push_back(value(r));
	Spread s;
	if (!v.empty()) {
		s.median = median(v);
		s.min = *std::min_element(v.begin(), v.end());
		s.max = *std::max_element(v.begin(), v.end());
	}
	return s;
}

double p99_of(const QuickRun &r) { return static_cast<double>(r.latency.percentile(0.99)); }
double bps_of(const QuickRun &r) { return r.bytes_per_second; }
double iops_of(const QuickRun &r) { return r.iops; }
double delivered_of(const QuickRun &r) { return r.delivered; }

// Every run of the row had the device's counters behind it.
bool row_counted(const QuickRow &row)
{
	for (const QuickRun &r : row.runs)
		if (r.delivered < 0)
			return false;
	return !row.runs.empty();
}

// A row whose median run reached the device with under 90% of its bytes.
std::string row_shortfall(const QuickRow &row)
{
	double share = spread(row, delivered_of).median;
	if (!row_counted(row) || share >= 0.9)
		return "";
	return format("%s: the device saw %.0f%% of the bytes claimed (median of %zu runs); likely causes: %s",
		      row.name.c_str(), share * 100, row.runs.size(), row.runs.back().causes.c_str());
}

void print_quick_header(std::FILE *out, const Options &opt, const QuickFile &q, const Plan &plan, std::size_t rows)
{
	std::string fs = q.device ? "block device" : mounted_fs_type(plan.fs_dev, plan.fs_type);
	std::string device;
	queue_dir(plan.fs_dev, device);
	std::fprintf(out, "sdb %s quick suite: %s (%s, device %s, %s)\n", SDB_VERSION, printable(q.path).c_str(), fs.c_str(),
		     device.empty() ? "-" : device.c_str(),
		     q.direct ? format("O_DIRECT, alignment %u bytes", plan.dio_align).c_str()
			      : format("buffered: O_DIRECT not supported (%s), caches evicted", q.buffered_why.c_str()).c_str());
	std::fprintf(out, "Profile %s (%s): %s, each written, then read\n", opt.profile->name, opt.profile->about,
		     quick_test_list(*opt.profile).c_str());
	std::fprintf(out, "Test file: %s\n", q.why.c_str());
	unsigned runs = quick_runs(opt);
	std::fprintf(out, "About %.0f s: %zu rows x %u run%s x %g s, after laying out %s\n",
		     rows * runs * (quick_seconds(opt) + 0.2), rows, runs, runs == 1 ? "" : "s", quick_seconds(opt),
		     format_bytes(q.size).c_str());
	flush_output(out);
}

void print_quick_table(std::FILE *out, const std::vector<QuickRow> &rows, unsigned runs)
{
	std::fprintf(out, "%-19s %10s %-23s %10s %-21s %11s %7s\n", "Test", "MiB/s", " (min - max)", "IOPS", " (min - max)",
		     "p99 latency", "Device");
	for (const QuickRow &row : rows) {
		Spread b = spread(row, bps_of), i = spread(row, iops_of), l = spread(row, p99_of), d = spread(row, delivered_of);
		std::string p99 = row.test.random ? format_ns(static_cast<std::uint64_t>(l.median)) : "-";
		std::string device = row_counted(row) ? format("%.0f%%", d.median * 100) : "-";
		std::fprintf(out, "%-19s %10.2f %-23s %10.0f %-21s %11s %7s%s%s\n", row.name.c_str(), b.median / MiB,
			     format(" (%.2f - %.2f)", b.min / MiB, b.max / MiB).c_str(), i.median,
			     format(" (%.0f - %.0f)", i.min, i.max).c_str(), p99.c_str(), device.c_str(),
			     row_shortfall(row).empty() ? "" : "  [under 90%: not the device]",
			     row.runs.size() < runs ? format("  [%zu of %u runs]", row.runs.size(), runs).c_str() : "");
	}
	// CrystalDiskMark shows the best of its runs; a median hides one lucky
	// (cached, idle-moment) run, and the range shows that it happened.
	if (rows.empty())
		return;
	if (runs == 1)
		std::fprintf(out, "One run per test (--runs 1): no median, no range\n");
	else
		std::fprintf(out, "Median of %u runs (slowest - fastest); CrystalDiskMark shows its fastest run\n", runs);
}

std::string json_spread(const QuickRow &row, double Spread::*which)
{
	Spread b = spread(row, bps_of), i = spread(row, iops_of), l = spread(row, p99_of), d = spread(row, delivered_of);
	return format("{\"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %.0f, \"delivered\": %s}",
		      json_number(b.*which).c_str(), json_number(i.*which).c_str(), l.*which,
		      row_counted(row) ? json_number(d.*which).c_str() : "null");
}

std::string json_quick_run(const QuickRun &run)
{
	return format("{\"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"p99_ns\": %" PRIu64
		      ", \"latency_ns\": %s, \"delivered\": %s}",
		      json_number(run.seconds).c_str(), json_number(run.bytes_per_second).c_str(),
		      json_number(run.iops).c_str(), run.latency.percentile(0.99), json_latency(run.latency).c_str(),
		      run.delivered >= 0 ? json_number(run.delivered).c_str() : "null");
}

std::string json_quick_row(const QuickRow &row, const char *profile)
{
	std::string doc = format("{\"profile\": %s, \"name\": %s, \"op\": \"%s\", \"mode\": \"%s\", \"block_size\": %" PRIu64
				 ", \"queue_depth\": %u, \"threads\": %u,\n   \"median\": %s, \"min\": %s, \"max\": %s,\n   \"runs\": [",
				 json_string(profile).c_str(), json_string(row.name).c_str(),
				 row.test.mix >= 0 ? "mix" : row.write ? "write" : "read",
				 row.test.random ? "rand" : "seq", row.test.block_size, row.test.depth, row.test.threads,
				 json_spread(row, &Spread::median).c_str(), json_spread(row, &Spread::min).c_str(),
				 json_spread(row, &Spread::max).c_str());
	for (std::size_t i = 0; i < row.runs.size(); i++)
		doc += (i ? ", " : "") + json_quick_run(row.runs[i]);
	return doc + "]}";
}

void print_quick_json(std::FILE *out, const Options &opt, const QuickFile &q, const std::vector<QuickRow> &rows,
		      const std::vector<std::string> &warnings, bool interrupted, bool kept)
{
	std::string doc = format("{\"version\": %s, \"host\": %s,\n \"quick\": {\"profile\": %s, \"file\": %s, \"size\": %" PRIu64
				 ", \"size_reason\": %s, \"direct\": %s, \"time_per_run\": %s, \"runs\": %u, \"kept\": %s},\n \"suite\": [",
				 json_string(SDB_VERSION).c_str(), json_string(short_host_name()).c_str(),
				 json_string(opt.profile->name).c_str(),
				 json_string(q.path).c_str(), q.size, json_string(q.why).c_str(), json_bool(q.direct).c_str(),
				 json_number(quick_seconds(opt)).c_str(), quick_runs(opt), json_bool(kept).c_str());
	for (std::size_t r = 0; r < rows.size(); r++)
		doc += (r ? ",\n  " : "\n  ") + json_quick_row(rows[r], opt.profile->name);
	doc += "],\n \"warnings\": " + json_warnings(warnings);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// Run every row --runs times, in order, until the end, an error or a
// signal; rows that finished no run are dropped.
Error run_quick_rows(const Options &opt, const QuickFile &q, const Waiter &waiter, std::vector<QuickRow> &rows,
		     std::vector<std::string> &warnings, bool &interrupted)
{
	Error error;
	std::optional<MemoryRates> ceiling;
	unsigned runs = quick_runs(opt);
	for (QuickRow &row : rows) {
		for (unsigned i = 0; i < runs && !error && !interrupted; i++) {
			RunId id{i, format("%s, run %u of %u: ", row.name.c_str(), i + 1, runs)};	// each run its own random order
			QuickOutcome o = quick_run(quick_options(opt, q, row.test, row.write), q.created ? &q.id : nullptr,
						   waiter, id, &ceiling);
			for (const std::string &w : o.warnings)
				if (std::find(warnings.begin(), warnings.end(), w) == warnings.end())
					warnings.push_back(w);
			error = o.error;
			interrupted = o.interrupted;
			if (!error && !interrupted)	// a cut-short run would skew the median
				row.runs.push_back(std::move(o.run));
		}
		if (std::string shortfall = row_shortfall(row); !shortfall.empty())
			warnings.push_back(shortfall);
	}
	rows.erase(std::remove_if(rows.begin(), rows.end(), [](const QuickRow &r) { return r.runs.empty(); }), rows.end());
	return error;
}

// Lay out, run the profile's rows, report, remove the file.
int run_quick(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (!scope.ok()) {
		print_error(sys_error(errno, "signalfd/eventfd"));
		return exit_runtime;
	}
	QuickFile q;
	if (Error e = choose_quick_file(opt, q)) {
		print_error(e);
		return e.status;
	}
	// Check every rule a write must pass (--force, devices in use, sizes)
	// before creating anything.
	Plan check;
	Options layout_opt = layout_options(opt, q);
	Error error = make_plan(layout_opt, check, nullptr, Files::regions);
	check.exclusive.reset();	// each test claims the device itself
	if (!error)
		error = probe_direct(q, opt.keep);
	if (error) {
		print_error(error);
		return error.status;
	}
	layout_opt.direct = q.direct;
	std::vector<std::string> warnings;
	std::vector<QuickRow> rows = quick_rows(*opt.profile, io_uring_works(), warnings);
	if (!opt.json)
		print_quick_header(out, opt, q, check, rows.size());

	std::vector<std::string> early = target_warnings(check);
	emit_warnings(early);
	if (!q.direct)
		warnings.push_back("O_DIRECT is not supported on " + q.path + " (" + q.buffered_why +
				   "): buffered I/O, caches evicted before reads");
	QuickOutcome laid = quick_run(layout_opt, q.created ? &q.id : nullptr, scope.waiter, {0, "laying out  "}, nullptr);
	error = laid.error;	// its warnings are the rows' to give
	bool interrupted = laid.interrupted;
	if (!error && !interrupted && !opt.json)
		std::fprintf(out, "Laid out %s of random data in %.2f s (%s)\n\n", format_bytes(q.size).c_str(),
			     laid.run.seconds, format_rate(laid.run.bytes_per_second).c_str());
	if (!error && !interrupted)
		error = run_quick_rows(opt, q, scope.waiter, rows, warnings, interrupted);
	else
		rows.clear();

	bool kept = opt.keep || !q.created;
	g_cleanup_path = nullptr;
	if (!kept && unlink(q.path.c_str()) != 0 && errno != ENOENT && !error)
		error = sys_error(errno, "unlink: %s", q.path.c_str());
	emit_warnings(warnings);
	warnings.insert(warnings.begin(), early.begin(), early.end());
	if (opt.json)
		print_quick_json(out, opt, q, rows, warnings, interrupted, kept);
	else
		print_quick_table(out, rows, quick_runs(opt));
	if (!opt.json && opt.keep && q.created)
		std::fprintf(out, "Kept %s\n", printable(q.path).c_str());
	if (interrupted && !opt.json)
		std::fprintf(out, "Interrupted: the rows above are what finished\n");
	if (error) {
		print_error(error);
		return error.status;
	}
	return interrupted ? scope.waiter.exit_status() : exit_ok;
}

// --explain: the same I/O as fio job options, so that anyone can run fio
// beside sdb on the same file.  Defaults that already match are left out
// (fio's random map visits each block once per pass, as sdb's permutation
// does; fadvise_hint gives the same readahead advice).

// How a run's threads map to files: all on one file at offset 0 (a
// character device), one region each of one file, or FILE.i each.
enum class FioFiles { shared, regions, per_thread };

// One word for a POSIX shell: as it is where nothing in it is special.
std::string shell_word(const std::string &s)
{
	if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") ==
				  std::string::npos)
		return s;
	std::string quoted = "'";
	for (char c : s)
		quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return quoted + "'";
}

// fio splits filename at ':' (a list of files) unless it is escaped.
std::string fio_path(const std::string &path)
{
	std::string escaped;
	for (char c : path)
		escaped += c == ':' ? std::string("\\:") : std::string(1, c);
	return escaped;
}

// fio's sizes are 1024-based by default (kb_base=1024): 4k, 1m, 1g.
std::string fio_size(std::uint64_t bytes)
{
	if (bytes % GiB == 0)
		return format("%" PRIu64 "g", bytes / GiB);
	if (bytes % MiB == 0)
		return format("%" PRIu64 "m", bytes / MiB);
	if (bytes % KiB == 0)
		return format("%" PRIu64 "k", bytes / KiB);
	return format("%" PRIu64, bytes);
}

// fio takes whole seconds, or a unit: 0.2 s is 200ms.
std::string fio_seconds(double seconds)
{
	if (seconds == std::floor(seconds))
		return format("%.0f", seconds);
	return format("%.0fms", std::max(1.0, std::round(seconds * 1000)));
}

// The fio command for one sdb run.  o: block_size and size resolved, size
// per thread.  sdb's final fdatasync is fio's end_fsync; its eviction before
// reads is invalidate; -R's stamped blocks are close to scramble_buffers.
std::string fio_command(const Options &o, const std::string &name, FioFiles files)
{
	bool write = writes_target(o);
	std::vector<std::string> args = {"fio", "--name=" + name};
	if (files == FioFiles::per_thread)
		args.push_back("--filename_format=" + fio_path(o.file) + ".$jobnum");	// sdb's FILE.0 .. FILE.N-1
	else
		args.push_back("--filename=" + fio_path(o.file));
	if (is_mix(o)) {
		args.push_back(o.random ? "--rw=randrw" : "--rw=rw");
		args.push_back(format("--rwmixread=%u", o.mix));
	} else {
		args.push_back(format("--rw=%s%s", o.random ? "rand" : "", write ? "write" : "read"));
	}
	args.push_back("--bs=" + fio_size(o.block_size));
	args.push_back("--size=" + fio_size(o.size));
	if (o.threads > 1) {
		args.push_back(format("--numjobs=%u", o.threads));
		if (files == FioFiles::regions)
			args.push_back("--offset_increment=" + fio_size(o.size));
		args.push_back("--group_reporting");
	}
	args.push_back("--thread");
	args.push_back(o.queue_depth > 1 ? "--ioengine=io_uring" : "--ioengine=psync");
	args.push_back(format("--iodepth=%u", o.queue_depth));
	args.push_back(format("--direct=%d", o.direct ? 1 : 0));
	if (o.sync)
		args.push_back("--sync=1");
	if (o.time_limit > 0) {
		args.push_back("--runtime=" + fio_seconds(o.time_limit));
		args.push_back("--time_based");
	}
	if (o.ramp > 0)
		args.push_back("--ramp_time=" + fio_seconds(o.ramp));
	if (o.fsync_every)
		args.push_back(format("--fdatasync=%u", o.fsync_every));
	if (write && !o.cached)
		args.push_back("--end_fsync=1");
	args.push_back(format("--invalidate=%d", o.cached ? 0 : 1));
	if (write)
		args.push_back(o.random_buffer ? "--scramble_buffers=1" : "--zero_buffers");
	if (write && o.verify)
		args.push_back("--verify=crc32c");	// fio's own pattern, read back after the write
	std::string line;
	for (const std::string &a : args)
		line += (line.empty() ? "" : " ") + shell_word(a);
	return line;
}

// sdb's buffers from 256 KiB up sit on huge pages (see Buffer), fio's on
// 4 KiB pages: a device that takes fewer segments per request than a block
// has pages (virtio: 254) splits fio's O_DIRECT requests and not sdb's.
// On a virtio disk here that halved fio's SEQ1M Q1T1 reads; with
// --iomem=shmhuge fio read as fast as sdb.
bool fio_pages_differ(const Options &o) { return o.direct && o.block_size >= huge_page / 8; }

constexpr char fio_pages_note[] =
	"# fio's buffers are 4 KiB pages, sdb's huge pages from 256 KiB blocks: where a device takes fewer segments "
	"per request (virtio: 254), fio's O_DIRECT requests are split and sdb's are not; with huge pages reserved "
	"(vm.nr_hugepages), add --iomem=shmhuge\n";

// "SEQ1M Q8T1 read" -> "SEQ1M-Q8T1-read": one shell word.
std::string fio_job_name(std::string name)
{
	std::replace(name.begin(), name.end(), ' ', '-');
	return name;
}

// --quick --explain: the file and rows the suite would use, as fio lines,
// without creating the file.  Whether O_DIRECT is honoured is only known
// from the file itself; FUSE is known from the directory.
int explain_quick(const Options &opt, std::FILE *out)
{
	QuickFile q;
	Plan check;
	Error error = choose_quick_file(opt, q);
	if (!error)
		error = make_plan(layout_options(opt, q), check, nullptr, Files::regions);
	if (error) {
		print_error(error);
		return error.status;
	}
	q.direct = !fuse_fs(check.fs_type);
	std::vector<std::string> notes;
	std::vector<QuickRow> rows = quick_rows(*opt.profile, io_uring_works(), notes);
	unsigned runs = quick_runs(opt);
	std::fprintf(out, "# sdb --quick=%s on %s (%s): %zu fio lines, in sdb's order; sdb runs each %s and "
		     "reports the median\n", opt.profile->name, printable(q.path).c_str(), q.why.c_str(), rows.size(),
		     runs == 1 ? "once" : format("%u times", runs).c_str());
	std::fprintf(out, "# sdb first writes the whole file with random data; fio lays out what a job lacks itself. "
		     "Remove the file afterwards.\n");
	if (!q.direct)
		std::fprintf(out, "# FUSE: sdb runs buffered here, with caches evicted before reads\n");
	for (const std::string &n : notes)
		std::fprintf(out, "# %s\n", n.c_str());
	std::string lines;
	bool pages_differ = false;
	for (const QuickRow &row : rows) {
		Options r = quick_options(opt, q, row.test, row.write);
		pages_differ |= fio_pages_differ(r);
		lines += fio_command(r, fio_job_name(row.name), row.test.threads > 1 ? FioFiles::regions : FioFiles::shared);
		lines += '\n';
	}
	if (pages_differ)
		std::fputs(fio_pages_note, out);
	std::fputs(lines.c_str(), out);
	return exit_ok;
}

// -w/-r --explain: the run make_plan would start, as one fio line.
int explain_run(const Options &opt, std::FILE *out)
{
	Plan plan;
	if (Error e = make_plan(opt, plan)) {
		print_error(e);
		return e.status;
	}
	Options r = plan.opt;
	r.block_size = plan.block_size;
	r.size = plan.targets[0].size;
	FioFiles files = FioFiles::shared;
	if (plan.targets.size() > 1 && plan.targets[1].path != plan.targets[0].path)
		files = FioFiles::per_thread;
	else if (plan.targets.size() > 1 && plan.targets[1].base != 0)
		files = FioFiles::regions;
	if (opt.timing)
		std::fprintf(out, "# -T (the memory ceiling) has no fio equivalent\n");
	if (opt.verify)
		std::fprintf(out, "# --verify: fio checks only its own pattern (--verify=crc32c, read back after a write); "
			     "neither tool can check the other's\n");
	if (fio_pages_differ(r))
		std::fputs(fio_pages_note, out);
	std::fprintf(out, "%s\n", fio_command(r, "sdb", files).c_str());
	return exit_ok;
}

// ------------------------------------------------------- 13b. many hosts

// --merge and --hosts: sdb's own --json documents read back and merged into
// one report.  Not a general JSON library: enough for what sdb writes (and
// any valid JSON, so that a foreign document fails on its keys, not here).
struct Json {
	enum class Type { null, boolean, number, string, array, object };
	Type type = Type::null;
	bool boolean = false;
	double number = 0;
	std::string text;
	std::vector<Json> items;
	std::vector<std::pair<std::string, Json>> members;

	const Json *find(std::string_view key) const
	{
		if (type != Type::object)
			return nullptr;
		for (const auto &m : members)
			if (m.first == key)
				return &m.second;
		return nullptr;
	}
	const Json *find(std::string_view key, Type t) const
	{
		const Json *v = find(key);
		return v && v->type == t ? v : nullptr;
	}
	double num(std::string_view key, double otherwise = 0) const
	{
		const Json *v = find(key, Type::number);
		return v ? v->number : otherwise;
	}
	std::string str(std::string_view key) const
	{
		const Json *v = find(key, Type::string);
		return v ? v->text : "";
	}
	bool flag(std::string_view key) const
	{
		const Json *v = find(key, Type::boolean);
		return v && v->boolean;
	}
};

// Recursive descent over RFC 8259; on failure, what went wrong and the
// byte offset where.  Nesting is capped, so that no input can exhaust the
// stack.
class JsonParser {
public:
	explicit JsonParser(std::string_view s) : s_(s) {}

	bool parse(Json &out)
	{
		skip();
		if (!value(out, 0))
			return false;
		skip();
		return i_ == s_.size() || fail("more after the end of the document");
	}
	// One of several documents in a row (srun gathers every task's
	// output in one stream): false at the end, or on an error (what()).
	bool parse_next(Json &out)
	{
		skip();
		if (i_ == s_.size())
			return fail("");
		return value(out, 0);
	}
	std::size_t offset() const { return i_; }
	const char *what() const { return what_; }

private:
	static constexpr unsigned max_depth = 64;

	bool fail(const char *what)
	{
		what_ = what;
		return false;
	}
	void skip()
	{
		while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
			i_++;
	}
	bool literal(std::string_view word)
	{
		if (s_.substr(i_, word.size()) != word)
			return fail("not a JSON value");
		i_ += word.size();
		return true;
	}
	bool value(Json &v, unsigned depth)
	{
		if (depth > max_depth)
			return fail("nested too deeply");
		if (i_ >= s_.size())
			return fail("unexpected end of input");
		switch (s_[i_]) {
		case '{': v.type = Json::Type::object; return object(v, depth);
		case '[': v.type = Json::Type::array; return array(v, depth);
		case '"': v.type = Json::Type::string; return string(v.text);
		case 't': v.type = Json::Type::boolean; v.boolean = true; return literal("true");
		case 'f': v.type = Json::Type::boolean; return literal("false");
		case 'n': return literal("null");
		default: v.type = Json::Type::number; return number(v.number);
		}
	}
	bool object(Json &v, unsigned depth)
	{
		i_++;
		skip();
		if (i_ < s_.size() && s_[i_] == '}')
			return ++i_, true;
		for (;;) {
			skip();
			if (i_ >= s_.size() || s_[i_] != '"')
				return fail("expected a string (an object's key)");
			v.members.emplace_back();
			if (!string(v.members.back().first))
				return false;
			skip();
			if (i_ >= s_.size() || s_[i_] != ':')
				return fail("expected ':'");
			i_++;
			skip();
			if (!value(v.members.back().second, depth + 1))
				return false;
			skip();
			if (i_ < s_.size() && s_[i_] == ',') {
				i_++;
				continue;
			}
			if (i_ < s_.size() && s_[i_] == '}')
				return ++i_, true;
			return fail("expected ',' or '}'");
		}
	}
	bool array(Json &v, unsigned depth)
	{
		i_++;
		skip();
		if (i_ < s_.size() && s_[i_] == ']')
			return ++i_, true;
		for (;;) {
			skip();
			v.items.emplace_back();
			if (!value(v.items.back(), depth + 1))
				return false;
			skip();
			if (i_ < s_.size() && s_[i_] == ',') {
				i_++;
				continue;
			}
			if (i_ < s_.size() && s_[i_] == ']')
				return ++i_, true;
			return fail("expected ',' or ']'");
		}
	}
	bool hex4(unsigned &code)
	{
		code = 0;
		for (int k = 0; k < 4; k++, i_++) {
			char c = i_ < s_.size() ? s_[i_] : '\0';
			unsigned d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
			if (d == 16)
				return fail("\\u needs four hex digits");
			code = code * 16 + d;
		}
		return true;
	}
	static void utf8(std::string &out, unsigned code)
	{
		if (code < 0x80) {
			out += static_cast<char>(code);
		} else if (code < 0x800) {
			out += static_cast<char>(0xc0 | code >> 6);
			out += static_cast<char>(0x80 | (code & 0x3f));
		} else if (code < 0x10000) {
			out += static_cast<char>(0xe0 | code >> 12);
			out += static_cast<char>(0x80 | (code >> 6 & 0x3f));
			out += static_cast<char>(0x80 | (code & 0x3f));
		} else {
			out += static_cast<char>(0xf0 | code >> 18);
			out += static_cast<char>(0x80 | (code >> 12 & 0x3f));
			out += static_cast<char>(0x80 | (code >> 6 & 0x3f));
			out += static_cast<char>(0x80 | (code & 0x3f));
		}
	}
	bool string(std::string &out)
	{
		i_++;	// the opening quote
		for (;;) {
			if (i_ >= s_.size())
				return fail("unterminated string");
			char c = s_[i_];
			if (c == '"')
				return ++i_, true;
			if (static_cast<unsigned char>(c) < 0x20)
				return fail("a control character inside a string");
			if (c != '\\') {
				out += c;
				i_++;
				continue;
			}
			if (++i_ >= s_.size())
				return fail("unterminated string");
			char e = s_[i_++];
			switch (e) {
			case '"': case '\\': case '/': out += e; break;
			case 'b': out += '\b'; break;
			case 'f': out += '\f'; break;
			case 'n': out += '\n'; break;
			case 'r': out += '\r'; break;
			case 't': out += '\t'; break;
			case 'u': {
				unsigned code;
				if (!hex4(code))
					return false;
				if (code >= 0xd800 && code < 0xdc00 && s_.substr(i_, 2) == "\\u") {	// a surrogate pair
					std::size_t back = i_;
					i_ += 2;
					unsigned low;
					if (!hex4(low))
						return false;
					if (low >= 0xdc00 && low < 0xe000)
						code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
					else
						i_ = back;
				}
				utf8(out, code >= 0xd800 && code < 0xe000 ? 0xfffd : code);	// a lone surrogate
				break;
			}
			default: i_--; return fail("an unknown escape in a string");
			}
		}
	}
	bool number(double &v)
	{
		std::size_t start = i_;
		auto digits = [&] {
			std::size_t from = i_;
			while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9')
				i_++;
			return i_ > from;
		};
		if (i_ < s_.size() && s_[i_] == '-')
			i_++;
		if (i_ < s_.size() && s_[i_] == '0')
			i_++;
		else if (!digits())
			return i_ = start, fail("not a JSON value");
		if (i_ < s_.size() && s_[i_] == '.' && (++i_, !digits()))
			return fail("digits must follow '.'");
		if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
			i_++;
			if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'))
				i_++;
			if (!digits())
				return fail("digits must follow the exponent");
		}
		v = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
		if (!std::isfinite(v))
			return i_ = start, fail("a number out of range");
		return true;
	}

	std::string_view s_;
	std::size_t i_ = 0;
	const char *what_ = "";
};

// "-" (standard input) as messages name it.
std::string input_name(const std::string &file) { return file == "-" ? "standard input" : printable(file); }

// Where and why the parser stopped, as the one error line.
Error json_syntax_error(const std::string &file, const JsonParser &parser)
{
	return runtime_error("%s: not valid JSON (byte %zu: %s)", input_name(file).c_str(), parser.offset(), parser.what());
}

Error parse_json(std::string_view text, const std::string &file, Json &out)
{
	JsonParser parser(text);
	if (!parser.parse(out))
		return json_syntax_error(file, parser);
	return {};
}

// A value written back: numbers that are whole as integers.
std::string json_dump(const Json &v)
{
	switch (v.type) {
	case Json::Type::null: return "null";
	case Json::Type::boolean: return json_bool(v.boolean);
	case Json::Type::number:
		return v.number == std::floor(v.number) && std::fabs(v.number) < 9e15 ? format("%.0f", v.number)
										       : json_number(v.number);
	case Json::Type::string: return json_string(v.text);
	case Json::Type::array: {
		std::string s = "[";
		for (std::size_t i = 0; i < v.items.size(); i++)
			s += (i ? ", " : "") + json_dump(v.items[i]);
		return s + "]";
	}
	case Json::Type::object: {
		std::string s = "{";
		for (std::size_t i = 0; i < v.members.size(); i++)
			s += (i ? ", " : "") + json_string(v.members[i].first) + ": " + json_dump(v.members[i].second);
		return s + "}";
	}
	}
	return "null";
}

// Standard input or a file, whole; documents are small (a histogram bucket
// per line at most), so anything over 256 MiB is not one.
Error read_input(const std::string &file, std::string &text)
{
	Fd owned;
	int fd = 0;
	if (file != "-") {
		owned = Fd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
		if (!owned)
			return sys_error(errno, "%s", printable(file).c_str());
		fd = owned.get();
	}
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sys_error(errno, "%s", input_name(file).c_str());
		if (n == 0)
			return {};
		text.append(chunk, static_cast<std::size_t>(n));
		if (text.size() > 256 * MiB)
			return runtime_error("%s: over 256 MiB: not an sdb result", input_name(file).c_str());
	}
}

// One input to a merge: a document (--merge) or a host's run (--hosts).
struct HostRun {
	std::string source;		// the file, or HOST[:PATH]
	std::string host;		// the document's "host"
	Json options;
	unsigned threads = 0;
	std::uint64_t bytes = 0, ops = 0;
	double seconds = 0;
	bool windowed = false;		// start_unix and end_unix given
	double start_unix = 0, end_unix = 0;
	bool histogram = false;		// latency: the threads' merged histograms
	Histogram latency;
	std::optional<std::uint64_t> p99;	// a single thread's p99 without a histogram
	struct Step {
		double end_unix, seconds, bytes_per_second;
	};
	std::vector<Step> timeline;	// only with timeline[].unix
	bool mix = false;		// -M: total.read and total.write given
	std::uint64_t side_bytes[2] = {0, 0}, side_ops[2] = {0, 0};	// [0]: reads, [1]: writes
	bool interrupted = false;
	std::vector<std::string> warnings;
	std::string error;
};

// A document's count or size as an integer: one below 1 or past what 64
// bits hold (foreign or damaged JSON) is 0, never a conversion out of range.
std::uint64_t json_whole(double v) { return v >= 1 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; }

// [[low, high, count], ...] into h: every bucket must be one of sdb's.
Error add_histogram(const Json &buckets, Histogram &h, const std::string &name)
{
	for (const Json &b : buckets.items) {
		bool ok = b.type == Json::Type::array && b.items.size() == 3;
		for (std::size_t k = 0; ok && k < 3; k++)
			ok = b.items[k].type == Json::Type::number && b.items[k].number >= 0 &&
			     b.items[k].number == std::floor(b.items[k].number) && b.items[k].number < 1.8e19;
		if (!ok)
			return runtime_error("%s: a histogram bucket is not [low_ns, high_ns, count]", name.c_str());
		auto low = static_cast<std::uint64_t>(b.items[0].number), high = static_cast<std::uint64_t>(b.items[1].number);
		unsigned i = Histogram::index(low);
		if (Histogram::low(i) != low || Histogram::high(i) != high)
			return runtime_error("%s: histogram bucket [%" PRIu64 ", %" PRIu64 "] is not one of sdb's buckets",
					     name.c_str(), low, high);
		h.add_bucket(i, static_cast<std::uint64_t>(b.items[2].number));
	}
	return {};
}

// A document into a HostRun.  Foreign JSON (not sdb's) is an error that
// names the key it lacks.
Error load_run(const Json &doc, const std::string &file, HostRun &r)
{
	std::string name = input_name(file);
	if (doc.type != Json::Type::object)
		return runtime_error("%s: not an sdb result (not a JSON object); --merge reads sdb --json output",
				     name.c_str());
	for (const char *key : {"version", "options", "total"})
		if (!doc.find(key))
			return runtime_error("%s: not an sdb result (no \"%s\"); --merge reads sdb --json output", name.c_str(),
					     key);
	const Json *total = doc.find("total", Json::Type::object);
	const Json *options = doc.find("options", Json::Type::object);
	if (!total || !options || !total->find("bytes", Json::Type::number) || !total->find("seconds", Json::Type::number))
		return runtime_error("%s: not an sdb result (no total bytes and seconds); --merge reads sdb --json output",
				     name.c_str());
	r.options = *options;
	r.host = doc.str("host");
	r.bytes = json_whole(total->num("bytes"));
	r.ops = json_whole(total->num("ops"));
	r.seconds = std::max(0.0, total->num("seconds"));
	const Json *sides[2] = {total->find("read", Json::Type::object), total->find("write", Json::Type::object)};
	r.mix = sides[0] && sides[1];
	for (int k = 0; r.mix && k < 2; k++) {
		r.side_bytes[k] = json_whole(sides[k]->num("bytes"));
		r.side_ops[k] = json_whole(sides[k]->num("ops"));
	}
	const Json *threads = doc.find("threads", Json::Type::array);
	r.threads = threads ? static_cast<unsigned>(threads->items.size())
			    : static_cast<unsigned>(json_whole(total->num("threads", options->num("threads", 1))));
	if (threads) {	// a run's document: the threads' histograms
		r.histogram = !threads->items.empty();
		for (const Json &t : threads->items) {
			const Json *h = t.find("histogram", Json::Type::array);
			if (!h) {
				r.histogram = false;
				break;
			}
			if (Error e = add_histogram(*h, r.latency, name))
				return e;
		}
		const Json *lat = threads->items.size() == 1 ? threads->items[0].find("latency_ns", Json::Type::object) : nullptr;
		if (lat && lat->find("p99", Json::Type::number))
			r.p99 = json_whole(lat->num("p99"));
	} else if (const Json *h = total->find("histogram", Json::Type::array)) {	// a merged document
		r.histogram = true;
		if (Error e = add_histogram(*h, r.latency, name))
			return e;
	}
	if (!r.histogram)
		r.latency = Histogram();
	const Json *start = doc.find("start_unix", Json::Type::number), *end = doc.find("end_unix", Json::Type::number);
	if (!start)
		start = total->find("start_unix", Json::Type::number), end = total->find("end_unix", Json::Type::number);
	if (start && end && end->number >= start->number) {
		r.windowed = true;
		r.start_unix = start->number;
		r.end_unix = end->number;
	}
	if (const Json *tl = doc.find("timeline", Json::Type::array)) {
		double last_t = 0;
		for (const Json &p : tl->items) {
			if (!p.find("unix", Json::Type::number)) {
				r.timeline.clear();
				break;
			}
			double t = p.num("t");
			r.timeline.push_back({p.num("unix"), std::max(0.0, t - last_t), p.num("bytes_per_second")});
			last_t = t;
		}
	}
	r.interrupted = doc.flag("interrupted");
	if (const Json *w = doc.find("warnings", Json::Type::array))
		for (const Json &s : w->items)
			if (s.type == Json::Type::string)
				r.warnings.push_back(s.text);
	r.error = doc.str("error");
	return {};
}

// What a merge adds up to.
struct Merged {
	unsigned threads = 0;
	std::uint64_t bytes = 0, ops = 0;
	double start_unix = 0, end_unix = 0;	// the union of the windows
	double seconds = 0;
	bool together = false;			// a window in which all ran
	double together_start = 0, together_end = 0, together_bytes = 0;
	bool from_timelines = true;		// together_bytes from every timeline (else some at their mean rate)
	Histogram latency;
	unsigned with_latency = 0;		// inputs whose histograms are in latency
	bool mix = false;			// every input a mix (-M): its reads and writes apart
	std::uint64_t side_bytes[2] = {0, 0}, side_ops[2] = {0, 0};	// [0]: reads, [1]: writes
	std::vector<std::string> warnings;
};

// The bytes a run moved in [a, b] of Unix time: from its timeline where
// it has one with Unix times, else at its mean rate over its window.
double bytes_between(const HostRun &r, double a, double b, bool &from_timeline)
{
	auto overlap = [&](double lo, double hi) { return std::max(0.0, std::min(hi, b) - std::max(lo, a)); };
	if (r.timeline.empty()) {
		from_timeline = false;
		double len = r.end_unix - r.start_unix;
		return len > 0 ? static_cast<double>(r.bytes) * overlap(r.start_unix, r.end_unix) / len : 0;
	}
	double sum = 0;
	for (const HostRun::Step &s : r.timeline)
		sum += s.bytes_per_second * overlap(s.end_unix - s.seconds, s.end_unix);
	return sum;
}

// The option keys whose values differ between the inputs (not "file":
// every host has its own).
std::vector<std::string> options_differ(const std::vector<HostRun> &runs)
{
	std::vector<std::string> out;
	std::vector<std::string> keys;
	for (const HostRun &r : runs)
		for (const auto &m : r.options.members)
			if (m.first != "file" && std::find(keys.begin(), keys.end(), m.first) == keys.end())
				keys.push_back(m.first);
	for (const std::string &k : keys) {
		std::string first, values;
		bool differ = false;
		for (std::size_t i = 0; i < runs.size(); i++) {
			const Json *v = runs[i].options.find(k);
			std::string text = v ? json_dump(*v) : "(none)";
			if (i == 0)
				first = text;
			differ = differ || text != first;
			values += (i ? ", " : "") + text;
		}
		if (differ)
			out.push_back(format("options differ: %s is %s (in input order)", k.c_str(), values.c_str()));
	}
	return out;
}

Merged merge_runs(std::vector<HostRun> &runs)
{
	Merged m;
	if (runs.empty())
		return m;
	m.warnings = options_differ(runs);
	// Documents without a window (an older sdb) are taken to start with
	// the earliest of the others, as threads of one run do.
	double earliest = 0;
	bool any = false;
	for (const HostRun &r : runs)
		if (r.windowed) {
			earliest = any ? std::min(earliest, r.start_unix) : r.start_unix;
			any = true;
		}
	for (HostRun &r : runs)
		if (!r.windowed) {
			r.start_unix = earliest;
			r.end_unix = earliest + r.seconds;
			if (any)
				m.warnings.push_back(r.source + ": no start_unix/end_unix (an older sdb): taken to start with the earliest");
		}
	m.start_unix = runs[0].start_unix;
	m.end_unix = runs[0].end_unix;
	m.together_start = runs[0].start_unix;
	m.together_end = runs[0].end_unix;
	const HostRun *first = &runs[0], *last = &runs[0];
	m.mix = std::all_of(runs.begin(), runs.end(), [](const HostRun &r) { return r.mix; });
	for (const HostRun &r : runs) {
		for (int k = 0; m.mix && k < 2; k++) {
			m.side_bytes[k] += r.side_bytes[k];
			m.side_ops[k] += r.side_ops[k];
		}
		m.threads += r.threads;
		m.bytes += r.bytes;
		m.ops += r.ops;
		m.start_unix = std::min(m.start_unix, r.start_unix);
		m.end_unix = std::max(m.end_unix, r.end_unix);
		m.together_start = std::max(m.together_start, r.start_unix);
		m.together_end = std::min(m.together_end, r.end_unix);
		first = r.start_unix < first->start_unix ? &r : first;
		last = r.start_unix > last->start_unix ? &r : last;
		if (r.histogram) {
			m.latency.merge(r.latency);
			m.with_latency++;
		} else {
			m.warnings.push_back(r.source + ": no latency histograms (an older sdb?): its latency is left out of the merged percentiles");
		}
		if (r.interrupted)
			m.warnings.push_back(r.source + ": interrupted: its results are partial");
		if (!r.error.empty())
			m.warnings.push_back(r.source + ": failed after it started: " + r.error);
	}
	// A warning several inputs share (the zero buffer, say) once, naming them all.
	std::vector<std::pair<std::string, std::string>> warned;	// text, sources
	for (const HostRun &r : runs)
		for (const std::string &w : r.warnings) {
			auto it = std::find_if(warned.begin(), warned.end(), [&](const auto &x) { return x.first == w; });
			if (it == warned.end())
				warned.push_back({w, r.source});
			else if (it->second.size() < 200)
				it->second += ", " + r.source;
		}
	for (const auto &w : warned)
		m.warnings.push_back(w.second + " warned: " + w.first);
	m.seconds = m.end_unix - m.start_unix;
	if (last->start_unix - first->start_unix > 0.1)
		m.warnings.push_back(format("starts %.3f s apart (%s first, %s last): the rate while all ran is the one to compare",
					    last->start_unix - first->start_unix, first->source.c_str(), last->source.c_str()));
	m.together = runs.size() > 1 && m.together_end > m.together_start;
	if (runs.size() == 1) {
		m.together = m.seconds > 0;
		m.together_bytes = static_cast<double>(m.bytes);
	} else if (m.together) {
		for (const HostRun &r : runs)
			m.together_bytes += bytes_between(r, m.together_start, m.together_end, m.from_timelines);
	}
	return m;
}

// The header's account of the test, from the first input's options.
std::string describe_options(const Json &o)
{
	std::string s = o.str("op");
	if (o.find("mix", Json::Type::number))	// -M: as the run's own header says it
		s += format(" %g%% read", o.num("mix"));
	s += " " + o.str("mode");
	if (o.find("block_size", Json::Type::number))
		s += ", " + format_bytes(json_whole(o.num("block_size"))) + " blocks";
	if (o.find("size", Json::Type::number))
		s += ", " + format_bytes(json_whole(o.num("size"))) + " per thread";
	if (o.num("time_limit") > 0)
		s += format(", %g s per thread", o.num("time_limit"));
	if (o.flag("direct")) s += ", O_DIRECT";
	if (o.flag("sync")) s += ", O_SYNC";
	if (o.flag("cached")) s += ", cached";
	if (o.num("queue_depth", 1) > 1) s += format(", queue depth %.0f", o.num("queue_depth"));
	if (o.num("fsync") > 0) s += format(", fdatasync every %g write%s", o.num("fsync"), o.num("fsync") == 1 ? "" : "s");
	if (o.num("ramp") > 0) s += format(", %g s ramp first (not counted)", o.num("ramp"));
	if (o.flag("verify")) s += ", --verify";
	return s;
}

std::string run_label(const HostRun &r, bool files)
{
	if (!files)
		return r.source;
	return (r.host.empty() ? "?" : printable(r.host)) + " (" + r.source + ")";
}

void print_merged_human(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m, bool files)
{
	std::fprintf(out, "sdb %s: %zu %s merged: %s%s\n", SDB_VERSION, runs.size(),
		     files ? (runs.size() == 1 ? "result" : "results") : (runs.size() == 1 ? "host" : "hosts"),
		     describe_options(runs[0].options).c_str(),
		     std::any_of(m.warnings.begin(), m.warnings.end(),
				 [](const std::string &w) { return w.rfind("options differ", 0) == 0; })
			     ? " (options differ: see the warnings)"
			     : "");
	for (const HostRun &r : runs) {
		std::string p99 = r.histogram ? format_ns(r.latency.percentile(0.99)) : r.p99 ? format_ns(*r.p99) : "-";
		std::fprintf(out, "Host %s: %u thread%s, %.6f seconds -> %s, %.2f IOPS, p99 %s%s\n", run_label(r, files).c_str(),
			     r.threads, r.threads == 1 ? "" : "s", r.seconds, format_rate(rate(r.bytes, r.seconds)).c_str(),
			     rate(r.ops, r.seconds), p99.c_str(), r.interrupted ? " (interrupted)" : "");
	}
	std::fprintf(out, "Total (%zu %s%s, %u thread%s): %.6f seconds -> %s, %.2f IOPS in %" PRIu64 " loops, %s\n",
		     runs.size(), files ? "result" : "host", runs.size() == 1 ? "" : "s", m.threads, m.threads == 1 ? "" : "s", m.seconds,
		     format_rate(rate(m.bytes, m.seconds)).c_str(), rate(m.ops, m.seconds), m.ops,
		     format_bytes(m.bytes).c_str());
	for (int k = 0; m.mix && k < 2; k++)	// as a mix's own Total gives them, without latency (not kept apart)
		std::fprintf(out, "           %s  %5.1f%%: %s, %.2f IOPS\n", k ? "write" : "read ",
			     m.ops ? 100.0 * static_cast<double>(m.side_ops[k]) / static_cast<double>(m.ops) : 0.0,
			     format_rate(rate(m.side_bytes[k], m.seconds)).c_str(), rate(m.side_ops[k], m.seconds));
	if (runs.size() > 1) {
		if (m.together)
			std::fprintf(out, "All running: %.6f seconds -> %s (%s)\n", m.together_end - m.together_start,
				     format_rate(m.together_bytes / (m.together_end - m.together_start)).c_str(),
				     m.from_timelines ? "from the timelines" : "some at their mean rate: no timeline times");
		else
			std::fprintf(out, "All running: never (the windows do not overlap)\n");
	}
	if (m.with_latency)
		std::fprintf(out, "Latency (merged histograms, %" PRIu64 " I/Os): min %s, avg %s, p50 %s, p99 %s, p99.9 %s, max %s\n",
			     m.latency.count(), format_ns(m.latency.min()).c_str(), format_ns(m.latency.mean()).c_str(),
			     format_ns(m.latency.percentile(0.5)).c_str(), format_ns(m.latency.percentile(0.99)).c_str(),
			     format_ns(m.latency.percentile(0.999)).c_str(), format_ns(m.latency.max()).c_str());
}

// A merged mix's reads (k = 0) or writes (1) over the union of the
// windows, as a run's total.read and total.write but for the latency,
// which the documents keep for both sides together only; else null.
std::string merged_side(const Merged &m, int k)
{
	if (!m.mix)
		return "null";
	return format("{\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"bytes_per_second\": %s, \"iops\": %s}",
		      m.side_bytes[k], m.side_ops[k], json_number(rate(m.side_bytes[k], m.seconds)).c_str(),
		      json_number(rate(m.side_ops[k], m.seconds)).c_str());
}

void print_merged_json(std::FILE *out, const std::vector<HostRun> &runs, const Merged &m,
		       const std::vector<std::string> &errors, bool interrupted)
{
	std::string doc = format("{\"version\": %s", json_string(SDB_VERSION).c_str());
	doc += ",\n \"options\": " + (runs.empty() ? std::string("{}") : json_dump(runs[0].options));
	doc += ",\n \"hosts\": [";
	for (std::size_t i = 0; i < runs.size(); i++) {
		const HostRun &r = runs[i];
		doc += format("%s{\"source\": %s, \"host\": %s, \"threads\": %u, \"start_unix\": %s, \"end_unix\": %s, "
			      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %s, "
			      "\"bytes_per_second\": %s, \"iops\": %s}, \"latency_ns\": %s, \"histogram\": %s, \"interrupted\": %s, "
			      "\"error\": %s}",
			      i ? ",\n  " : "\n  ", json_string(r.source).c_str(), json_string_or_null(r.host).c_str(), r.threads,
			      r.windowed ? json_number(r.start_unix).c_str() : "null",
			      r.windowed ? json_number(r.end_unix).c_str() : "null", r.bytes, r.ops,
			      json_number(r.seconds).c_str(), json_number(rate(r.bytes, r.seconds)).c_str(),
			      json_number(rate(r.ops, r.seconds)).c_str(), r.histogram ? json_latency(r.latency).c_str() : "null",
			      r.histogram ? json_histogram(r.latency).c_str() : "null", json_bool(r.interrupted).c_str(), json_string_or_null(r.error).c_str());
	}
	std::string together = "null";
	if (m.together)
		together = format("{\"start_unix\": %s, \"end_unix\": %s, \"seconds\": %s, \"bytes\": %.0f, "
				  "\"bytes_per_second\": %s, \"from\": \"%s\"}",
				  json_number(m.together_start).c_str(), json_number(m.together_end).c_str(),
				  json_number(m.together_end - m.together_start).c_str(), m.together_bytes,
				  json_number(m.together_bytes / (m.together_end - m.together_start)).c_str(),
				  m.from_timelines ? "timeline" : "mean");
	doc += format("],\n \"total\": {\"hosts\": %zu, \"threads\": %u, \"bytes\": %" PRIu64 ", \"ops\": %" PRIu64
		      ", \"seconds\": %s, \"bytes_per_second\": %s, \"iops\": %s, \"start_unix\": %s, \"end_unix\": %s, "
		      "\"all_running\": %s, \"read\": %s, \"write\": %s, \"latency_ns\": %s,\n  \"histogram\": %s}",
		      runs.size(), m.threads, m.bytes, m.ops, json_number(m.seconds).c_str(),
		      json_number(rate(m.bytes, m.seconds)).c_str(), json_number(rate(m.ops, m.seconds)).c_str(),
		      json_number(m.start_unix).c_str(), json_number(m.end_unix).c_str(), together.c_str(),
		      merged_side(m, 0).c_str(), merged_side(m, 1).c_str(),
		      m.with_latency ? json_latency(m.latency).c_str() : "null", json_histogram(m.latency).c_str());
	doc += ",\n \"warnings\": " + json_warnings(m.warnings);
	doc += ",\n \"errors\": " + json_warnings(errors);
	doc += format(",\n \"interrupted\": %s}\n", json_bool(interrupted).c_str());
	std::fputs(doc.c_str(), out);
}

// The merged report of what loaded; the errors (one line each) were
// printed already.
void report_merged(std::FILE *out, std::vector<HostRun> &runs, const std::vector<std::string> &errors, bool json,
		   bool files, bool interrupted)
{
	if (runs.empty())
		return;
	Merged m = merge_runs(runs);
	emit_warnings(m.warnings);
	json ? print_merged_json(out, runs, m, errors, interrupted) : print_merged_human(out, runs, m, files);
	if (interrupted && !json)
		std::fprintf(out, "Interrupted: the results above are partial\n");
	flush_output(out);
}

// sdb --merge FILE...: every input that loads is merged; each that does
// not is one error line, and the exit status is 1.
int run_merge(const Options &opt, std::FILE *out)
{
	std::vector<HostRun> runs;
	std::vector<std::string> errors;
	auto failed = [&](const Error &e) {
		print_error(e);
		errors.push_back(e.msg);
	};
	for (const std::string &file : opt.merge_files) {
		std::string text;
		if (Error e = read_input(file, text)) {
			failed(e);
			continue;
		}
		// A file may hold several documents one after another: FILE#2 is
		// the second.
		JsonParser parser(text);
		std::vector<HostRun> found;
		Json doc;
		bool foreign = false;
		while (!foreign && parser.parse_next(doc)) {
			HostRun r;
			r.source = input_name(file);
			if (Error e = load_run(doc, r.source, r)) {
				failed(e);
				foreign = true;
			}
			found.push_back(std::move(r));
			doc = Json();
		}
		if (foreign)
			continue;
		if (!*parser.what() && found.empty()) {
			failed(runtime_error("%s: empty: no sdb result in it", input_name(file).c_str()));
			continue;
		}
		if (*parser.what()) {
			failed(json_syntax_error(file, parser));
			continue;
		}
		for (std::size_t i = 0; found.size() > 1 && i < found.size(); i++)
			found[i].source += format("#%zu", i + 1);
		for (HostRun &r : found)
			runs.push_back(std::move(r));
	}
	report_merged(out, runs, errors, opt.json, true, false);
	// A run that failed after it started (a bad --verify, an I/O error) is
	// merged and warned about, and fails the merge as --hosts fails.
	bool any_failed = std::any_of(runs.begin(), runs.end(), [](const HostRun &r) { return !r.error.empty(); });
	return errors.empty() && !any_failed ? exit_ok : exit_runtime;
}

// A word for the remote shell: single-quoted, each ' as '\''.
std::string shell_quote(std::string_view s)
{
	std::string out = "'";
	for (char c : s)
		out += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return out + "'";
}

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
	int out = -1, err = -1;		// read ends of its stdout and stderr
	std::string out_text, err_text;
	int status = -1;		// waitpid's, once reaped
	Error spawn_error;
};

// ssh HOST 'COMMAND' in a session of its own (no terminal: no prompt, and
// Ctrl-C reaches sdb alone), signals unblocked and at their defaults,
// stdin /dev/null, stdout and stderr to pipes.
Error spawn_remote(Remote &r, const std::vector<std::string> &ssh, const std::string &command, const sigset_t &mask)
{
	int out[2], err[2];
	if (pipe2(out, O_CLOEXEC) != 0)
		return sys_error(errno, "pipe");
	if (pipe2(err, O_CLOEXEC) != 0) {
		int e = errno;
		close(out[0]);
		close(out[1]);
		return sys_error(e, "pipe");
	}
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
	posix_spawn_file_actions_adddup2(&actions, out[1], 1);
	posix_spawn_file_actions_adddup2(&actions, err[1], 2);
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
	close(out[1]);
	close(err[1]);
	if (rc != 0) {
		close(out[0]);
		close(err[0]);
		r.pid = -1;
		return sys_error(rc, "cannot run %s", ssh[0].c_str());
	}
	r.out = out[0];
	r.err = err[0];
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
			if (r.out >= 0)
				fds.push_back({r.out, POLLIN, 0}), owners.push_back({&r, true});
			if (r.err >= 0)
				fds.push_back({r.err, POLLIN, 0}), owners.push_back({&r, false});
		}
		for (Remote &r : remotes)
			if (r.pid > 0 && r.status < 0 && r.out < 0 && r.err < 0) {
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
				for (int *fd : {&r.out, &r.err})
					if (*fd >= 0)
						close(*fd), *fd = -1;
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
			int &fd = owners[k].second ? r.out : r.err;
			std::string &text = owners[k].second ? r.out_text : r.err_text;
			char chunk[65536];
			ssize_t n = read(fd, chunk, sizeof chunk);
			if (n > 0 && text.size() < 256 * MiB)
				text.append(chunk, static_cast<std::size_t>(n));
			else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				close(fd), fd = -1;
		}
	}
}

// sdb --hosts HOST[:PATH],... plus a run's options: the run on every host
// at once over ssh, then merged as --merge merges.
int run_hosts(const Options &opt, std::FILE *out)
{
	SignalScope scope;
	if (!scope.ok()) {
		print_error(sys_error(errno, "signalfd/eventfd"));
		return exit_runtime;
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
	collect_remotes(remotes, scope.waiter.signal_fd, received);
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

// ------------------------------------------------------------ 14. run, main

// The program proper; returns the exit status.  Order: plan (every check
// that needs no file to be touched), buffers, workers (prepare, barrier,
// timed loop), then the report.
[[maybe_unused]] int run(const Options &opt, std::FILE *out)
{
	std::signal(SIGXFSZ, SIG_IGN);	// past RLIMIT_FSIZE: an EFBIG error to report, not a kill
	raise_fd_limit();
	if (opt.merge)
		return run_merge(opt, out);
	if (!opt.hosts.empty())
		return run_hosts(opt, out);
	if (opt.explain)
		return opt.quick ? explain_quick(opt, out) : explain_run(opt, out);
	if (opt.quick)
		return run_quick(opt, out);
	if (opt.op == Options::Op::none)
		return run_memory_only(opt, out);
	SignalScope scope;
	if (!scope.ok()) {
		print_error(sys_error(errno, "signalfd/eventfd"));
		return exit_runtime;
	}
	g_stop.store(false);

	Plan plan;
	Report report;
	Error error = make_plan(opt, plan);
	std::vector<std::unique_ptr<Buffer>> buffers;
	if (!error && opt.timing) {
		report.memory = time_memory(plan.block_size, &scope.waiter);
		if (report.memory->bytes == 0)
			error = runtime_error("-T: cannot allocate memory for the timing buffers");
		else if (scope.waiter.received)
			error = scope.waiter.interruption("while timing memory (-T)");
		else
			report.warnings = memory_warnings(*report.memory);
	}
	if (!error)
		error = allocate_buffers(plan, buffers, [&](const char *when) { return scope.waiter.stopped(when); },
					 report.fill_seconds);
	if (error) {
		print_error(error);
		return error.status;
	}

	std::vector<std::string> early = target_warnings(plan);
	early.insert(early.end(), report.warnings.begin(), report.warnings.end());	// -T's
	emit_warnings(early);
	Execution ex;
	execute(plan, RunId{}, buffers, scope.waiter, ex);
	if (ex.result.start_late_ns > 1000000000) {	// told at once, kept with the early warnings
		std::vector<std::string> late = {format(
			"--start-at: the time was %.3f s past when the threads were ready; the run started at once",
			ex.result.start_late_ns / 1e9)};
		emit_warnings(late);
		early.push_back(late[0]);
	}
	if (opt.verify)
		report.verify = check_written(plan, ex, scope.waiter);
	const Shared &shared = ex.shared;
	const RunResult &result = ex.result;
	error = ex.error;
	if (!error && report.verify && report.verify->bad && !result.interrupted)
		error = verify_failure(*report.verify);

	report.plan = &plan;
	report.ex = &ex;
	if (opt.verbose)
		report.env = describe(plan, *buffers[0]);
	if (ran_any(shared)) {	// no warnings about a run that never happened
		report.verdict = judge(plan, ex);
		if (!report.memory && suspicious(plan, *report.verdict, rate(ex.totals.bytes, ex.totals.wall)))
			report.memory = copy_ceiling(*buffers[0]);
		report.warnings = plausibility(plan, shared, report.memory ? &*report.memory : nullptr);
		for (std::string &w : verdict_warnings(plan, *report.verdict))
			report.warnings.push_back(std::move(w));
	}
	if (!opt.timing)
		report.memory.reset();
	emit_warnings(report.warnings);
	report.warnings.insert(report.warnings.begin(), early.begin(), early.end());
	report.error = error.msg;
	if (ran_any(shared) || result.interrupted) {
		opt.json ? print_json(out, report) : print_human(out, report);
		flush_output(out);
	}
	if (error) {
		print_error(error);
		return error.status;
	}
	return result.interrupted ? scope.waiter.exit_status() : exit_ok;
}

// Parse, then help, version or run(); every byte meant for stdout must
// have arrived there, or the exit status says it did not.
[[maybe_unused]] int sdb_main(int argc, char *argv[])
{
	Parsed p = parse_args(argc, argv);
	if (p.error) {
		print_error(p.error);
		return p.error.status;
	}
	if (!isatty(1))	// the report leaves in one write, whose errno is kept
		std::setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
	int status = exit_ok;
	if (p.action == Action::help)
		std::fputs(usage_text, stdout);
	else if (p.action == Action::version)
		std::puts("sdb " SDB_VERSION);
	else
		status = run(p.opt, stdout);
	flush_output(stdout);
	if ((g_output_errno || std::ferror(stdout)) && status < 128) {	// not when a signal (SIGPIPE) ended it
		print_error(sys_error(g_output_errno ? g_output_errno : EIO, "write: standard output"));
		return exit_runtime;
	}
	return status;
}

} // namespace

#ifndef SDB_NO_MAIN
int main(int argc, char *argv[])
{
	try {
		return sdb_main(argc, argv);
	} catch (const std::bad_alloc &) {	// a message without allocating
		std::fputs("sdb: out of memory\n", stderr);
		return exit_runtime;
	}
}
#endif
