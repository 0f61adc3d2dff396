/*
 * tick_fault - a tick that faults inside its handler and never returns.  SIGSEGV is not blocked
 * in the tick handler, so that a fault there (a stack at its end) reaches the program's own
 * handler; a program whose handler leaves by siglongjmp leaves ours unfinished.  Here the
 * profil(3) buffer is made read-only after the call (the page's EFAULT is checked at the call
 * only), so the first tick's bin increment faults.  Disabling profiling afterwards must still
 * return: before, it waited for ever for the handler to finish.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

static sigjmp_buf back;
static volatile sig_atomic_t faults;

static void
on_segv(int signo)
{
	(void)signo;
	faults++;
	siglongjmp(back, 1);
}

static unsigned short *volatile null_buf;

int
main(void)
{
	unsigned short *buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	struct timespec t0, t1;
	double waited;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	profil_rate_set(1000, PROFIL_CLOCK_TIMER);
	/* Bins for hot_a alone: ticks elsewhere write nothing, and fault nothing. */
	tap_check(buf != MAP_FAILED && profil(buf, HOT_END(hot_a) - HOT_START(hot_a),
	    HOT_START(hot_a), 65536) == 0, "profil() takes a writable buffer");
	mprotect(buf, 65536, PROT_READ);
	if (sigsetjmp(back, 1) == 0) {
		/* Up to 5 s of CPU: the first tick in hot_a faults. */
		for (int i = 0; i < 50; i++)
			hot_a(0.1);
	}
	tap_check(faults > 0, "a tick's bin increment faulted into the program's handler (%d)",
	    (int)faults);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	profil(null_buf, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	tap_check(waited < 10, "profiling is disabled all the same, after %.2f s", waited);
	return tap_failures != 0;
}
