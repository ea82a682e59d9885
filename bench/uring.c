/*
 * uring.c - the "limit" reference of bench/run.sh for queued I/O: the least
 * a benchmark can do to keep DEPTH I/Os in flight through io_uring.  Raw
 * syscalls, no liburing.  Each thread owns a ring set up for one issuer
 * (SINGLE_ISSUER + DEFER_TASKRUN, else COOP_TASKRUN, else plain), a
 * registered buffer (READ_FIXED/WRITE_FIXED) and a registered file
 * (IOSQE_FIXED_FILE); it keeps the ring full, submits and waits in one
 * io_uring_enter, and reaps every completion there is.  A target that
 * cannot be tried without blocking (a read with RWF_NOWAIT is refused:
 * zram, brd) gets IOSQE_ASYNC, straight to the kernel's io-wq workers,
 * where io_uring would send it anyway after a first attempt.  No clock read per
 * I/O, no latency; the clock covers only the loop.  Prints one line:
 *
 *   bps=... iops=... bytes=... ops=... seconds=... cpu_us=... flags=... async=0/1
 *
 * cpu_us is the process's CPU time (user + system, the kernel's io-wq
 * workers included) per I/O, in microseconds.
 *
 * usage: uring -r|-w [-D] [-A] [-m seq|rand] [-b BS] [-s SIZE] [-t SEC] [-q DEPTH]
 *              [-j THREADS] [-B WAIT] [-W WORKERS] FILE
 *   -r/-w   read or write (in place, never truncate)
 *   -D      O_DIRECT
 *   -m      seq or rand (xorshift64 block-aligned offsets), as loop.c
 *   -b      block size (default 4k); -s bytes per thread (default: the
 *           file's size / THREADS); thread i works on [i*SIZE, (i+1)*SIZE)
 *   -t      seconds (default: one pass of SIZE/BS I/Os per thread)
 *   -q      I/Os in flight per thread (default 32)
 *   -j      threads, each with its own ring (default 1)
 *   -B      completions to wait for in each io_uring_enter (default
 *           DEPTH/4, at least 1)
 *   -A      IOSQE_ASYNC on every I/O, whatever the target
 *   -W      most io-wq workers per ring (IORING_REGISTER_IOWQ_MAX_WORKERS;
 *           default: the kernel's)
 *
 * Build: cc -O2 -pthread -o uring uring.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

static int writing = -1, direct, randmode, waitn, async;
static unsigned long long bs = 4096, size;
static unsigned depth = 32, workers;
static double limit;
static const char *path;
static const char *flags_used = "none";

struct thread {
	pthread_t tid;
	unsigned index;
	unsigned long long ops, bytes;
	double seconds;
};

static void die(const char *what, const char *arg, int err)
{
	fprintf(stderr, "uring: %s: %s%s%s\n", what, arg, err ? ": " : "", err ? strerror(err) : "");
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
	if (v == 0 || *end)
		die("bad number", s, 0);
	return v;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct ring {
	int fd;
	unsigned *sq_tail, *sq_array, sq_mask, *cq_head, *cq_tail, cq_mask, tail;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* The best setup flags the kernel takes: it refuses unknown ones with EINVAL. */
