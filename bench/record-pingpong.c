/*
 * record-pingpong - a context-switch-heavy workload for bench/record-procs.sh: two threads pass
 * a byte back and forth over two pipes ROUNDS times, each doing a little work per round and
 * sleeping 20 us every 64 rounds, so the run is mostly scheduling, not computing.
 * usage: record-pingpong ROUNDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void
work(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 2000; i++)
		x += (unsigned long)i * 2654435761u;
}

static void *
pong(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++) {
		if (read(ab[0], &c, 1) != 1)
			exit(1);
		work();
		if (write(ba[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct timespec nap = { 0, 20000 };
	pthread_t t;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 20000;
	if (pipe(ab) != 0 || pipe(ba) != 0 || pthread_create(&t, NULL, pong, NULL) != 0)
		return 1;
	for (long i = 0; i < rounds; i++) {
		work();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
		if (i % 64 == 0)
			nanosleep(&nap, NULL);
	}
	pthread_join(t, NULL);
	return 0;
}
