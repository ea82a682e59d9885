// load: sdb's --json documents read back for --merge, --compare and
// --html.  read_input (a file or standard input, interruptible through a
// SignalScope's Waiter, signals.h), the inputs as they come (load_inputs:
// plain, one after another as srun gathers them, behind pdsh/clush
// "host: " prefixes, or inside Ansible --tree files), one document into a
// HostRun (load_run, every count checked), and the histograms lifted out
// of the text before it is parsed (lift_histograms), kept as their
// non-empty Buckets, so that memory grows with what is kept.
#pragma once

#include "base.h"
#include "signals.h"
#include "json.h"
#include "options.h"
#include "stats.h"
#include "fleet.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Standard input or a file, whole; documents are small (a histogram bucket
// per line at most), so anything over 256 MiB is not one.  A signal (seen
// by waiter, when given) ends the read.
Error read_input(const std::string &file, std::string &text, Waiter *waiter = nullptr)
{
	Fd owned;
	int fd = 0;
	if (file != "-") {	// not held in open(2) by a FIFO with no writer yet: the poll below waits, and a signal ends it
		owned = Fd(open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
		if (!owned)
			return sys_error(errno, "%s", printable(file).c_str());
		fd = owned.get();
		if (int flags = fcntl(fd, F_GETFL); flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
			return sys_error(errno, "%s", printable(file).c_str());
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= static_cast<off_t>(256 * MiB))
		text.reserve(static_cast<std::size_t>(st.st_size));	// no doubling: the text is most of what is held
	char chunk[65536];
	for (;;) {
		if (waiter) {
			pollfd fds[2] = {{fd, POLLIN, 0}, {waiter->signal_fd(), POLLIN, 0}};
			if (poll(fds, 2, -1) < 0 && errno != EINTR)
				return sys_error(errno, "poll");
			if (waiter->interrupted())
				return runtime_error("%s: interrupted while reading it", input_name(file).c_str());
		}
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

// A histogram as kept: its non-empty buckets, (index, count).
using Buckets = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

// Every "histogram": [[low, high, count], ...] of sdb's own buckets in the
// text replaced, in place, by a marker string ("\u0000H" and its number in
// side): parsed whole, a bucket of 20 bytes became four JSON values of
// 100 bytes each (a 20 MB document took 1.6 GB).  A histogram that is not
// plainly sdb's stays in the text, for load_run to name what is wrong.
struct Lifted {
	std::vector<Buckets> side;
	std::vector<std::pair<std::size_t, std::size_t>> moves;	// (offset in the text after a marker, bytes removed so far)

	// An offset in the lifted text as the offset in the input, for messages.
	std::size_t input_offset(std::size_t at) const
	{
		std::size_t removed = 0;
		for (const auto &m : moves)
			if (m.first <= at)
				removed = m.second;
		return at + removed;
	}
};

// [[low, high, count], ...] at s[i]: whole numbers only, buckets of sdb's;
// false (and nothing taken) for anything else.
bool lift_one(std::string_view s, std::size_t &i, Buckets &out)
{
	std::size_t k = i;
	auto skip = [&] {
		while (k < s.size() && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r'))
			k++;
	};
	auto expect = [&](char c) {
		skip();
		if (k >= s.size() || s[k] != c)
			return false;
		k++;
		return true;
	};
	auto whole = [&](std::uint64_t &v) {
		skip();
		std::size_t from = k;
		v = 0;
		while (k < s.size() && s[k] >= '0' && s[k] <= '9') {
			unsigned d = static_cast<unsigned>(s[k] - '0');
			if (k - from >= 19 && v > (UINT64_MAX - d) / 10)	// 19 digits always fit in 64 bits
				return false;
			v = v * 10 + d;
			k++;
		}
		return k > from && (k - from == 1 || s[from] != '0');
	};
	if (!expect('['))
		return false;
	skip();
	if (k < s.size() && s[k] == ']') {
		i = k + 1;
		return true;
	}
	std::size_t first = out.size();
	for (;;) {
		std::uint64_t low, high, count;
		if (!expect('[') || !whole(low) || !expect(',') || !whole(high) || !expect(',') || !whole(count) || !expect(']')) {
			out.resize(first);
			return false;
		}
		unsigned b = Histogram::index(low);
		if (Histogram::low(b) != low || Histogram::high(b) != high) {
			out.resize(first);
			return false;
		}
		if (count)
			out.push_back({b, count});
		skip();
		if (k < s.size() && s[k] == ',') {
			k++;
			continue;
		}
		if (!expect(']')) {
			out.resize(first);
			return false;
		}
		i = k;
		return true;
	}
}

Lifted lift_histograms(std::string &text)
{
	Lifted l;
	std::string_view s = text;
	std::size_t i = 0, copied = 0, written = 0;	// written <= copied <= i: the text shrinks behind the scan
	auto space = [&](std::size_t &k) {
		while (k < s.size() && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r'))
			k++;
	};
	// memchr, not a loop a byte at a time: 10,000 documents are 150 MB
	// of text, and this scan was a quarter of a merge's time.
	auto find = [&](char c, std::size_t from) {
		const void *p = from < s.size() ? std::memchr(s.data() + from, c, s.size() - from) : nullptr;
		return p ? static_cast<std::size_t>(static_cast<const char *>(p) - s.data()) : s.size();
	};
	while (i < s.size()) {
		i = find('"', i);
		if (i >= s.size())
			break;
		std::size_t j = find('"', i + 1);
		while (j < s.size() && s[j - 1] == '\\') {	// an escaped quote, unless the backslash is itself escaped
			std::size_t slashes = 0;
			for (std::size_t b = j; b > i + 1 && s[b - 1] == '\\'; b--)
				slashes++;
			if (slashes % 2 == 0)
				break;
			j = find('"', j + 1);
		}
		if (j >= s.size())
			break;
		bool key = j - i == 10 && s.compare(i, 11, "\"histogram\"") == 0;
		i = j + 1;
		std::size_t k = i;
		space(k);
		if (!key || k >= s.size() || s[k] != ':')
			continue;
		k++;
		space(k);
		std::size_t end = k;
		Buckets b;
		std::string marker = format("\"\\u0000H%zu\"", l.side.size());
		if (!lift_one(s, end, b) || end - k <= marker.size())
			continue;
		std::memmove(&text[written], &text[copied], k - copied);
		written += k - copied;
		std::memcpy(&text[written], marker.data(), marker.size());
		written += marker.size();
		l.side.push_back(std::move(b));
		l.moves.push_back({written, end - written});
		copied = i = end;
	}
	std::memmove(&text[written], &text[copied], s.size() - copied);
	text.resize(written + s.size() - copied);
	return l;
}

// One input to a merge: a document (--merge) or a host's run (--hosts).
struct HostRun {
	std::string source;		// the file, or HOST[:PATH]
	std::string host;		// the document's "host"
	std::string version;		// the sdb that wrote it
	std::optional<std::uint64_t> rank;	// the launcher's rank, where the document has one
	Json options;
	unsigned threads = 0;
	std::uint64_t bytes = 0, ops = 0;
	double seconds = 0;
	bool windowed = false;		// start_unix and end_unix given
	double start_unix = 0, end_unix = 0;
	bool histogram = false;		// latency: the threads' merged histograms
	Buckets latency;		// their non-empty buckets
	std::string latency_json;	// its latency_ns summary
	std::optional<std::uint64_t> p99;	// from the histogram, or a single thread's p99 without one
	std::uint64_t latency_ios = 0, latency_ns = 0;	// the histogram's I/Os and (midpoint) nanoseconds, both < 2^64
	struct Step {
		double end_unix, seconds, bytes_per_second;
	};
	std::vector<Step> timeline;	// only with timeline[].unix; its last partial step included
	bool mix = false;		// -M: total.read and total.write given
	std::uint64_t side_bytes[2] = {0, 0}, side_ops[2] = {0, 0};	// [0]: reads, [1]: writes
	bool side_histograms = false;	// a mix whose total.read and total.write have their histograms
	Buckets side_latency[2];	// their non-empty buckets
	struct DeviceView {
		bool present = false;
		std::string json;	// the document's device object, as is
		std::string name, limit, reason;
		std::optional<double> delivered;
		bool verified = false;
	} device;
	struct SteadyView {		// --steady's result: its "steady" object
		bool present = false;
		std::string json;	// as is, for hosts[].steady
		std::string variable;	// "bw", "iops" or "lat"
		bool steady = false;
		std::size_t first = 0, last = 0;	// the window's rounds, from 1 (steady)
		double average = 0;	// of the variable over the window
		std::size_t rounds = 0;	// rounds run
		std::optional<std::size_t> left_at;	// from 1
		bool fleet = false;	// a merged document's fleet_steady: no window; average, its value
	} steady;
	std::vector<std::string> parts;	// identities: its own, and a merged document's inputs'
	bool interrupted = false;
	std::vector<std::string> warnings;
	std::string error;
};

// A host that gave no document (--hosts): as the JSON lists it.
struct FailedHost {
	std::string label;
	int exit = 1;			// its ssh's exit status; -1: none (killed, or never started)
	std::string error;
};

// A count shown, not summed (a merged document's inputs' identities, the
// header's sizes): one below 1 or past 64 bits is 0.
std::uint64_t json_whole(double v) { return v >= 1 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; }

// A number as an error quotes it: 1e+300, -5, "many".
std::string quoted(const Json &v)
{
	return v.type == Json::Type::number ? format("%.17g", v.number) : json_dump(v);
}

// A count the document gives (bytes, I/Os, a bucket's I/Os): a whole number
// from 0 below 2^64.  Anything else (negative, fractional, past 64 bits) is
// an error naming the file and the field, never a silent 0.
Error count_field(const Json &obj, const char *key, const std::string &name, const std::string &field,
		  std::uint64_t &out)
{
	const Json *v = obj.find(key);
	if (!v || v->type == Json::Type::null)
		return {};
	if (v->type != Json::Type::number || v->number < 0 || v->number != std::floor(v->number) ||
	    v->number >= 18446744073709551616.0)
		return runtime_error("%s: %s: %s is not a count (a whole number from 0 below 2^64)", name.c_str(),
				     field.c_str(), quoted(*v).c_str());
	out = static_cast<std::uint64_t>(v->number);
	return {};
}

// An object that gives a key twice says two things of one figure (JSON
// leaves which one counts to the reader): an error naming the key, never
// a silent choice.  Sorted, not compared pair by pair: an object of a
// million keys is checked in a moment.
Error unique_keys(const Json &obj, const std::string &name, const std::string &field)
{
	std::vector<std::string_view> keys;
	keys.reserve(obj.members.size());
	for (const auto &m : obj.members)
		keys.push_back(m.first);
	std::sort(keys.begin(), keys.end());
	auto twice = std::adjacent_find(keys.begin(), keys.end());
	if (twice == keys.end())
		return {};
	return runtime_error("%s: %s: the key %s is given twice", name.c_str(), field.c_str(),
			     json_string(*twice).c_str());
}

// A duration or a time: a finite number from 0.
Error seconds_field(const Json &obj, const char *key, const std::string &name, const std::string &field, double &out)
{
	const Json *v = obj.find(key);
	if (!v || v->type == Json::Type::null)
		return {};
	if (v->type != Json::Type::number || v->number < 0)
		return runtime_error("%s: %s: %s is not a time in seconds (a number from 0)", name.c_str(), field.c_str(),
				     quoted(*v).c_str());
	out = v->number;
	return {};
}

// n I/Os of bucket i onto h, and into the run's tally, which stays below
// 2^64 I/Os and 2^64 ns (past either the Histogram's sums wrap: "avg 0 ns").
Error add_bucket_checked(HostRun &r, Buckets &h, unsigned i, std::uint64_t n, const std::string &name,
			 const std::string &field)
{
	std::uint64_t mid = Histogram::midpoint(i), ns = 0, ios = 0, sum = 0;	// overflow checks without a division
	if (__builtin_add_overflow(r.latency_ios, n, &ios) || __builtin_mul_overflow(mid, n, &ns) ||
	    __builtin_add_overflow(r.latency_ns, ns, &sum))
		return runtime_error("%s: %s: the bucket counts add up past 64 bits (%s I/Os, or their latency past 2^64 ns): "
				     "not a run's", name.c_str(), field.c_str(), format("%.3g", static_cast<double>(r.latency_ios) + static_cast<double>(n)).c_str());
	r.latency_ios = ios;
	r.latency_ns = sum;
	if (n)
		h.push_back({i, n});
	return {};
}

// A histogram value onto h: a lifted one (its marker) or [[low, high, count], ...].
Error add_histogram(const Json &value, const std::vector<Buckets> &side, HostRun &r, Buckets &h,
		    const std::string &name, const std::string &field)
{
	if (value.type == Json::Type::string && value.text.size() > 2 && value.text[0] == '\0' && value.text[1] == 'H') {
		std::size_t k = std::strtoul(value.text.c_str() + 2, nullptr, 10);
		if (k >= side.size())
			return runtime_error("%s: %s: not a histogram", name.c_str(), field.c_str());
		h.reserve(h.size() + side[k].size());
		for (const auto &b : side[k])
			if (Error e = add_bucket_checked(r, h, b.first, b.second, name, field))
				return e;
		return {};
	}
	if (value.type != Json::Type::array)
		return runtime_error("%s: %s: not a histogram ([[low_ns, high_ns, count], ...])", name.c_str(), field.c_str());
	for (std::size_t j = 0; j < value.items.size(); j++) {
		const Json &b = value.items[j];
		std::string at = format("%s[%zu]", field.c_str(), j);
		bool ok = b.type == Json::Type::array && b.items.size() == 3;
		for (std::size_t k = 0; ok && k < 3; k++)
			ok = b.items[k].type == Json::Type::number;
		if (!ok)
			return runtime_error("%s: %s: a histogram bucket is not [low_ns, high_ns, count]", name.c_str(), at.c_str());
		std::uint64_t low = 0, high = 0, count = 0;
		Json holder;	// count_field reads an object's key
		holder.type = Json::Type::object;
		holder.members = {{"low", b.items[0]}, {"high", b.items[1]}, {"count", b.items[2]}};
		for (auto [key, out] : {std::pair<const char *, std::uint64_t *>{"low", &low}, {"high", &high}, {"count", &count}})
			if (Error e = count_field(holder, key, name, at + "." + key, *out))
				return e;
		unsigned i = Histogram::index(low);
		if (Histogram::low(i) != low || Histogram::high(i) != high)
			return runtime_error("%s: %s: histogram bucket [%" PRIu64 ", %" PRIu64 "] is not one of sdb's buckets",
					     name.c_str(), at.c_str(), low, high);
		if (Error e = add_bucket_checked(r, h, i, count, name, at))
			return e;
	}
	return {};
}

// A histogram value as printed (not lifted) into h, with load_run's
// checks: for --compare and --html, which keep one histogram a document.
Error histogram_of(const Json &value, const std::string &name, const std::string &field, Histogram &h)
{
	HostRun r;
	Buckets b;
	if (Error e = add_histogram(value, {}, r, b, name, field))
		return e;
	for (auto [i, n] : b)
		h.add_bucket(i, n);
	return {};
}

// Buckets in any order, some twice (the threads'), as one sorted list.
void coalesce(Buckets &b)
{
	// One thread's buckets come sorted already: no sort for them.
	if (!std::is_sorted(b.begin(), b.end()))
		std::sort(b.begin(), b.end());
	std::size_t out = 0;
	for (std::size_t i = 0; i < b.size(); i++)
		if (out && b[out - 1].first == b[i].first)
			b[out - 1].second += b[i].second;
		else
			b[out++] = b[i];
	b.resize(out);
}

// The value at or below which a fraction q of a sorted, coalesced list's
// I/Os lie, exactly as Histogram::percentile gives it of the same buckets
// (a document's own summary without a 59 KB Histogram each).
std::uint64_t bucket_percentile(const Buckets &b, std::uint64_t count, double q)
{
	if (b.empty())
		return 0;
	std::uint64_t lo = Histogram::low(b.front().first), hi = Histogram::high(b.back().first);
	auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count)));
	if (rank >= count)
		return hi;
	rank = std::max<std::uint64_t>(rank, 1);
	std::uint64_t seen = 0;
	for (const auto &x : b) {
		seen += x.second;
		if (seen >= rank)
			return std::clamp(Histogram::midpoint(x.first), lo, hi);
	}
	return hi;
}

// json_latency of the same buckets.
std::string json_latency_of(const Buckets &b, std::uint64_t count, std::uint64_t sum_ns)
{
	return format("{\"min\": %" PRIu64 ", \"mean\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
		      ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		      b.empty() ? 0 : Histogram::low(b.front().first), count ? sum_ns / count : 0, bucket_percentile(b, count, 0.5),
		      bucket_percentile(b, count, 0.9), bucket_percentile(b, count, 0.99), bucket_percentile(b, count, 0.999),
		      b.empty() ? 0 : Histogram::high(b.back().first));
}

std::string json_buckets(const Buckets &b)
{
	std::string s = "[";
	auto put = [&](std::uint64_t v) {	// to_chars, not printf: 10000 hosts' buckets are millions of numbers
		char digits[24];
		s.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, v).ptr - digits));
	};
	for (const auto &x : b) {
		s += s.size() > 1 ? ", [" : "[";
		put(Histogram::low(x.first));
		s += ", ";
		put(Histogram::high(x.first));
		s += ", ";
		put(x.second);
		s += ']';
	}
	return s + "]";
}

