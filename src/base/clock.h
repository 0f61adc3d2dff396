/*
 * The clocks profil reads, in nanoseconds since the clock's epoch.  Inline, so code in signal
 * context (src/sample/, the engine, the recorder's flush) calls clock_gettime(2) alone, which
 * POSIX lists as async-signal-safe and Linux answers from the vDSO.  Each caller names its clock:
 * CLOCK_MONOTONIC for intervals, CLOCK_REALTIME for dates written into files,
 * CLOCK_PROCESS_CPUTIME_ID for CPU time, CLOCK_MONOTONIC_COARSE where RDTSC is forbidden
 * (seccomp strict mode: src/sample/times.c).
 */
#ifndef PROFIL_BASE_CLOCK_H
#define PROFIL_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
profil_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The clock of intervals and deadlines: never steps back, whatever the date does. */
static inline uint64_t
profil_monotonic_ns(void)
{
	return profil_clock_ns(CLOCK_MONOTONIC);
}

#endif
