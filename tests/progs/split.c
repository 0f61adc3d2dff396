/*
 * split SCALE HZ CLOCK [THREADS]
 *
 * profil(3): "Each bin counts the number of times the program counter was in a particular
 * address range in the process when a profiling clock tick occurred."  Hot functions burn CPU
 * in a known proportion; the bins that the formula [(pc - offset) / 2] * scale / 65536 assigns to
 * each function's address range must hold that share of the samples, within a binomial bound.
 * With THREADS, each function runs on a thread of its own at the same time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)
HOT(hot_b)
HOT(hot_c)
HOT(hot_d)

#define NFN 4
static void (*const fns[NFN])(double) = { hot_a, hot_b, hot_c, hot_d };
static uintptr_t lo[NFN], hi[NFN];
static double secs[NFN];

static size_t
bin_of(uintptr_t pc, uintptr_t offset, unsigned int scale)
{
	/* The pages' relation, written out independently of the library. */
	unsigned __int128 i = (pc - offset) / 2;

	return (size_t)(i * scale / 65536);
}

static void *
run(void *arg)
{
	size_t k = (size_t)arg;

	fns[k](secs[k]);
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned int scale, hz;
	enum profil_clock clock;
	int threads;
	uintptr_t offset, top;
	size_t nbins, bufsiz, mapsize, k, b;
	unsigned short *buf;
	unsigned char *canary;
	double counts[NFN] = { 0 }, total = 0, unit = 0.1;
	pthread_t tids[NFN];
	struct profil_stats st;

	if (argc < 4)
		return 2;
	scale = (unsigned int)strtoul(argv[1], NULL, 0);
	hz = (unsigned int)strtoul(argv[2], NULL, 0);
	clock = strcmp(argv[3], "perf") == 0 ? PROFIL_CLOCK_PERF :
	    strcmp(argv[3], "timer") == 0 ? PROFIL_CLOCK_TIMER : PROFIL_CLOCK_AUTO;
	threads = argc > 4 && strcmp(argv[4], "threads") == 0;
	if (argc > 5)
		unit = atof(argv[5]);

	lo[0] = HOT_START(hot_a), hi[0] = HOT_END(hot_a);
	lo[1] = HOT_START(hot_b), hi[1] = HOT_END(hot_b);
	lo[2] = HOT_START(hot_c), hi[2] = HOT_END(hot_c);
	lo[3] = HOT_START(hot_d), hi[3] = HOT_END(hot_d);
	offset = top = lo[0];
	for (k = 0; k < NFN; k++) {
		offset = lo[k] < offset ? lo[k] : offset;
		top = hi[k] > top ? hi[k] : top;
		secs[k] = unit * (double)(k + 1);	/* 10%, 20%, 30%, 40% */
	}
	/* Bins for the whole range, an odd byte count, and canary bytes after bufsiz. */
	nbins = bin_of(top - 1, offset, scale) + 1;
	bufsiz = nbins * 2 + 1;
	mapsize = (bufsiz + 4096 + 4095) & ~(size_t)4095;
	buf = mmap(NULL, mapsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	canary = (unsigned char *)buf + nbins * 2;
	memset(canary, 0xa5, mapsize - nbins * 2);

	profil_rate_set(hz, clock);
	tap_check(profil(buf, bufsiz, offset, scale) == 0, "profil(scale %u, %u Hz, %s) returns 0",
	    scale, hz, argv[3]);
	if (threads) {
		for (k = 0; k < NFN; k++)
			pthread_create(&tids[k], NULL, run, (void *)k);
		for (k = 0; k < NFN; k++)
			pthread_join(tids[k], NULL);
	} else {
		for (k = NFN; k-- > 0;)
			run((void *)k);
	}
	profil_stats_get(&st);
	profil(buf, bufsiz, offset, 0);

	for (k = 0; k < NFN; k++) {
		for (b = bin_of(lo[k], offset, scale); b <= bin_of(hi[k] - 1, offset, scale); b++)
			counts[k] += buf[b];
		total += counts[k];
	}
	tap_diag("clock %s, %.0f Hz achieved, %llu signals, %llu ticks, %llu threads armed",
	    st.clock == PROFIL_CLOCK_PERF ? "perf" : "timer", st.achieved_hz,
	    (unsigned long long)st.signals, (unsigned long long)st.ticks,
	    (unsigned long long)st.threads);
	for (k = 0; k < NFN; k++) {
		char what[64];

		/*
		 * A timer signal may carry several coalesced ticks (si_overrun): the independent
		 * draws are the signals, so the bound uses their number.  Each function's CPU
		 * segment is split by a periodic clock to within one tick: quantum 1 each.
		 */
		double n = (double)st.signals < total ? (double)st.signals : total;

		snprintf(what, sizeof(what), "hot_%c", (int)('a' + k));
		tap_share(counts[k] / total * n, n, (double)(k + 1) / 10, NFN * 1.0, what);
	}
	for (b = 0; canary + b < (unsigned char *)buf + mapsize && canary[b] == 0xa5; b++)
		;
	tap_check(canary + b == (unsigned char *)buf + mapsize,
	    "no byte at or past bufsiz (%zu) was written", bufsiz - 1);
	tap_check(total <= (double)st.ticks, "bins hold no more than the ticks (%.0f <= %llu)",
	    total, (unsigned long long)st.ticks);
	if (threads)
		tap_check(st.threads >= NFN + 1 && st.thread_failures == 0,
		    "every thread was armed (%llu armed, %llu failed)",
		    (unsigned long long)st.threads, (unsigned long long)st.thread_failures);
	return tap_done();
}
