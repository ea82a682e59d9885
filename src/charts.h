// charts: the SVG that --html's pages are drawn with, as text: html_text
// (escaping), nice_step (tick steps), svg_lines (lines over a linear or
// log axis, a mark on x, a caption: rates over time, percentiles over
// time, a sweep's response curve), svg_latency (a histogram on a log axis with its
// percentiles marked) and svg_bars (a bar a row with whiskers: the quick
// suite, a fleet's hosts, a comparison).  No script, no reference to
// anything outside the page.
#pragma once

#include "base.h"
#include "stats.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// Every chart's width in its own units; the page scales it to its own
// width (svg{width:100%}), so the charts fill the page at any size.
constexpr int chart_width = 960;

// About how wide a text of 11 px is drawn (the ticks, legends and notes):
// the widest of sans-serif's digits and lower-case letters, so that what
// is placed by it never runs into its neighbour.
double text_width(std::string_view s) { return 6.6 * static_cast<double>(s.size()); }

// An <svg> element's opening: its box (its width and height also kept as
// the page's proportions), its accessible name, its title.
std::string svg_open(int w, int h, const std::string &title, int title_x)
{
	return format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		      "role=\"img\" aria-label=\"%s\">\n<text x=\"%d\" y=\"18\" class=\"title\">%s</text>\n",
		      w, h, w, h, html_text(title).c_str(), title_x, html_text(title).c_str());
}

// One line of a chart: its name in the legend, its CSS class, its points.
struct Series {
	std::string name, css;
	std::vector<std::pair<double, double>> points;
};

// How svg_lines draws: steps (a rate held over the interval that ends at
// x) or straight lines through dots; a linear or a log y axis; a marked x;
// a caption under the x axis, on its left (none when empty).
struct LineStyle {
	const char *x_unit = "s";
	bool steps = true;
	bool log_y = false;
	std::optional<double> mark_x;
	std::string mark_label;
	std::string caption;
};

// Lines in a chart_width x 240 box, with axes, ticks and their labels, and
// a legend when there is more than one; y_label formats a y value.  On a
// log axis the ticks are decades and values <= 0 are left out.
template <typename Label>
std::string svg_lines(const std::string &title, const std::vector<Series> &series, const LineStyle &style, Label y_label)
{
	const int w = chart_width, h = 240, left = 80, right = 16, top = 28, bottom = 36;
	double x_max = 0, y_max = 0, y_min = 0;
	for (const Series &s : series)
		for (auto [x, y] : s.points) {
			x_max = std::max(x_max, x);
			y_max = std::max(y_max, y);
			if (y > 0 && (y_min == 0 || y < y_min))
				y_min = y;
		}
	if (style.mark_x)
		x_max = std::max(x_max, *style.mark_x);
	if (!(x_max > 0))
		x_max = 1;
	double lo = 0, hi = 1, y_step = 1;
	if (style.log_y) {
		lo = std::floor(std::log10(y_min > 0 ? y_min : 1));
		hi = std::max(lo + 1, std::ceil(std::log10(y_max > 0 ? y_max : 10)));
	} else {
		y_step = nice_step(y_max > 0 ? y_max : 1, 4);
		hi = std::ceil((y_max > 0 ? y_max : 1) / y_step) * y_step;
	}
	auto px = [&](double x) { return left + x / x_max * (w - left - right); };
	auto py = [&](double y) {
		double f = style.log_y ? (std::log10(y) - lo) / (hi - lo) : y / hi;
		return top + (1 - f) * (h - top - bottom);
	};
	std::string s = svg_open(w, h, title, left);
	std::vector<double> ticks;
	if (style.log_y)
		for (double d = lo; d <= hi; d++)
			ticks.push_back(std::pow(10.0, d));
	else
		for (double y = 0; y <= hi * 1.0001; y += y_step)
			ticks.push_back(y);
	for (double y : ticks)
		s += format("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			    "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
			    left, w - right, py(y), py(y), left - 6, py(y) + 4, html_text(y_label(y)).c_str());
	double x_step = nice_step(x_max, 6);
	for (double x = 0; x <= x_max * 1.0001; x += x_step)
		s += format("<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n", px(x), h - bottom + 16, x);
	double floor_y = style.log_y ? std::pow(10.0, lo) : 0;
	s += format("<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%s</text>\n", w - right, h - 4, style.x_unit);
	if (!style.caption.empty())
		s += format("<text x=\"%d\" y=\"%d\" class=\"caption\">%s</text>\n", left, h - 4, html_text(style.caption).c_str());
	s += format("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>"
		    "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.1f\" class=\"axis\"/>\n",
		    left, w - right, py(floor_y), py(floor_y), left, left, top, py(floor_y));
	if (style.mark_x) {	// its label left of the line, or right of it where the axis's labels would be
		const double x = px(*style.mark_x);
		const bool before = x - 3 - text_width(style.mark_label) > left + 4;
		s += format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" class=\"mark\"/>"
			    "<text x=\"%.1f\" y=\"%d\" class=\"mark-label\" text-anchor=\"%s\">%s</text>\n",
			    x, x, top, py(floor_y), before ? x - 3 : x + 3, top + 12, before ? "end" : "start",
			    html_text(style.mark_label).c_str());
	}
	double legend_x = w - right;	// the legend from the right, each name clear of the next
	std::vector<double> legend_at(series.size());
	for (std::size_t i = series.size(); i-- > 0;) {
		legend_at[i] = legend_x;
		legend_x -= text_width(series[i].name) + 14;
	}
	std::size_t legend = 0;
	for (const Series &line : series) {
		std::string path, dots;
		double prev_x = 0;
		for (auto [x, y] : line.points) {
			if (style.log_y && !(y > 0))
				continue;
			if (style.steps)
				path += format("%s%.1f,%.1f L%.1f,%.1f ", path.empty() ? "M" : "L", px(prev_x), py(y), px(x), py(y));
			else
				path += format("%s%.1f,%.1f ", path.empty() ? "M" : "L", px(x), py(y));
			if (!style.steps)
				dots += format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"%s dot\"/>", px(x), py(y),
					       line.css.c_str());
			prev_x = x;
		}
		if (!path.empty())
			s += "<path d=\"" + path + "\" class=\"line " + line.css + "\"/>\n" + (dots.empty() ? "" : dots + "\n");
		if (series.size() > 1 && !line.name.empty())
			s += format("<text x=\"%.1f\" y=\"18\" class=\"legend %s\" text-anchor=\"end\">%s</text>\n",
				    legend_at[legend], line.css.c_str(), html_text(line.name).c_str());
		legend++;
	}
	return s + "</svg>\n";
}