// Who a document is: its host, its start to the microsecond, its bytes and
// I/Os.  Two inputs with one identity are one run given twice.
std::string identity(const std::string &host, double start_unix, std::uint64_t bytes, std::uint64_t ops)
{
	return format("%s|%.6f|%" PRIu64 "|%" PRIu64, host.c_str(), start_unix, bytes, ops);
}

// The timeline: each step's rate, placed in Unix time, and the last partial
// step (after the last sample, up to the window's end, and the final
// fdatasync) from what the steps leave of the total.
Error load_timeline(const Json &doc, const std::string &name, HostRun &r)
{
	const Json *tl = doc.find("timeline", Json::Type::array);
	if (!tl)
		return {};
	double last_t = 0, covered = 0;
	for (std::size_t i = 0; i < tl->items.size(); i++) {
		const Json &p = tl->items[i];
		if (!p.find("unix", Json::Type::number)) {
			r.timeline.clear();
			return {};
		}
		double t = 0, bps = 0;
		std::string field = format("timeline[%zu]", i);
		if (Error e = seconds_field(p, "t", name, field + ".t", t))
			return e;
		if (Error e = seconds_field(p, "bytes_per_second", name, field + ".bytes_per_second", bps))
			return e;
		double len = std::max(0.0, t - last_t);
		r.timeline.push_back({p.num("unix"), len, bps});
		covered += bps * len;
		last_t = std::max(last_t, t);
	}
	double rest = static_cast<double>(r.bytes) - covered, tail = r.seconds - last_t;
	if (r.timeline.empty() || rest <= 0)
		return {};
	if (tail > 1e-6)
		r.timeline.push_back({r.timeline.back().end_unix + tail, tail, rest / tail});
	else if (r.timeline.back().seconds > 0)	// no time left: the last step carries the rest
		r.timeline.back().bytes_per_second += rest / r.timeline.back().seconds;
	return {};
}

