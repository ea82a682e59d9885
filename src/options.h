// options: the command line.  Owns Options (every option with its
// default), usage_text, and parse_args(), which never exits or prints and
// is re-entrant for the tests; -f's %h/%r/%% (expand_file), --start-at
// (parse_start_at, and its warnings: a late start, a relative time under a
// launcher), --hosts' list (parse_hosts), and the rules on which
// options go together (check_given, check_test, check_combination; a
// mode's own are its module's), and Mode, a row of sdb.cpp's table of modes.
#pragma once

#include "base.h"
#include "profiles.h"
#include "pace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <getopt.h>
#include <unistd.h>

namespace {

// Keep in step with sdb.1: tests/cli.sh checks both ways.
constexpr char usage_text[] =
	"usage: sdb -w|-r|-M PCT -f FILE [options]  benchmark writes, reads or a mix\n"
	"       sdb -T [-b SIZE]                    time memory only\n"
	"       sdb --merge FILE... [--json]        one report from saved --json results\n"
	"  -w, --write             write test\n"
	"  -r, --read              read test\n"
	"  -M, --mix PCT           mixed test: each I/O a read with probability PCT% (0..100), else a write\n"
	"  -f, --file FILE         target: a file (FILE.0 .. FILE.N-1 with -j N) or a device\n"
	"  -b, --block-size SIZE   bytes per I/O (default 1m, at most -s; 4k with -m rand)\n"
	"  -s, --size SIZE         bytes per thread (default: 1g to write, the target's size to read)\n"
	"                          (a block device without -t: one pass of at most 10 s)\n"
	"  -j, --threads N         threads, 1..4096 (default 1)\n"
	"  -m, --mode MODE         seq or rand (default seq)\n"
	"  -t, --time SEC          run SEC seconds (5, 2.5, 5s, 2m, 1h) from the threads' common start,\n"
	"                          repeating passes (default one pass)\n"
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
	"                          PROFILE: default, nvme, real, mix or flash (to the write cache's cliff)\n"
	"      --keep              with --quick: keep the test file\n"
	"      --cdm               with --quick: print CrystalDiskMark's Save Text layout, MB/s 1000-based\n"
	"      --runs N            the run N times, 1..100: each run, then the median,\n"
	"                          min-max and 95% interval (--quick: per test, default 3)\n"
	"      --explain           print the equivalent fio command lines instead of running\n"
	"      --fsync N           with writes: fdatasync after every N writes, timed apart (-q 1 only)\n"
	"      --ramp SEC          run SEC seconds (or 5s, 2m) of the same I/O first, none of it counted\n"
	"      --start-at TIME     start when the clock reads TIME: Unix seconds, or +SEC from now\n"
	"      --verify            writes: a checkable pattern, read back after the run; reads: check each 4 KiB\n"
	"      --hosts LIST        run the test on each HOST[:PATH] of a comma list (or @FILE) over ssh, merged\n"
	"      --merge FILE...     merge sdb --json documents (- for stdin) into one report\n"
	"      --html FILE         also write a self-contained HTML page with charts: a run, --quick, --merge,\n"
	"                          --hosts or --compare; over an existing file only if sdb wrote it (else --force)\n"
	"      --prom FILE         also write the result as Prometheus metrics (node_exporter's textfile\n"
	"                          collector), replaced whole; over an existing file only if sdb wrote it\n"
	"      --compare OLD NEW   compare two sdb --json documents, with 95% confidence intervals\n"
	"      --fail-slower PCT   with --compare: exit 3 when a test got slower by over PCT%\n"
	"                          (rate or IOPS down, p99 up), its whole 95% interval beyond it\n"
	"      --probe             fake-capacity check of -f (a device needs --force): is all of it real?\n"
	"      --destructive       with --probe: do not save and restore the units it overwrites\n"
	"      --journal PATH      with --probe: the undo journal, a new file off the target's file system\n"
	"                          (default under $XDG_STATE_HOME/sdb, ~/.local/state/sdb or /var/tmp)\n"
	"      --restore JOURNAL   put back every unit of a probe that was cut short (a crash, kill -9)\n"
	"      --rate RATE         open loop: RATE I/Os per second per thread (5000, 5k), or bytes with /s\n"
	"                          (200m/s); latency counts from each I/O's due time (default closed loop)\n"
	"      --sweep             latency against load: the maximum, then 10 steps at 10-100% of it, the knee\n"
	"      --fanout N          with --hosts: at most N ssh sessions starting at once (default 64)\n"
	"      --host-timeout SEC  with --hosts: stop a host that has not answered SEC s after its start\n"
	"      --steady[=VAR]      rounds of -t SEC (default 60) until SNIA PTS steady state in VAR: bw, iops\n"
	"                          or lat (default bw sequential, iops random), or 25 rounds: not steady\n"
	"      --rounds N          with --steady: run all N rounds (5..1000), saying where steady state was left\n"
	"      --precondition      with --steady: first write the target twice over, sequential 128 KiB I/Os\n"
	"  -V, --version           print the version and exit\n"
	"  -h, --help              print this help and exit\n"
	"SIZE: a positive number with an optional k, m, g or t (1024-based), e.g. 4k, 64m, 1GiB\n"
	"FILE: %h is the short host name, %r the launcher's rank (SLURM_PROCID ...), %% a %\n";

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

// --start-at's warning when the barrier opened over a second after TIME.
// Threads ready only after TIME: their preparation was slow.  Ready before
// it: the wait overshot, because the real-time clock was set forward past
// TIME (by hand, an NTP step) or sdb was stopped meanwhile, not because of
// the preparation.  ready_unix_ns: when every thread was ready.
std::string start_late_warning(std::int64_t at, std::int64_t ready_unix_ns, std::int64_t late_ns)
{
	if (ready_unix_ns && ready_unix_ns < at)
		return format("--start-at: the barrier opened %.3f s past the time, though the threads were ready %.3f s "
			      "before it: the real-time clock jumped forward (or sdb was stopped) during the wait; the run "
			      "started at once", late_ns / 1e9, (at - ready_unix_ns) / 1e9);
	return format("--start-at: the time was %.3f s past when the threads were ready; the run started at once",
		      late_ns / 1e9);
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

// --hosts: the ssh sessions that may be connecting at once without
// --fanout (pdsh's default fanout is 32, Ansible's forks 5: sdb's runs
// must all be running before their common start).
constexpr unsigned default_fanout = 64;

// --hosts: one entry of HOST[:PATH],...
struct HostSpec {
	std::string host;
	std::string path;	// empty: this run's -f
	std::string label;	// the entry as given (a range's: as expanded), for messages and the JSON
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
	bool cdm = false;		// --cdm: --quick in CrystalDiskMark's text layout
	unsigned runs = 0;		// --runs; 0: not given (3 with --quick)
	bool explain = false;
	std::int64_t start_at_ns = 0;	// --start-at, as Unix nanoseconds; 0: start when ready
	bool verify = false;		// --verify (sets random_buffer too: the pattern is the content)
	bool merge = false;		// --merge: merge_files are the operands
	bool probe = false;		// --probe: the fake-capacity check
	bool destructive = false;	// --probe --destructive: nothing saved and restored
	std::string journal;		// --probe --journal PATH; empty: a new file in the default place
	std::string restore;		// --restore JOURNAL: a cut-short probe's units put back
	std::vector<std::string> merge_files;
	std::string html;		// --html FILE; empty: none
	std::string prom;		// --prom FILE; empty: none
	bool compare = false;		// --compare: compare_files (OLD, NEW) are the operands
	std::vector<std::string> compare_files;
	double fail_slower = -1;	// --fail-slower PCT; -1: not given
	std::vector<HostSpec> hosts;	// --hosts
	std::vector<std::string> given;	// not an option: every option given, as --long[=value], for --hosts
	unsigned fanout = 0;		// --fanout: ssh sessions connecting at once; 0: not given (default_fanout)
	double host_timeout = 0;	// --host-timeout: seconds; 0: none
	Rate rate;			// --rate: per thread; per_second 0: closed loop
	bool sweep = false;		// --sweep: the maximum, then steps of --rate (sweep.h)
	std::string steady;		// --steady[=VAR]: "bw", "iops" or "lat"; empty: not given
	unsigned rounds = 0;		// --rounds N; 0: not given (25 at most, stopping when steady)
	bool precondition = false;	// --precondition: 2 x the target in 128 KiB writes before round 1
};

enum class Action { run, help, version };

struct Parsed {
	Action action = Action::run;
	Options opt;
	Error error;
};

enum : int { opt_json = 256, opt_cached, opt_force, opt_quick, opt_keep, opt_runs, opt_explain, opt_fsync, opt_ramp,
	     opt_start_at, opt_verify, opt_hosts, opt_merge, opt_probe, opt_destructive, opt_journal, opt_restore, opt_compare, opt_html,
	     opt_fanout, opt_host_timeout, opt_rate, opt_sweep, opt_fail_slower,
	     opt_steady, opt_rounds, opt_precondition, opt_prom, opt_cdm };

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
	{"cdm", no_argument, nullptr, opt_cdm},
	{"runs", required_argument, nullptr, opt_runs},
	{"explain", no_argument, nullptr, opt_explain},
	{"fsync", required_argument, nullptr, opt_fsync},
	{"ramp", required_argument, nullptr, opt_ramp},
	{"start-at", required_argument, nullptr, opt_start_at},
	{"verify", no_argument, nullptr, opt_verify},
	{"hosts", required_argument, nullptr, opt_hosts},
	{"merge", no_argument, nullptr, opt_merge},
	{"probe", no_argument, nullptr, opt_probe},
	{"compare", no_argument, nullptr, opt_compare},
	{"html", required_argument, nullptr, opt_html},
	{"destructive", no_argument, nullptr, opt_destructive},
	{"journal", required_argument, nullptr, opt_journal},
	{"restore", required_argument, nullptr, opt_restore},
	{"fanout", required_argument, nullptr, opt_fanout},
	{"host-timeout", required_argument, nullptr, opt_host_timeout},
	{"rate", required_argument, nullptr, opt_rate},
	{"sweep", no_argument, nullptr, opt_sweep},
	{"fail-slower", required_argument, nullptr, opt_fail_slower},
	{"steady", optional_argument, nullptr, opt_steady},
	{"rounds", required_argument, nullptr, opt_rounds},
	{"precondition", no_argument, nullptr, opt_precondition},
	{"prom", required_argument, nullptr, opt_prom},
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

// -t and --ramp: seconds (5, 2.5), or with a unit: 5s, 2m, 1h (m is
// minutes here, as in fio's runtime; a SIZE's m is MiB).  At most a year.
std::optional<double> parse_duration(const char *arg)
{
	std::string s = arg;
	double unit = 1;
	if (!s.empty() && (s.back() == 's' || s.back() == 'm' || s.back() == 'h')) {
		unit = s.back() == 'h' ? 3600 : s.back() == 'm' ? 60 : 1;
		s.pop_back();
	}
	std::optional<double> v = parse_seconds(s.c_str());
	if (!v || *v * unit > 366.0 * 86400)
		return std::nullopt;
	return *v * unit;
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

// The entries of a --hosts list: split on the commas outside brackets
// (a range "node[1-3,7]" holds some).
std::vector<std::string_view> host_entries(std::string_view list)
{
	std::vector<std::string_view> out;
	std::size_t begin = 0, depth = 0;
	for (std::size_t i = 0; i <= list.size(); i++) {
		if (i == list.size() || (list[i] == ',' && depth == 0)) {
			out.push_back(list.substr(begin, i - begin));
			begin = i + 1;
		} else if (list[i] == '[') {
			depth++;
		} else if (list[i] == ']' && depth) {
			depth--;
		}
	}
	return out;
}

// A range "PREFIX[A-B,C]SUFFIX" (pdsh's, Slurm's): every name, A..B with
// A's width of zeros ("node[01-16]": node01 .. node16), else the entry
// alone.  Brackets at the start, after an "@" or holding a ':' are an
// IPv6 address, not a range.
Error expand_range(std::string_view entry, const std::string &name, std::vector<std::string> &out)
{
	std::size_t open = entry.find('['), close = entry.find(']', open);
	if (open == std::string_view::npos || close == std::string_view::npos || open == 0 || entry[open - 1] == '@' ||
	    entry.substr(open, close - open).find(':') != std::string_view::npos) {
		out.emplace_back(entry);
		return {};
	}
	std::string_view inside = entry.substr(open + 1, close - open - 1);
	std::string prefix(entry.substr(0, open)), suffix(entry.substr(close + 1));
	for (std::string_view part : host_entries(inside)) {
		std::size_t dash = part.find('-');
		std::string_view a = part.substr(0, dash), b = dash == std::string_view::npos ? a : part.substr(dash + 1);
		auto lo = parse_count(std::string(a).c_str(), 0, 999999999), hi = parse_count(std::string(b).c_str(), 0, 999999999);
		if (a.empty() || b.empty() || !lo || !hi || *lo > *hi || a.find_first_not_of("0123456789") != std::string_view::npos ||
		    b.find_first_not_of("0123456789") != std::string_view::npos)
			return usage_error("%s %s: \"[%s]\": a range is [A-B] or [A-B,C,...] of whole numbers, A <= B", name.c_str(),
					   std::string(entry).c_str(), std::string(inside).c_str());
		if (*hi - *lo >= 100000 || out.size() > 100000)
			return usage_error("%s %s: over 100000 hosts", name.c_str(), std::string(entry).c_str());
		int width = a.size() > 1 && a[0] == '0' ? static_cast<int>(a.size()) : 0;
		for (unsigned v = *lo; v <= *hi; v++)
			out.push_back(format("%s%0*u%s", prefix.c_str(), width, v, suffix.c_str()));
	}
	return {};
}

// One entry: [USER@]HOST[:PATH], [USER@][V6]:PATH, [USER@]V6 (two colons or
// more: all host), ssh://[USER@]HOST[:PORT][/PATH] (ssh takes the URI).
Error parse_host_entry(std::string_view entry, const std::string &list, const std::string &name, HostSpec &h)
{
	h.label = std::string(entry);
	std::size_t user = entry.rfind('@', entry.find('[') == std::string_view::npos ? std::string_view::npos : entry.find('['));
	std::size_t at = user == std::string_view::npos ? 0 : user + 1;	// where the host proper starts
	std::size_t colon = std::string_view::npos;
	if (entry.rfind("ssh://", 0) == 0) {
		std::size_t slash = entry.find('/', 6);
		h.host = std::string(entry.substr(0, slash));
		if (slash != std::string_view::npos)
			h.path = std::string(entry.substr(slash));
	} else if (at < entry.size() && entry[at] == '[' && entry.find(']', at) != std::string_view::npos) {
		std::size_t close = entry.find(']', at);
		h.host = std::string(entry.substr(0, at)) + std::string(entry.substr(at + 1, close - at - 1));
		colon = entry.size() > close + 1 && entry[close + 1] == ':' ? close + 1 : std::string_view::npos;
		if (colon == std::string_view::npos && entry.size() > close + 1)
			return usage_error("%s %s: \"%s\": after ']' only \":PATH\"", name.c_str(), list.c_str(),
					   std::string(entry).c_str());
	} else if (entry.find(':', at) != entry.rfind(':') && entry.find('/') == std::string_view::npos) {	// IPv6: no PATH
		h.host = std::string(entry);
	} else {
		colon = entry.find(':', at);
		h.host = std::string(entry.substr(0, colon));
	}
	if (colon != std::string_view::npos) {
		h.path = std::string(entry.substr(colon + 1));
		if (h.path.empty())
			return usage_error("%s %s: \"%s\": empty PATH after ':'", name.c_str(), list.c_str(),
					   std::string(entry).c_str());
	}
	if (h.host.empty() || h.host.back() == '@')
		return usage_error("%s %s: an empty host name (HOST[:PATH],...)", name.c_str(), list.c_str());
	if (h.host[0] == '-')
		return usage_error("%s %s: \"%s\": a host name cannot start with '-'", name.c_str(), list.c_str(),
				   h.host.c_str());
	for (char c : h.host)
		if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
			return usage_error("%s %s: a host name cannot hold spaces or control characters", name.c_str(),
					   list.c_str());
	return {};
}

// --hosts HOST[:PATH],...: a host may not start with "-" (ssh would take
// it for an option), nor hold spaces or control characters; "[v6]:PATH"
// for an IPv6 address with a path; ranges "node[01-16]" expanded.
Error parse_hosts(std::string_view list, const std::string &name, std::vector<HostSpec> &hosts)
{
	hosts.clear();
	std::string whole(list);
	for (std::string_view entry : host_entries(list)) {
		std::vector<std::string> names;
		if (Error e = expand_range(entry, name, names))
			return e;
		for (const std::string &n : names) {
			HostSpec h;
			if (Error e = parse_host_entry(n, whole, name, h))
				return e;
			hosts.push_back(std::move(h));
		}
	}
	return {};
}

// --hosts @FILE: a host a line (or several, with commas); blank lines and
// everything from a '#' are left out.
Error read_host_file(const char *file, const std::string &name, std::string &list)
{
	std::FILE *f = std::fopen(file, "re");
	if (!f)
		return usage_error("%s @%s: %s", name.c_str(), file, std::strerror(errno));
	char line[4096];
	list.clear();
	while (std::fgets(line, sizeof line, f)) {
		std::string l = line;
		l = l.substr(0, l.find('#'));
		std::size_t a = l.find_first_not_of(" \t\r\n"), b = l.find_last_not_of(" \t\r\n");
		if (a == std::string::npos)
			continue;
		list += (list.empty() ? "" : ",") + l.substr(a, b - a + 1);
		if (list.size() > 16 * MiB)
			break;
	}
	std::fclose(f);
	if (list.empty())
		return usage_error("%s @%s: no host in it (a host a line, # comments)", name.c_str(), file);
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
		auto v = parse_duration(arg);
		if (!v) return usage_error("%s %s: time must be a positive number of seconds, at most a year (366 days): "
					   "5, 2.5, 5s, 2m or 1h", name.c_str(), arg);
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
			return usage_error("%s=%s: unknown profile (default, nvme, real, mix or flash)", name.c_str(), arg);
		break;
	}
	case opt_keep: o.keep = true; break;
	case opt_cdm: o.cdm = true; break;
	case opt_runs: {
		auto v = parse_count(arg, 1, 100);
		if (!v) return usage_error("%s %s: runs must be a whole number from 1 to 100", name.c_str(), arg);
		o.runs = *v;
		break;
	}
	case opt_explain: o.explain = true; break;
	case opt_steady:
		o.steady = arg ? arg : "auto";
		if (o.steady != "auto" && o.steady != "bw" && o.steady != "iops" && o.steady != "lat")
			return usage_error("%s=%s: the steady variable is bw, iops or lat", name.c_str(), arg);
		break;
	case opt_rounds: {
		auto v = parse_count(arg, 5, 1000);
		if (!v) return usage_error("%s %s: rounds must be a whole number from 5 (the PTS window) to 1000", name.c_str(), arg);
		o.rounds = *v;
		break;
	}
	case opt_precondition: o.precondition = true; break;
	case opt_prom:
		o.prom = arg;
		if (o.prom.empty())
			return usage_error("%s: empty file name", name.c_str());
		break;
	case opt_fsync: {
		auto v = parse_count(arg, 1, 999999999);
		if (!v) return usage_error("%s %s: writes per fdatasync must be a whole number from 1 to 999999999", name.c_str(), arg);
		o.fsync_every = *v;
		break;
	}
	case opt_ramp: {
		auto v = parse_duration(arg);
		if (!v) return usage_error("%s %s: ramp must be a positive number of seconds, at most a year (366 days): "
					   "5, 2.5, 5s, 2m or 1h", name.c_str(), arg);
		o.ramp = *v;
		break;
	}
	case opt_start_at:
		if (Error e = parse_start_at(arg, realtime_ns(), name, o.start_at_ns))
			return e;
		break;
	case opt_verify: o.verify = o.random_buffer = true; break;
	case opt_hosts: {
		std::string list = arg;
		if (arg[0] == '@')
			if (Error e = read_host_file(arg + 1, name, list))
				return e;
		if (Error e = parse_hosts(list, name, o.hosts))
			return e;
		break;
	}
	case opt_merge: o.merge = true; break;
	case opt_probe: o.probe = true; break;
	case opt_compare: o.compare = true; break;
	case opt_fail_slower: {
		char *end = nullptr;
		errno = 0;
		double v = std::strtod(arg, &end);
		if (end == arg || *end || errno || !(v >= 0 && v <= 1000))
			return usage_error("%s %s: a percentage from 0 to 1000 (5, 2.5)", name.c_str(), arg);
		o.fail_slower = v;
		break;
	}
	case opt_html:
		o.html = arg;
		if (o.html.empty())
			return usage_error("%s: empty file name", name.c_str());
		break;
	case opt_destructive: o.destructive = true; break;
	case opt_journal:
	case opt_restore:
		if (!*arg)
			return usage_error("%s: empty file name", name.c_str());
		(c == opt_journal ? o.journal : o.restore) = arg;
		break;
	case opt_fanout: {
		auto v = parse_count(arg, 1, 100000);
		if (!v) return usage_error("%s %s: hosts at once must be a whole number from 1 to 100000", name.c_str(), arg);
		o.fanout = *v;
		break;
	}
	case opt_host_timeout: {
		auto v = parse_seconds(arg);
		if (!v) return usage_error("%s %s: the timeout must be a positive number of seconds, at most a year (366 days)", name.c_str(), arg);
		o.host_timeout = *v;
		break;
	}
	case opt_rate: {
		std::optional<Rate> v = parse_rate(arg);
		if (!v) return usage_error("%s %s: a rate is a positive number of I/Os per second (5000, 5k) or of bytes per "
					   "second with /s (200m/s), per thread", name.c_str(), arg);
		o.rate = *v;
		break;
	}
	case opt_sweep: o.sweep = true; break;
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

// --rate: an open loop over one test (--sweep's own rules are sweep.h's).
Error check_rate(const Options &o)
{
	if (o.rate.per_second > 0 && o.op == Options::Op::none)
		return usage_error("--rate: needs a test: -w, -r or -M");
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

// Under srun or mpirun every rank parses "--start-at +SEC" when it starts,
// so the launch's own skew passes into the windows: say so.
std::vector<std::string> launcher_warnings(const Options &opt)
{
	std::vector<std::string> w;
	std::string which;
	launcher_rank(which);
	if (which.empty())
		return w;
	for (const std::string &g : opt.given)
		if (g.rfind("--start-at=+", 0) == 0)
			w.push_back(format("--start-at %s under a launcher (%s is set): each rank counts from its own "
					   "start, so the launch's skew passes into the windows; give one absolute time "
					   "computed before the launch, e.g. --start-at $(( $(date +%%s) + 10 ))",
					   g.substr(11).c_str(), which.c_str()));
	return w;
}

// What every command line is held to before its mode's own rules: an
// option given without the mode it belongs to, and what --html can draw.
Error check_given(const Options &o)
{
	if (!o.html.empty() && (o.explain || o.probe || (o.op == Options::Op::none && !o.quick && !o.merge && !o.compare)))
		return usage_error("--html: draws a -w, -r or -M run, a quick suite, --merge, --hosts, --compare or --sweep");
	if (!o.prom.empty() && (o.explain || o.probe || o.compare || !o.restore.empty() ||
				(o.op == Options::Op::none && !o.quick && !o.merge)))
		return usage_error("--prom: writes the result of a -w, -r or -M run, a quick suite, --steady, --sweep, "
				   "--merge or --hosts");
	if (!o.prom.empty() && o.prom == o.html)
		return usage_error("--prom %s: also --html's page: give each its own file", o.prom.c_str());
	if (o.destructive && !o.probe)
		return usage_error("--destructive: only meaningful with --probe");
	if (!o.journal.empty() && (!o.probe || o.destructive))
		return usage_error("--journal: only meaningful with --probe (without --destructive)");
	if (o.hosts.empty() && (o.fanout || o.host_timeout > 0))
		return usage_error("%s: only meaningful with --hosts", o.fanout ? "--fanout" : "--host-timeout");
	if (o.fail_slower >= 0 && !o.compare)
		return usage_error("--fail-slower: only meaningful with --compare");
	if ((o.keep || o.cdm) && !o.quick)
		return usage_error("%s: only meaningful with --quick", o.keep ? "--keep" : "--cdm");
	if ((o.rounds || o.precondition) && o.steady.empty())
		return usage_error("%s: only meaningful with --steady", o.rounds ? "--rounds" : "--precondition");
	if (!o.steady.empty() && (o.quick || o.sweep || o.probe || o.runs || o.merge || o.compare || !o.restore.empty()))
		return usage_error("--steady and %s: %s", o.quick ? "--quick" : o.sweep ? "--sweep" : o.probe ? "--probe"
				   : o.runs ? "--runs" : o.merge ? "--merge" : o.compare ? "--compare" : "--restore",
				   o.quick ? "a suite of many tests; --steady rounds one workload"
				   : o.sweep ? "the sweep's steps change the load; --steady holds one load until it settles"
				   : o.probe ? "the probe checks capacity once, it has no speed to settle"
				   : o.runs ? "the rounds are the repeats (--rounds N for a fixed count)"
				   : "it reads saved documents and runs nothing");
	if (o.runs && !o.quick && (o.op == Options::Op::none || o.sweep || o.explain || o.probe || !o.hosts.empty()))
		return usage_error("--runs: repeats a -w, -r or -M run or a --quick suite%s",
				   o.sweep ? " (--sweep runs its own steps)" : o.explain ? " (--explain runs nothing)"
				   : o.probe ? " (--probe runs once)" : !o.hosts.empty() ? " (not with --hosts)" : "");
	return {};
}

// A test's options together (-w, -r, -M, or -T alone): the rules of the
// modes that run one test (the plain run, --hosts, --sweep, --explain)
// after their own.
Error check_test(const Options &o)
{
	if (o.start_at_ns && o.op == Options::Op::none)
		return usage_error("--start-at: needs -w, -r or -M, a run to start");
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
	if (Error e = check_rate(o))
		return e;
	const std::uint64_t block = o.block_size ? o.block_size : 4 * KiB;	// without -b: 4k random, else -s at most
	if (o.size && o.size < block && (o.block_size || o.random))	// one short I/O is not a "1 MiB block" run
		return usage_error("-s %s is smaller than one %s block%s: %s; give a smaller -b",
				   format_bytes(o.size).c_str(), format_bytes(block).c_str(), o.block_size ? "" : " (the default -b)",
				   o.random ? "random mode has nothing to do" : "less than one I/O to time");
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

// Options that are fine one by one but not together, for a command line
// with no mode of its own (a -w, -r or -M run, -T alone): sdb.cpp holds
// every other command line to its mode's rules (Mode::check) instead.
Error check_combination(const Options &o)
{
	if (Error e = check_given(o))
		return e;
	return check_test(o);
}

// A mode: one row of sdb.cpp's table.  chosen: whether a command line picks
// it (the first row that says so runs); check: every rule on what goes with
// it (check_given() has run before); run: the mode, returning the exit
// status; with --html, page is where it leaves the JSON document the page
// draws (a mode that writes its page itself leaves it empty).
struct Mode {
	const char *name;
	bool (*chosen)(const Options &);
	Error (*check)(const Options &);
	int (*run)(const Options &, std::FILE *out, std::string *page);
};

// Edits (insert, delete, replace, swap two neighbours) from a to b.
std::size_t edit_distance(const std::string &a, const std::string &b)
{
	std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
	for (std::size_t i = 0; i <= a.size(); i++)
		d[i][0] = i;
	for (std::size_t j = 0; j <= b.size(); j++)
		d[0][j] = j;
	for (std::size_t i = 1; i <= a.size(); i++)
		for (std::size_t j = 1; j <= b.size(); j++) {
			d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
		}
	return d[a.size()][b.size()];
}

// What an unknown or ambiguous long option "--NAME" may have meant: every
// option NAME begins (getopt_long takes a prefix of one), or else the
// nearest by edit_distance(), if it is near (at most 2 edits, and fewer
// than half of NAME), as git suggests a command.
std::vector<std::string> option_candidates(const std::string &given)
{
	std::size_t start = given.find_first_not_of('-');
	if (start == std::string::npos)	// "---": no name to match
		return {};
	const std::string name = given.substr(start);
	std::vector<std::string> begun, nearest;
	std::size_t best = 3;
	for (const option *o = long_options; o->name; o++) {
		if (std::string(o->name).rfind(name, 0) == 0)
			begun.push_back(std::string("--") + o->name);
		std::size_t d = edit_distance(name, o->name);
		if (d < best && 2 * d < name.size()) {
			best = d;
			nearest.clear();
		}
		if (d == best && 2 * d < name.size())
			nearest.push_back(std::string("--") + o->name);
	}
	return begun.size() > 1 ? begun : nearest;
}

// "A or B", "A, B or C".
std::string either(const std::vector<std::string> &names)
{
	std::string s;
	for (std::size_t i = 0; i < names.size(); i++)
		s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
	return s;
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
	if (is_long) {
		std::vector<std::string> names = option_candidates(bad);
		bool ambiguous = names.size() > 1 && names[0].rfind(bad, 0) == 0;
		if (ambiguous)
			return usage_error("%s: ambiguous: %s?", bad.c_str(), either(names).c_str());
		if (!names.empty())
			return usage_error("%s: unknown option; did you mean %s?", bad.c_str(), either(names).c_str());
	}
	return usage_error("%s: unknown option; see sdb --help", bad.c_str());
}

// Never exits or prints; re-entrant (optind = 0) so tests can call it
// often.  check: the rules the options are held to (sdb.cpp's: the chosen
// mode's).
using Check = Error (*)(const Options &);
Parsed parse_args(int argc, char *argv[], Check check = check_combination)
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
	if (p.opt.merge || p.opt.compare) {	// the operands are the documents
		(p.opt.compare ? p.opt.compare_files : p.opt.merge_files).assign(argv + optind, argv + argc);
		p.error = check(p.opt);
		return p;
	}
	if (optind < argc && p.opt.steady == "auto" &&
	    (!std::strcmp(argv[optind], "bw") || !std::strcmp(argv[optind], "iops") || !std::strcmp(argv[optind], "lat"))) {
		p.error = usage_error("%s: unexpected argument (a variable goes after --steady=: --steady=%s)", argv[optind],
				      argv[optind]);
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
	p.error = check(p.opt);
	if (!p.error && !p.opt.file.empty())	// once, here: plan, report, JSON and FILE.N all see the name
		p.error = expand_file(p.opt.file);
	return p;
}

} // namespace
