// html: --html FILE.  One self-contained page drawn from a run's --json
// document: the figures and the verdict in words, the throughput and
// IOPS over time and the latency distribution as inline SVG (drawn here,
// no script, no network, no external reference), and the document itself
// embedded as <script type="application/json" id="sdb-result">.  Offers
// write_html() to run().
#pragma once

#include "base.h"
#include "json.h"
#include "stats.h"
#include "load.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Text for HTML: & < > " escaped, and bytes that are not UTF-8 shown as
// printable() shows them.
std::string html_text(std::string_view s)
{
	std::string out;
	for (char c : printable(s)) {
		switch (c) {
		case '&': out += "&amp;"; break;
		case '<': out += "&lt;"; break;
		case '>': out += "&gt;"; break;
		case '"': out += "&quot;"; break;
		default: out += c;
		}
	}
	return out;
}

// 1, 2 or 5 times a power of ten: a tick step giving about `ticks` ticks
// over [0, top].
double nice_step(double top, int ticks)
{
	double raw = top / ticks, p = std::pow(10.0, std::floor(std::log10(raw)));
	for (double m : {1.0, 2.0, 5.0, 10.0})
		if (m * p >= raw)
			return m * p;
	return 10 * p;
}

// A line chart of (x, y) points in a w x h box, with axes, ticks and their
// labels; y_label formats a y value.
template <typename Label>
std::string svg_line_chart(const std::string &title, const std::vector<std::pair<double, double>> &points,
			   const char *x_unit, Label y_label)
{
	const int w = 640, h = 240, left = 80, right = 16, top = 28, bottom = 36;
	double x_max = 0, y_max = 0;
	for (auto [x, y] : points) {
		x_max = std::max(x_max, x);
		y_max = std::max(y_max, y);
	}
	if (!(x_max > 0))
		x_max = 1;
	double y_step = nice_step(y_max > 0 ? y_max : 1, 4);
	y_max = std::ceil((y_max > 0 ? y_max : 1) / y_step) * y_step;
	double x_step = nice_step(x_max, 6);
	auto px = [&](double x) { return left + x / x_max * (w - left - right); };
	auto py = [&](double y) { return top + (1 - y / y_max) * (h - top - bottom); };
	std::string s = format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
			       "role=\"img\" aria-label=\"%s\">\n<text x=\"%d\" y=\"18\" class=\"title\">%s</text>\n",
			       w, h, w, h, html_text(title).c_str(), left, html_text(title).c_str());
	for (double y = 0; y <= y_max * 1.0001; y += y_step)
		s += format("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			    "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
			    left, w - right, py(y), py(y), left - 6, py(y) + 4, html_text(y_label(y)).c_str());
	for (double x = 0; x <= x_max * 1.0001; x += x_step)
		s += format("<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n", px(x), h - bottom + 16, x);
	s += format("<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%s</text>\n", w - right, h - 4, x_unit);
	s += format("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>"
		    "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.1f\" class=\"axis\"/>\n",
		    left, w - right, py(0), py(0), left, left, top, py(0));
	std::string path;
	double prev_x = 0;
	for (auto [x, y] : points) {	// a step each: the rate held over the interval that ends at x
		path += format("%s%.1f,%.1f L%.1f,%.1f ", path.empty() ? "M" : "L", px(prev_x), py(y), px(x), py(y));
		prev_x = x;
	}
	if (!path.empty())
		s += "<path d=\"" + path + "\" class=\"line\"/>\n";
	return s + "</svg>\n";
}

