/*
 * smallstack - a thread on a small stack (STACK KiB) burns SECONDS of CPU, prints its CPU time
 * and sends itself SIGTERM, so the recorder's fatal-signal flush runs on what is left of that
 * stack.  usage: smallstack STACK SECONDS
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn.h"

BURNER(small_work)

static double seconds;

static void *
thread_main(void *unused)
{
	(void)unused;
	small_work(seconds);
	printf("cpu %.6f\n", burn_process_cpu());
	fflush(stdout);
	/* Thread-directed: the handler runs here, on this thread's stack. */
	pthread_kill(pthread_self(), SIGTERM);
	pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;

	if (argc < 3)
		return 2;
	seconds = atof(argv[2]);
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, (size_t)atoi(argv[1]) * 1024) != 0 ||
	    pthread_create(&t, &attr, thread_main, NULL) != 0)
		return 3;
	pthread_join(t, NULL);
	return 1;
}
