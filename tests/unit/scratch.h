// scratch_name(NAME, DIR): the template of a file or directory a suite
// makes for a moment (mkstemp, mkdtemp), NAME ending in XXXXXX, in $TMPDIR
// where it is set (make check-hermetic sets it inside the build tree, so
// that the package build's tests write nothing outside it), else in DIR.
// The string is the template's storage: pass its data().
#pragma once

#include <cstdlib>
#include <string>

namespace {

std::string scratch_name(const char *name, const char *dir = "/tmp")
{
	const char *tmp = std::getenv("TMPDIR");
	return std::string(tmp && *tmp ? tmp : dir) + "/" + name;
}

}	// namespace
