/*
 * firstfd - starts THREADS-1 threads that stay alive, then prints the descriptor its first
 * open(2) gets ("first N") and how many files it can open before EMFILE ("opened N"), and
 * exits 0.  POSIX open(2): "the lowest file descriptor not currently open for that process".
 * usage: firstfd THREADS
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn.h"

BURNER(thread_work)

static atomic_int started, stop;

static void *
thread_main(void *unused)
{
	(void)unused;
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&stop))
		thread_work(0.01);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[16];
	int i, n, fd, opened = 0;

	n = argc > 1 ? atoi(argv[1]) : 1;
	if (n < 1 || n > 16)
		return 2;
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
			return 1;
	while (atomic_load(&started) < n - 1)
		thread_work(0.001);
	/* A few ticks of every thread first: a clock that takes a descriptor has taken it. */
	thread_work(0.05);
	fd = open("/dev/null", O_RDONLY);
	printf("first %d\n", fd);
	while (open("/dev/null", O_RDONLY) >= 0)
		opened++;
	printf("opened %d\n", opened + (fd >= 0));
	fflush(stdout);
	atomic_store(&stop, 1);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