// The document's device verdict, kept for the per-host line and hosts[].device.
void load_device(const Json &doc, HostRun &r)
{
	const Json *d = doc.find("device", Json::Type::object);
	if (!d)
		return;
	r.device.present = true;
	r.device.json = json_dump(*d);
	r.device.name = d->str("name");
	r.device.limit = d->str("limit");
	r.device.reason = d->str("reason");
	r.device.verified = d->flag("verified");
	if (const Json *v = d->find("delivered", Json::Type::number))
		r.device.delivered = v->number;
}

// The document's steady state (--steady, or a merged document's
// fleet_steady), kept for the merge's fleet verdict and hosts[].steady.
// A window is two round numbers from 1.
Error load_steady(const Json &doc, const std::string &name, HostRun &r)
{
	HostRun::SteadyView &v = r.steady;
	if (const Json *f = doc.find("fleet_steady", Json::Type::object)) {	// a merge of --steady results, merged again
		v.present = v.fleet = true;
		v.json = json_dump(*f);
		v.variable = f->str("variable");
		v.steady = f->flag("steady") && f->find("value", Json::Type::number);
		v.average = f->num("value");
		return {};
	}
	const Json *st = doc.find("steady", Json::Type::object);
	if (!st)
		return {};
	v.present = true;
	v.json = json_dump(*st);
	v.variable = st->str("variable");
	v.steady = st->flag("steady");
	if (const Json *rounds = st->find("rounds", Json::Type::array))
		v.rounds = rounds->items.size();
	if (v.steady) {
		const Json *w = st->find("window", Json::Type::array);
		std::uint64_t first = 0, last = 0;
		if (!w || w->items.size() != 2 || w->items[0].type != Json::Type::number || w->items[1].type != Json::Type::number)
			return runtime_error("%s: steady.window is not two round numbers", name.c_str());
		first = json_whole(w->items[0].number);
		last = json_whole(w->items[1].number);
		if (!first || last < first || last > v.rounds)
			return runtime_error("%s: steady.window [%s, %s] is not a window of its %zu rounds", name.c_str(),
					     json_number(w->items[0].number).c_str(), json_number(w->items[1].number).c_str(), v.rounds);
		v.first = first;
		v.last = last;
		const Json *average = st->find("average", Json::Type::number);
		if (!average || !(average->number > 0) || !std::isfinite(average->number))
			return runtime_error("%s: steady.average is not a figure above 0", name.c_str());
		v.average = average->number;
	}
	if (const Json *left = st->find("left_at", Json::Type::number))
		v.left_at = json_whole(left->number);
	return {};
}

