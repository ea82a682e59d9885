/*
 * loop.c - the "limit" reference for bench/run.sh: the least a disk
 * benchmark can do.  One thread, one pread/pwrite per block, nothing
 * else in the loop; the clock covers only the loop (plus the final
 * fdatasync with -y).  Prints one machine-readable line:
 *
 *   bps=... iops=... bytes=... ops=... seconds=... thp_kb=...
 *
 * usage: loop -r|-w [-D] [-y] [-F] [-m seq|rand] [-b BS] [-s SIZE] [-t SEC] FILE
 *   -r/-w   read or write (writes overwrite in place, never truncate)
 *   -D      O_DIRECT
 *   -y      fdatasync after the loop, inside the timed region
 *   -F      refill the buffer with fresh pseudo-random bytes before every
 *           write (to lay out test files that no layer can compress; slow)
 *   -m      seq: blocks 0,1,2,... wrapping at SIZE; rand: block-aligned
 *           offsets from xorshift64 (not each block once per pass)
 *   -b      block size in bytes, k/m/g suffix allowed (default 4k)
 *   -s      bytes per pass (default: the file's size)
 *   -t      run SEC seconds instead of one pass
 *
 * The buffer is page-aligned; from 256 KiB up it is 2 MiB-aligned, rounded
 * up to 2 MiB and madvise(MADV_HUGEPAGE)d, so a 1 MiB request can be one
 * physically contiguous segment list.  thp_kb says how much of it the
 * kernel actually backed with huge pages (from /proc/self/smaps).
 *
 * Build: cc -O2 -o loop loop.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HUGE_SIZE (2UL << 20)

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "loop: %s: %s%s%s\n", what, arg,
		errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (v == 0 || *end) {
		errno = 0;
		die("bad size", s);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t xorshift64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(void *buf, size_t len)
{
	uint64_t *p = buf;
	for (size_t i = 0; i < len / 8; i++)
		p[i] = xorshift64();
}

/* kB of the mapping at addr backed by transparent huge pages, or -1. */
static long thp_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	int inside = 0;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = lo <= (unsigned long)addr && (unsigned long)addr < hi;
		else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static void *alloc_buffer(size_t bs)
{
	size_t align = bs >= (256 << 10) ? HUGE_SIZE : 4096;
	size_t len = (bs + align - 1) / align * align;
	void *buf;

	errno = posix_memalign(&buf, align, len);
	if (errno)
		die("posix_memalign", "buffer");
	if (align == HUGE_SIZE)
		madvise(buf, len, MADV_HUGEPAGE);
	fill(buf, len);		/* fault it in, and not all zeros */
	return buf;
}

int main(int argc, char **argv)
{
	int writing = -1, direct = 0, datasync = 0, refill = 0, randmode = 0, c;
	unsigned long long bs = 4096, size = 0;
	double limit = 0;

	while ((c = getopt(argc, argv, "rwDyFm:b:s:t:")) != -1) {
		switch (c) {
		case 'r': writing = 0; break;
		case 'w': writing = 1; break;
		case 'D': direct = 1; break;
		case 'y': datasync = 1; break;
		case 'F': refill = 1; break;
		case 'm': randmode = !strcmp(optarg, "rand"); break;
		case 'b': bs = parse_size(optarg); break;
		case 's': size = parse_size(optarg); break;
		case 't': limit = atof(optarg); break;
		default: goto usage;
		}
	}
	if (writing < 0 || optind != argc - 1)
		goto usage;

	const char *path = argv[optind];
	int flags = (writing ? O_WRONLY | O_CREAT : O_RDONLY) | (direct ? O_DIRECT : 0);
	int fd = open(path, flags, 0644);
	if (fd < 0)
		die("open", path);
	if (!size) {
		struct stat st;
		if (fstat(fd, &st) < 0)
			die("stat", path);
		size = st.st_size;
	}
	unsigned long long nblocks = size / bs;
	if (nblocks == 0) {
		errno = 0;
		die("size is less than one block", path);
	}

	char *buf = alloc_buffer(bs);
	unsigned long long ops = 0, bytes = 0, block = 0;
	double start = now(), end = start;

	for (;;) {
		unsigned long long off;
		if (randmode) {
			off = xorshift64() % nblocks * bs;
		} else {
			off = block * bs;
			if (++block == nblocks)
				block = 0;
		}
		if (refill)
			fill(buf, bs);
		ssize_t n = writing ? pwrite(fd, buf, bs, off) : pread(fd, buf, bs, off);
		if (n < 0)
			die(writing ? "pwrite" : "pread", path);
		bytes += n;
		ops++;
		if (limit > 0) {
			if ((ops & 15) == 0 && (end = now()) - start >= limit)
				break;
		} else if (ops == nblocks) {
			break;
		}
	}
	if (datasync && fdatasync(fd) < 0)
		die("fdatasync", path);
	end = now();

	double secs = end - start;
	printf("bps=%.0f iops=%.1f bytes=%llu ops=%llu seconds=%.6f thp_kb=%ld\n",
	       bytes / secs, ops / secs, bytes, ops, secs, thp_kb(buf));
	return 0;

usage:
	fprintf(stderr, "usage: loop -r|-w [-D] [-y] [-F] [-m seq|rand] [-b BS] [-s SIZE] [-t SEC] FILE\n");
	return 2;
}
