/*
 * record-idle - a server-like program for bench/wall.sh: N threads that wait on a condition
 * variable the whole run (idle workers), and a main thread that burns 5 ms of CPU and sleeps
 * 5 ms in turn for SECONDS of wall time.  usage: record-idle N SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;
static volatile unsigned long sink;

static double
now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	double secs = argc > 2 ? atof(argv[2]) : 2, end;
	pthread_t *t = calloc((size_t)n + 1, sizeof(*t));
	struct timespec nap = { 0, 5000000 };

	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, idle, NULL) != 0)
			return 1;
	end = now(CLOCK_MONOTONIC) + secs;
	while (now(CLOCK_MONOTONIC) < end) {
		double stop = now(CLOCK_THREAD_CPUTIME_ID) + 0.005;

		while (now(CLOCK_THREAD_CPUTIME_ID) < stop)
			for (int i = 0; i < 10000; i++)
				sink++;
		nanosleep(&nap, NULL);
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