// A document's latency: its threads' histograms (a run's) or its total's
// (a merged document's), summed into one and kept as buckets.
Error load_latency(const Json &doc, const Json &total, const std::vector<Buckets> &side, const std::string &name,
		   HostRun &r)
{
	Buckets h;
	const Json *threads = doc.find("threads", Json::Type::array);
	if (threads) {
		r.histogram = !threads->items.empty();
		for (std::size_t i = 0; i < threads->items.size(); i++) {
			const Json *hist = threads->items[i].find("histogram");
			if (!hist || hist->type == Json::Type::null) {
				r.histogram = false;
				break;
			}
			if (Error e = add_histogram(*hist, side, r, h, name, format("threads[%zu].histogram", i)))
				return e;
		}
		const Json *lat = threads->items.size() == 1 ? threads->items[0].find("latency_ns", Json::Type::object) : nullptr;
		std::uint64_t p99 = 0;
		if (lat && lat->find("p99", Json::Type::number)) {
			if (Error e = count_field(*lat, "p99", name, "threads[0].latency_ns.p99", p99))
				return e;
			r.p99 = p99;
		}
	} else if (const Json *hist = total.find("histogram"); hist && hist->type != Json::Type::null) {	// a merged document
		r.histogram = true;
		if (Error e = add_histogram(*hist, side, r, h, name, "total.histogram"))
			return e;
	}
	if (!r.histogram) {
		r.latency_ios = r.latency_ns = 0;
		return {};
	}
	coalesce(h);
	r.latency = std::move(h);
	r.latency_json = json_latency_of(r.latency, r.latency_ios, r.latency_ns);
	r.p99 = bucket_percentile(r.latency, r.latency_ios, 0.99);
	return {};
}

