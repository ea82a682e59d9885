// falling(): the samples of a sequential write whose rate fell, for the
// suites of the cliff (cliff.cpp) and of --quick=flash's stop (flash.cpp).
#pragma once

#include "../../src/run.h"	// Sample

#include <cstdint>
#include <vector>

namespace {

// Samples every 0.1 s of a write at `fast` bytes/s up to `at` bytes, then `slow`.
std::vector<Sample> falling(double fast, double slow, double at, double seconds)
{
	std::vector<Sample> s;
	for (int i = 1; i <= static_cast<int>(seconds * 10 + 0.5); i++) {
		double t = i / 10.0, until = at / fast;
		double bytes = t <= until ? fast * t : at + slow * (t - until);
		s.push_back({t, static_cast<std::uint64_t>(bytes)});
	}
	return s;
}

} // namespace
