// html: --html FILE.  One self-contained page drawn from the --json
// document of a run, a quick suite, a merge (--merge, --hosts) or a
// comparison: the figures and the verdict in words, the charts as inline
// SVG (charts.h: no script, no network, no external reference), and the
// document itself embedded as <script type="application/json"
// id="sdb-result">.  A run's page: throughput, IOPS and percentiles over
// time, the latency distribution (a mix's reads and writes also apart),
// a sweep's response curve and --steady's rounds (the window's band and
// fitted line) where the document has them; a suite's: a bar per test; a merge's: a bar per host;
// a comparison's: old against new, and each change with its interval.
// Offers write_html() to sdb.cpp, for a run and for each mode's document.
#pragma once

#include "base.h"
#include "json.h"
#include "stats.h"
#include "load.h"
#include "charts.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace {

// The page's head (its title, the style every chart uses) and its end
// (the document embedded: every "<" as "\u003c", which JSON reads back
// as "<", so that no string of the document, a "</script>" or a
// "<!--<script" in a file or host name, can end or escape the element).
std::string page_head(const std::string &title)
{
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	       "<meta name=\"generator\" content=\"sdb " SDB_VERSION "\">\n<title>" + html_text(title) +
	       "</title>\n<style>\n"
	       "body{font:14px/1.4 sans-serif;margin:24px;color:#222}h1{font-size:16px;margin:0 0 4px}\n"
	       ".headline{font-size:40px;font-weight:bold;line-height:1.1;margin:4px 0}.headline small{font-size:20px;color:#555}\n"
	       "table.context{margin:8px 0 12px;font-size:13px}table.context td{text-align:left}\n"
	       "svg{display:block;width:100%;height:auto;margin:12px 0}svg text.legend{stroke:none}\n"
	       "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}th{text-align:left}\n"
	       ".grid{stroke:#ddd}.axis{stroke:#444}.line{fill:none;stroke:#1f6fb4;stroke-width:2}.bar{fill:#1f6fb4}\n"
	       ".p99{stroke:#c0392b}.p999{stroke:#7d3c98}.dot{stroke:none;fill:#1f6fb4}.dot.p99{fill:#c0392b}.dot.p999{fill:#7d3c98}\n"
	       ".legend{font-size:11px;fill:#1f6fb4}.legend.p99{fill:#c0392b}.legend.p999{fill:#7d3c98}\n"
	       ".hbar{fill:#1f6fb4}.hbar.write{fill:#e67e22}.hbar.old{fill:#aaa}.hbar.slow{fill:#c0392b}.hbar.same{fill:#bbb}\n"
	       ".whisker{stroke:#222;fill:none}\n"
	       ".mark{stroke:#c0392b;stroke-dasharray:3 2}.mark-label{fill:#c0392b;font-size:11px;paint-order:stroke;stroke:#fff;"
	       "stroke-width:3px;stroke-linejoin:round}\n"
	       ".tick{font-size:11px;fill:#444}.title{font-size:13px;font-weight:bold}.caption{font-size:11px;fill:#666}\n"
	       "@media print{body{margin:0}svg{page-break-inside:avoid}}\n</style>\n</head>\n<body>\n<h1>" +
	       html_text(title) + "</h1>\n";
}

// Unix seconds as a UTC date and time: "2026-12-07 21:52:10 UTC".
std::string utc_time(double unix_seconds)
{
	std::time_t t = static_cast<std::time_t>(unix_seconds);
	std::tm tm {};
	char text[40];
	if (!gmtime_r(&t, &tm) || !std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm))
		return "-";
	return text;
}

// The device of a document's context in words: "vda: virtio_blk, 256 GiB,
// rotational".
std::string device_words(const Json &context)
{
	const Json *d = context.find("device", Json::Type::object);
	if (!d)
		return context.find("filesystem", Json::Type::string) ? "none: no block device under the target" : "-";
	std::string s = d->str("name");
	if (!d->str("model").empty())
		s += ": " + d->str("model");
	if (d->find("bytes", Json::Type::number))
		s += ", " + format_bytes(json_whole(d->num("bytes")));
	if (const Json *r = d->find("rotational", Json::Type::boolean))
		s += r->boolean ? ", rotational" : ", not rotational";
	return s;
}