// A mix's reads and writes apart: total.read.histogram and
// total.write.histogram (a run's threads merged, or a merged document's
// hosts), each checked as load_latency checks the Total's.  Where either
// is missing or null (an sdb before them), side_histograms stays false.
Error load_side_latency(const Json *const sides[2], const std::vector<Buckets> &side, const std::string &name, HostRun &r)
{
	const Json *hist[2] = {nullptr, nullptr};
	for (int k = 0; r.mix && k < 2; k++)
		if (const Json *h = sides[k]->find("histogram"); h && h->type != Json::Type::null)
			hist[k] = h;
	if (!hist[0] || !hist[1])
		return {};
	for (int k = 0; k < 2; k++) {
		HostRun counts;	// the side's I/O and nanosecond sums, checked apart from the Total's
		Buckets b;
		if (Error e = add_histogram(*hist[k], side, counts, b, name, k ? "total.write.histogram" : "total.read.histogram"))
			return e;
		coalesce(b);
		r.side_latency[k] = std::move(b);
	}
	r.side_histograms = true;
	return {};
}

// A document into a HostRun.  Foreign JSON (not sdb's) is an error that
// names the key it lacks; a count that is not one names its field.
Error load_run(const Json &doc, const std::string &file, HostRun &r, const std::vector<Buckets> &side = {})
{
	std::string name = input_name(file);
	if (doc.type != Json::Type::object)
		return runtime_error("%s: not an sdb result (not a JSON object); --merge reads sdb --json output",
				     name.c_str());
	for (const auto &[key, what] : {std::pair{"quick", "a quick suite"}, {"sweep", "a --sweep"}})
		if (doc.find(key) && doc.find("version"))
			return runtime_error("%s: %s's result, which --merge does not add up; --merge reads the --json "
					     "output of -w, -r or -M runs (--compare takes quick suites)", name.c_str(), what);
	for (const char *key : {"version", "options", "total"})
		if (!doc.find(key))
			return runtime_error("%s: not an sdb result (no \"%s\"); --merge reads sdb --json output", name.c_str(),
					     key);
	const Json *total = doc.find("total", Json::Type::object);
	const Json *options = doc.find("options", Json::Type::object);
	if (!total || !options || !total->find("bytes", Json::Type::number) || !total->find("seconds", Json::Type::number))
		return runtime_error("%s: not an sdb result (no total bytes and seconds); --merge reads sdb --json output",
				     name.c_str());
	const Json *read_side = total->find("read", Json::Type::object), *write_side = total->find("write", Json::Type::object);
	const Json *threads = doc.find("threads", Json::Type::array);
	for (auto [obj, field] : {std::pair<const Json *, std::string>{&doc, "the document"}, {options, "options"},
				  {total, "total"}, {read_side, "total.read"}, {write_side, "total.write"}})
		if (obj)
			if (Error e = unique_keys(*obj, name, field))
				return e;
	for (std::size_t i = 0; threads && i < threads->items.size(); i++) {	// each thread's counts, as the total's
		const Json &t = threads->items[i];
		std::uint64_t unused = 0;
		if (Error e = unique_keys(t, name, format("threads[%zu]", i)))
			return e;
		for (const char *key : {"bytes", "ops"})
			if (Error e = count_field(t, key, name, format("threads[%zu].%s", i, key), unused))
				return e;
	}
	r.options = *options;
	r.host = doc.str("host");
	r.version = doc.str("version");
	std::uint64_t unused = 0, rank = 0;
	for (const char *key : {"block_size", "size"})
		if (Error e = count_field(*options, key, name, std::string("options.") + key, unused))
			return e;
	if (doc.find("rank", Json::Type::number)) {
		if (Error e = count_field(doc, "rank", name, "rank", rank))
			return e;
		r.rank = rank;
	}
	if (Error e = count_field(*total, "bytes", name, "total.bytes", r.bytes))
		return e;
	if (Error e = count_field(*total, "ops", name, "total.ops", r.ops))
		return e;
	if (Error e = seconds_field(*total, "seconds", name, "total.seconds", r.seconds))
		return e;
	const Json *sides[2] = {read_side, write_side};
	r.mix = sides[0] && sides[1];
	for (int k = 0; r.mix && k < 2; k++) {
		std::string field = k ? "total.write" : "total.read";
		if (Error e = count_field(*sides[k], "bytes", name, field + ".bytes", r.side_bytes[k]))
			return e;
		if (Error e = count_field(*sides[k], "ops", name, field + ".ops", r.side_ops[k]))
			return e;
	}
	if (Error e = load_side_latency(sides, side, name, r))
		return e;
	std::uint64_t count = 1;
	if (!threads) {
		if (Error e = count_field(*options, "threads", name, "options.threads", count))
			return e;
		if (Error e = count_field(*total, "threads", name, "total.threads", count))
			return e;
	}
	r.threads = threads ? static_cast<unsigned>(threads->items.size()) : static_cast<unsigned>(std::min<std::uint64_t>(count, 1u << 30));
	if (Error e = load_latency(doc, *total, side, name, r))
		return e;
	const Json *start = doc.find("start_unix", Json::Type::number), *end = doc.find("end_unix", Json::Type::number);
	if (!start)
		start = total->find("start_unix", Json::Type::number), end = total->find("end_unix", Json::Type::number);
	if (start && end && end->number >= start->number) {
		r.windowed = true;
		r.start_unix = start->number;
		r.end_unix = end->number;
	}
	if (Error e = load_timeline(doc, name, r))
		return e;
	load_device(doc, r);
	if (Error e = load_steady(doc, name, r))
		return e;
	if (r.windowed)
		r.parts.push_back(identity(r.host, r.start_unix, r.bytes, r.ops));
	if (const Json *hosts = threads ? nullptr : doc.find("hosts", Json::Type::array))	// a merged document's inputs
		for (const Json &h : hosts->items)
			if (const Json *t = h.find("total", Json::Type::object); t && h.find("start_unix", Json::Type::number))
				r.parts.push_back(identity(h.str("host"), h.num("start_unix"), json_whole(t->num("bytes")),
							   json_whole(t->num("ops"))));
	r.interrupted = doc.flag("interrupted");
	if (const Json *w = doc.find("warnings", Json::Type::array))
		for (const Json &s : w->items)
			if (s.type == Json::Type::string)
				r.warnings.push_back(s.text);
	r.error = doc.str("error");
	return {};
}

