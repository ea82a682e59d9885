// compare: --compare OLD NEW.  Two sdb --json documents (runs, quick
// suites or merges) test by test: the change in MiB/s, IOPS and p99 with
// a 95% confidence interval where the data give one (a quick-suite test's
// runs; --steady's window rounds; a timed run's timeline steps, as batch
// means), "no significant difference" when the interval spans 0, and
// warnings where the two differ in what they measured.  Offers run_compare() to its row, compare_mode.
#pragma once

#include "base.h"
#include "signals.h"
#include "json.h"
#include "context.h"
#include "options.h"
#include "stats.h"
#include "spread.h"
#include "load.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

// One figure of one test in one document: its value and, where the
// document has them, the samples it is the mean of.
struct Figure {
	double value = 0;
	std::vector<double> samples;	// empty: no interval from this document
};

// One test of a document: a run's Total, or one quick-suite test.
struct Tested {
	std::string name;
	Figure bps, iops, p99;
	bool rounds = false;	// a --steady result's samples are its window's (or last five) rounds
};

// A document's tests and what it measured on, for the warnings.
struct Compared {
	std::string file, version, host, device;
	std::vector<std::pair<std::string, std::string>> setup;	// what a warning names where the two differ: size, time, ...
	std::vector<std::pair<std::string, std::string>> options;	// the other options: key, value as JSON
	bool suite = false;		// a quick suite's tests; else one run's (or merge's) Total
	enum class Steady { none, steady, not_steady } steady = Steady::none;	// a --steady result, and its verdict
	std::vector<Tested> tests;
};

// Two runs (not suites) compare their Totals whatever their options, which
// the warnings name; tests of suites are matched by name.
bool totals_only(const Compared &a, const Compared &b) { return !a.suite && !b.suite; }

// The change from old to new as a share of old, and Welch's 95% interval
// for it where both have at least two samples.
struct Change {
	double change = 0;
	std::optional<double> low, high;
	bool significant() const { return low && (*low > 0 || *high < 0); }
};

Change change_of(const Figure &o, const Figure &n)
{
	Change c;
	double base = o.samples.size() >= 2 ? mean(o.samples) : o.value;
	double now = n.samples.size() >= 2 ? mean(n.samples) : n.value;
	if (!(base > 0))
		return c;
	c.change = (now - base) / base;
	if (o.samples.size() < 2 || n.samples.size() < 2)
		return c;
	double a = variance(o.samples) / static_cast<double>(o.samples.size());
	double b = variance(n.samples) / static_cast<double>(n.samples.size());
	double se = std::sqrt(a + b);
	double df = a + b > 0 ? (a + b) * (a + b) /
				(a * a / static_cast<double>(o.samples.size() - 1) + b * b / static_cast<double>(n.samples.size() - 1))
			      : 1e9;
	double half = t975(df) * se;
	c.low = (now - base - half) / base;
	c.high = (now - base + half) / base;
	return c;
}

// "read seq 1 MiB Q1T1": a plain run's test, from its options.
std::string run_name(const Json &o)
{
	std::string op = o.str("op");
	if (op == "mix")
		op = format("mix %.0f%%", o.num("mix"));
	return format("%s %s %s Q%.0fT%.0f", op.c_str(), o.str("mode").c_str(),
		      format_bytes(json_whole(o.num("block_size"))).c_str(), o.num("queue_depth", 1), o.num("threads", 1));
}

