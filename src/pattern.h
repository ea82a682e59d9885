// pattern: the --verify unit format.  Every 4 KiB unit written carries a
// header (tag, seed, offset, file and write number) and a body made from
// the seed and the offset; classify_unit() tells good from zeros,
// misplaced, stale and corrupt, SeedVote finds which run wrote a region,
// and VerifyTally counts a thread's units.
#pragma once

#include "stats.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace {

// The --verify pattern.  Every 4 KiB unit written is checkable on its own,
// with nothing kept in memory but the run's seed: a 32-byte header
//   tag (a magic number and a check of the rest), seed, offset,
//   file and write number (one word: the file in the top 16 bits)
// and a body of 508 words that only the seed and the unit's offset make.
// A unit read back at another offset names the offset it was written for,
// which is how a device that wraps around (fake capacity) shows itself.
// The file is the writing thread's number where each thread has a file
// of its own (FILE.i), 0 on a device (its regions differ in offset): so
// two files swapped after the write do not check clean.
// The body comes from sixteen interleaved xorshift64 streams seeded by
// splitmix64: no multiply per word, and sixteen independent chains that
// the compiler keeps in vector registers: on one core here 11 GiB/s made
// and 13 GiB/s checked (four streams: 6).  Nothing compresses it.
constexpr std::size_t verify_unit = 4096;
constexpr std::uint64_t verify_magic = 0x56626473;	// the tag's high half: "sdbV" at bytes 4-7
constexpr unsigned unit_file_shift = 48;	// the header's last word: file << 48 | write number

struct UnitHeader {
	std::uint64_t tag, seed, offset, write;	// write: the file and the write number

	unsigned file() const { return static_cast<unsigned>(write >> unit_file_shift); }
	std::uint64_t number() const { return write & ((std::uint64_t{1} << unit_file_shift) - 1); }
};

// The header's last word for a file's write number.
std::uint64_t unit_write(unsigned file, std::uint64_t write)
{
	return std::uint64_t{file} << unit_file_shift | (write & ((std::uint64_t{1} << unit_file_shift) - 1));
}

// stale: a whole unit of an earlier write or of another run, where the last
// write was lost.  The contract names three kinds of bad unit (zeros,
// misplaced, corrupt): a stale unit is reported as corrupt, and its
// description says which corruption it is.  missing, a fourth: a unit past
// the end of a file that was written further (truncated since).
enum class UnitKind { good, zeros, misplaced, stale, corrupt, missing };
constexpr const char *unit_kind_names[] = {"good", "zeros", "misplaced", "corrupt", "corrupt", "missing"};
constexpr int unit_kinds = 6;

std::uint64_t unit_tag(std::uint64_t seed, std::uint64_t offset, std::uint64_t write)
{
	return verify_magic << 32 | (splitmix64(seed ^ splitmix64(offset ^ splitmix64(write))) & 0xffffffff);
}

// The body of the unit at offset, sixteen words at a time, to `each`
// (which stores or compares n of them at word i): the same words for the
// same seed and offset, always.
template <typename Each>
void unit_body(std::uint64_t seed, std::uint64_t offset, Each each)
{
	constexpr unsigned lanes = 16;
	constexpr std::size_t words = (verify_unit - sizeof(UnitHeader)) / 8;
	std::uint64_t key = splitmix64(seed ^ splitmix64(offset));
	std::uint64_t s[lanes];
	for (unsigned j = 0; j < lanes; j++)
		s[j] = splitmix64(key + j) | 1;	// xorshift never leaves 0
	for (std::size_t i = 0; i < words; i += lanes) {
		for (unsigned j = 0; j < lanes; j++) {
			s[j] ^= s[j] << 13;
			s[j] ^= s[j] >> 7;
			s[j] ^= s[j] << 17;
		}
		each(i, s, std::min<std::size_t>(lanes, words - i));
	}
}

void write_unit(char *unit, std::uint64_t seed, unsigned file, std::uint64_t offset, std::uint64_t write)
{
	const std::uint64_t word = unit_write(file, write);
	const UnitHeader h = {unit_tag(seed, offset, word), seed, offset, word};
	std::memcpy(unit, &h, sizeof h);
	char *body = unit + sizeof h;
	unit_body(seed, offset, [body](std::size_t i, const std::uint64_t *v, std::size_t n) {
		if (n == 16)
			std::memcpy(body + 8 * i, v, 8 * 16);	// a constant size: inlined
		else
			std::memcpy(body + 8 * i, v, 8 * n);
	});
}

// Every 4 KiB of a block of len bytes (a multiple of 4 KiB) at offset.
void write_units(char *block, std::size_t len, std::uint64_t seed, unsigned file, std::uint64_t offset,
		 std::uint64_t write)
{
	for (std::size_t at = 0; at + verify_unit <= len; at += verify_unit)
		write_unit(block + at, seed, file, offset + at, write);
}

UnitHeader unit_header(const char *unit)
{
	UnitHeader h;
	std::memcpy(&h, unit, sizeof h);
	return h;
}