// The page's opening, under its title: the headline figure, the largest
// text on the page, with a smaller second figure beside it; then where the
// result came from (the document's context: host, date, sdb version,
// kernel, command line, target and file system, device) and the verdict.
// A document without one (an earlier sdb's) says so in its sdb row.
std::string page_context(const Json &doc, const std::string &headline, const std::string &second,
			 const std::string &verdict)
{
	const Json none;
	const Json *c = doc.find("context", Json::Type::object);
	const Json &ctx = c ? *c : none;
	auto row = [](const char *name, const std::string &value) {
		return format("<tr><th>%s</th><td>%s</td></tr>\n", name, html_text(value.empty() ? "-" : value).c_str());
	};
	std::string target = ctx.str("target");
	if (!target.empty() && !ctx.str("filesystem").empty())
		target += " on " + ctx.str("filesystem");
	std::string s = "<div class=\"headline\">" + html_text(headline) +
			(second.empty() ? "" : " <small>" + html_text(second) + "</small>") + "</div>\n";
	s += "<table class=\"context\">\n";
	s += row("Host", ctx.str("host").empty() ? doc.str("host") : ctx.str("host"));
	s += row("Date", ctx.find("started_unix", Json::Type::number) ? utc_time(ctx.num("started_unix"))
			 : doc.find("start_unix", Json::Type::number) ? utc_time(doc.num("start_unix")) : "");
	s += row("sdb", doc.str("version") + (c ? "" : " (this version's documents do not say where they ran)"));
	s += row("Kernel", ctx.str("kernel"));
	s += row("Command", ctx.str("command_line"));
	if (!ctx.str("target").empty() || !c)
		s += row("Target", target);
	if (!ctx.str("target").empty() || !c)
		s += row("Device", device_words(ctx));
	s += row("Verdict", verdict);
	return s + "</table>\n";
}

std::string page_end(const std::string &doc_text)
{
	std::string embedded;	// "<" is found only inside JSON's strings
	for (char c : doc_text)
		embedded += c == '<' ? std::string("\\u003c") : std::string(1, c);
	return "<script type=\"application/json\" id=\"sdb-result\">\n" + embedded + "</script>\n</body>\n</html>\n";
}

// The document's warnings as a list; empty without any.
std::string html_warnings(const Json &doc)
{
	std::string items;
	if (const Json *w = doc.find("warnings", Json::Type::array))
		for (const Json &x : w->items)
			items += "<li>" + html_text(x.text) + "</li>\n";
	return items.empty() ? "" : "<p>Warnings:</p>\n<ul>\n" + items + "</ul>\n";
}

// A Device verdict object in words.
std::string verdict_words(const Json &d)
{
	const Json *reason = d.find("reason", Json::Type::string);
	return d.flag("verified") ? format("Device %s: %.0f%% of the bytes claimed reached it, busy %.0f%%; limited by %s.",
					   d.str("name").c_str(), d.num("delivered") * 100, d.num("busy") * 100, d.str("limit").c_str())
				  : format("Device: not verified: %s; limit %s.", reason ? reason->text.c_str() : "unknown",
					   d.str("limit").c_str());
}

std::string mib_label(double y) { return format("%g MiB/s", y); }
std::string count_label(double y) { return format("%.0f", y); }
std::string axis_label(double y) { return std::fabs(y) >= 1e5 ? format("%.0f", y) : format("%g", y); }
std::string ns_label(double y) { return format_ns(static_cast<std::uint64_t>(std::llround(y))); }
std::string percent_label(double y) { return format("%+.0f%%", y); }