// A --steady result: the rounds of its window (or, not steady, its last
// five) are the samples of all three, as --runs' runs are.
Error steady_samples(const Json &doc, const std::string &file, Tested &t)
{
	const Json *st = doc.find("steady", Json::Type::object);
	const Json *figures = st ? st->find("round_figures", Json::Type::array) : nullptr;
	const Json *window = st ? st->find("figures_of", Json::Type::array) : nullptr;
	if (!figures || !window)
		return {};
	if (window->items.size() != 2 || window->items[0].type != Json::Type::number ||
	    window->items[1].type != Json::Type::number || !(window->items[0].number >= 1) ||
	    window->items[1].number < window->items[0].number ||
	    window->items[1].number > static_cast<double>(figures->items.size()))
		return runtime_error("%s: steady.figures_of is not a window of its %zu rounds", input_name(file).c_str(),
				     figures->items.size());
	t.bps.samples.clear();
	t.iops.samples.clear();
	t.p99.samples.clear();
	const auto first = static_cast<std::size_t>(window->items[0].number), last = static_cast<std::size_t>(window->items[1].number);
	bool p99 = true;
	for (std::size_t i = first - 1; i < last; i++) {
		const Json &r = figures->items[i];
		t.bps.samples.push_back(r.num("bytes_per_second"));
		t.iops.samples.push_back(r.num("iops"));
		p99 = p99 && r.find("p99_ns", Json::Type::number);
		t.p99.samples.push_back(r.num("p99_ns"));
	}
	if (!p99)
		t.p99.samples.clear();
	t.rounds = true;
	return {};
}

// A run's (or a merge's) Total: the timeline's steps but the last (shorter,
// and after the first thread ended) are its batch means; IOPS per step from
// the block size; p99 from the threads' merged histograms.  A document of
// --runs N: its runs are the samples of all three.
Error run_tested(const Json &doc, const std::string &file, Tested &t)
{
	const Json *total = doc.find("total", Json::Type::object);
	const Json *options = doc.find("options", Json::Type::object);
	if (!total)
		return runtime_error("%s: not an sdb run, quick suite or merge (no \"total\" or \"suite\")", input_name(file).c_str());
	t.name = options ? run_name(*options) : "total";
	t.bps.value = total->num("bytes_per_second");
	t.iops.value = total->num("iops");
	double block = options ? options->num("block_size") : 0;
	if (const Json *timeline = doc.find("timeline", Json::Type::array)) {
		for (std::size_t i = 0; i + 1 < timeline->items.size(); i++) {
			double bps = timeline->items[i].num("bytes_per_second", -1);
			if (bps < 0)
				return runtime_error("%s: timeline[%zu] has no bytes_per_second", input_name(file).c_str(), i);
			t.bps.samples.push_back(bps);
			if (block > 0)
				t.iops.samples.push_back(bps / block);
		}
	}
	Histogram h;
	if (const Json *threads = doc.find("threads", Json::Type::array))
		for (const Json &th : threads->items)
			if (const Json *buckets = th.find("histogram", Json::Type::array))
				if (Error e = histogram_of(*buckets, input_name(file), "threads[].histogram", h))
					return e;
	t.p99.value = static_cast<double>(h.percentile(0.99));
	if (const Json *runs = doc.find("runs", Json::Type::array); runs && runs->items.size() >= 2) {
		t.bps.samples.clear();	// --runs N: the runs are the samples, not one run's timeline
		t.iops.samples.clear();
		for (const Json &r : runs->items) {
			t.bps.samples.push_back(r.num("bytes_per_second"));
			t.iops.samples.push_back(r.num("iops"));
			if (r.find("p99_ns", Json::Type::number))
				t.p99.samples.push_back(r.num("p99_ns"));
		}
		if (t.p99.samples.size() != runs->items.size())
			t.p99.samples.clear();
	}
	return steady_samples(doc, file, t);
}

// A quick suite's tests: each test's runs are its samples.
Error suite_tested(const Json &suite, const std::string &file, std::vector<Tested> &tests)
{
	for (const Json &row : suite.items) {
		Tested t;
		t.name = row.str("name");
		const Json *runs = row.find("runs", Json::Type::array);
		if (t.name.empty() || !runs)
			return runtime_error("%s: a suite entry without a name or runs", input_name(file).c_str());
		for (const Json &r : runs->items) {
			t.bps.samples.push_back(r.num("bytes_per_second"));
			t.iops.samples.push_back(r.num("iops"));
			t.p99.samples.push_back(r.num("p99_ns"));
		}
		t.bps.value = mean(t.bps.samples);
		t.iops.value = mean(t.iops.samples);
		t.p99.value = mean(t.p99.samples);
		tests.push_back(std::move(t));
	}
	return {};
}

