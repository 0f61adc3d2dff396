/*
 * manythreads - N threads alive at once, each burning SECONDS of its own CPU clock in
 * many_work, started together through a barrier.  usage: manythreads N SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

BURNER(many_work)

static pthread_barrier_t start;
static double each;

static void *
worker(void *unused)
{
	(void)unused;
	pthread_barrier_wait(&start);
	many_work(each);
	return NULL;
}

int
main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 64;
	pthread_t *t;

	each = argc > 2 ? atof(argv[2]) : 0.02;
	if (n < 1 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned int)n);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads %d\n", n);
	free(t);
	return 0;
}
