// libFuzzer target for sdb's number parsers, its option parser and the
// JSON parser and document loading behind --merge.
// Built and run by tests/fuzz.sh (make fuzz); seeds in tests/fuzz_seeds/.
//
// One input is used three ways:
//   1. the whole input as a SIZE, COUNT and SECONDS string: parse_size,
//      parse_count and parse_seconds, each checked against what it promises
//      and parse_size against an exact 128-bit reference;
//   2. the input split on NUL bytes as the arguments after "sdb" (at most
//      max_args of them; one trailing NUL only ends the last argument, so
//      "-w\0-f\0x" and "-w\0-f\0x\0" are the same command line): parse_args,
//      whose result must be a usage error (status 2, one line, naming
//      what the user typed), help, version, or one of the runnable shapes;
//   3. the same command line parsed again: parse_args is re-entrant, so the
//      second result must equal the first;
//   4. the whole input as what --merge reads: JsonParser (one document, and
//      documents one after another), json_dump's text parsed back to the
//      same text, load_run on each document, merge_runs, and both reports
//      printed, the --json one parsed back by the same parser.
// A broken promise is __builtin_trap(), which libFuzzer reports as a crash
// with the input saved; ASan and UBSan catch the rest.
#define SDB_NO_MAIN
#include "../sdb.cpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t max_args = 32;

#define FUZZ_CHECK(cond)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			std::fprintf(stderr, "fuzz_parse: check failed: %s (%s:%d)\n", \
				     #cond, __FILE__, __LINE__);             \
			__builtin_trap();                                    \
		}                                                            \
	} while (0)

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// SIZE as sdb.1 describes it, computed in 128 bits so that overflow is
// exact rather than guarded: digits, then k/m/g/t (either case) optionally
// followed by "B" or "iB", and the value must be in [1, 2^64 - 1].
std::optional<std::uint64_t> reference_size(std::string_view s)
{
	std::size_t i = 0;
	unsigned __int128 value = 0;
	bool big = false;
	while (i < s.size() && is_digit(s[i])) {
		if (!big) {
			value = value * 10 + static_cast<unsigned>(s[i] - '0');
			big = value > UINT64_MAX;
		}
		i++;
	}
	if (i == 0 || big)
		return std::nullopt;
	std::string_view rest = s.substr(i);
	unsigned shift = 0;
	if (!rest.empty()) {
		switch (rest[0]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: return std::nullopt;
		}
		rest.remove_prefix(1);
		if (!(rest.empty() || rest == "B" || rest == "iB"))
			return std::nullopt;
	}
	value <<= shift;	// < 2^64 * 2^40: fits
	if (value == 0 || value > UINT64_MAX)
		return std::nullopt;
	return static_cast<std::uint64_t>(value);
}

void check_size(std::string_view s)
{
	std::optional<std::uint64_t> v = parse_size(s);
	FUZZ_CHECK(v == reference_size(s));
	if (!v)
		return;
	FUZZ_CHECK(*v != 0);
	FUZZ_CHECK(!s.empty() && is_digit(s[0]));
	FUZZ_CHECK(parse_size(std::string(s)) == v);	// same text, fresh copy
	bool plain = true;
	for (char c : s)
		plain = plain && is_digit(c);
	if (plain) {
		std::string copy(s);
		errno = 0;
		unsigned long long ull = std::strtoull(copy.c_str(), nullptr, 10);
		FUZZ_CHECK(errno == 0 && ull == *v);
	} else {
		// A suffix is a whole multiple of 1 KiB.
		FUZZ_CHECK(*v % KiB == 0);
	}
}

void check_count(std::string_view s)
{
	for (unsigned hi : {1u, 4096u, 999999999u}) {
		std::optional<unsigned> v = parse_count(s, 1, hi);
		if (!v)
			continue;
		FUZZ_CHECK(*v >= 1 && *v <= hi);
		FUZZ_CHECK(!s.empty() && s.size() <= 9);
		for (char c : s)
			FUZZ_CHECK(is_digit(c));
		FUZZ_CHECK(std::strtoull(std::string(s).c_str(), nullptr, 10) == *v);
	}
}