// pdsh's and clush's output: every line "HOST: TEXT".  The lines of each
// host, in order, apart (pdsh interleaves the hosts' lines); false when
// the text is not that.
bool split_prefixed(std::string_view text, std::vector<std::pair<std::string, std::string>> &hosts)
{
	std::size_t first = text.find_first_not_of(" \t\r\n");
	if (first == std::string_view::npos || text[first] == '{' || text[first] == '[')
		return false;
	std::map<std::string, std::size_t> index;
	for (std::size_t at = 0; at < text.size();) {
		std::size_t nl = text.find('\n', at);
		std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
		at = nl == std::string_view::npos ? text.size() : nl + 1;
		if (line.find_first_not_of(" \t\r") == std::string_view::npos)
			continue;
		std::size_t colon = line.find(": ");
		if (colon == 0 || colon == std::string_view::npos || line.substr(0, colon).find_first_of(" \t{[\"") != std::string_view::npos)
			return false;
		std::string host(line.substr(0, colon));
		std::string_view rest = line.substr(colon + 2);
		if (host.rfind("pdsh@", 0) == 0 || rest.rfind("sdb: ", 0) == 0)	// pdsh's own lines, sdb's stderr
			continue;
		auto it = index.find(host);
		if (it == index.end()) {
			it = index.emplace(host, hosts.size()).first;
			hosts.push_back({host, ""});
		}
		hosts[it->second].second.append(rest);
		hosts[it->second].second += '\n';
	}
	return !hosts.empty();
}

