// journal: --probe's undo journal read back as written, damaged records
// counted, and a restore that goes on past a unit it cannot write.
#include "../../src/journal.h"
#include "scratch.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

TEST_SUITE("journal")
{
namespace {
std::string unit_of(char c) { return std::string(verify_unit, c); }

std::string scratch(const char *tag)
{
	std::string path_name = scratch_name("sdb-journal-unit.XXXXXX");
	char *path = path_name.data();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	unlink(path);
	return std::string(path) + tag;
}

// A new file of SIZE bytes at PATH, open for reading and writing.
int new_target(const std::string &path, off_t size)
{
	int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, size) == 0);
	return fd;
}
} // namespace

TEST_CASE("a journal reads back its head and every unit, in order")
{
	std::string path = scratch(".j");
	Journal j;
	REQUIRE_FALSE(j.create(path, JournalHead{"/dev/some disk", 1 << 30, true, 2049, 0}));
	REQUIRE_FALSE(j.append(4096, unit_of('a').data()));
	REQUIRE_FALSE(j.append(0, unit_of('b').data()));
	REQUIRE_FALSE(j.sync());
	JournalHead head;
	std::vector<SavedUnit> units;
	std::size_t damaged = 9;
	REQUIRE_FALSE(read_journal(path, head, units, damaged));
	CHECK(head.target == "/dev/some disk");
	CHECK(head.claimed == 1u << 30);
	CHECK(head.block);
	CHECK(head.dev == 2049);
	CHECK(damaged == 0);
	REQUIRE(units.size() == 2);
	CHECK(units[0].at == 4096);
	CHECK(units[0].data == unit_of('a'));
	CHECK(units[1].at == 0);
	CHECK(units[1].data == unit_of('b'));
	j.remove();
	CHECK(access(path.c_str(), F_OK) != 0);
}

TEST_CASE("a flipped byte is a damaged record; a torn last record is not counted")
{
	std::string path = scratch(".j");
	Journal j;
	REQUIRE_FALSE(j.create(path, JournalHead{"f", 1 << 20}));
	REQUIRE_FALSE(j.append(0, unit_of('a').data()));
	REQUIRE_FALSE(j.append(8192, unit_of('c').data()));
	REQUIRE_FALSE(j.sync());
	int fd = open(path.c_str(), O_WRONLY);
	REQUIRE(fd >= 0);
	off_t size = lseek(fd, 0, SEEK_END);
	REQUIRE(pwrite(fd, "x", 1, size - 100) == 1);	// inside the second unit's bytes
	REQUIRE(pwrite(fd, "U123", 4, size) == 4);	// a record cut short by a crash
	close(fd);
	JournalHead head;
	std::vector<SavedUnit> units;
	std::size_t damaged = 0;
	REQUIRE_FALSE(read_journal(path, head, units, damaged));
	CHECK(damaged == 1);
	REQUIRE(units.size() == 1);
	CHECK(units[0].at == 0);
	unlink(path.c_str());
}

TEST_CASE("a file that is not a journal is refused, saying so")
{
	std::string path = scratch(".txt");
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, "notes\n", 6) == 6);
	close(fd);
	JournalHead head;
	std::vector<SavedUnit> units;
	std::size_t damaged = 0;
	Error e = read_journal(path, head, units, damaged);
	CHECK(e.status == exit_runtime);
	CHECK(e.msg.find("is not an sdb probe journal") != std::string::npos);
	unlink(path.c_str());
}

TEST_CASE("a restore goes on past a unit it cannot write, and names it")
{
	std::string path = scratch(".target");
	int fd = new_target(path, 3 * 4096);
	const std::uint64_t beyond = 1ULL << 62;	// past any file system's largest file: the write fails
	std::vector<SavedUnit> saved = {{0, unit_of('a')}, {beyond, unit_of('x')}, {8192, unit_of('c')}};
	Buffer unit;
	REQUIRE_FALSE(unit.allocate(verify_unit));
	int evicted = 0;
	Restored r = restore_units(fd, saved, unit.data(), [&] { evicted++; }, 0);
	CHECK(evicted == 1);
	CHECK(r.units == 3);
	REQUIRE(r.failures.size() == 1);
	CHECK(r.failures[0].first == beyond);
	CHECK(r.failures[0].second.find("write: ") == 0);
	std::string back(verify_unit, 0);
	REQUIRE(pread(fd, &back[0], verify_unit, 0) == static_cast<ssize_t>(verify_unit));
	CHECK(back == unit_of('a'));	// saved before the failure, written after it (last first)
	REQUIRE(pread(fd, &back[0], verify_unit, 8192) == static_cast<ssize_t>(verify_unit));
	CHECK(back == unit_of('c'));
	CHECK(restore_failures_text(r).find("offset 4611686018427387904: write: ") == 0);
	close(fd);
	unlink(path.c_str());
}

TEST_CASE("two saves of one offset: the first saved is what was there")
{
	std::string path = scratch(".target");
	int fd = new_target(path, 2 * 4096);
	std::vector<SavedUnit> saved = {{4096, unit_of('o')}, {4096, unit_of('p')}};	// 'p': the probe's own pattern
	Buffer unit;
	REQUIRE_FALSE(unit.allocate(verify_unit));
	Restored r = restore_units(fd, saved, unit.data(), [] {}, 0);
	CHECK(r.units == 1);
	CHECK(r.clean());
	std::string back(verify_unit, 0);
	REQUIRE(pread(fd, &back[0], verify_unit, 4096) == static_cast<ssize_t>(verify_unit));
	CHECK(back == unit_of('o'));
	close(fd);
	unlink(path.c_str());
}
}
