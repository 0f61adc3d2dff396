/*
 * work.h - workloads with a CPU split known by construction, for the behaviour tests.
 *
 * HOT(name) defines a function that burns a given number of seconds of its thread's CPU time,
 * alone in section "hot_<name>", 64 KiB aligned, so its address range is exactly
 * [__start_hot_<name>, __stop_hot_<name>) and no profil bin of the tests' scales holds code of
 * two hot functions.  The clock is read once per ~100k iterations, so well under 1% of the time
 * is spent outside the loop (in the same proportion for every function).
 */
#ifndef PROFIL_WORK_H
#define PROFIL_WORK_H

#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

__attribute__((noinline, unused)) static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define HOT(name)                                                                        \
	extern char __start_hot_##name[], __stop_hot_##name[];                           \
	__attribute__((noinline, used, section("hot_" #name), aligned(65536))) void      \
	name(double seconds);                                                            \
	void name(double seconds)                                                        \
	{                                                                                \
		volatile unsigned long x = 0;                                            \
		double end = thread_cpu() + seconds;                                     \
		do {                                                                     \
			for (unsigned long i = 0; i < 100000; i++)                       \
				x += i * i;                                              \
		} while (thread_cpu() < end);                                            \
	}

/* How many of the n pcs in s lie in [lo, hi). */
__attribute__((unused)) static size_t
in_range(const uintptr_t *s, size_t n, uintptr_t lo, uintptr_t hi)
{
	size_t k = 0;

	while (n-- > 0)
		k += s[n] >= lo && s[n] < hi;
	return k;
}

#define HOT_START(name) ((uintptr_t)__start_hot_##name)
#define HOT_END(name) ((uintptr_t)__stop_hot_##name)

/*
 * Times the caller (RUSAGE_THREAD) or the whole process (RUSAGE_SELF) was preempted so far: what
 * a busy machine did to a run.  A CPU timer's expirations are checked at the scheduler tick, so
 * a preempted thread may see two of them as one signal: bounds on counts of signals grow by two
 * per preemption measured.
 */
static inline long
preemptions(int who)
{
	struct rusage ru;

	return getrusage(who, &ru) == 0 ? ru.ru_nivcsw : 0;
}

#endif /* PROFIL_WORK_H */