// Ansible's plain output, "HOST | CHANGED | rc=0 >>" (or SUCCESS, FAILED,
// UNREACHABLE!; "=> {" for a module's JSON) on the first line: what an
// ad-hoc run prints without --tree.
bool ansible_plain(std::string_view text)
{
	std::size_t start = text.find_first_not_of(" \t\r\n");
	if (start == std::string_view::npos)
		return false;
	std::string_view line = text.substr(start, text.find('\n', start) - start);
	std::size_t bar = line.find(" | ");
	if (bar == std::string_view::npos || bar == 0 || line.substr(0, bar).find(' ') != std::string_view::npos)
		return false;
	std::string_view rest = line.substr(bar + 3);
	bool state = false;
	for (std::string_view s : {"CHANGED", "SUCCESS", "FAILED", "UNREACHABLE"})
		state = state || rest.substr(0, s.size()) == s;
	return state && (line.find(" >>") != std::string_view::npos || line.find(" => ") != std::string_view::npos);
}

// Every document in text (one, several one after another, pdsh/clush's
// prefixed lines, or an Ansible --tree file whose "stdout" holds them),
// each a HostRun named NAME, NAME#2, ... (NAME#HOST behind prefixes).
Error load_inputs(std::string &text, const std::string &name, std::vector<HostRun> &found, unsigned depth = 0)
{
	if (depth == 0 && ansible_plain(text))
		return runtime_error("%s: Ansible's plain output (HOST | CHANGED | rc=0 >>), which --merge cannot split: "
				     "run ansible with --tree DIR and merge DIR", name.c_str());
	std::vector<std::pair<std::string, std::string>> prefixed;
	if (depth == 0 && split_prefixed(text, prefixed)) {
		text = std::string();	// the hosts' copies are what is kept
		for (auto &p : prefixed)
			if (Error e = load_inputs(p.second, name + "#" + printable(p.first), found, 1))
				return e;
		return {};
	}
	Lifted lifted = lift_histograms(text);
	JsonParser parser(text);
	std::vector<HostRun> here;
	for (Json doc; parser.parse_next(doc); doc = Json()) {
		if (depth < 2 && doc.type == Json::Type::object && !doc.find("version") && doc.find("stdout", Json::Type::string)) {
			// Ansible's --tree file: the task's result, sdb's output in "stdout".
			if (doc.find("rc", Json::Type::number) && doc.num("rc") != 0 && doc.str("stdout").empty())
				return runtime_error("%s: the Ansible task failed (rc %.0f): %s", name.c_str(), doc.num("rc"),
						     one_line(doc.str("stderr").empty() ? doc.str("msg") : doc.str("stderr")).c_str());
			std::string inner = doc.str("stdout");
			if (Error e = load_inputs(inner, name, here, depth + 2))
				return e;
			continue;
		}
		HostRun r;
		r.source = name;
		if (Error e = load_run(doc, name, r, lifted.side))
			return e;
		here.push_back(std::move(r));
	}
	if (*parser.what())
		return json_syntax_error(name, parser, lifted.input_offset(parser.offset()));
	if (here.empty() && depth < 2)
		return runtime_error("%s: empty: no sdb result in it", name.c_str());
	for (std::size_t i = 0; here.size() > 1 && i < here.size(); i++)
		here[i].source += format("#%zu", i + 1);
	for (HostRun &r : here)
		found.push_back(std::move(r));
	return {};
}

// Whether r may join runs: not a document given twice, nor a merged
// document beside one of its inputs (an identity in common, either way),
// and its histogram with the others' still within 64 bits.  seen: every
// identity admitted, with the run it came in (and whether as its own).
struct Seen {
	std::unordered_map<std::string, std::pair<std::size_t, bool>> ids;
	std::uint64_t ios = 0, ns = 0;
};

