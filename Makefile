# sdb - Simple Disk Benchmark.  See LICENSE for copyright and license details.

VERSION = 0.5.0

# Paths.  DESTDIR is for staged installs: make install DESTDIR=/tmp/stage
PREFIX ?= /usr/local
BINDIR  = $(PREFIX)/bin
MANDIR  = $(PREFIX)/share/man
COMPDIR = $(PREFIX)/share/bash-completion/completions
INSTALL = install

# CXXFLAGS, CPPFLAGS and LDFLAGS belong to the user and to dpkg-buildflags:
# they are only defaulted here, never overwritten.  What sdb itself needs
# goes into the SDB_* variables, which append the user's flags.
CXXFLAGS ?= -O2 -g
SDB_CPPFLAGS = -DSDB_VERSION=\"$(VERSION)\" $(CPPFLAGS)
SDB_CXXFLAGS = -std=c++17 -Wall -Wextra -pthread $(CXXFLAGS)
SDB_LDFLAGS  = -pthread $(LDFLAGS)

# 'make check-sanitize': separate binaries with their own flags.  UBSan's
# vptr check is off: it probes memory through a pipe(2), so with every
# descriptor in use (the ulimit -n tests) it reports each stream sdb then
# builds as an invalid object and exits, leaving the run's files behind.
SAN_FLAGS = -std=c++17 -Wall -Wextra -pthread -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all
SAN_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