// A sweep's response curve: p50, p99 and p99.9 on a log axis against the
// IOPS each step offered, in load order (past the knee a step achieves
// less than the one before, and a curve over the IOPS achieved folds back
// on itself), the knee marked; empty without a sweep.
std::string svg_sweep(const Json &doc)
{
	const Json *sweep = doc.find("sweep", Json::Type::array);
	if (!sweep || sweep->items.empty())
		return "";
	std::vector<Series> lines = {{"p50", "p50", {}}, {"p99", "p99", {}}, {"p99.9", "p999", {}}};
	for (const Json &step : sweep->items) {
		double iops = step.num("offered", step.num("achieved"));
		lines[0].points.push_back({iops, step.num("p50_ns")});
		lines[1].points.push_back({iops, step.num("p99_ns")});
		lines[2].points.push_back({iops, step.num("p999_ns")});
	}
	LineStyle style;
	style.x_unit = "IOPS offered";
	style.steps = false;
	style.log_y = true;
	if (const Json *knee = doc.find("knee", Json::Type::object)) {
		style.mark_x = knee->num("iops");
		style.mark_label = format("knee: %.0f IOPS, p99 %s", knee->num("iops"),
					  format_ns(static_cast<std::uint64_t>(knee->num("p99_ns"))).c_str());
	}
	return svg_lines("Latency against load (log scale)", lines, style, ns_label);
}

// --steady's rounds: each round's figure, the window's +-20% band as two
// lines over it and its least-squares line, the window's first round
// marked; empty without a steady object.
std::string svg_steady(const Json &doc)
{
	const Json *st = doc.find("steady", Json::Type::object);
	const Json *rounds = st ? st->find("rounds", Json::Type::array) : nullptr;
	if (!rounds || rounds->items.empty())
		return "";
	const std::string var = st->str("variable");
	const double scale = var == "bw" ? MiB : 1;	// the axis in MiB/s, IOPS or ns
	std::vector<Series> lines = {{"rounds", "line", {}}};
	for (std::size_t i = 0; i < rounds->items.size(); i++)
		lines[0].points.push_back({static_cast<double>(i + 1), rounds->items[i].number / scale});
	LineStyle style;
	style.x_unit = "round";
	style.steps = false;
	const Json *window = st->find("window", Json::Type::array);
	if (window && window->items.size() == 2) {
		double first = window->items[0].number, last = window->items[1].number, mid = (first + last) / 2;
		double avg = st->num("average") / scale, slope = st->num("slope") / scale;
		// The band's lower edge first: its unnamed legend slot is the leftmost.
		lines.insert(lines.begin(), Series{"", "p999", {{first, avg * 0.8}, {last, avg * 0.8}}});
		lines.push_back({"+-20%", "p999", {{first, avg * 1.2}, {last, avg * 1.2}}});
		lines.push_back({"fit", "p99", {{first, avg + slope * (first - mid)}, {last, avg + slope * (last - mid)}}});
		style.mark_x = first;
		style.mark_label = format("steady in rounds %.0f-%.0f", first, last);
	} else {
		style.caption = format("not steady in %zu rounds", rounds->items.size());
	}
	const char *title = var == "bw" ? "Rate per round (SNIA PTS)"
			    : var == "iops" ? "IOPS per round (SNIA PTS)" : "Mean latency per round (SNIA PTS)";
	return var == "lat" ? svg_lines(title, lines, style, ns_label)
			    : svg_lines(title, lines, style, var == "bw" ? mib_label : count_label);
}

// A mix's side of the total ("read" or "write") with its latency_ns;
// null for a single-way run, whose sides are null.
const Json *mix_side(const Json &total, const char *key)
{
	const Json *side = total.find(key, Json::Type::object);
	return side && side->find("latency_ns", Json::Type::object) ? side : nullptr;
}

// A latency_ns object in words: "min .., p50 .., p99 .., p99.9 .., max ..".
std::string latency_words(const Json &l)
{
	return format("min %s, p50 %s, p99 %s, p99.9 %s, max %s", ns_label(l.num("min")).c_str(), ns_label(l.num("p50")).c_str(),
		      ns_label(l.num("p99")).c_str(), ns_label(l.num("p999")).c_str(), ns_label(l.num("max")).c_str());
}

