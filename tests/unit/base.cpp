// Unit tests of src/base.h: SIZE and count parsing, one-line errors, IEC
// formats and printable names.
#include "../../src/base.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <string>

TEST_SUITE("base") {

TEST_CASE("parse_size accepts numbers with binary suffixes")
{
	CHECK(parse_size("512") == 512u);
	CHECK(parse_size("1") == 1u);
	CHECK(parse_size("4k") == 4096u);
	CHECK(parse_size("4K") == 4096u);
	CHECK(parse_size("64m") == 64u * 1048576);
	CHECK(parse_size("64M") == 64u * 1048576);
	CHECK(parse_size("64MiB") == 64u * 1048576);
	CHECK(parse_size("64MB") == 64u * 1048576);
	CHECK(parse_size("4kiB") == 4096u);
	CHECK(parse_size("1G") == 1073741824u);
	CHECK(parse_size("2t") == 2ULL << 40);
	CHECK(parse_size("16777215t") == 16777215ULL << 40);	// largest t that fits
	CHECK(parse_size("18446744073709551615") == UINT64_MAX);
}

TEST_CASE("parse_size rejects zero, signs, junk and overflow")
{
	for (const char *bad : {"", "0", "0k", "-1", "+1", " 1", "1 ", "12x", "4kk", "k", "4KIB", "4ib",
				"4b", "1.5m", "0x10", "1e3", "18446744073709551616", "17179869184G", "16777216t",
				"99999999999999999999999"})
		CHECK_MESSAGE(!parse_size(bad), "accepted: " << std::string(bad));
}

TEST_CASE("parse_count and parse_seconds")
{
	CHECK(parse_count("1", 1, 4096) == 1u);
	CHECK(parse_count("4096", 1, 4096) == 4096u);
	CHECK(!parse_count("0", 1, 4096));
	CHECK(!parse_count("4097", 1, 4096));
	CHECK(!parse_count("-1", 1, 4096));
	CHECK(!parse_count("2x", 1, 4096));
	CHECK(!parse_count("", 1, 4096));
	CHECK(!parse_count("99999999999999", 1, 4096));
	CHECK(parse_seconds("10") == 10.0);
	CHECK(parse_seconds("0.5") == 0.5);
	CHECK(!parse_seconds("0"));
	CHECK(!parse_seconds("-1"));
	CHECK(!parse_seconds("inf"));
	CHECK(!parse_seconds("nan"));
	CHECK(!parse_seconds("1e3"));
	CHECK(!parse_seconds("3s"));
	CHECK(!parse_seconds(""));
	CHECK(!parse_seconds("99999999999"));
}

TEST_CASE("errors stay on one line")
{
	CHECK(one_line("bad\nsize\t1") == "bad?size?1");
}

TEST_CASE("IEC formatting")
{
	CHECK(format_bytes(100) == "100 B");
	CHECK(format_bytes(4096) == "4 KiB");
	CHECK(format_bytes(1536) == "1.50 KiB");
	CHECK(format_bytes(256 * MiB) == "256 MiB");
	CHECK(format_bytes(3 * GiB) == "3 GiB");
	CHECK(format_rate(204.7 * MiB) == "204.70 MiB/s");
	CHECK(format_rate(2.5 * GiB) == "2.50 GiB/s");
	CHECK(format_rate(512) == "0.50 KiB/s");
	CHECK(format_ns(850) == "850 ns");
	CHECK(format_ns(45200) == "45.2 us");
	CHECK(format_ns(1200000) == "1.2 ms");
	CHECK(rate(100, 0) == 0);
}

TEST_CASE("IEC formatting carries to the next unit where rounding reaches it")
{
	CHECK(format_bytes(1048575) == "1.00 MiB");	// not "1024.00 KiB"
	CHECK(format_bytes(1023) == "1023 B");
	CHECK(format_bytes(1048064) == "1023.50 KiB");
	CHECK(format_rate(GiB - 1.0) == "1.00 GiB/s");	// not "1024.00 MiB/s"
	CHECK(format_rate(MiB - 1.0) == "1.00 MiB/s");
	CHECK(format_rate(1023.99 * MiB) == "1023.99 MiB/s");
	CHECK(format_ns(999999) == "1.0 ms");	// not "1000.0 us"
	CHECK(format_ns(999949) == "999.9 us");
	CHECK(format_ns(999999999) == "1.00 s");
}

TEST_CASE("printable: names cannot drive the terminal")
{
	CHECK(printable("plain/name.0") == "plain/name.0");
	CHECK(printable("esc\x1b[2J") == "esc\\x1b[2J");
	CHECK(printable("new\nline") == "new\\x0aline");
	CHECK(printable("c1\xc2\x9b") == "c1\\xc2\\x9b");	// CSI as a C1 control
	CHECK(printable("bad\xff") == "bad\\xff");
	CHECK(printable("back\\slash") == "back\\\\slash");
	CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");
}

} // TEST_SUITE("base")