// The latency distribution: a bar per histogram bucket group on a log
// axis of nanoseconds, with p50, p99, p99.9 and max marked.
std::string svg_latency(const Histogram &hist, const std::string &what = "")
{
	const int w = chart_width, h = 240, left = 60, right = 16, top = 28, bottom = 36;
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
	std::string s = svg_open(w, h, format("Latency distribution%s (%" PRIu64 " I/Os, log scale)", what.c_str(), hist.count()),
				 left);
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
			    x, x, top, h - bottom, near_end ? x - 3 : x + 3, top + 12 + 14 * row++, near_end ? "end" : "start",
			    name, html_text(format_ns(ns)).c_str());
	}
	return s + "</svg>\n";
}

// One row of svg_bars: a label, a bar from 0 to value, an optional
// whisker low..high (the runs' range, a 95% interval), a CSS class (bar,
// old, new, slow, same) and a note at the row's end.
struct Bar {
	std::string label;
	double value = 0;
	std::optional<double> low, high;
	std::string css = "bar";
	std::string note;
};

// A bar a row, 18 px each, on an axis through 0 (bars to the left for
// negative values); x_label formats an axis value.  Each bar is a <rect>
// of class "hbar" and its own class.  The labels' column and the notes'
// are as wide as their longest, so that none is cut off.
template <typename Label>
std::string svg_bars(const std::string &title, const std::vector<Bar> &bars, Label x_label)
{
	double labels = 0, notes = 0;
	for (const Bar &b : bars) {
		labels = std::max(labels, text_width(b.label));
		notes = std::max(notes, text_width(b.note));
	}
	const int w = chart_width, top = 28, bottom = 30, row = 18;
	const int left = static_cast<int>(std::clamp(labels + 16, 80.0, 380.0));
	const int right = static_cast<int>(std::clamp(notes + 16, 40.0, 300.0));
	const int h = top + row * static_cast<int>(bars.size()) + bottom;
	double lo = 0, hi = 0;
	for (const Bar &b : bars) {
		lo = std::min({lo, b.value, b.low.value_or(0)});
		hi = std::max({hi, b.value, b.high.value_or(0)});
	}
	if (!(hi > lo))
		hi = lo + 1;
	double step = nice_step(hi - lo, 5);
	lo = std::floor(lo / step) * step;
	hi = std::ceil(hi / step) * step;
	auto px = [&](double x) { return left + (x - lo) / (hi - lo) * (w - left - right); };
	std::string s = svg_open(w, h, title, 8);
	for (double x = lo; x <= hi + step / 1000; x += step)
		s += format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
			    "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
			    px(x), px(x), top, h - bottom, px(x), h - bottom + 14, html_text(x_label(x)).c_str());
	for (std::size_t i = 0; i < bars.size(); i++) {
		const Bar &b = bars[i];
		double y = top + row * static_cast<double>(i), x0 = px(std::min(0.0, b.value)), x1 = px(std::max(0.0, b.value));
		s += format("<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>"
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" class=\"hbar %s\"/>",
			    left - 6, y + 13, html_text(b.label).c_str(), x0, y + 3, std::max(x1 - x0, 0.5), row - 6, b.css.c_str());
		if (b.low && b.high)
			s += format("<path d=\"M%.1f,%.1f V%.1f M%.1f,%.1f H%.1f M%.1f,%.1f V%.1f\" class=\"whisker\"/>",
				    px(*b.low), y + 5, y + row - 5, px(*b.low), y + row / 2.0, px(*b.high), px(*b.high), y + 5,
				    y + row - 5);
		s += format("<text x=\"%d\" y=\"%.1f\" class=\"tick\">%s</text>\n", w - right + 6, y + 13, html_text(b.note).c_str());
	}
	s += format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>\n", px(0), px(0), top, h - bottom);
	return s + "</svg>\n";
}

} // namespace
