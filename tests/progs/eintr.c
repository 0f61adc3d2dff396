/*
 * eintr HZ - no harm to a program that blocks: only a thread that used CPU is signalled, so a
 * thread sleeping in nanosleep, poll or read -- calls that fail with EINTR even under SA_RESTART
 * (signal(7)) -- never sees one, while another thread and the main thread burn CPU at HZ.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

static int pipefd[2];
static volatile int eintr, calls;

static void *
sleeper(void *arg)
{
	struct timespec ts = { 0, 1000000 };
	struct pollfd p = { pipefd[0], POLLIN, 0 };
	char c;
	int i;

	(void)arg;
	for (i = 0; i < 150; i++) {
		if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
			eintr++;
		if (poll(&p, 1, 1) < 0 && errno == EINTR)
			eintr++;
		calls += 2;
	}
	/* A blocking read, woken by the main thread's write after its burn. */
	if (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
		eintr++;
	calls++;
	return NULL;
}

int
main(int argc, char **argv)
{
	static unsigned short bins[1 << 16];
	struct timespec ts = { 0, 2000000 };
	pthread_t t;
	int i;

	if (pipe(pipefd) != 0)
		return 1;
	profil_rate_set(argc > 1 ? (unsigned int)atoi(argv[1]) : 1000, PROFIL_CLOCK_AUTO);
	profil(bins, sizeof(bins), HOT_START(hot_a), 65536);
	pthread_create(&t, NULL, sleeper, NULL);
	/* The main thread alternates CPU and sleep: ticks come while it runs, never asleep. */
	for (i = 0; i < 100; i++) {
		hot_a(0.005);
		if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
			eintr++;
		calls++;
	}
	(void)!write(pipefd[1], "x", 1);
	pthread_join(t, NULL);
	profil(bins, sizeof(bins), 0, 0);
	tap_check(eintr == 0, "no EINTR in %d blocking calls while profiling", calls);
	return tap_done();
}