Error admit(const HostRun &r, const std::vector<HostRun> &runs, Seen &seen)
{
	for (std::size_t k = 0; k < r.parts.size(); k++) {
		auto it = seen.ids.find(r.parts[k]);
		if (it == seen.ids.end())
			continue;
		const HostRun &o = runs[it->second.first];
		bool mine = k == 0, theirs = it->second.second;	// r's own identity; o's own
		const char *how = mine && theirs ? "the same document as %s (host %s, start %.6f): given twice"
				  : mine	 ? "one of the inputs of %s (host %s, start %.6f), a merged document: merge either, not both"
				  : theirs	 ? "a merged document holding %s (host %s, start %.6f): merge either, not both"
						 : "holds an input that %s (host %s, start %.6f) holds too: merge either, not both";
		return runtime_error("%s: %s", r.source.c_str(),
				     format(how, o.source.c_str(), o.host.empty() ? "-" : printable(o.host).c_str(), o.start_unix).c_str());
	}
	if (r.latency_ios > UINT64_MAX - seen.ios || r.latency_ns > UINT64_MAX - seen.ns)
		return runtime_error("%s: its histogram with the inputs before it counts past 64 bits: not merged", r.source.c_str());
	seen.ios += r.latency_ios;
	seen.ns += r.latency_ns;
	for (std::size_t k = 0; k < r.parts.size(); k++)
		seen.ids.emplace(r.parts[k], std::make_pair(runs.size(), k == 0));
	return {};
}

// One input read and loaded (see load_in_order()).
struct LoadedFile {
	Error error;
	std::vector<HostRun> found;
};

void load_file(const std::string &file, LoadedFile &out, Waiter *waiter)
{
	std::string text;	// freed here: what is kept is the HostRuns
	out.error = read_input(file, text, waiter);
	if (!out.error)
		out.error = load_inputs(text, input_name(file), out.found);
}

bool regular_file(const std::string &file)
{
	struct stat st;
	return file != "-" && stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Every input read and loaded, handed to take() in the order given, until
// a signal (seen by waiter) comes.  When all are regular files (10,000
// documents of a fleet) they load on a thread per CPU (up to 4) ahead of
// take(), at most 256 files ahead, so that memory stays what the merge
// keeps; each document is read and parsed alone, and take() runs on the
// calling thread in order, so the report is the same.  Otherwise (standard input, a pipe)
// one at a time here, where a signal cuts a read short.
template <typename Take>
void load_in_order(const std::vector<std::string> &files, Waiter &waiter, Take take)
{
	const std::size_t n = files.size(), ahead = 256;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = static_cast<unsigned>(std::clamp<long>(cpus, 1, 4));
	if (n < 16 || threads < 2 || !std::all_of(files.begin(), files.end(), regular_file)) {
		for (const std::string &file : files) {
			if (waiter.interrupted())
				return;
			LoadedFile f;
			load_file(file, f, &waiter);
			take(f);
		}
		return;
	}
	std::vector<LoadedFile> slots(n);
	std::vector<char> ready(n, 0);
	std::mutex mutex;
	std::condition_variable changed;
	std::size_t next = 0, taken = 0;
	bool stop = false;
	auto work = [&] {
		std::unique_lock<std::mutex> lock(mutex);
		for (;;) {
			changed.wait(lock, [&] { return stop || next >= n || next < taken + ahead; });
			if (stop || next >= n)
				return;
			std::size_t i = next++;
			lock.unlock();
			load_file(files[i], slots[i], nullptr);
			lock.lock();
			ready[i] = 1;
			changed.notify_all();
		}
	};
	std::vector<std::thread> pool;
	for (unsigned t = 0; t < threads; t++)
		pool.emplace_back(work);
	for (std::size_t i = 0; i < n && !waiter.interrupted(); i++) {
		{
			std::unique_lock<std::mutex> lock(mutex);
			changed.wait(lock, [&] { return ready[i] != 0; });
		}
		LoadedFile f = std::move(slots[i]);
		slots[i] = LoadedFile();
		{
			std::lock_guard<std::mutex> lock(mutex);
			taken = i + 1;
		}
		changed.notify_all();
		take(f);
	}
	{
		std::lock_guard<std::mutex> lock(mutex);
		stop = true;
	}
	changed.notify_all();
	for (std::thread &t : pool)
		t.join();
}

// The inputs of --merge: FILE, - (standard input), or a directory (an
// Ansible --tree, a directory of --json files): every file in it, by name.
std::vector<std::string> expand_inputs(const std::vector<std::string> &files)
{
	std::vector<std::string> out;
	for (const std::string &f : files) {
		struct stat st;
		DIR *dir = f != "-" && stat(f.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? opendir(f.c_str()) : nullptr;
		if (!dir) {
			out.push_back(f);
			continue;
		}
		std::vector<std::string> names;
		while (dirent *e = readdir(dir))
			if (e->d_name[0] != '.')
				names.push_back(f + (f.back() == '/' ? "" : "/") + e->d_name);
		closedir(dir);
		std::sort(names.begin(), names.end());
		out.insert(out.end(), names.begin(), names.end());
	}
	return out;
}

} // namespace