// The latency distribution: a bar per histogram bucket group on a log
// axis of nanoseconds, with p50, p99, p99.9 and max marked.
std::string svg_latency(const Histogram &hist)
{
	const int w = 640, h = 240, left = 60, right = 16, top = 28, bottom = 36;
	if (hist.count() == 0)
		return "";
	double lo = std::floor(std::log10(std::max<std::uint64_t>(hist.min(), 1)));
	double hi = std::ceil(std::log10(std::max<std::uint64_t>(hist.max(), 10) + 1.0));
	if (hi <= lo)
		hi = lo + 1;
	auto px = [&](double ns) { return left + (std::log10(std::max(ns, 1.0)) - lo) / (hi - lo) * (w - left - right); };
	const int bins = 120;	// equal widths on the log axis
	std::vector<double> count(bins, 0);
	for (unsigned i = 0; i < Histogram::buckets; i++)
		if (std::uint64_t n = hist.at(i)) {
			double x = (std::log10(std::max<double>(static_cast<double>(Histogram::midpoint(i)), 1)) - lo) / (hi - lo);
			count[std::clamp(static_cast<int>(x * bins), 0, bins - 1)] += static_cast<double>(n);
		}
	double most = *std::max_element(count.begin(), count.end());
	std::string s = format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
			       "role=\"img\" aria-label=\"latency distribution\">\n"
			       "<text x=\"%d\" y=\"18\" class=\"title\">Latency distribution (%" PRIu64 " I/Os, log scale)</text>\n",
			       w, h, w, h, left, hist.count());
	double bar = static_cast<double>(w - left - right) / bins;
	for (int b = 0; b < bins; b++)
		if (count[b] > 0) {
			double height = count[b] / most * (h - top - bottom);
			s += format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"bar\"/>\n", left + b * bar,
				    h - bottom - height, std::max(bar - 0.5, 0.5), height);
		}
	for (double d = lo; d <= hi; d++)
		s += format("<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"%s\">%s</text>\n", px(std::pow(10.0, d)),
			    h - bottom + 16, d + 1 > hi ? "end" : d == lo ? "start" : "middle",
			    html_text(format_ns(static_cast<std::uint64_t>(std::pow(10.0, d)))).c_str());
	s += format("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>\n", left, w - right, h - bottom, h - bottom);
	const std::pair<const char *, std::uint64_t> marks[] = {{"p50", hist.percentile(0.5)}, {"p99", hist.percentile(0.99)},
								{"p99.9", hist.percentile(0.999)}, {"max", hist.max()}};
	int row = 0;
	for (auto [name, ns] : marks) {
		double x = px(static_cast<double>(ns));
		bool near_end = x > w - right - 90;	// the label on the line's left, inside the box
		s += format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"mark\"/>"
			    "<text x=\"%.1f\" y=\"%d\" class=\"mark-label\" text-anchor=\"%s\">%s %s</text>\n",
			    x, x, top, h - bottom, near_end ? x - 3 : x + 3, top + 12 + 12 * row++, near_end ? "end" : "start",
			    name, html_text(format_ns(ns)).c_str());
	}
	return s + "</svg>\n";
}