void check_seconds(const std::string &s)	// s.c_str() stops at a NUL
{
	std::optional<double> v = parse_seconds(s.c_str());
	if (!v)
		return;
	FUZZ_CHECK(*v > 0 && *v <= 366.0 * 86400);
	FUZZ_CHECK(std::isfinite(*v));
	std::size_t points = 0;
	for (const char *p = s.c_str(); *p; p++) {
		FUZZ_CHECK(is_digit(*p) || *p == '.');
		points += *p == '.';
	}
	FUZZ_CHECK(points <= 1);
}

// The command line: argv[0] is "sdb", the rest come from the input.
struct Args {
	std::vector<std::string> str;
	std::vector<char *> ptr;

	explicit Args(std::string_view in) : str{"sdb"}
	{
		if (!in.empty() && in.back() == '\0')
			in.remove_suffix(1);
		for (std::size_t start = 0; !in.empty() && str.size() <= max_args;) {
			std::size_t nul = in.find('\0', start);
			str.emplace_back(in.substr(start, nul == in.npos ? in.npos : nul - start));
			if (nul == in.npos)
				break;
			start = nul + 1;
		}
		for (auto &s : str)
			ptr.push_back(&s[0]);
		ptr.push_back(nullptr);
	}
	Parsed parse() { return parse_args(static_cast<int>(str.size()), ptr.data(), check_modes); }
};

bool any_arg_has_newline(const Args &a)
{
	for (const auto &s : a.str)
		if (s.find('\n') != std::string::npos)
			return true;
	return false;
}

// "X: unknown option" and "X: missing argument" name what the user typed:
// "--name" at the start of an argument ("--name" or "--name=...", and "--"
// for "--=..."), or "-c" with c in a cluster of short options.  An unknown
// "-c" is not one of sdb's short options and a "-c" missing its argument
// is one that takes one; an unknown "--name" that is a real option was
// given a value it does not take ("--json=1").
void check_option_named(const std::string &m, const Args &args)
{
	static const std::string unknown = ": unknown option; see sdb --help", missing = ": missing argument";
	auto ends_with = [&](const std::string &tail) {
		return m.size() > tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0;
	};
	bool is_unknown = ends_with(unknown);
	if (!is_unknown && !ends_with(missing))
		return;
	std::string name = m.substr(0, m.size() - (is_unknown ? unknown : missing).size());
	FUZZ_CHECK(name.size() >= 2 && name[0] == '-');
	if (name[1] == '-') {
		bool typed = false, typed_with_value = false;
		for (std::size_t i = 1; i < args.str.size(); i++) {
			const std::string &a = args.str[i];
			if (a.compare(0, name.size(), name) != 0)
				continue;
			typed |= a.size() == name.size() || a[name.size()] == '=';
			typed_with_value |= a.size() > name.size() && a[name.size()] == '=';
		}
		for (const option *lo = long_options; lo->name; lo++)
			if (name.compare(2, std::string::npos, lo->name) == 0)
				FUZZ_CHECK(is_unknown ? typed_with_value : lo->has_arg == required_argument);
		if (typed)
			return;
		// "--" with nothing typed as "--" or "--=...": the short
		// option '-' in a cluster ("-w-").
		FUZZ_CHECK(name == "--");
	}
	FUZZ_CHECK(name.size() == 2);
	char c = name[1];
	bool typed = false;
	for (std::size_t i = 1; i < args.str.size(); i++) {
		const std::string &a = args.str[i];
		typed |= a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.find(c, 1) != std::string::npos;
	}
	FUZZ_CHECK(typed);
	const char *in_short = c == ':' ? nullptr : std::strchr(short_options, c);
	if (is_unknown)
		FUZZ_CHECK(in_short == nullptr);
	else
		FUZZ_CHECK(in_short != nullptr && in_short[1] == ':');
}