# sdb.cpp is the one translation unit; it includes the modules of src/.
# The binaries depend on this Makefile too: VERSION and the flags live here.
SRC = sdb.cpp $(wildcard src/*.h)
BIN_SRC = $(SRC) Makefile

# The unit tests: a doctest TEST_SUITE per module in tests/unit/MODULE.cpp,
# each its own translation unit that includes the module it tests, linked
# with doctest's main() into one binary.  A module's functions that its
# tests do not call would warn as unused: that warning is off.
# Built together (tests/unit/run, make check), the suites but modes.cpp are
# one translation unit, tests/unit_suites.cpp (made here: an #include a
# suite), so that the modules are parsed and compiled once: 63 s against
# 190 s for the suites one by one, on 2 cores.  modes.cpp includes all of
# sdb.cpp under rules of its own (SDB_TEST_CHECK) and stays apart.
UNIT_SRC = $(wildcard tests/unit/*.cpp)
UNIT_ONE = $(filter-out tests/unit/modes.cpp,$(UNIT_SRC))
UNIT_OBJ = tests/doctest_main.o tests/unit_suites.o tests/unit/modes.o
UNIT_SAN_OBJ = tests/doctest_main.san.o tests/unit_suites.san.o tests/unit/modes.san.o
# The unit objects build at -O1 without debug information, whatever
# CXXFLAGS says of either (its other flags still apply; make UNIT_OPT="-O0
# -g" for a debugger).  Measured on 2 cores, tests/unit/report.o: 3.3 s at
# -O1 -g0, 6.0 s at -O1 -g, 9.6 s at -O0 -g0 (more code to emit).
UNIT_OPT = -O1 -g0
SDB_UNIT_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-unused-function -pthread $(CXXFLAGS) $(UNIT_OPT)
SAN_UNIT_FLAGS = $(SAN_FLAGS) -Wno-unused-function

all: sdb

# The edit-build-test loop's build: ./sdb-dev at -O0 (about 6 s, against
# 30 s), apart from ./sdb so that a benchmark never measures it.
dev: sdb-dev
sdb-dev: $(BIN_SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) -O0 $(SDB_LDFLAGS) -o $@ sdb.cpp

sdb: $(BIN_SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) $(SDB_LDFLAGS) -o $@ sdb.cpp

tests/doctest_main.o: tests/doctest_main.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SDB_UNIT_CXXFLAGS) -c -o $@ tests/doctest_main.cpp

# -MMD: each object depends on the headers it includes (listed in its .d).
tests/unit/%.o: tests/unit/%.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SDB_UNIT_CXXFLAGS) -MMD -MP -c -o $@ $<

tests/unit_suites.cpp: $(UNIT_ONE) Makefile
	printf '#include "unit/%s"\n' $(notdir $(UNIT_ONE)) >$@

# A suite's fixtures sit in doctest's anonymous namespace: in a file of its
# own that is its main file, here an included one, which GCC warns of.
UNIT_ONE_FLAGS = -Wno-subobject-linkage

tests/unit_suites.o: tests/unit_suites.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SDB_UNIT_CXXFLAGS) $(UNIT_ONE_FLAGS) -MMD -MP -c -o $@ $<

tests/unit/run: $(UNIT_OBJ)
	$(CXX) $(SDB_UNIT_CXXFLAGS) $(SDB_LDFLAGS) -o $@ $(UNIT_OBJ)

-include $(UNIT_SRC:.cpp=.d) $(UNIT_SRC:.cpp=.san.d) tests/unit_suites.d tests/unit_suites.san.d

# One module's suite, built alone with doctest's main (tests/unit/run-json:
# two objects), or every suite: make check-unit SUITE=json, make check-unit
tests/unit/run-%: tests/doctest_main.o tests/unit/%.o
	$(CXX) $(SDB_UNIT_CXXFLAGS) $(SDB_LDFLAGS) -o $@ $^

ifneq ($(SUITE),)
check-unit: tests/unit/run-$(SUITE)
	./tests/unit/run-$(SUITE) -ts=$(SUITE)
else
check-unit:
	@$(MAKE) --no-print-directory -j2 tests/unit/run
	./tests/unit/run
endif

# The wings (sdb.cpp's include list): the ground floor stands on nothing
# but itself; the offline wing reads saved documents, and reaches only the
# ground floor, options and itself, never the engine or the report.
GROUND = base signals sys json stats spread pts pace profiles context
OFFLINE = fleet load merge compare hosts charts html prom

# Each module compiles alone, each ground module's includes stay on the
# ground floor and each offline module's in its wing, and the fuzz target
# still compiles with them: tests/modules.sh says how.
check-modules:
	bash tests/modules.sh "$(CXX)" "$(GROUND)" "$(OFFLINE)"

# The real binary driven the way a user drives it, and the unit tests;
# one summary line at the end ("N passed, N failed, N skipped").  The CLI
# sections mostly wait on the disk (four at a time use about 40% of two
# CPUs), so the unit tests are built and run beside them, once sdb is.
check: sdb
	UNIT_BUILD="$(MAKE) --no-print-directory -j2 tests/unit/run" sh tests/check.sh ./tests/unit/run ./sdb sdb.1 $(VERSION)

# The package build's tests (debian/rules): the unit suites and every CLI
# test that touches nothing outside the build tree, even when the build
# runs as root: SDB_TEST_HERMETIC makes lib.sh's system() false (no loop
# device, mount, cgroup, daemon or /dev/shm), TMPDIR keeps every scratch
# directory under tests/scratch.  The system tests run against the
# installed package under autopkgtest (debian/tests/control).  The unit
# tests build and run beside the CLI sections, four sections at a time:
# without the system tests they mostly wait, and the build's tests take
# what they take at their longest, not their sum.
check-hermetic:
	@$(MAKE) --no-print-directory sdb
	rm -rf tests/scratch && mkdir tests/scratch
	SDB_TEST_HERMETIC=1 TMPDIR=$(CURDIR)/tests/scratch UNIT_BUILD="$(MAKE) --no-print-directory -j2 tests/unit/run" \
		sh tests/check.sh ./tests/unit/run ./sdb sdb.1 $(VERSION)
	rm -rf tests/scratch

# One or more sections of the CLI tests, by name, each alone as always:
# make check-cli SECTION="merge probe"; every section without SECTION.
check-cli: sdb
	bash tests/cli/run.sh ./sdb sdb.1 $(VERSION) /dev/null $(SECTION)

sdb-san: $(BIN_SRC) tests/san_options.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SAN_FLAGS) -o $@ sdb.cpp tests/san_options.cpp

tests/doctest_main.san.o: tests/doctest_main.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SAN_UNIT_FLAGS) -c -o $@ tests/doctest_main.cpp

tests/unit/%.san.o: tests/unit/%.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SAN_UNIT_FLAGS) -MMD -MP -c -o $@ $<

tests/unit_suites.san.o: tests/unit_suites.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SAN_UNIT_FLAGS) $(UNIT_ONE_FLAGS) -MMD -MP -c -o $@ $<

tests/unit/run-san: $(UNIT_SAN_OBJ)
	$(CXX) $(SAN_UNIT_FLAGS) -o $@ $(UNIT_SAN_OBJ)

check-sanitize:
	@$(MAKE) --no-print-directory -j2 sdb-san tests/unit/run-san
	$(SAN_ENV) sh tests/check.sh ./tests/unit/run-san ./sdb-san sdb.1 $(VERSION)

# libFuzzer on the option and SIZE parsers (needs clang): one target feeds
# every input to both, for FUZZ_SECONDS.
FUZZ_SECONDS = 120
fuzz:
	sh tests/fuzz.sh $(FUZZ_SECONDS)

# The side-by-side benchmark against fio, dd and a minimal loop, then the
# fleet row (--merge of up to 10000 documents, --hosts over 100 stand-ins)
# and the cost rows (memory over a run, a padded merge, flooding remotes,
# 1,024 threads), each beside its bound.
bench: sdb
	bash bench/run.sh
	bash bench/fleet.sh
	bash bench/cost.sh

install: sdb
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPDIR)
	$(INSTALL) -m 755 sdb $(DESTDIR)$(BINDIR)/sdb
	$(INSTALL) -m 644 sdb.1 $(DESTDIR)$(MANDIR)/man1/sdb.1
	$(INSTALL) -m 644 completion/sdb.bash $(DESTDIR)$(COMPDIR)/sdb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sdb $(DESTDIR)$(MANDIR)/man1/sdb.1 $(DESTDIR)$(COMPDIR)/sdb

clean:
	rm -f sdb sdb-dev sdb-san tests/unit/run tests/unit/run-san tests/unit/run-* tests/fuzz_parse bench/loop bench/uring \
		tests/*.o tests/*.d tests/unit_suites.cpp tests/unit/*.o tests/unit/*.d
	rm -rf tests/scratch

.PHONY: all dev check check-hermetic check-unit check-cli check-modules check-sanitize fuzz bench install uninstall clean