// The options a comparison warns about by name.
bool setup_key(const std::string &key)
{
	for (const char *k : {"file", "size", "time_limit", "block_size", "queue_depth", "threads"})
		if (key == k)
			return true;
	return false;
}

// What a document measured on, in words, for the warnings: a run's (or a
// merge's) target, size, time, block size, depth and threads; a quick
// suite's directory, profile, size, time and runs.
std::vector<std::pair<std::string, std::string>> setup_of(const Json &doc)
{
	std::vector<std::pair<std::string, std::string>> out;
	auto bytes = [](const Json &o, const char *key) {
		const Json *v = o.find(key, Json::Type::number);
		return v ? format_bytes(json_whole(v->number)) : std::string("none");
	};
	auto seconds = [](const Json &o, const char *key) {
		const Json *v = o.find(key, Json::Type::number);
		return v && v->number > 0 ? format("%g s", v->number) : std::string("one pass");
	};
	if (const Json *q = doc.find("quick", Json::Type::object)) {
		std::string file = q->str("file");	// sdb-quick.PID in the directory tested
		out.push_back({"target", file.substr(0, file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1)});
		out.push_back({"profile", q->str("profile")});
		out.push_back({"size", bytes(*q, "size")});
		out.push_back({"time", seconds(*q, "time_per_run")});
		out.push_back({"run count", format("%g", q->num("runs"))});
	} else if (const Json *o = doc.find("options", Json::Type::object)) {
		out.push_back({"target", o->str("file")});
		out.push_back({"size", bytes(*o, "size")});
		out.push_back({"time", seconds(*o, "time_limit")});
		out.push_back({"block size", bytes(*o, "block_size")});
		out.push_back({"depth", format("%g", o->num("queue_depth", 1))});
		out.push_back({"thread count", format("%g", o->num("threads", 1))});
	}
	return out;
}

Error load_compared(const std::string &file, Compared &c, Waiter *waiter = nullptr)
{
	std::string text;
	Json doc;
	if (Error e = read_input(file, text, waiter))
		return e;
	Lifted lifted = lift_histograms(text);	// a comparison reads no histogram: kept apart, not as JSON values
	JsonParser parser(text);
	if (!parser.parse(doc))
		return json_syntax_error(input_name(file), parser, lifted.input_offset(parser.offset()));
	if (doc.type != Json::Type::object || !doc.find("version", Json::Type::string))
		return runtime_error("%s: not an sdb --json document (no \"version\")", input_name(file).c_str());
	c.file = file;
	c.version = doc.str("version");
	c.host = doc.str("host");
	if (const Json *d = doc.find("device", Json::Type::object))
		c.device = d->str("name");
	if (const Json *o = doc.find("options", Json::Type::object))
		for (const auto &m : o->members)
			if (!setup_key(m.first))	// the setup's keys apart: a warning names each
				c.options.push_back({m.first, json_dump(m.second)});
	c.setup = setup_of(doc);
	if (const Json *suite = doc.find("suite", Json::Type::array)) {
		c.suite = true;
		return suite_tested(*suite, file, c.tests);
	}
	if (const Json *st = doc.find("steady", Json::Type::object))
		c.steady = st->flag("steady") ? Compared::Steady::steady : Compared::Steady::not_steady;
	Tested t;
	if (Error e = run_tested(doc, file, t))
		return e;
	c.tests.push_back(std::move(t));
	return {};
}