bool same(const Parsed &a, const Parsed &b)
{
	const Options &x = a.opt, &y = b.opt;
	return a.action == b.action && a.error.status == b.error.status && a.error.msg == b.error.msg &&
	       x.op == y.op && x.random == y.random && x.file == y.file && x.block_size == y.block_size &&
	       x.size == y.size && x.threads == y.threads &&
	       std::memcmp(&x.time_limit, &y.time_limit, sizeof x.time_limit) == 0 &&
	       x.queue_depth == y.queue_depth && x.direct == y.direct && x.sync == y.sync &&
	       x.random_buffer == y.random_buffer && x.timing == y.timing && x.verbose == y.verbose &&
	       x.json == y.json && x.cached == y.cached && x.force == y.force && x.quick == y.quick &&
	       x.profile == y.profile && x.keep == y.keep && x.runs == y.runs && x.explain == y.explain &&
	       std::memcmp(&x.rate.per_second, &y.rate.per_second, sizeof x.rate.per_second) == 0 &&
	       x.rate.bytes == y.rate.bytes && x.sweep == y.sweep;
}

void check_args(std::string_view in)
{
	Args args(in);
	Parsed p = args.parse();
	const Options &o = p.opt;

	// Every value that was stored is a valid one, error or not.
	FUZZ_CHECK(o.threads >= 1 && o.threads <= 4096);
	FUZZ_CHECK(o.queue_depth >= 1 && o.queue_depth <= 4096);
	FUZZ_CHECK(o.time_limit == 0 || (o.time_limit > 0 && o.time_limit <= 366.0 * 86400));
	FUZZ_CHECK(o.op == Options::Op::none || o.op == Options::Op::write || o.op == Options::Op::read ||
		   o.op == Options::Op::mix);

	switch (p.action) {
	case Action::help:
	case Action::version:
		FUZZ_CHECK(p.error.status == exit_ok && p.error.msg.empty());
		break;
	case Action::run:
		if (p.error) {
			FUZZ_CHECK(p.error.status == exit_usage);
			FUZZ_CHECK(!p.error.msg.empty());
			// One line, unless the user's own argument carried the
			// newline into the message (it is echoed as given).
			FUZZ_CHECK(p.error.msg.find('\n') == std::string::npos || any_arg_has_newline(args));
			check_option_named(p.error.msg, args);
			break;
		}
		FUZZ_CHECK(p.error.status == exit_ok && p.error.msg.empty());
		// Seven shapes: a test (-w, -r or -M on a FILE, or on each of
		// --hosts), -T alone (the I/O options are then ignored), --quick
		// on a path, which picks its own tests, --merge FILE...,
		// --compare OLD NEW, --probe of a FILE, or --restore JOURNAL.
		if (!o.restore.empty()) {
			FUZZ_CHECK(o.op == Options::Op::none && !o.probe && !o.merge && !o.compare && !o.quick);
		} else if (o.compare) {
			FUZZ_CHECK(o.op == Options::Op::none && o.compare_files.size() == 2 && !o.merge && !o.quick);
		} else if (o.probe) {
			FUZZ_CHECK(o.op == Options::Op::none && !o.file.empty() && !o.quick && o.hosts.empty());
		} else if (o.merge) {
			FUZZ_CHECK(o.op == Options::Op::none && !o.merge_files.empty() && !o.quick && o.hosts.empty());
		} else if (o.quick) {
			FUZZ_CHECK(o.op == Options::Op::none && !o.file.empty());
		} else if (o.op == Options::Op::none) {
			FUZZ_CHECK(o.timing);
		} else {
			FUZZ_CHECK(!o.file.empty() || !o.hosts.empty());
			FUZZ_CHECK(!(o.cached && o.direct));
			FUZZ_CHECK(o.op == Options::Op::mix ? o.mix <= 100 : true);
		}
		FUZZ_CHECK(!o.keep || o.quick);
		FUZZ_CHECK(!o.runs || o.quick);
		FUZZ_CHECK(o.runs <= 100);
		FUZZ_CHECK(!o.quick || o.profile);
		FUZZ_CHECK(!o.explain || !o.json);
		// --rate and --sweep: a positive rate of at most max_rate_iops
		// (or bytes), on a test; never both.
		FUZZ_CHECK(o.rate.per_second == 0 || (o.rate.per_second > 0 && (o.rate.bytes || o.rate.per_second <= max_rate_iops)));
		FUZZ_CHECK(!(o.rate.per_second > 0 || o.sweep) || o.op != Options::Op::none);
		FUZZ_CHECK(!(o.sweep && o.rate.per_second > 0));
		FUZZ_CHECK(o.block_size == 0 || parse_size(std::to_string(o.block_size)) == o.block_size);
		FUZZ_CHECK(o.size == 0 || parse_size(std::to_string(o.size)) == o.size);
		break;
	default:
		FUZZ_CHECK(!"unknown action");
	}

	// Re-entrant: a fresh copy of the same command line, same result.
	Args again(in);
	FUZZ_CHECK(same(p, again.parse()));
}