// A mix's latency, reads and writes apart: a bar per side for its p50,
// p99 and p99.9 (reads blue, writes orange), from total.read.latency_ns and
// total.write.latency_ns (the document keeps one histogram a thread, of
// both sides together).
std::string svg_sides(const Json &reads, const Json &writes)
{
	const Json *r = reads.find("latency_ns", Json::Type::object), *w = writes.find("latency_ns", Json::Type::object);
	std::vector<Bar> bars;
	for (auto [key, name] : {std::pair<const char *, const char *>{"p50", "p50"}, {"p99", "p99"}, {"p999", "p99.9"}})
		for (auto [side, who, css] : {std::tuple<const Json *, const char *, const char *>{r, "reads", "bar"},
					      {w, "writes", "write"}}) {
			Bar b;
			b.label = std::string(who) + " " + name;
			b.value = side->num(key);
			b.css = css;
			b.note = ns_label(b.value);
			bars.push_back(b);
		}
	return svg_bars("Latency percentiles, reads and writes apart", bars, ns_label);
}

// Which test ran, from a document's options: "read rand, 4 KiB blocks,
// queue depth 32, 1 thread" (a -q 1 and a -q 32 page cannot be mistaken).
std::string test_words(const Json &options)
{
	const double depth = options.num("queue_depth", 1), threads = options.num("threads", 1);
	return format("%s %s, %s blocks, queue depth %.0f, %.0f thread%s", options.str("op").c_str(),
		      options.str("mode").c_str(), format_bytes(json_whole(options.num("block_size"))).c_str(),
		      depth > 0 ? depth : 1, threads, threads == 1 ? "" : "s");
}

// The page for one run's document; doc_text: the document as printed.
Error run_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	const Json *options = doc.find("options", Json::Type::object);
	const Json *total = doc.find("total", Json::Type::object);
	const Json *knee = doc.find("knee", Json::Type::object);
	std::string knee_text = knee ? format("knee at %.0f IOPS", knee->num("iops")) : "";
	if ((!options || !total) && doc.find("sweep", Json::Type::array)) {	// a sweep's steps alone
		page = page_head("sdb " + doc.str("version") + ": latency against load") +
		       page_context(doc, knee_text.empty() ? "no knee found" : knee_text, "", "") + html_warnings(doc) +
		       svg_sweep(doc) + page_end(doc_text);
		return {};
	}
	if (!options || !total)
		return runtime_error("--html: the document has no options or total");
	std::string title = "sdb " + doc.str("version") + ": " + test_words(*options) + ": " + options->str("file");
	Series rate{"MiB/s", "", {}}, iops{"IOPS", "", {}}, p50{"p50", "p50", {}}, p99{"p99", "p99", {}};
	double block = options->num("block_size");
	if (const Json *timeline = doc.find("timeline", Json::Type::array))
		for (const Json &p : timeline->items) {
			rate.points.push_back({p.num("t"), p.num("bytes_per_second") / MiB});
			if (block > 0)
				iops.points.push_back({p.num("t"), p.num("bytes_per_second") / block});
			if (p.find("p50_ns", Json::Type::number)) {
				p50.points.push_back({p.num("t"), p.num("p50_ns")});
				p99.points.push_back({p.num("t"), p.num("p99_ns")});
			}
		}
	Histogram hist;
	if (const Json *threads = doc.find("threads", Json::Type::array))
		for (const Json &t : threads->items)
			if (const Json *buckets = t.find("histogram", Json::Type::array))
				if (Error e = histogram_of(*buckets, "--html", "threads[].histogram", hist))
					return e;
	const Json *device = doc.find("device", Json::Type::object);
	const bool sweep = doc.find("sweep", Json::Type::array);
	page = page_head(title);
	page += page_context(doc, format_rate(total->num("bytes_per_second")),
			     format("%.0f IOPS%s", total->num("iops"), knee_text.empty() ? "" : (", " + knee_text).c_str()),
			     device  ? verdict_words(*device)
			     : knee  ? format("the knee at %.0f IOPS offered (p99 %s): past it, latency grows faster than the rate",
					      knee->num("iops"), ns_label(knee->num("p99_ns")).c_str())
			     : sweep ? "no knee found in the steps"
				     : "no device check (the document has none)");
	page += format("<table><tr><th>Total</th><td>%s</td><td>%.2f IOPS</td><td>%s in %.3f s</td></tr></table>\n",
		       html_text(format_rate(total->num("bytes_per_second"))).c_str(), total->num("iops"),
		       html_text(format_bytes(json_whole(total->num("bytes")))).c_str(), total->num("seconds"));
	const Json *reads = mix_side(*total, "read"), *writes = mix_side(*total, "write");
	bool mix = reads && writes;
	if (hist.count())
		page += format("<p>Latency%s: min %s, p50 %s, p99 %s, p99.9 %s, max %s.</p>\n",
			       mix ? ", reads and writes together" : "", html_text(format_ns(hist.min())).c_str(),
			       html_text(format_ns(hist.percentile(0.5))).c_str(),
			       html_text(format_ns(hist.percentile(0.99))).c_str(),
			       html_text(format_ns(hist.percentile(0.999))).c_str(), html_text(format_ns(hist.max())).c_str());
	if (mix)
		page += "<p>Latency, reads: " + html_text(latency_words(*reads->find("latency_ns"))) +
			".<br>\nLatency, writes: " + html_text(latency_words(*writes->find("latency_ns"))) + ".</p>\n";
	page += html_warnings(doc);
	if (rate.points.size() >= 2) {
		LineStyle time;	// the timeline starts where the timed window opens: with --ramp, at the ramp's end
		if (double ramp = options->num("ramp"); ramp > 0)
			time.caption = format("0 s is the end of the %g s ramp: the ramp is not timed and not drawn", ramp);
		page += svg_lines("Throughput over time", {rate}, time, mib_label);
		page += svg_lines("IOPS over time", {iops}, time, count_label);
		if (p50.points.size() >= 2) {
			LineStyle log = time;
			log.log_y = true;
			page += svg_lines(mix ? "Percentiles over time, reads and writes together (log scale)"
					      : "Percentiles over time (log scale)",
					  {p50, p99}, log, ns_label);
		}
	} else if (!sweep) {	// a sweep's total is its closed-loop maximum, whose timeline it does not keep
		page += "<p>The run was too short for a timeline.</p>\n";
	}
	if (mix)
		page += svg_sides(*reads, *writes);
	page += svg_latency(hist, mix ? " of reads and writes together" : "");
	page += svg_sweep(doc);
	page += svg_steady(doc);
	page += page_end(doc_text);
	return {};
}