std::vector<std::string> compare_warnings(const Compared &a, const Compared &b)
{
	std::vector<std::string> w;
	auto differ = [&](const char *what, const std::string &x, const std::string &y) {
		if (x != y)
			w.push_back(format("%s differ: %s in %s, %s in %s", what, x.empty() ? "none" : printable(x).c_str(),
					   input_name(a.file).c_str(), y.empty() ? "none" : printable(y).c_str(),
					   input_name(b.file).c_str()));
	};
	differ("the versions", a.version, b.version);
	differ("the hosts", a.host, b.host);
	differ("the devices", a.device, b.device);
	auto value = [](const std::vector<std::pair<std::string, std::string>> &list, const std::string &key) {
		auto it = std::find_if(list.begin(), list.end(), [&](const auto &p) { return p.first == key; });
		return it == list.end() ? std::string("(none)") : it->second;
	};
	for (const auto &[what, x] : a.setup)
		if (std::string y = value(b.setup, what); y != "(none)" && x != y)
			w.push_back(format("the %s differs: %s in %s, %s in %s", what.c_str(), printable(x).c_str(),
					   input_name(a.file).c_str(), printable(y).c_str(), input_name(b.file).c_str()));
	std::vector<std::string> other;	// the other options that differ, named
	for (const auto *list : {&a.options, &b.options})
		for (const auto &[key, v] : *list)
			if (value(a.options, key) != value(b.options, key) &&
			    std::find(other.begin(), other.end(), key) == other.end())
				other.push_back(key);
	std::string keys;
	for (const std::string &k : other)
		keys += (keys.empty() ? "" : ", ") + k;
	if (!keys.empty())
		w.push_back(format("the options differ (%s) between %s and %s: the runs measured different things",
				   keys.c_str(), input_name(a.file).c_str(), input_name(b.file).c_str()));
	for (const Compared *c : {&a, &b})
		if (c->steady == Compared::Steady::not_steady)
			w.push_back(input_name(c->file) + " was not steady: " +
				    (!c->tests.empty() && c->tests[0].rounds ? "its last five rounds are compared"
									     : "its reported round is compared (no five rounds to take)"));
	if ((a.steady == Compared::Steady::none) != (b.steady == Compared::Steady::none))
		w.push_back(format("%s is a --steady result and %s is not: a window of rounds against one run",
				   input_name((a.steady != Compared::Steady::none ? a : b).file).c_str(),
				   input_name((a.steady != Compared::Steady::none ? b : a).file).c_str()));
	if (totals_only(a, b))
		return w;
	for (const Tested &t : a.tests)
		if (std::none_of(b.tests.begin(), b.tests.end(), [&](const Tested &u) { return u.name == t.name; }))
			w.push_back(format("%s is only in %s", t.name.c_str(), input_name(a.file).c_str()));
	for (const Tested &t : b.tests)
		if (std::none_of(a.tests.begin(), a.tests.end(), [&](const Tested &u) { return u.name == t.name; }))
			w.push_back(format("%s is only in %s", t.name.c_str(), input_name(b.file).c_str()));
	return w;
}

// One row of the comparison: a test's figure, old and new.
struct Row {
	std::string test, metric;
	Figure old_figure, new_figure;
	Change change;
};

std::vector<Row> compare_rows(const Compared &a, const Compared &b)
{
	std::vector<Row> rows;
	for (const Tested &t : a.tests) {
		auto u = totals_only(a, b) ? b.tests.begin()
					   : std::find_if(b.tests.begin(), b.tests.end(), [&](const Tested &x) { return x.name == t.name; });
		if (u == b.tests.end())
			continue;
		std::string name = t.name == u->name ? t.name : t.name + " -> " + u->name;
		const std::pair<const char *, Figure Tested::*> metrics[] = {
			{"bytes_per_second", &Tested::bps}, {"iops", &Tested::iops}, {"p99_ns", &Tested::p99}};
		for (auto [metric, f] : metrics)
			rows.push_back({name, metric, t.*f, (*u).*f, change_of(t.*f, (*u).*f)});
	}
	return rows;
}