static void ring_setup(struct ring *r, unsigned entries)
{
	static const struct { unsigned flags; const char *name; } tries[] = {
		{IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, "single_issuer+defer_taskrun"},
		{IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN, "single_issuer+coop_taskrun"},
		{IORING_SETUP_COOP_TASKRUN, "coop_taskrun"},
		{0, "none"},
	};
	struct io_uring_params p;
	for (unsigned i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		memset(&p, 0, sizeof p);
		p.flags = tries[i].flags;
		r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
		if (r->fd >= 0) {
			flags_used = tries[i].name;
			break;
		}
		if (errno != EINVAL)
			break;
	}
	if (r->fd < 0)
		die("io_uring_setup", path, errno);
	size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (cq_len > sq_len)
		sq_len = cq_len;	/* IORING_FEAT_SINGLE_MMAP: every kernel since 5.4 */
	char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	void *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED)
		die("mmap", "io_uring", errno);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(sq + p.cq_off.head);
	r->cq_tail = (unsigned *)(sq + p.cq_off.tail);
	r->cq_mask = *(unsigned *)(sq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(sq + p.cq_off.cqes);
	r->sqes = sqes;
	r->tail = *r->sq_tail;
	/* The SQ array maps slot i to SQE i once and for all. */
	for (unsigned i = 0; i < p.sq_entries; i++)
		r->sq_array[i] = i;
}

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *run(void *arg)
{
	struct thread *t = arg;
	struct ring r;
	unsigned long long nblocks = size / bs, base = t->index * size, block = 0, queued = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ULL + t->index;
	int fd = open(path, (writing ? O_WRONLY : O_RDONLY) | (direct ? O_DIRECT : 0));
	if (fd < 0)
		die("open", path, errno);
	ring_setup(&r, depth);
	if (!async && !writing) {
		static char probe[4096] __attribute__((aligned(4096)));
		struct iovec one = {probe, sizeof probe};
		if (preadv2(fd, &one, 1, (off_t)base, RWF_NOWAIT) < 0 && errno == EOPNOTSUPP)
			async = 1;	/* the same answer for every thread */
	}
	char *buf = mmap(NULL, depth * bs, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap", "buffer", errno);
	memset(buf, 0x5a, depth * bs);
	struct iovec iov = {buf, depth * bs};
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS, &iov, 1) < 0)
		die("IORING_REGISTER_BUFFERS", path, errno);
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fd, 1) < 0)
		die("IORING_REGISTER_FILES", path, errno);
	if (workers) {
		unsigned max[2] = {workers, workers};
		if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_IOWQ_MAX_WORKERS, max, 2) < 0)
			die("IORING_REGISTER_IOWQ_MAX_WORKERS", path, errno);
	}

	unsigned inflight = 0, submit = 0, wait = waitn ? (unsigned)waitn : (depth / 4 ? depth / 4 : 1);
	unsigned long long total = limit > 0 ? ~0ULL : nblocks;
	double start = now(), end = start;
	int done = 0;
	for (;;) {
		/* Fill every free slot: the slot's number is the CQE's user_data. */
		while (!done && inflight < depth && queued < total) {
			unsigned long long off;
			if (randmode) {
				off = xorshift64(&rng) % nblocks * bs;
			} else {
				off = block * bs;
				if (++block == nblocks)
					block = 0;
			}
			unsigned slot = (unsigned)(queued % depth);
			struct io_uring_sqe *sqe = &r.sqes[r.tail & r.sq_mask];
			memset(sqe, 0, sizeof *sqe);
			sqe->opcode = writing ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
			sqe->flags = IOSQE_FIXED_FILE | (async ? IOSQE_ASYNC : 0);
			sqe->fd = 0;
			sqe->addr = (uintptr_t)(buf + slot * bs);
			sqe->len = (unsigned)bs;
			sqe->off = base + off;
			sqe->buf_index = 0;
			r.tail++;
			queued++;
			inflight++;
			submit++;
		}
		if (inflight == 0)
			break;
		__atomic_store_n(r.sq_tail, r.tail, __ATOMIC_RELEASE);
		unsigned want = wait < inflight ? wait : inflight;
		long n = syscall(__NR_io_uring_enter, r.fd, submit, want, IORING_ENTER_GETEVENTS, NULL, 0);
		if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
			die("io_uring_enter", path, errno);
		if (n > 0)
			submit -= (unsigned)n;
		unsigned head = *r.cq_head, tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &r.cqes[head & r.cq_mask];
			if (cqe->res < 0)
				die(writing ? "write" : "read", path, -cqe->res);
			t->bytes += (unsigned)cqe->res;
			t->ops++;
			inflight--;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
		if (limit > 0 && !done && (end = now()) - start >= limit)
			done = 1;	/* drain what is in flight, then stop */
	}
	end = now();
	t->seconds = end - start;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = 1;
	int c;

	while ((c = getopt(argc, argv, "rwDAm:b:s:t:q:j:B:W:")) != -1) {
		switch (c) {
		case 'r': writing = 0; break;
		case 'w': writing = 1; break;
		case 'D': direct = 1; break;
		case 'A': async = 1; break;
		case 'm': randmode = !strcmp(optarg, "rand"); break;
		case 'b': bs = parse_size(optarg); break;
		case 's': size = parse_size(optarg); break;
		case 't': limit = atof(optarg); break;
		case 'q': depth = (unsigned)parse_size(optarg); break;
		case 'j': threads = (unsigned)parse_size(optarg); break;
		case 'B': waitn = (int)parse_size(optarg); break;
		case 'W': workers = (unsigned)parse_size(optarg); break;
		default: goto usage;
		}
	}
	if (writing < 0 || optind != argc - 1)
		goto usage;
	path = argv[optind];
	if (!size) {
		struct stat st;
		unsigned long long bytes = 0;
		int fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) < 0)
			die("open", path, errno);
		bytes = st.st_size;
		if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &bytes) < 0)
			die("BLKGETSIZE64", path, errno);
		close(fd);
		size = bytes / threads;
	}
	if (size / bs == 0)
		die("size is less than one block", path, 0);

	struct thread *t = calloc(threads, sizeof *t);
	for (unsigned i = 0; i < threads; i++) {
		t[i].index = i;
		if ((errno = pthread_create(&t[i].tid, NULL, run, &t[i])))
			die("pthread_create", path, errno);
	}
	unsigned long long ops = 0, bytes = 0;
	double secs = 0;	/* the longest thread's loop */
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(t[i].tid, NULL);
		ops += t[i].ops;
		bytes += t[i].bytes;
		if (t[i].seconds > secs)
			secs = t[i].seconds;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	printf("bps=%.0f iops=%.1f bytes=%llu ops=%llu seconds=%.6f cpu_us=%.3f flags=%s async=%d\n",
	       bytes / secs, ops / secs, bytes, ops, secs, ops ? cpu / ops * 1e6 : 0, flags_used, async);
	return 0;

usage:
	fprintf(stderr, "usage: uring -r|-w [-D] [-A] [-m seq|rand] [-b BS] [-s SIZE] [-t SEC] [-q DEPTH] [-j THREADS] [-B WAIT] [-W WORKERS] FILE\n");
	return 2;
}
