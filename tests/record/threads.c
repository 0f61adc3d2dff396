/*
 * threads - four threads, each burning its own function for 40/30/20/10 of the CPU; the main
 * thread only waits.  Threads are named worker-a..d.  usage: threads SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

BURNER(thread_work40)
BURNER(thread_work30)
BURNER(thread_work20)
BURNER(thread_work10)

static double total;

#define THREAD_MAIN(fn, share)                  \
	static void *fn##_main(void *unused)    \
	{                                       \
		(void)unused;                   \
		fn(total * (share));            \
		return NULL;                    \
	}
THREAD_MAIN(thread_work40, 0.40)
THREAD_MAIN(thread_work30, 0.30)
THREAD_MAIN(thread_work20, 0.20)
THREAD_MAIN(thread_work10, 0.10)

int
main(int argc, char **argv)
{
	void *(*fns[4])(void *) = { thread_work40_main, thread_work30_main, thread_work20_main,
		thread_work10_main };
	const char *names[4] = { "worker-a", "worker-b", "worker-c", "worker-d" };
	pthread_t t[4];
	int i;

	total = argc > 1 ? atof(argv[1]) : 1.0;
	for (i = 0; i < 4; i++) {
		if (pthread_create(&t[i], NULL, fns[i], NULL) != 0)
			return 1;
		pthread_setname_np(t[i], names[i]);
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("cpu %.6f\n", burn_process_cpu());
	return 0;
}