// A figure of a suite entry's median, min and max: as a bar with the
// runs' range as its whisker.
Bar suite_bar(const Json &test, const char *key, double scale)
{
	Bar b;
	b.label = test.str("name");
	const Json *med = test.find("median", Json::Type::object), *lo = test.find("min", Json::Type::object),
		   *hi = test.find("max", Json::Type::object);
	b.value = med ? med->num(key) / scale : 0;
	if (lo && hi) {
		b.low = lo->num(key) / scale;
		b.high = hi->num(key) / scale;
	}
	b.css = test.str("op") == "write" ? "write" : "bar";
	return b;
}

// The quick suite's page: CrystalDiskMark's grid as two charts, MiB/s and
// IOPS, a bar per test (reads blue, writes orange) with the runs' range.
Error quick_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	const Json *suite = doc.find("suite", Json::Type::array);
	const Json *quick = doc.find("quick", Json::Type::object);
	std::string title = "sdb " + doc.str("version") + " quick suite" +
			    (quick ? " (" + quick->str("profile") + "): " + quick->str("file") : std::string());
	page = page_head(title);
	const Json *first = suite->items.empty() ? nullptr : &suite->items[0];
	const Json *first_median = first ? first->find("median", Json::Type::object) : nullptr;
	const Json *warned = doc.find("warnings", Json::Type::array);
	std::size_t warnings = warned ? warned->items.size() : 0;
	page += page_context(doc, first_median ? format_rate(first_median->num("bytes_per_second")) : "no test ran",
			     first ? first->str("name") : "",
			     warnings ? format("%zu warning%s (below)", warnings, warnings == 1 ? "" : "s")
				      : "no warning: every test's device check passed");
	std::vector<Bar> rates, iops;
	std::string rows;
	for (const Json &t : suite->items) {
		rates.push_back(suite_bar(t, "bytes_per_second", MiB));
		iops.push_back(suite_bar(t, "iops", 1));
		rates.back().note = format_rate(rates.back().value * MiB);
		iops.back().note = format("%.0f IOPS", iops.back().value);
		const Json *med = t.find("median", Json::Type::object);
		rows += format("<tr><th>%s</th><td>%s</td><td>%.0f IOPS</td><td>%s</td></tr>\n", html_text(t.str("name")).c_str(),
			       html_text(rates.back().note).c_str(), iops.back().value,
			       med && med->num("p99_ns") > 0 ? html_text("p99 " + ns_label(med->num("p99_ns"))).c_str() : "");
	}
	if (!rows.empty())
		page += "<table>\n<tr><th>test (median of the runs)</th><th>rate</th><th>IOPS</th><th>latency</th></tr>\n" + rows +
			"</table>\n";
	page += html_warnings(doc);
	page += svg_bars("MiB/s (median, the runs' range)", rates, axis_label);
	page += svg_bars("IOPS (median, the runs' range)", iops, count_label);
	page += page_end(doc_text);
	return {};
}

