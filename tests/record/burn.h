/*
 * burn.h - CPU burners for the record tests.  Each burns the CPU for a given time of the
 * calling thread's CPU clock, checking the clock only every ~100 us so that nearly every sample
 * lands in the burner itself, which makes the CPU split known by construction.
 */
#ifndef PROFIL_TEST_BURN_H
#define PROFIL_TEST_BURN_H

#include <time.h>

static inline double
burn_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double
burn_process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * noinline and one copy per name: the profile must see separate functions.  name(s) burns s
 * seconds of the thread's CPU time; name##_blocks(n) does a fixed amount of work (n blocks of
 * the same loop), for benchmarks that must measure how much longer the same work takes.
 */
#define BURNER(name)                                                    \
	__attribute__((noinline)) void name(double s);                  \
	__attribute__((noinline)) void name(double s)                   \
	{                                                               \
		volatile unsigned long x = 0;                           \
		double end = burn_thread_cpu() + s;                     \
		while (burn_thread_cpu() < end)                         \
			for (unsigned long i = 0; i < 100000; i++)     \
				x += i * i;                             \
	}                                                               \
	__attribute__((noinline)) void name##_blocks(unsigned long n);  \
	__attribute__((noinline)) void name##_blocks(unsigned long n)   \
	{                                                               \
		volatile unsigned long x = 0;                           \
		while (n-- > 0)                                         \
			for (unsigned long i = 0; i < 100000; i++)     \
				x += i * i;                             \
	}

#endif /* PROFIL_TEST_BURN_H */