// --fail-slower PCT: the row got worse (rate or IOPS down, p99 up) by more
// than PCT percent with its whole 95% interval beyond that; a row with no
// interval is never called slower.
bool slower_beyond(const Row &r, double pct)
{
	if (!r.change.low)
		return false;
	const double limit = pct / 100;
	return r.metric == "p99_ns" ? *r.change.low > limit : *r.change.high < -limit;
}

const char *metric_label(const Row &r)
{
	return r.metric == "bytes_per_second" ? "rate" : r.metric == "iops" ? "IOPS" : "p99";
}

std::string figure_words(const Row &r, const Figure &f)
{
	double v = f.samples.size() >= 2 ? mean(f.samples) : f.value;
	if (r.metric == "bytes_per_second")
		return format_rate(v);
	if (r.metric == "iops")
		return format("%.0f IOPS", v);
	return format_ns(static_cast<std::uint64_t>(std::llround(v)));
}

// How many samples each side's mean is of: " (means of 5 and 20)"; a side
// of one value: its own figure, nothing said (change_words says it).
std::string sample_words(const Row &r)
{
	std::size_t o = r.old_figure.samples.size(), n = r.new_figure.samples.size();
	return o >= 2 && n >= 2 ? format(" (means of %zu and %zu)", o, n) : std::string();
}

std::string change_words(const Change &c)
{
	std::string s = format("%+.1f%%", c.change * 100);
	if (!c.low)
		return s + " (no interval: one value each)";
	s += format(" [%+.1f%%, %+.1f%%]", *c.low * 100, *c.high * 100);
	return s + (c.significant() ? ": significant" : ": no significant difference");
}

void print_compare_human(std::FILE *out, const Compared &a, const Compared &b, const std::vector<Row> &rows,
			 double fail_slower)
{
	std::fprintf(out, "sdb %s compare: %s (old) against %s (new): means of each side's samples (runs, rounds or "
		     "timeline steps), changes with Welch's 95%% intervals\n", SDB_VERSION, input_name(a.file).c_str(),
		     input_name(b.file).c_str());
	std::string last;
	for (const Row &r : rows) {
		if (r.test != last)
			std::fprintf(out, "%s\n", r.test.c_str());
		last = r.test;
		std::fprintf(out, "  %-5s %s -> %s%s: %s\n", metric_label(r), figure_words(r, r.old_figure).c_str(),
			     figure_words(r, r.new_figure).c_str(), sample_words(r).c_str(), change_words(r.change).c_str());
	}
	if (fail_slower < 0)
		return;
	std::string failing;
	for (const Row &r : rows)
		if (slower_beyond(r, fail_slower))
			failing += format("%s%s %s (%s)", failing.empty() ? "" : "; ", r.test.c_str(), metric_label(r),
					  change_words(r.change).c_str());
	if (failing.empty())
		std::fprintf(out, "--fail-slower %g%%: no test slower by more, with its whole interval\n", fail_slower);
	else
		std::fprintf(out, "--fail-slower %g%%: slower: %s\n", fail_slower, failing.c_str());
}

std::string json_optional(const std::optional<double> &v) { return v ? json_number(*v) : "null"; }

