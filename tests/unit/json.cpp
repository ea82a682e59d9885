// Unit tests of src/json.h: the writer's escaping (valid UTF-8 whatever the
// bytes) and the reader, its values and its errors.
#include "../../src/json.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <string>
#include <string_view>

TEST_SUITE("json") {

TEST_CASE("json_string escapes what JSON requires")
{
	CHECK(json_string("plain") == "\"plain\"");
	CHECK(json_string("a\"b") == "\"a\\\"b\"");
	CHECK(json_string("a\\b") == "\"a\\\\b\"");
	CHECK(json_string("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
	CHECK(json_string(std::string("nul\0x", 5)) == "\"nul\\u0000x\"");
	CHECK(json_string("\x01\x1f\x7f") == "\"\\u0001\\u001f\\u007f\"");
	CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	CHECK(json_string("bad\xff") == "\"bad\\ufffd\"");
	CHECK(json_string("cut\xc3") == "\"cut\\ufffd\"");
	CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");		// overlong
	CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// surrogate
}

TEST_CASE("json_string: the document is valid UTF-8 whatever the bytes")
{
	CHECK(json_string("\xff\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// 0xFF is no lead byte
	CHECK(json_string("\xf5\x80\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");	// overlong '/'
	CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");	// a surrogate
	CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"");
	CHECK(json_string("\xe2\x82") == "\"\\ufffd\\ufffd\"");	// cut off
}

std::string json_error(std::string_view text)
{
	Json v;
	return parse_json(text, "t.json", v).msg;
}

TEST_CASE("parse_json: every kind of value, escapes included")
{
	Json v = json_of(" {\"a\": [1, -2.5e3, 0, true, false, null], \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\ud800x\", "
			 "\"o\": {}, \"e\": []}\n");
	REQUIRE(v.type == Json::Type::object);
	const Json *a = v.find("a", Json::Type::array);
	REQUIRE(a);
	REQUIRE(a->items.size() == 6);
	CHECK(a->items[0].number == 1);
	CHECK(a->items[1].number == -2500);
	CHECK(a->items[3].type == Json::Type::boolean);
	CHECK(a->items[3].boolean);
	CHECK(!a->items[4].boolean);
	CHECK(a->items[5].type == Json::Type::null);
	CHECK(v.str("s") == "q\"\\/\b\f\n\r\t\u00e9\U0001F600\uFFFDx");	// a lone surrogate: U+FFFD
	CHECK(v.find("o", Json::Type::object));
	CHECK(v.find("e", Json::Type::array)->items.empty());
	CHECK(json_dump(v) == "{\"a\": [1, -2500, 0, true, false, null], \"s\": \"q\\\"\\\\/\\u0008\\u000c\\n\\u000d\\t\u00e9\U0001F600\uFFFDx\", "
			      "\"o\": {}, \"e\": []}");
	CHECK(json_of("12345678901").number == 12345678901.0);
}

TEST_CASE("parse_json: errors name the file and the byte offset")
{
	CHECK(json_error("") == "t.json: not valid JSON (byte 0: unexpected end of input)");
	CHECK(json_error("{\"a\": 1,}") == "t.json: not valid JSON (byte 8: expected a string (an object's key))");
	CHECK(json_error("[1 2]") == "t.json: not valid JSON (byte 3: expected ',' or ']')");
	CHECK(json_error("{} x") == "t.json: not valid JSON (byte 3: more after the end of the document)");
	CHECK(json_error("\"abc") == "t.json: not valid JSON (byte 4: unterminated string)");
	CHECK(json_error("\"a\nb\"") == "t.json: not valid JSON (byte 2: a control character inside a string)");
	CHECK(json_error("\"\\x\"") == "t.json: not valid JSON (byte 2: an unknown escape in a string)");
	CHECK(json_error("\"\\u12g4\"") == "t.json: not valid JSON (byte 5: \\u needs four hex digits)");
	for (const char *bad : {"01", "-", "1.", "1e", ".5", "+1", "tru", "nul", "NaN", "1e999", "[", "{\"a\" 1}"})
		CHECK_MESSAGE(!json_error(bad).empty(), "accepted: " << bad);
	CHECK(json_error(std::string(64, '[') + std::string(64, ']')).empty());
	CHECK(json_error(std::string(100000, '[')).find("nested too deeply") != std::string::npos);
	Json v;
	CHECK(parse_json("{", "-", v).msg.rfind("standard input: ", 0) == 0);
}

} // TEST_SUITE("json")
