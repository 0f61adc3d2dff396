/*
 * gmonbench - the -pg workload of bench/gmon.sh, built with glibc's gmon runtime and with
 * libprofil's.  It knows its own truth and prints it:
 *
 *	split MS      spin_a, spin_b, spin_c for 50%, 30%, 20% of MS ms of CPU time, each call
 *	              timed with the thread CPU clock ("truth spin_a NS" ...)
 *	calls N       fib() calls, N of them at least, timed ("calls COUNT NS")
 *	threads T N   T threads call tcount() N times each ("tcalls T*N")
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tests/pg/spin.h"

static unsigned long long
cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

unsigned long fib(unsigned int n);
void tcount(void);

/* Nothing but calls: what a call costs under each runtime. */
unsigned long
fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

void
tcount(void)
{
	sink += 3;
}

static unsigned long long
spin_for(void (*fn)(unsigned long), unsigned long long ms)
{
	unsigned long long used = 0, t0;

	while (used < ms * 1000000ULL) {
		t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
		fn(200000);
		used += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	}
	return used;
}

static unsigned long per_thread;

static void *
thread_main(void *arg)
{
	unsigned long i;

	(void)arg;
	for (i = 0; i < per_thread; i++)
		tcount();
	return NULL;
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "split") == 0 && i + 1 < argc) {
			unsigned long long ms = strtoull(argv[++i], NULL, 10);

			printf("truth spin_a %llu\n", spin_for(spin_a, ms * 5 / 10));
			printf("truth spin_b %llu\n", spin_for(spin_b, ms * 3 / 10));
			printf("truth spin_c %llu\n", spin_for(spin_c, ms * 2 / 10));
		} else if (strcmp(argv[i], "calls") == 0 && i + 1 < argc) {
			unsigned long n = strtoul(argv[++i], NULL, 10), calls = 0;
			unsigned long long t0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);

			/* fib(20) makes 21891 calls. */
			while (calls < n) {
				sink += fib(20);
				calls += 21891;
			}
			printf("calls %lu %llu\n", calls, cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - t0);
		} else if (strcmp(argv[i], "threads") == 0 && i + 2 < argc) {
			int t, nt = atoi(argv[++i]);
			pthread_t th[16];

			per_thread = strtoul(argv[++i], NULL, 10);
			if (nt > 16)
				nt = 16;
			for (t = 0; t < nt; t++)
				pthread_create(&th[t], NULL, thread_main, NULL);
			for (t = 0; t < nt; t++)
				pthread_join(th[t], NULL);
			printf("tcalls %lu\n", per_thread * (unsigned long)nt);
		}
	}
	return 0;
}
