// Linked into sdb-san only (make check-sanitize).  The sanitizers read
// ASAN_OPTIONS through /proc/self/environ, so where /proc is not mounted
// (the CLI tests of writes without /proc) they see none of the Makefile's
// SAN_ENV and take these defaults instead: no leak check, because
// LeakSanitizer lists the threads through /proc and, failing, ends every
// run with exit 1.  Where /proc is mounted, SAN_ENV overrides them.
extern "C" const char *__asan_default_options()
{
	return "abort_on_error=1:detect_leaks=0";
}