// The page for one run's document; doc_text: the document as printed.
Error run_page(const Json &doc, const std::string &doc_text, std::string &page)
{
	const Json *options = doc.find("options", Json::Type::object);
	const Json *total = doc.find("total", Json::Type::object);
	if (!options || !total)
		return runtime_error("--html: the document has no options or total");
	std::string what = format("%s %s, %s blocks, %.0f thread%s", options->str("op").c_str(), options->str("mode").c_str(),
				  format_bytes(json_whole(options->num("block_size"))).c_str(), options->num("threads"),
				  options->num("threads") == 1 ? "" : "s");
	std::string title = "sdb " + doc.str("version") + ": " + what + ": " + options->str("file");
	std::vector<std::pair<double, double>> rate, iops;
	double block = options->num("block_size");
	if (const Json *timeline = doc.find("timeline", Json::Type::array))
		for (const Json &p : timeline->items) {
			rate.push_back({p.num("t"), p.num("bytes_per_second") / MiB});
			if (block > 0)
				iops.push_back({p.num("t"), p.num("bytes_per_second") / block});
		}
	Histogram hist;
	if (const Json *threads = doc.find("threads", Json::Type::array))
		for (const Json &t : threads->items)
			if (const Json *buckets = t.find("histogram", Json::Type::array))
				if (Error e = histogram_of(*buckets, "--html", "threads[].histogram", hist))
					return e;
	std::string verdict;
	if (const Json *d = doc.find("device", Json::Type::object)) {
		const Json *reason = d->find("reason", Json::Type::string);
		verdict = d->flag("verified")
				  ? format("Device %s: %.0f%% of the bytes claimed reached it, busy %.0f%%; limited by %s.",
					   d->str("name").c_str(), d->num("delivered") * 100, d->num("busy") * 100, d->str("limit").c_str())
				  : format("Device: not verified: %s; limit %s.", reason ? reason->text.c_str() : "unknown",
					   d->str("limit").c_str());
	}
	std::string warnings;
	if (const Json *w = doc.find("warnings", Json::Type::array))
		for (const Json &x : w->items)
			warnings += "<li>" + html_text(x.text) + "</li>\n";
	std::string embedded;	// "</" would end the script element: JSON lets it be "<\/"
	for (std::size_t i = 0; i < doc_text.size(); i++) {
		embedded += doc_text[i];
		if (doc_text[i] == '<' && i + 1 < doc_text.size() && doc_text[i + 1] == '/')
			embedded += '\\';
	}
	page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_text(title) +
	       "</title>\n<style>\n"
	       "body{font:14px/1.4 sans-serif;margin:24px;max-width:720px;color:#222}h1{font-size:18px}\n"
	       "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}th{text-align:left}\n"
	       ".grid{stroke:#ddd}.axis{stroke:#444}.line{fill:none;stroke:#1f6fb4;stroke-width:2}.bar{fill:#1f6fb4}\n"
	       ".mark{stroke:#c0392b;stroke-dasharray:3 2}.mark-label{fill:#c0392b;font-size:11px}\n"
	       ".tick{font-size:11px;fill:#444}.title{font-size:13px;font-weight:bold}\n"
	       "@media print{body{margin:0}svg{page-break-inside:avoid}}\n</style>\n</head>\n<body>\n<h1>" +
	       html_text(title) + "</h1>\n";
	page += format("<table><tr><th>Total</th><td>%s</td><td>%.2f IOPS</td><td>%s in %.3f s</td></tr></table>\n",
		       html_text(format_rate(total->num("bytes_per_second"))).c_str(), total->num("iops"),
		       html_text(format_bytes(json_whole(total->num("bytes")))).c_str(), total->num("seconds"));
	if (hist.count())
		page += format("<p>Latency: min %s, p50 %s, p99 %s, p99.9 %s, max %s.</p>\n",
			       html_text(format_ns(hist.min())).c_str(), html_text(format_ns(hist.percentile(0.5))).c_str(),
			       html_text(format_ns(hist.percentile(0.99))).c_str(),
			       html_text(format_ns(hist.percentile(0.999))).c_str(), html_text(format_ns(hist.max())).c_str());
	if (!verdict.empty())
		page += "<p>" + html_text(verdict) + "</p>\n";
	if (!warnings.empty())
		page += "<p>Warnings:</p>\n<ul>\n" + warnings + "</ul>\n";
	if (rate.size() >= 2) {
		page += svg_line_chart("Throughput over time", rate, "s", [](double y) { return format("%g MiB/s", y); });
		page += svg_line_chart("IOPS over time", iops, "s", [](double y) { return format("%.0f", y); });
	} else {
		page += "<p>The run was too short for a timeline.</p>\n";
	}
	page += svg_latency(hist);
	page += "<script type=\"application/json\" id=\"sdb-result\">\n" + embedded + "</script>\n</body>\n</html>\n";
	return {};
}

// Write the page for the document to path: through a new file beside it,
// renamed over path once whole, so that a failure leaves no half page; an
// existing path that is not a regular file is refused.
Error write_html(const std::string &path, const std::string &doc_text)
{
	Json doc;
	if (Error e = parse_json(doc_text, "--html", doc))
		return e;
	std::string page;
	if (Error e = run_page(doc, doc_text, page))
		return e;
	struct stat st {};
	if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
		return runtime_error("--html %s: not a regular file: refusing to replace it", path.c_str());
	std::string temp = path + ".sdb-tmp";
	Fd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
	if (!fd)
		return sys_error(errno, "--html: %s", temp.c_str());
	ssize_t n = write(fd.get(), page.data(), page.size());
	if (n != static_cast<ssize_t>(page.size()) || fsync(fd.get()) != 0) {
		Error e = sys_error(n < 0 ? errno : EIO, "--html: write: %s", temp.c_str());
		unlink(temp.c_str());
		return e;
	}
	if (rename(temp.c_str(), path.c_str()) != 0) {
		Error e = sys_error(errno, "--html: rename: %s", path.c_str());
		unlink(temp.c_str());
		return e;
	}
	return {};
}

} // namespace
