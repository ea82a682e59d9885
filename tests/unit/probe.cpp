// probe: the budget of --probe and its bisection, on files made here.
#include "../../src/probe.h"
#include "scratch.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include <fcntl.h>
#include <unistd.h>

TEST_SUITE("probe")
{
TEST_CASE("probe_budget: 0.1% of the target, at most 64 MiB, in 4 KiB units")
{
	CHECK(probe_budget(256 * MiB) == 65);
	CHECK(probe_budget(4096ULL * GiB) == 64 * MiB / 4096);
	CHECK(probe_budget(MiB) == 0);
}

TEST_CASE("probe: a genuine file keeps all of it, and gets its units back")
{
	std::string path_name = scratch_name("sdb-probe-unit.XXXXXX");
	char *path = path_name.data();
	int raw = mkstemp(path);
	REQUIRE(raw >= 0);
	REQUIRE(ftruncate(raw, static_cast<off_t>(128 * MiB)) == 0);
	REQUIRE(pwrite(raw, "precious", 8, 0) == 8);
	ProbeResult r;
	r.claimed = 128 * MiB;
	Prober p(Fd(raw), false, 42, false, r);
	std::string journal = std::string(path) + ".journal";
	REQUIRE_FALSE(p.setup(path, journal, JournalHead{path, 128 * MiB}));
	REQUIRE_FALSE(probe(p, r, [] { return Error{}; }));
	CHECK(access(journal.c_str(), F_OK) == 0);
	CHECK(r.kind == UnitKind::good);
	CHECK(r.real == 128 * MiB);
	CHECK(r.written <= probe_budget(128 * MiB) * verify_unit);
	p.restore(r.period);
	CHECK(r.restored);
	CHECK(r.restore.units > 0);
	CHECK(access(journal.c_str(), F_OK) != 0);	// a clean restore removes it
	int again = open(path, O_RDONLY);
	char head[9] = {};
	CHECK(pread(again, head, 8, 0) == 8);
	CHECK(std::string(head) == "precious");
	close(again);
	unlink(path);
}

TEST_CASE("probe: a target too small for 0.1% is an error that says so")
{
	std::string path_name = scratch_name("sdb-probe-unit.XXXXXX");
	char *path = path_name.data();
	int raw = mkstemp(path);
	REQUIRE(raw >= 0);
	REQUIRE(ftruncate(raw, static_cast<off_t>(16 * MiB)) == 0);
	ProbeResult r;
	r.claimed = 16 * MiB;
	Prober p(Fd(raw), false, 42, false, r);
	std::string journal = std::string(path) + ".journal";
	REQUIRE_FALSE(p.setup(path, journal, JournalHead{path, 16 * MiB}));
	Error e = probe(p, r, [] { return Error{}; });
	CHECK(e.status == exit_runtime);
	CHECK(e.msg.find("too small to probe within 0.1%") != std::string::npos);
	CHECK(r.written == 0);
	unlink(journal.c_str());
	unlink(path);
}
}
