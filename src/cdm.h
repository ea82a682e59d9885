// cdm: --quick --cdm, the suite in CrystalDiskMark's "Save Text" layout, so
// that a result pastes beside CDM's: its header with the units, [Read],
// [Write] and [Mix] blocks of "SEQ 1MiB (Q= 8, T= 1):   543.188 MB/s [
// 518.0 IOPS] < 15407.04 us>" lines (MB/s 1000-based, the mean latency),
// then Profile, Test, Date and OS.  The figures are the suite's medians, as
// its table's are.  Offers CdmRow and print_cdm() to quick.h.
#pragma once

#include "base.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <sys/utsname.h>

namespace {

// One row of the suite, as CDM shows it.
struct CdmRow {
	bool random = false;
	std::uint64_t block_size = 0;
	unsigned depth = 1, threads = 1;
	int mix = -1;			// a mix's read percentage; -1: a read or a write
	bool write = false;
	double bytes_per_second = 0, iops = 0, mean_us = 0;
};

// "1MiB", "4KiB", "128KiB": CDM's block names.
std::string cdm_block(std::uint64_t b)
{
	return b % MiB == 0 ? format("%" PRIu64 "MiB", b / MiB) : format("%" PRIu64 "KiB", b / KiB);
}

std::string cdm_line(const CdmRow &r)
{
	return format("%s %s (Q=%2u, T=%2u): %9.3f MB/s [%9.1f IOPS] <%9.2f us>\n", r.random ? "RND" : "SEQ",
		      cdm_block(r.block_size).c_str(), r.depth, r.threads, r.bytes_per_second / 1e6, r.iops, r.mean_us);
}

// The whole text.  profile: the suite's profile name; test: the size and
// runs ("1 GiB (x3)") with where; seconds: each run's time.
void print_cdm(std::FILE *out, const std::vector<CdmRow> &rows, const std::string &profile, const std::string &test,
	       double seconds, unsigned runs)
{
	const char rule[] = "------------------------------------------------------------------------------\n";
	std::fprintf(out, "%ssdb %s --quick=%s --cdm: CrystalDiskMark's Save Text layout\n%s", rule, SDB_VERSION,
		     profile.c_str(), rule);
	std::fprintf(out, "* MB/s = 1,000,000 bytes/s\n* KB = 1000 bytes, KiB = 1024 bytes\n");
	for (const char *block : {"Read", "Write", "Mix"}) {
		std::string lines;
		int mix = -1;
		for (const CdmRow &r : rows) {
			bool in = std::string(block) == "Mix" ? r.mix >= 0 : r.mix < 0 && r.write == (std::string(block) == "Write");
			if (in) {
				lines += cdm_line(r);
				mix = r.mix;
			}
		}
		if (lines.empty())
			continue;
		if (mix >= 0)
			std::fprintf(out, "\n[Mix] Read %d%%/Write %d%%\n%s", mix, 100 - mix, lines.c_str());
		else
			std::fprintf(out, "\n[%s]\n%s", block, lines.c_str());
	}
	char date[32] = "";
	std::time_t now = std::time(nullptr);
	std::tm local {};
	if (localtime_r(&now, &local))
		std::strftime(date, sizeof date, "%Y/%m/%d %H:%M:%S", &local);
	utsname u {};
	std::string os = uname(&u) == 0 ? std::string(u.sysname) + " " + u.release + " " + u.machine : "Linux";
	std::string name = profile;
	if (!name.empty())
		name[0] = static_cast<char>(name[0] - ('a' <= name[0] && name[0] <= 'z' ? 'a' - 'A' : 0));
	std::fprintf(out, "\nProfile: %s\n   Test: %s\n   Time: Measure %g sec, the median of %u run%s (CrystalDiskMark: "
		     "the fastest)\n   Date: %s\n     OS: %s\n",
		     name.c_str(), test.c_str(), seconds, runs, runs == 1 ? "" : "s", date, os.c_str());
}

} // namespace