// --merge's side: arbitrary bytes are a document, several, or a one-line
// error; never a crash, a hang or undefined behaviour.
void check_merge(std::string_view in)
{
	JsonParser whole(in);
	Json doc;
	if (whole.parse(doc)) {
		// json_dump's text is JSON, and after one pass (invalid UTF-8
		// becomes U+FFFD) dumping what it parses to is the same text.
		std::string text = json_dump(doc);
		Json again;
		JsonParser back(text);
		FUZZ_CHECK(back.parse(again));
		text = json_dump(again);
		Json third;
		JsonParser back2(text);
		FUZZ_CHECK(back2.parse(third));
		if (json_dump(third) != text)
			std::fprintf(stderr, "fuzz_parse: json_dump %s, parsed back: %s\n", text.c_str(), json_dump(third).c_str());
		FUZZ_CHECK(json_dump(third) == text);
	} else {
		FUZZ_CHECK(*whole.what() != '\0');
		FUZZ_CHECK(whole.offset() <= in.size());
	}

	// As run_merge reads a file: documents one after another.
	JsonParser parser(in);
	std::vector<HostRun> runs;
	Json next;
	while (runs.size() < 8 && parser.parse_next(next)) {
		HostRun r;
		r.source = "fuzz";
		Error e = load_run(next, r.source, r);
		if (e) {
			FUZZ_CHECK(e.status == exit_runtime && e.msg.rfind("fuzz: ", 0) == 0);
			FUZZ_CHECK(e.msg.find('\n') == std::string::npos);
			return;
		}
		runs.push_back(std::move(r));
		next = Json();
	}
	if (runs.empty())
		return;
	Merged m = merge_runs(runs);
	static std::FILE *null_out = std::fopen("/dev/null", "w");
	FUZZ_CHECK(null_out);
	print_merged_human(null_out, runs, m, {}, true);
	char *buf = nullptr;
	std::size_t len = 0;
	std::FILE *mem = open_memstream(&buf, &len);
	FUZZ_CHECK(mem);
	print_merged_json(mem, runs, m, {}, {}, false);
	std::fclose(mem);
	Json merged;
	JsonParser out(std::string_view(buf, len));
	bool valid = out.parse(merged);
	if (!valid)
		std::fprintf(stderr, "fuzz_parse: --merge --json wrote invalid JSON at byte %zu (%s)\n", out.offset(), out.what());
	std::free(buf);
	FUZZ_CHECK(valid);
}

}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	if (size > 4096)	// command lines, not documents
		return 0;
	std::string_view in(reinterpret_cast<const char *>(data), size);
	check_size(in);
	check_count(in);
	check_seconds(std::string(in));
	check_args(in);
	check_merge(in);
	return 0;
}
