// A document as sdb --json writes it, and every document in a text read
// back, for the suites that read documents (load, merge).
#pragma once

#include "../../src/base.h"
#include "../../src/stats.h"
#include "../../src/load.h"

#include <doctest/doctest.h>

#include <cinttypes>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// A document as sdb writes it, with the keys --merge reads.
std::string sdb_document(const char *host, double start, double seconds, std::uint64_t bytes, const Histogram &h,
			 const char *options = "\"op\": \"write\", \"mode\": \"rand\", \"block_size\": 4096")
{
	return format("{\"version\": \"" SDB_VERSION "\", \"host\": \"%s\", \"start_unix\": %.6f, \"end_unix\": %.6f, "
		      "\"options\": {%s, \"file\": \"%s.t\"}, \"threads\": [{\"id\": 0, \"histogram\": %s}], "
		      "\"total\": {\"bytes\": %" PRIu64 ", \"ops\": %" PRIu64 ", \"seconds\": %.6f}, "
		      "\"timeline\": [{\"t\": %.6f, \"unix\": %.6f, \"bytes_per_second\": %.6f}], \"warnings\": [], "
		      "\"interrupted\": false}",
		      host, start, start + seconds, options, host, json_histogram(h).c_str(), bytes, h.count(), seconds, seconds,
		      start + seconds, bytes / seconds);
}

// Every document in a text, as run_merge and run_hosts read one.
std::vector<HostRun> inputs(std::string text, const char *name, std::string *error = nullptr)
{
	std::vector<HostRun> found;
	Error e = load_inputs(text, name, found);
	if (error)
		*error = e.msg;
	else
		REQUIRE_MESSAGE(!e, e.msg);
	return found;
}

} // namespace
