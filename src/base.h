// base: what every module stands on.  Owns the Error value (an exit status
// and a one-line message: usage_error, sys_error, runtime_error) and its
// printing; printable() for names on a terminal; SIZE parsing and the IEC
// formatting of sizes, rates and times; the two clocks (now_ns for every
// duration, realtime_ns for Unix times); Fd, a descriptor that closes itself;
// replace_whole, an output file written aside and renamed into place.
#pragma once

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SDB_VERSION
#define SDB_VERSION "unknown"
#endif

namespace {

// Exit statuses; 128 + n: ended by signal n.  exit_regression: --compare
// --fail-slower found a test slower than it allows.
enum : int { exit_ok = 0, exit_runtime = 1, exit_usage = 2, exit_regression = 3 };

// The mark sdb leaves on the files it creates (an extended attribute,
// where the file system keeps them): it rewrites those freely, and empty
// files, and nothing else without --force.
constexpr char owner_xattr[] = "user.sdb";
// And on a file a --verify write finished: the bytes it wrote, from 0, in
// decimal; a later --verify read checks that much (a truncated file shows).
constexpr char verify_xattr[] = "user.sdb.verify";

// An error travels up as a value; the mode that ran prints it as one line
// (print_error) and returns its status.
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

// A word for a POSIX shell: single-quoted, each ' as '\'', so that the
// shell takes it back byte for byte, whatever it holds.
std::string shell_quote(std::string_view s)
{
	std::string out = "'";
	for (char c : s)
		out += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return out + "'";
}

void print_error(const Error &e)
{
	std::fprintf(stderr, "sdb: %s\n", one_line(e.msg).c_str());
}

constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// The largest offset a file or device can have (off_t).
constexpr std::uint64_t max_offset = INT64_MAX;

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

// A plain whole number in [lo, hi] (counts, a percentage).
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

// An output file (--html's page, --prom's metrics) replaced whole: text
// written to PATH.sdb-tmp, marked as sdb's (owner_xattr = mark, where the
// file system keeps attributes), synced and renamed over PATH, so that a
// reader sees the old file or the new, never half of either.  what: the
// option, for messages.
Error replace_whole(const char *what, const std::string &path, const std::string &text, const char *mark)
{
	struct stat st {};
	if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
		return runtime_error("%s %s: not a regular file: refusing to replace it", what, path.c_str());
	std::string temp = path + ".sdb-tmp";
	Fd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
	if (!fd)
		return sys_error(errno, "%s: %s", what, temp.c_str());
	fsetxattr(fd.get(), owner_xattr, mark, std::strlen(mark), 0);	// where it fails, the file's own first lines tell it as sdb's
	ssize_t n = write(fd.get(), text.data(), text.size());
	if (n != static_cast<ssize_t>(text.size()) || fsync(fd.get()) != 0) {
		Error e = sys_error(n < 0 ? errno : EIO, "%s: write: %s", what, temp.c_str());
		unlink(temp.c_str());
		return e;
	}
	if (rename(temp.c_str(), path.c_str()) != 0) {
		Error e = sys_error(errno, "%s: rename: %s", what, path.c_str());
		unlink(temp.c_str());
		return e;
	}
	return {};
}

} // namespace
