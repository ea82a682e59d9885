// json: JSON out and in.  Offers the writer's pieces (json_string, which
// always makes valid UTF-8; json_number, json_bool, json_unix for Unix
// times) and a small reader: Json values, JsonParser (RFC 8259, nesting
// capped), parse_json and json_dump.  Enough for what sdb writes and reads
// back; a foreign document fails on its keys, not here.
#pragma once

#include "base.h"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace {

// Unix nanoseconds as seconds to the microsecond: "1764500000.250081".
std::string json_unix(std::int64_t ns)
{
	return format("%" PRId64 ".%06" PRId64, ns / 1000000000, ns % 1000000000 / 1000);
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

std::string json_warnings(const std::vector<std::string> &warnings)
{
	std::string s = "[";
	for (std::size_t i = 0; i < warnings.size(); i++)
		s += (i ? ", " : "") + json_string(warnings[i]);
	return s + "]";
}

std::string json_string_or_null(const std::string &s) { return s.empty() ? "null" : json_string(s); }

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
// The memory a document's values may take, as the parser counts it (two
// Json a value, to cover a vector's spare room, and a string's bytes): the
// document's own size and 64 MiB.  A result sdb wrote takes a few MiB once
// its histograms are read apart (lift_histograms(), load.h: they are most
// of a -j 1024 result, and as values forty times their text); a document
// padded with a long array of its own (20 MB of numbers took 1.6 GB)
// stops there with an error, not with the machine's memory.  sdb's own
// document, just made (--html, --prom), is read without a bound.
constexpr std::size_t json_spare_memory = std::size_t{64} << 20, json_unbounded = SIZE_MAX;

class JsonParser {
public:
	explicit JsonParser(std::string_view s, std::size_t budget = 0)
		: s_(s), budget_(budget ? budget : s.size() + json_spare_memory) {}

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
		spent_ = 0;
		skip();
		if (i_ == s_.size())
			return fail("");
		return value(out, 0);
	}
	std::size_t offset() const { return i_; }
	const char *what() const { return what_; }
	bool too_large() const { return spent_ > budget_; }
	std::size_t budget() const { return budget_; }

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
		if ((spent_ += 2 * sizeof(Json)) > budget_)
			return fail("too large");
		switch (s_[i_]) {
		case '{': v.type = Json::Type::object; return object(v, depth);
		case '[': v.type = Json::Type::array; return array(v, depth);
		case '"': v.type = Json::Type::string; return string(v.text) && (spent_ += v.text.size()) <= budget_;
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
			spent_ += v.members.back().first.size();
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
			if (c != '\\') {	// a run of plain characters at once
				std::size_t from = i_;
				while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\\' && static_cast<unsigned char>(s_[i_]) >= 0x20)
					i_++;
				out.append(s_.data() + from, i_ - from);
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
		// from_chars rounds as strtod does, without a copy of the digits;
		// what it does not take (out of range) strtod decides, as before.
		const char *first = s_.data() + start, *last = s_.data() + i_;
		if (std::from_chars(first, last, v).ec != std::errc())
			v = std::strtod(std::string(first, last).c_str(), nullptr);
		if (!std::isfinite(v))
			return i_ = start, fail("a number out of range");
		return true;
	}

	std::string_view s_;
	std::size_t i_ = 0;
	const char *what_ = "";
	std::size_t budget_, spent_ = 0;	// the memory the values may take, and have taken
};

// "-" (standard input) as messages name it.
std::string input_name(const std::string &file) { return file == "-" ? "standard input" : printable(file); }

// Where and why the parser stopped, as the one error line.
// name: the input as messages name it (input_name()); offset: where the
// parser stopped, in the input's bytes (see lift_histograms()).
Error json_syntax_error(const std::string &name, const JsonParser &parser, std::size_t offset)
{
	if (parser.too_large())
		return runtime_error("%s: too large to read: its values would take more memory than its size and 64 MiB "
				     "(%s, at byte %zu): not an sdb result, or one padded with data of its own",
				     name.c_str(), format_bytes(parser.budget()).c_str(), offset);
	return runtime_error("%s: not valid JSON (byte %zu: %s)", name.c_str(), offset, parser.what());
}

// budget: as JsonParser's (0: the document's size and 64 MiB).
[[maybe_unused]] Error parse_json(std::string_view text, const std::string &file, Json &out, std::size_t budget = 0)
{
	JsonParser parser(text, budget);
	if (!parser.parse(out))
		return json_syntax_error(input_name(file), parser, parser.offset());
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

} // namespace
