// doctest's own main(), alone in this file so that it is compiled once;
// rebuilding tests/test_sdb.cpp after an edit is then much faster.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
