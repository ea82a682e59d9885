// Helpers that several suites share: Args (an argv for parse_args),
// SysfsFixture (a fake /sys under SDB_SYSFS), plan_on (a plan on a given
// device), json_of (a document parsed) and count_of (how often a text
// holds a string: the SVG and HTML suites').  It includes the modules they
// need; like the modules' code, they are in the anonymous namespace.
#pragma once

#include "../../src/base.h"
#include "../../src/json.h"
#include "../../src/options.h"
#include "../../src/plan.h"
#include "scratch.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <linux/magic.h>
#include <sys/stat.h>

// The rules parse() holds a command line to: a plain run's, unless the
// suite (tests/unit/modes.cpp) asks for sdb's own, the chosen mode's.
#ifndef SDB_TEST_CHECK
#define SDB_TEST_CHECK check_combination
#endif

namespace {

// getopt_long wants a mutable, null-terminated argv that outlives the parse.
struct Args {
	std::vector<std::string> str;
	std::vector<char *> ptr;

	Args(std::initializer_list<const char *> args) : str{"sdb"}
	{
		str.insert(str.end(), args.begin(), args.end());
		for (auto &s : str)
			ptr.push_back(&s[0]);
		ptr.push_back(nullptr);
	}
	Parsed parse() { return parse_args(static_cast<int>(str.size()), ptr.data(), SDB_TEST_CHECK); }
};

// A sysfs fixture tree in a temporary directory, SDB_SYSFS pointing at it
// for as long as the object lives.
struct SysfsFixture {
	std::string root;
	SysfsFixture()
	{
		std::string tmpl = scratch_name("sdb-sysfs.XXXXXX");
		root = mkdtemp(tmpl.data()) ? tmpl : "";
		setenv("SDB_SYSFS", root.c_str(), 1);
	}
	~SysfsFixture()
	{
		unsetenv("SDB_SYSFS");
		std::string cmd = "rm -rf '" + root + "'";
		CHECK(std::system(cmd.c_str()) == 0);
	}
	void write(const std::string &path, const std::string &text) const
	{
		for (std::size_t at = 1; (at = path.find('/', at)) != std::string::npos; at++)
			mkdir((root + path.substr(0, at)).c_str(), 0755);
		std::ofstream(root + path) << text << "\n";
	}
	void cache(unsigned index, const char *level, const char *size, const char *type) const
	{
		std::string dir = format("/devices/system/cpu/cpu0/cache/index%u/", index);
		write(dir + "level", level);
		write(dir + "size", size);
		write(dir + "type", type);
	}
};

// A plan that reads a file on a file system whose device is dev.
Plan plan_on(dev_t dev, std::uint32_t fs_type = EXT4_SUPER_MAGIC, Kind kind = Kind::file)
{
	Plan p;
	p.opt.op = Options::Op::read;
	p.opt.file = "/data/f";
	Target t;
	t.path = "/data/f";
	t.kind = kind;
	t.size = GiB;
	p.targets.push_back(t);
	p.fs_dev = dev;
	p.fs_type = fs_type;
	return p;
}

Json json_of(std::string_view text)
{
	Json v;
	Error e = parse_json(text, "t.json", v);
	REQUIRE_MESSAGE(!e, e.msg);
	return v;
}

// How many times what occurs in s, overlapping ones counted.
std::size_t count_of(const std::string &s, const std::string &what)
{
	std::size_t n = 0;
	for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
		n++;
	return n;
}

} // namespace
