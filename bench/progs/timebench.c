/*
 * timebench - what keeping each tick's time adds to the in-process recorder's signal handler:
 * profil_tick_handler driven with a synthetic timer siginfo and context into the recorder's
 * stack table (flat, and by frame pointers through a few frames), with the queue of times
 * (src/sample/times.c) and without, the queue emptied between rounds as the recorder's thread
 * does.  Prints CPU nanoseconds per tick for each (best of 7 rounds of N ticks), their difference,
 * clock_gettime(CLOCK_MONOTONIC_COARSE) alone, and the handler with the time the recorder's
 * thread publishes where there is no vDSO.  The kernel's delivery of the signal, the same with
 * or without, is not in these figures.
 * usage: timebench [N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include "../../src/sample/context.c"
#include "../../src/sample/pc.c"
#include "../../src/sample/stacks.c"
#include "../../src/sample/tick.c"
#include "../../src/sample/times.c"
#include "../../src/sample/unwind.c"
#include "../../src/sample/walk.c"

static struct profil_stacks stacks;
static struct profil_time_queue queue;
static struct profil_sink sink = { profil_stacks_tick, &stacks };
static ucontext_t uc;

/* The thread's CPU time: a busy machine's preemptions are not the handler's. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *
map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Ticks at 64 pcs, round robin: a table that finds its entries, as a hot loop's does. */
static double
round_ns(long n, int timed)
{
	siginfo_t si;
	struct profil_time_cell c;
	double t0, t;
	long i;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_TIMER;
	si.si_value.sival_int = PROFIL_TIMER_COOKIE;
	stacks.times = timed ? &queue : NULL;
	t0 = now();
	for (i = 0; i < n; i++) {
		uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(0x401000 + 16 * (i & 63));
		profil_tick_handler(SIGRTMAX - 1, &si, &uc);
		/* The recorder's thread takes the queue every 10 ms: never full here. */
		if ((i & 4095) == 4095)
			while (profil_time_pop(&queue, &c))
				;
	}
	t = now() - t0;
	while (profil_time_pop(&queue, &c))
		;
	return t / (double)n;
}

static double
best(long n, int timed)
{
	double b = 1e30, t;
	int r;

	for (r = 0; r < 7; r++)
		if ((t = round_ns(n, timed)) < b)
			b = t;
	return b;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i;
	double off, on, coarse, clk, t0;
	int d;

	for (d = 0; d < 2; d++) {
		struct profil_stack_table *t = &stacks.tables[d];

		t->nentries = 16384;
		t->npool = 16384 * 16;
		t->entries = map(t->nentries * sizeof(*t->entries));
		t->pool = map(t->npool * sizeof(*t->pool));
	}
	atomic_store(&stacks.cur, &stacks.tables[0]);
	stacks.max_depth = 1;
	queue.ncells = 16384;
	queue.cells = map(queue.ncells * sizeof(*queue.cells));
	queue.base_ns = profil_monotonic_ns();
	queue.slot_ns = 1000000;
	profil_sample_tid = 1;
	atomic_store(&profil_ticks.sink, &sink);
	off = best(n, 0);
	queue.vdso = 1;
	on = best(n, 1);
	/* Without the vDSO: the time the recorder's thread publishes. */
	queue.vdso = 0;
	coarse = best(n, 1);
	t0 = now();
	queue.vdso = 1;
	for (i = 0; i < n; i++)
		(void)profil_time_tick(&queue);
	clk = (now() - t0) / (double)n;
	printf("handler, flat: %.1f ns a tick without times, %.1f with: %.1f ns added "
	    "(CLOCK_MONOTONIC_COARSE alone %.1f ns; %.1f added with the published time); %" PRIu64
	    " times dropped\n", off, on, on - off, clk, coarse - off,
	    (uint64_t)atomic_load(&queue.dropped));
	return 0;
}
