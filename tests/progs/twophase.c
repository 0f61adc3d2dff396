/*
 * twophase SECONDS - a program whose profile changes over time, for the views of time: its main
 * thread, named "phases", burns SECONDS of CPU in hot_a and then SECONDS in hot_b; a thread named
 * "worker" burns CPU in hot_c in 20 ms steps until the main thread is done.  So every sample of
 * hot_a is taken before every sample of hot_b, and two named threads run at once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

HOT(hot_a)
HOT(hot_b)
HOT(hot_c)

static atomic_int done;

static void *
worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	while (!atomic_load(&done))
		hot_c(0.02);
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	pthread_t t;

	pthread_setname_np(pthread_self(), "phases");
	if (pthread_create(&t, NULL, worker, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	hot_a(seconds);
	hot_b(seconds);
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	return 0;
}
