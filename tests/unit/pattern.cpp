// Unit tests of src/pattern.h: the --verify unit, its reproducible pattern,
// classify_unit() and the tally of bad units.
#include "../../src/pattern.h"

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

TEST_SUITE("pattern") {

TEST_CASE("--verify pattern: the same units for the same seed and offset, others elsewhere")
{
	std::vector<char> a(3 * verify_unit), b(3 * verify_unit), c(3 * verify_unit);
	write_units(a.data(), a.size(), 42, 0, 8192, 7);
	write_units(b.data(), b.size(), 42, 0, 8192, 7);
	write_units(c.data(), c.size(), 43, 0, 8192, 7);
	CHECK(a == b);	// reproducible from (seed, offset) alone
	CHECK(a != c);
	std::set<std::string> units;
	for (std::size_t at = 0; at < a.size(); at += verify_unit) {
		units.insert(std::string(a.data() + at, verify_unit));
		units.insert(std::string(c.data() + at, verify_unit));
		CHECK(unit_header(a.data() + at).offset == 8192 + at);
		CHECK(unit_header(a.data() + at).seed == 42);
		CHECK(unit_header(a.data() + at).write == 7);
	}
	CHECK(units.size() == 6);
	// The bodies' bytes are spread evenly: every byte value within 25% of its share (8 sigma).
	std::vector<char> many(64 * verify_unit);
	write_units(many.data(), many.size(), 42, 0, 0, 0);
	std::vector<unsigned> counts(256);
	for (std::size_t i = 0; i < many.size(); i++)
		if (i % verify_unit >= sizeof(UnitHeader))
			counts[static_cast<unsigned char>(many[i])]++;
	const double share = 64.0 * (verify_unit - sizeof(UnitHeader)) / 256;
	CHECK(*std::max_element(counts.begin(), counts.end()) < 1.25 * share);
	CHECK(*std::min_element(counts.begin(), counts.end()) > 0.75 * share);
}

TEST_CASE("--verify check: clean, zeros, misplaced, stale and corrupt units")
{
	const std::uint64_t seed = 0x1234567890abcdef;
	std::vector<char> unit(verify_unit);
	std::uint64_t found = 0;
	write_unit(unit.data(), seed, 0, 65536, 3);
	CHECK(classify_unit(unit.data(), seed, 0, 65536, std::nullopt, found) == UnitKind::good);
	CHECK(classify_unit(unit.data(), seed, 0, 65536, 3, found) == UnitKind::good);
	CHECK(classify_unit(unit.data(), seed, 0, 65536, 9, found) == UnitKind::stale);	// an earlier write's
	CHECK(classify_unit(unit.data(), seed + 1, 0, 65536, std::nullopt, found) == UnitKind::stale);	// another run's
	CHECK(classify_unit(unit.data(), seed, 0, 4096, std::nullopt, found) == UnitKind::misplaced);
	CHECK(found == 65536);	// the offset the unit was written for
	std::vector<char> zeros(verify_unit);
	CHECK(classify_unit(zeros.data(), seed, 0, 4096, std::nullopt, found) == UnitKind::zeros);
	for (std::size_t at : {std::size_t{0}, std::size_t{13}, std::size_t{20}, std::size_t{31}, std::size_t{32},
			       std::size_t{2000}, verify_unit - 1}) {
		std::vector<char> flipped = unit;
		flipped[at] ^= 0x04;
		CHECK_MESSAGE(classify_unit(flipped.data(), seed, 0, 65536, std::nullopt, found) == UnitKind::corrupt, at);
		CHECK(!unit_consistent(flipped.data()));
	}
	std::vector<char> one_byte(verify_unit);
	one_byte[100] = 1;	// not all zeros: corrupt
	CHECK(classify_unit(one_byte.data(), seed, 0, 0, std::nullopt, found) == UnitKind::corrupt);
}

TEST_CASE("--verify unit: the file it belongs to is in the header and the check")
{
	const std::uint64_t seed = 7;
	std::vector<char> unit(verify_unit);
	std::uint64_t found = 0;
	write_unit(unit.data(), seed, 1, 8192, 5);	// thread 1's file, its write 5
	CHECK(unit_header(unit.data()).file() == 1);
	CHECK(unit_header(unit.data()).number() == 5);
	CHECK(unit_consistent(unit.data()));
	CHECK(classify_unit(unit.data(), seed, 1, 8192, 5, found) == UnitKind::good);
	CHECK(classify_unit(unit.data(), seed, 0, 8192, 5, found) == UnitKind::misplaced);	// in thread 0's file: swapped
	CHECK(found == 8192);
	std::vector<char> other(verify_unit);
	write_unit(other.data(), seed, 0, 8192, 5);
	CHECK(other != unit);	// the file number is committed to by the tag
	std::memcpy(other.data() + 24, unit.data() + 24, 8);	// thread 1's last word, thread 0's tag
	CHECK(!unit_consistent(other.data()));
	CHECK(classify_unit(other.data(), seed, 1, 8192, 5, found) == UnitKind::corrupt);
}

TEST_CASE("--verify seed: one stale unit at the start is one bad unit, not the reference")
{
	const std::uint64_t seed = 1234, other = 5678;
	std::vector<char> block(16 * verify_unit);
	write_units(block.data(), block.size(), seed, 0, 0, 0);
	write_unit(block.data(), other, 0, 0, 0);	// offset 0: another run's unit, where the write was lost
	SeedVote vote;
	for (std::size_t at = 0; at < block.size(); at += 4 * verify_unit)
		vote.add(block.data() + at, at);
	vote.add(block.data() + verify_unit, 0);	// a unit read at the wrong offset does not vote
	vote.add(block.data(), 0);	// another vote for the stale seed: still 2 against 3
	REQUIRE(vote.winner());
	CHECK(*vote.winner() == seed);
	CHECK(!SeedVote().winner());
	VerifyTally t;
	t.seed = *vote.winner();
	t.seeded = true;
	t.check_block(block.data(), block.size(), 0);
	CHECK(t.units == 16);
	CHECK(t.bad == 1);
	CHECK(t.first_offset == 0);
	CHECK(t.first_kind == UnitKind::stale);
}

TEST_CASE("--verify tally: counts every bad unit, names the lowest, learns a reader's seed")
{
	const std::uint64_t seed = 99;
	std::vector<char> block(8 * verify_unit);
	write_units(block.data(), block.size(), seed, 0, 0, 0);
	std::memset(block.data() + 5 * verify_unit, 0, verify_unit);
	write_unit(block.data() + 2 * verify_unit, seed, 0, 1 << 20, 0);	// offset 8 KiB holds 1 MiB's unit
	std::memset(block.data(), 0, verify_unit);	// the first unit too: the seed comes from the next
	VerifyTally t;
	t.check_block(block.data(), block.size(), 0);
	CHECK(t.seeded);
	CHECK(t.seed == seed);
	CHECK(t.units == 8);
	CHECK(t.bad == 3);
	CHECK(t.kinds[static_cast<int>(UnitKind::zeros)] == 2);
	CHECK(t.kinds[static_cast<int>(UnitKind::misplaced)] == 1);
	CHECK(t.first_offset == 0);
	CHECK(t.first_kind == UnitKind::zeros);
	VerifyTally later;
	later.check_block(block.data() + verify_unit, 7 * verify_unit, verify_unit);
	CHECK(later.first_offset == 2 * verify_unit);
	CHECK(later.first_kind == UnitKind::misplaced);
	CHECK(later.first_found == 1 << 20);
	later.check_block(block.data(), verify_unit / 2, 0);	// no whole unit: nothing checked
	CHECK(later.units == 7);
}

TEST_CASE("--verify tally: missing units past a file's end count as bad, the lowest named")
{
	std::vector<char> block(4 * verify_unit);
	write_units(block.data(), block.size(), 7, 0, 0, 0);
	VerifyTally t;
	t.check_block(block.data(), block.size(), 0);
	t.missing(4 * verify_unit, 12);
	CHECK(t.units == 16);
	CHECK(t.bad == 12);
	CHECK(t.kinds[static_cast<int>(UnitKind::missing)] == 12);
	CHECK(t.first_kind == UnitKind::missing);
	CHECK(t.first_offset == 4 * verify_unit);
	std::memset(block.data() + verify_unit, 0, verify_unit);	// a lost write below the end is the lowest
	t.check_block(block.data(), block.size(), 0);
	CHECK(t.first_kind == UnitKind::zeros);
	CHECK(t.first_offset == verify_unit);
	t.missing(0, 0);	// nothing missing: nothing counted
	CHECK(t.bad == 13);
}

} // TEST_SUITE("pattern")
