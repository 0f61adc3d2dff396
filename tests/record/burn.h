/*
 * burn.h - CPU burners for the record tests.  Each burns the CPU for a given time of the
 * calling thread's CPU clock, so that nearly every sample lands in the burner itself, which
 * makes the CPU split known by construction.  The clock is read once a batch of blocks of
 * about 10 ms (shorter near the end, so a burn ends within one block of 100 us): on this
 * kernel (6.18), a thread that reads its own CPU clock every ~100 us makes its CPU-time timers
 * miss expirations (t2001 saw 19 samples of 30 at 100 Hz beside busy CPUs).
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
		double now = burn_thread_cpu(), end = now + s, t0, per; \
		unsigned long batch = 1, k;                             \
		while (now < end) {                                     \
			t0 = now;                                       \
			for (k = 0; k < batch; k++)                     \
				for (unsigned long i = 0; i < 100000; i++) \
					x += i * i;                     \
			now = burn_thread_cpu();                        \
			per = (now - t0) / (double)batch;               \
			per = per > 1e-7 ? per : 1e-7;                  \
			batch = (unsigned long)((end - now < 0.01 ?     \
			    end - now : 0.01) / per) + 1;               \
		}                                                       \
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