// A merge's page (--merge, --hosts): a bar per host for its rate and its
// p99, stragglers in red, the merged Total in words, the merged latency
// distribution.
Error fleet_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	const Json *hosts = doc.find("hosts", Json::Type::array);
	const Json *total = doc.find("total", Json::Type::object);
	std::vector<std::string> stragglers;
	if (const Json *fleet = doc.find("fleet", Json::Type::object))
		if (const Json *s = fleet->find("stragglers", Json::Type::array))
			for (const Json &x : s->items)
				stragglers.push_back(x.text);
	const Json *options = doc.find("options", Json::Type::object);
	page = page_head(format("sdb %s: %zu hosts merged%s", doc.str("version").c_str(), hosts->items.size(),
				options && options->find("op") ? (": " + test_words(*options)).c_str() : ""));
	std::size_t answered = 0;
	for (const Json &h : hosts->items)
		answered += h.find("total", Json::Type::object) != nullptr;
	std::string names;
	for (const std::string &s : stragglers)
		names += (names.empty() ? "" : ", ") + s;
	page += page_context(doc, total ? format_rate(total->num("bytes_per_second")) : "no result",
			     format("%zu of %zu hosts", answered, hosts->items.size()),
			     format("%zu host%s merged, %zu failed", answered, answered == 1 ? "" : "s", hosts->items.size() - answered) +
				     (names.empty() ? "; no straggler" : "; stragglers: " + names));
	if (total)
		page += format("<table><tr><th>Total (%.0f hosts)</th><td>%s</td><td>%.2f IOPS</td><td>%s in %.3f s</td></tr></table>\n",
			       total->num("hosts"), html_text(format_rate(total->num("bytes_per_second"))).c_str(),
			       total->num("iops"), html_text(format_bytes(json_whole(total->num("bytes")))).c_str(),
			       total->num("seconds"));
	std::vector<Bar> rates, p99s;
	std::string failed;
	for (const Json &h : hosts->items) {
		const Json *t = h.find("total", Json::Type::object);
		if (!t) {
			failed += "<li>" + html_text(h.str("host") + ": " + h.str("error")) + "</li>\n";
			continue;
		}
		bool slow = std::find(stragglers.begin(), stragglers.end(), h.str("source")) != stragglers.end();
		Bar b;
		b.label = h.str("source");
		b.value = t->num("bytes_per_second") / MiB;
		b.css = slow ? "slow" : "bar";
		b.note = format_rate(t->num("bytes_per_second")) + (slow ? " (straggler)" : "");
		rates.push_back(b);
		if (const Json *l = h.find("latency_ns", Json::Type::object)) {
			b.value = l->num("p99");
			b.note = format_ns(json_whole(b.value)) + (slow ? " (straggler)" : "");
			p99s.push_back(b);
		}
	}
	if (!failed.empty())
		page += "<p>Failed:</p>\n<ul>\n" + failed + "</ul>\n";
	if (!stragglers.empty())
		page += "<p>Stragglers: " + html_text(names) + ".</p>\n";
	page += html_warnings(doc);
	page += svg_bars("MiB/s per host", rates, axis_label);
	if (!p99s.empty())
		page += svg_bars("p99 latency per host", p99s, ns_label);
	Histogram hist;
	if (total)
		if (const Json *buckets = total->find("histogram", Json::Type::array))
			if (Error e = histogram_of(*buckets, "--html", "total.histogram", hist))
				return e;
	page += svg_latency(hist, " of all hosts");
	page += page_end(doc_text);
	return {};
}

