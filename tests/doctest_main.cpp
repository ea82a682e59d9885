// doctest's own main(), alone in this file so that it is compiled once; the
// suites of tests/unit/ are linked with it, and an edit to one of them
// rebuilds only that file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
