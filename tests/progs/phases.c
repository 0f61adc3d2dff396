/*
 * phases SECONDS [THREADS [SLICES]] - two phases in time, for the tests of when samples were
 * taken: phase_a burns SECONDS of its thread's CPU, then phase_b as much.  THREADS 2 (the
 * default 1): the main thread waits while two named threads run side by side, "a-then-b" in
 * that order and "b-then-a" the other way round, so that each thread's order is its own.
 * SLICES (default 1): each phase is burnt in that many slices, slice i called through i % 16
 * frames of nest(), so that -g sees many distinct stacks (a recorder's table spills).  Prints,
 * per thread, the CLOCK_REALTIME ns at which it switched from one phase to the other:
 * "switch NAME NS".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

HOT(phase_a)
HOT(phase_b)

static double seconds;
static int slices = 1;
static unsigned long long switched[2];
static volatile int sink;

/* fn after depth more frames of its own: a distinct stack for each depth. */
__attribute__((noinline)) static void
nest(int depth, void (*fn)(double), double s)
{
	if (depth > 0)
		nest(depth - 1, fn, s);
	else
		fn(s);
	sink++;		/* not a tail call: the frame stays */
}

static void
phase(void (*fn)(double))
{
	for (int i = 0; i < slices; i++)
		nest(i % 16, fn, seconds / slices);
}

static unsigned long long
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void *
a_then_b(void *unused)
{
	(void)unused;
	phase(phase_a);
	switched[0] = realtime_ns();
	phase(phase_b);
	return NULL;
}

static void *
b_then_a(void *unused)
{
	(void)unused;
	phase(phase_b);
	switched[1] = realtime_ns();
	phase(phase_a);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[2];
	int threads = argc > 2 ? atoi(argv[2]) : 1;

	seconds = argc > 1 ? atof(argv[1]) : 0.6;
	slices = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
	if (threads != 2) {
		a_then_b(NULL);
		printf("switch main %llu\n", switched[0]);
		return 0;
	}
	if (pthread_create(&t[0], NULL, a_then_b, NULL) != 0 ||
	    pthread_create(&t[1], NULL, b_then_a, NULL) != 0)
		return 1;
	pthread_setname_np(t[0], "a-then-b");
	pthread_setname_np(t[1], "b-then-a");
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("switch a-then-b %llu\nswitch b-then-a %llu\n", switched[0], switched[1]);
	return 0;
}