void print_compare_json(std::FILE *out, const std::vector<Row> &rows, const std::vector<std::string> &warnings,
			double fail_slower)
{
	std::string doc = format("{\"version\": %s,\n \"context\": %s,\n \"compare\": [", json_string(SDB_VERSION).c_str(),
				 json_context("").c_str());
	for (std::size_t i = 0; i < rows.size(); i++) {
		const Row &r = rows[i];
		auto value = [](const Figure &f) { return f.samples.size() >= 2 ? mean(f.samples) : f.value; };
		auto samples = [](const Figure &f) { return f.samples.size() >= 2 ? f.samples.size() : std::size_t{1}; };
		doc += format("%s\n  {\"name\": %s, \"metric\": \"%s\", \"old\": %s, \"new\": %s, \"old_samples\": %zu, "
			      "\"new_samples\": %zu, \"change\": %s, \"low\": %s, \"high\": %s, \"significant\": %s%s}",
			      i ? "," : "", json_string(r.test).c_str(), r.metric.c_str(), json_number(value(r.old_figure)).c_str(),
			      json_number(value(r.new_figure)).c_str(), samples(r.old_figure), samples(r.new_figure),
			      json_number(r.change.change).c_str(),
			      json_optional(r.change.low).c_str(), json_optional(r.change.high).c_str(),
			      r.change.low ? json_bool(r.change.significant()).c_str() : "null",
			      fail_slower < 0 ? "" : format(", \"slower\": %s", json_bool(slower_beyond(r, fail_slower)).c_str()).c_str());
	}
	doc += "]";
	if (fail_slower >= 0)
		doc += ",\n \"fail_slower\": " + json_number(fail_slower);
	doc += ",\n \"warnings\": " + json_warnings(warnings) + "}\n";
	std::fputs(doc.c_str(), out);
}

// sdb --compare OLD NEW [--json] [--html FILE] [--fail-slower PCT]: exit 3
// (exit_regression) when a row is slower_beyond() PCT.  doc, for --html: the
// comparison's document, made with or without --json.  A signal while an
// input is read (standard input) or while stdout is blocked ends it:
// exit 128+n.
int run_compare(const Options &opt, std::FILE *out, std::string *doc = nullptr)
{
	SignalScope scope;
	if (Error e = scope.error()) {
		print_error(e);
		return e.status;
	}
	Compared a, b;
	Error e = load_compared(opt.compare_files[0], a, &scope.waiter);
	if (!e)
		e = load_compared(opt.compare_files[1], b, &scope.waiter);
	if (e) {
		print_error(e);
		return scope.waiter.received() ? scope.waiter.exit_status() : e.status;
	}
	std::vector<std::string> warnings = compare_warnings(a, b);
	std::vector<Row> rows = compare_rows(a, b);
	if (rows.empty()) {
		print_error(runtime_error("--compare: %s and %s have no test in common", input_name(a.file).c_str(),
					  input_name(b.file).c_str()));
		return exit_runtime;
	}
	emit_warnings(warnings);
	if (doc)
		*doc = printed([&](std::FILE *mem) { print_compare_json(mem, rows, warnings, opt.fail_slower); });
	std::string text = opt.json && doc ? *doc : printed([&](std::FILE *mem) {
		opt.json ? print_compare_json(mem, rows, warnings, opt.fail_slower)
			 : print_compare_human(mem, a, b, rows, opt.fail_slower);
	});
	if (int status = deliver(out, text, scope.waiter)) {
		if (doc)
			doc->clear();	// as a run's: no page of a report cut short
		return status;
	}
	if (opt.fail_slower >= 0 && std::any_of(rows.begin(), rows.end(), [&](const Row &r) { return slower_beyond(r, opt.fail_slower); }))
		return exit_regression;
	return exit_ok;
}

// --compare's rules: it reads two results and runs nothing, so only
// --json, --html and --fail-slower go with it.
Error check_compare(const Options &o)
{
	for (const std::string &g : o.given) {
		std::string name = g.substr(0, g.find('='));
		if (name != "--compare" && name != "--json" && name != "--html" && name != "--fail-slower")
			return usage_error("--compare and %s: --compare reads two saved results, it runs nothing", name.c_str());
	}
	if (o.compare_files.size() != 2)
		return usage_error("--compare: needs OLD NEW, two sdb --json documents (- for standard input)");
	if (o.compare_files[0] == "-" && o.compare_files[1] == "-")
		return usage_error("--compare - -: standard input given twice (it holds one document; give a file for the other)");
	return {};
}

const Mode compare_mode = {"--compare", [](const Options &o) { return o.compare; }, check_compare, run_compare};

} // namespace