// A comparison's page: for each metric, old and new side by side; then
// each change with its 95% interval, grey where not significant.
Error compare_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	const Json *rows = doc.find("compare", Json::Type::array);
	page = page_head("sdb " + doc.str("version") + " compare: old against new");
	unsigned slower = 0, faster = 0, figures = 0;
	for (const Json &r : rows->items) {
		figures++;
		if (!r.flag("significant"))
			continue;
		bool worse = r.str("metric") == "p99_ns" ? r.num("change") > 0 : r.num("change") < 0;
		(worse ? slower : faster)++;
	}
	std::string counted = format("%u slower, %u faster", slower, faster);
	page += page_context(doc, counted, format("of %u figures (95%% intervals)", figures),
			     slower + faster ? counted + "; the others: no significant difference"
					     : "no significant difference in any figure");
	page += html_warnings(doc);
	struct Metric {
		const char *key, *title, *name;
		double scale;
		std::string (*words)(double);	// a figure, unscaled
	};
	const Metric metrics[] = {
		{"bytes_per_second", "MiB/s, old and new", "rate", double(MiB), [](double v) { return format_rate(v); }},
		{"iops", "IOPS, old and new", "IOPS", 1, count_label},
		{"p99_ns", "p99 latency (us), old and new", "p99", 1000, ns_label}};
	std::vector<Bar> changes;
	for (const Metric &m : metrics) {
		std::vector<Bar> bars;
		for (const Json &r : rows->items) {
			if (r.str("metric") != m.key)
				continue;
			Bar o, n;
			o.label = r.str("name") + " (old)";
			o.value = r.num("old") / m.scale;
			o.css = "old";
			n.label = r.str("name") + " (new)";
			n.value = r.num("new") / m.scale;
			n.css = "new";
			o.note = m.words(r.num("old"));
			n.note = m.words(r.num("new"));
			bars.push_back(o);
			bars.push_back(n);
			Bar c;
			c.label = r.str("name") + ": " + m.name;
			c.value = r.num("change") * 100;
			bool interval = r.find("low", Json::Type::number) && r.find("high", Json::Type::number);
			if (interval) {
				c.low = r.num("low") * 100;
				c.high = r.num("high") * 100;
			}
			bool significant = r.flag("significant");
			c.css = interval && !significant ? "same" : "bar";
			c.note = format("%+.1f%%", c.value) +
				 (!interval ? " (no interval)" : significant ? "" : " (no significant difference)");
			changes.push_back(c);
		}
		if (!bars.empty())
			page += svg_bars(m.title, bars, axis_label);
	}
	page += svg_bars("Change, with its 95% interval", changes, percent_label);
	page += page_end(doc_text);
	return {};
}

// The page for a document, by what it holds.
Error make_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	if (doc.find("suite", Json::Type::array))
		return quick_page(doc, doc_text, page);
	if (doc.find("compare", Json::Type::array))
		return compare_page(doc, doc_text, page);
	if (doc.find("hosts", Json::Type::array))
		return fleet_page(doc, doc_text, page);
	return run_page(doc, doc_text, page);
}

// Write the page for the document to path: through a new file beside it
// (PATH.sdb-tmp, marked as sdb's), renamed over path once whole, so that a
// failure leaves no half page; an existing path that is not a regular file
// is refused.  Whether sdb may replace path at all is outputs.h's
// check_outputs(), asked before the run.
Error write_html(const std::string &path, const std::string &doc_text)
{
	Json doc;
	if (Error e = parse_json(doc_text, "--html", doc, json_unbounded))	// sdb's own, just made
		return e;
	std::string page;
	if (Error e = make_page(doc, doc_text, page))
		return e;
	return replace_whole("--html", path, page, "page");
}

} // namespace
