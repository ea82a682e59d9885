# sdb - Simple Disk Benchmark.  See LICENSE for copyright and license details.

VERSION = 0.1.0

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

# 'make check-sanitize': separate binaries with their own flags.
SAN_FLAGS = -std=c++17 -Wall -Wextra -pthread -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
SAN_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

# sdb.cpp is the one translation unit; it includes the modules of src/.
SRC = sdb.cpp $(wildcard src/*.h)

TEST_OBJ = tests/doctest_main.o tests/test_sdb.o

all: sdb

# The edit-build-test loop's build: ./sdb-dev at -O0 (about 6 s, against
# 30 s), apart from ./sdb so that a benchmark never measures it.
dev: sdb-dev
sdb-dev: $(SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) -O0 $(SDB_LDFLAGS) -o $@ sdb.cpp

sdb: $(SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) $(SDB_LDFLAGS) -o $@ sdb.cpp

tests/doctest_main.o: tests/doctest_main.cpp
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) -c -o $@ tests/doctest_main.cpp

tests/test_sdb.o: tests/test_sdb.cpp $(SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SDB_CXXFLAGS) -c -o $@ tests/test_sdb.cpp

tests/test_sdb: $(TEST_OBJ)
	$(CXX) $(SDB_CXXFLAGS) $(SDB_LDFLAGS) -o $@ $(TEST_OBJ)

# Unit tests, then the real binary driven the way a user drives it; one
# summary line at the end ("N passed, N failed, N skipped").
check: sdb tests/test_sdb
	sh tests/check.sh ./tests/test_sdb ./sdb sdb.1 $(VERSION)

# Each section of tests/cli.sh on its own: no section leans on another's files.
check-sections: sdb
	bash tests/sections.sh ./sdb sdb.1 $(VERSION)

sdb-san: $(SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SAN_FLAGS) -o $@ sdb.cpp

tests/test_sdb-san: tests/doctest_main.cpp tests/test_sdb.cpp $(SRC)
	$(CXX) $(SDB_CPPFLAGS) $(SAN_FLAGS) -o $@ tests/doctest_main.cpp tests/test_sdb.cpp

check-sanitize: sdb-san tests/test_sdb-san
	$(SAN_ENV) sh tests/check.sh ./tests/test_sdb-san ./sdb-san sdb.1 $(VERSION)

# libFuzzer on the option and SIZE parsers (needs clang): one target feeds
# every input to both, for FUZZ_SECONDS.
FUZZ_SECONDS = 120
fuzz:
	sh tests/fuzz.sh $(FUZZ_SECONDS)

# The side-by-side benchmark against fio, dd and a minimal loop.
bench: sdb
	bash bench/run.sh

install: sdb
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPDIR)
	$(INSTALL) -m 755 sdb $(DESTDIR)$(BINDIR)/sdb
	$(INSTALL) -m 644 sdb.1 $(DESTDIR)$(MANDIR)/man1/sdb.1
	$(INSTALL) -m 644 completion/sdb.bash $(DESTDIR)$(COMPDIR)/sdb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sdb $(DESTDIR)$(MANDIR)/man1/sdb.1 $(DESTDIR)$(COMPDIR)/sdb

clean:
	rm -f sdb sdb-dev sdb-san tests/test_sdb tests/test_sdb-san tests/fuzz_parse bench/loop bench/uring $(TEST_OBJ)

.PHONY: all dev check check-sections check-sanitize fuzz bench install uninstall clean
