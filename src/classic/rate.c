/* profil_rate_set(3) and profil_stats_get(3): the rate knob and what the clock achieved. */
#include <errno.h>
#include <unistd.h>

#include "classic.h"

static atomic_uint rate_hz;	/* 0: the classic default */
static atomic_int rate_clock = PROFIL_CLOCK_AUTO;

unsigned int
profil_classic_hz(void)
{
	unsigned int hz = atomic_load(&rate_hz);

	/*
	 * Linux profil(3): "Every virtual 10 milliseconds"; pcsample(2): HZ is
	 * sysconf(_SC_CLK_TCK).  Both are 100 on Linux.
	 */
	if (hz == 0) {
		long tck = sysconf(_SC_CLK_TCK);

		hz = tck > 0 && tck <= PROFIL_HZ_MAX ? (unsigned int)tck : 100;
	}
	return hz;
}

enum profil_clock
profil_classic_clock(void)
{
	return (enum profil_clock)atomic_load(&rate_clock);
}

PROFIL_API int
profil_rate_set(unsigned int hz, enum profil_clock clock)
{
	if (hz > PROFIL_HZ_MAX || (clock != PROFIL_CLOCK_AUTO && clock != PROFIL_CLOCK_TIMER &&
	    clock != PROFIL_CLOCK_PERF)) {
		errno = EINVAL;
		return -1;
	}
	atomic_store(&rate_hz, hz);
	atomic_store(&rate_clock, clock);
	return 0;
}

PROFIL_API int
profil_stats_get(struct profil_stats *st)
{
	sigset_t saved;

	if (st == NULL) {
		errno = EINVAL;
		return -1;
	}
	profil_engine_lock(&saved);
	profil_engine_stats_locked(st);
	profil_engine_unlock(&saved);
	return 0;
}