bool body_matches(const char *unit, std::uint64_t seed, std::uint64_t offset)
{
	const char *body = unit + sizeof(UnitHeader);
	std::uint64_t diff = 0;
	unit_body(seed, offset, [body, &diff](std::size_t i, const std::uint64_t *v, std::size_t n) {
		for (std::size_t j = 0; j < n; j++) {
			std::uint64_t have;
			std::memcpy(&have, body + 8 * (i + j), 8);
			diff |= have ^ v[j];
		}
	});
	return diff == 0;
}

// A whole unit as some --verify run wrote it, for whatever seed and offset
// its header names.
bool unit_consistent(const char *unit)
{
	const UnitHeader h = unit_header(unit);
	return h.tag == unit_tag(h.seed, h.offset, h.write) && body_matches(unit, h.seed, h.offset);
}

// What the unit read at offset of this file is, for a run with this seed.
// write: the number of the last write to it where that is known
// (sequential writes), else any write counts.  found: the offset its
// header names.  Another file's unit of this run is misplaced too (files
// swapped or copied over each other), whatever its offset.
UnitKind classify_unit(const char *unit, std::uint64_t seed, unsigned file, std::uint64_t offset,
		       std::optional<std::uint64_t> write, std::uint64_t &found)
{
	const UnitHeader h = unit_header(unit);
	found = h.offset;
	if (h.seed == seed && h.offset == offset && h.file() == file && (!write || h.number() == *write) &&
	    h.tag == unit_tag(seed, offset, h.write) && body_matches(unit, seed, offset))
		return UnitKind::good;
	if (std::all_of(unit, unit + verify_unit, [](char c) { return c == 0; }))
		return UnitKind::zeros;
	if (!unit_consistent(unit))
		return UnitKind::corrupt;
	if (h.seed == seed && (h.offset != offset || h.file() != file))
		return UnitKind::misplaced;
	return UnitKind::stale;	// another run's unit, or an earlier write's
}

// A whole unit of some run (of any of its files), written for this offset.
bool unit_in_place(const char *unit, std::uint64_t offset)
{
	return unit_header(unit).offset == offset && unit_consistent(unit);
}

// Which run wrote a region, for -r --verify: whole units read at a spread
// of its offsets vote with their seed, each only where it is in its place
// (its offset; of any file, so that swapped files still name their run and
// show as misplaced), and the seed most of them carry wins.  So a stale
// unit at the start (another run's, where a write was lost) is one bad
// unit, not the reference that makes every other unit look bad.
class SeedVote {
public:
	void add(const char *unit, std::uint64_t offset)
	{
		if (!unit_in_place(unit, offset))
			return;
		const UnitHeader h = unit_header(unit);
		for (auto &v : votes_)
			if (v.first == h.seed) {
				v.second++;
				return;
			}
		votes_.emplace_back(h.seed, 1);
	}
	// The seed with the most votes (the first to reach it on a tie), if any.
	std::optional<std::uint64_t> winner() const
	{
		std::optional<std::uint64_t> best;
		unsigned most = 0;
		for (const auto &v : votes_)
			if (v.second > most) {
				most = v.second;
				best = v.first;
			}
		return best;
	}

private:
	std::vector<std::pair<std::uint64_t, unsigned>> votes_;	// seed, units that carry it
};

// One thread's check of the units it read (-r) or read back (-w) of its
// file.  A reader takes the seed from a SeedVote before the run; where no
// unit could vote, from the first whole unit in its place that it reads.
struct VerifyTally {
	std::uint64_t seed = 0;
	bool seeded = false;
	unsigned file = 0;		// the file number its units must carry
	std::uint64_t units = 0, bad = 0;
	std::uint64_t kinds[unit_kinds] = {};
	UnitKind first_kind = UnitKind::good;	// the lowest bad offset's
	std::uint64_t first_offset = 0, first_found = 0;
	unsigned first_file = 0;	// the file the lowest bad unit's header names

	void check(const char *unit, std::uint64_t offset, std::optional<std::uint64_t> write = std::nullopt)
	{
		if (!seeded && unit_in_place(unit, offset)) {
			seed = unit_header(unit).seed;
			seeded = true;
		}
		std::uint64_t found = 0;
		UnitKind kind = classify_unit(unit, seed, file, offset, write, found);
		units++;
		if (kind == UnitKind::good)
			return;
		kinds[static_cast<int>(kind)]++;
		if (bad++ == 0 || offset < first_offset) {
			first_kind = kind;
			first_offset = offset;
			first_found = found;
			first_file = unit_header(unit).file();
		}
	}
	// The count units from offset on are missing: the file ends at offset.
	void missing(std::uint64_t offset, std::uint64_t count)
	{
		if (!count)
			return;
		units += count;
		kinds[static_cast<int>(UnitKind::missing)] += count;
		if (bad == 0 || offset < first_offset) {
			first_kind = UnitKind::missing;
			first_offset = offset;
			first_found = 0;
			first_file = file;
		}
		bad += count;
	}
	// Every whole unit of a block read at offset.
	void check_block(const char *block, std::size_t len, std::uint64_t offset)
	{
		for (std::size_t at = 0; at + verify_unit <= len; at += verify_unit)
			check(block + at, offset + at);
	}
};

} // namespace
