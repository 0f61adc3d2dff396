/*
 * mkbig.c - writes a large -g profile of this live process for bench/view.sh: TICKS ticks
 * (default 1,000,000) over STACKS distinct call stacks (default 50,000) of 256 functions of
 * its own, in 8 threads, each tick placed in one of 6,000 time slots of 10 ms (a minute): what
 * an hour-long recording's busiest minute, or a minute of a busy server, looks like.  Stacks are
 * random walks down a fixed call graph (each function calls four others), so they share their
 * roots as real programs' do; their counts fall off as 1/rank.  A fixed seed: the same file
 * every run.
 *
 * usage: mkbig OUT.profil [TICKS [STACKS]]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "procmaps.h"

#define NFUNC		256
#define NTHREADS	8
#define NSLOTS		6000
#define SLOT_NS		UINT64_C(10000000)

#define F(n) __attribute__((noinline)) static int f##n(int k) \
	{ volatile int x = k; int i; for (i = 0; i < k; i++) x += i ^ n; return x; }
#define F4(n) F(n##0) F(n##1) F(n##2) F(n##3)
#define F16(n) F4(n##0) F4(n##1) F4(n##2) F4(n##3)
#define F64(n) F16(n##0) F16(n##1) F16(n##2) F16(n##3)
F64(0) F64(1) F64(2) F64(3)
#define P(n) f##n,
#define P4(n) P(n##0) P(n##1) P(n##2) P(n##3)
#define P16(n) P4(n##0) P4(n##1) P4(n##2) P4(n##3)
#define P64(n) P16(n##0) P16(n##1) P16(n##2) P16(n##3)
static int (*const funcs[NFUNC])(int) = { P64(0) P64(1) P64(2) P64(3) };

static uint64_t seed = 88172645463325252ull;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

int
main(int argc, char **argv)
{
	static struct profil_writer w;
	struct profil_file_header h;
	uint64_t ticks = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	size_t nstacks = argc > 3 ? strtoull(argv[3], NULL, 10) : 50000, i, d, t;
	uint32_t pid = (uint32_t)getpid(), calls[NFUNC][4];
	struct profil_file_time *times;
	uint64_t pcs[64], left, harmonic = 0, ntimes = 0;
	double hsum = 0;
	int fd;

	if (argc < 2 || ticks == 0 || nstacks == 0) {
		fprintf(stderr, "usage: mkbig OUT.profil [TICKS [STACKS]]\n");
		return 2;
	}
	for (i = 0; i < NFUNC; i++)
		funcs[i](1);
	maps_read(0);
	for (i = 0; i < NFUNC; i++)
		for (d = 0; d < 4; d++)
			calls[i][d] = (uint32_t)(1 + rnd() % (NFUNC - 1));
	times = calloc(ticks, sizeof(*times));
	if (times == NULL)
		return 1;
	memset(&h, 0, sizeof(h));
	h.pid = pid;
	h.requested_hz = 1000;
	h.clock = PROFIL_FILE_CLOCK_OUTSIDE;
	h.achieved_mhz = 1000000;
	h.start_ns = UINT64_C(1700000000000000000);
	h.end_ns = h.start_ns + NSLOTS * SLOT_NS;
	h.samples = h.ticks = ticks;
	h.exit_kind = PROFIL_EXIT_NORMAL;
	h.threads = NTHREADS;
	h.max_depth = 64;
	h.flags = PROFIL_HDR_STACKS;
	h.progname = "mkbig";
	h.exe = "";
	fd = profile_begin(&w, argv[1], &h);
	if (fd < 0)
		return 1;
	for (t = 0; t < NTHREADS; t++) {
		char name[16];

		snprintf(name, sizeof(name), "worker-%zu", t);
		profil_writer_thread(&w, pid + (uint32_t)t, name);
	}
	for (i = 0; i < nstacks; i++)
		hsum += 1.0 / (double)(i + 1);
	left = ticks;
	for (i = 0; i < nstacks && left > 0; i++) {
		uint64_t count = (uint64_t)((double)ticks / hsum / (double)(i + 1)), k;
		size_t depth = 3 + rnd() % 38, f = 0;
		uint32_t index = (uint32_t)w.samples, tid = pid + (uint32_t)(rnd() % NTHREADS);

		if (count == 0)
			count = 1;
		if (i + 1 == nstacks || count > left)
			count = left;
		left -= count;
		/* Root first in the walk, leaf first in the record: return addresses are + 2. */
		for (d = 0; d < depth; d++) {
			pcs[depth - 1 - d] = (uintptr_t)funcs[f] + (d + 1 == depth ? 1 : 2);
			f = calls[f][rnd() % 4];
		}
		profil_writer_sample(&w, count, tid, 0, (uint32_t)depth, pcs);
		for (k = 0; k < count; k++) {
			times[ntimes].sample = index;
			times[ntimes].slot = (uint32_t)(rnd() % NSLOTS);
			times[ntimes].count = 1;
			ntimes++;
		}
		harmonic += count;
	}
	profil_writer_time(&w, SLOT_NS, times, ntimes);
	if (profil_writer_finish(&w) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%llu ticks, %zu stacks, %llu time entries\n", (unsigned long long)harmonic, i,
	    (unsigned long long)ntimes);
	return 0;
}
