/*
 * pcsample - pcsample(2), sentence by sentence.
 */
#include <errno.h>
#include <pcsample.h>
#include <profil.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)
HOT(hot_b)

#define GUARD ((uintptr_t)0x5a5a5a5a5a5a5a5aULL)

static uintptr_t arr[8192];

static volatile long from_handler = -2;
static volatile int handler_calls;

/* pcsample(2) ATTRIBUTES: "MT-Level Async-Signal-Safe". */
static void
on_usr1(int signo)
{
	(void)signo;
	if (handler_calls++ == 0)
		from_handler = pcsample(arr, 8192);
	else
		from_handler = pcsample(NULL, 0);
}

/* Burns 50 ms of CPU at a time in fn, until a pc in [lo, hi) is in arr; 4 s of CPU at most. */
static void
burn_until_stored(void (*fn)(double), uintptr_t lo, uintptr_t hi)
{
	int i;

	for (i = 0; i < 80 && in_range(arr, 8192, lo, hi) == 0; i++)
		fn(0.05);
}

static void *
burner(void *arg)
{
	(void)arg;
	hot_b(0.3);
	burn_until_stored(hot_b, HOT_START(hot_b), HOT_END(hot_b));
	return NULL;
}

int
main(void)
{
	long r, n, i, pre, slack;
	struct profil_stats st;
	pthread_t t;
	size_t k;
	uintptr_t *ro;

	/* "If nsamples is invalid, it returns -1 and sets errno" -- EINVAL. */
	errno = 0;
	tap_check(pcsample(arr, -1) == -1 && errno == EINVAL, "negative nsamples: -1 with EINVAL");
	/* An array the kernel could not write: EFAULT, nothing started. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = 0;
	tap_check(pcsample(ro, 16) == -1 && errno == EFAULT, "read-only array: -1 with EFAULT");

	/* "always returns 0 the first time it is called" */
	for (i = 0; i < 8192; i++)
		arr[i] = GUARD;
	tap_check(pcsample(arr, 8192) == 0, "the first call returns 0");
	pre = preemptions(RUSAGE_THREAD);
	hot_a(0.5);
	pre = preemptions(RUSAGE_THREAD) - pre;
	/* "On subsequent calls, it returns the number of samples ... during the previous invocation." */
	r = pcsample(arr, 8192);
	/*
	 * 0.5 s at sysconf(_SC_CLK_TCK) = 100 per second: 50 ticks, to within a tick or two on an
	 * idle machine; fewer signals when preempted (two per preemption, at most half of them).
	 */
	slack = 5 + 2 * pre < 25 ? 5 + 2 * pre : 25;
	tap_check(r >= 50 - slack && r <= 55,
	    "the second call returns the samples of the first (%ld of ~50, %ld preemptions)", r, pre);
	/* "storing unadulterated values in the array" */
	/*
	 * hot_a spends under 1% of its time outside its loop (work.h); allow 2% of the samples
	 * plus TAP_Z binomial deviations of that to land elsewhere.
	 */
	k = in_range(arr, (size_t)r, HOT_START(hot_a), HOT_END(hot_a));
	tap_check((double)k >= (double)r - (0.02 * (double)r + TAP_Z * sqrt(0.02 * (double)r)),
	    "the stored values are raw pcs inside hot_a (%zu of %ld)", k, r);

	/* "The kernel stops writing to the array when it is full" */
	for (i = 0; i < 8192; i++)
		arr[i] = GUARD;
	pcsample(arr, 10);
	hot_a(0.3);
	r = pcsample(NULL, 0);
	for (i = 10, n = 0; i < 8192; i++)
		n += arr[i] != GUARD;
	tap_check(r == 10 && n == 0, "a full array: exactly nsamples stored, nothing past it (%ld)",
	    r);
	/* "The sampling can be stopped by a subsequent call to pcsample() with nsamples 0." */
	hot_a(0.2);
	for (i = 0; i < 8192; i++)
		arr[i] = GUARD;
	tap_check(pcsample(arr, 8192) == 0, "after nsamples 0 nothing was stored");
	/*
	 * A CPU timer's expirations are found at the scheduler tick, and only while the thread
	 * runs: beside two CPU burners 50 ms of CPU in 36 slices once showed no tick at all, and
	 * under ASan 100 ms in 66 slices none either.  So burn until the first sample lands.
	 */
	burn_until_stored(hot_a, HOT_START(hot_a), HOT_END(hot_a));
	tap_check(pcsample(NULL, 0) > 0, "and a new call starts it again");

	/* From a signal handler, on another thread's request, while this thread burns CPU. */
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		for (i = 0; i < 8192; i++)
			arr[i] = GUARD;
		raise(SIGUSR1);
		hot_a(0.3);
		burn_until_stored(hot_a, HOT_START(hot_a), HOT_END(hot_a));
		raise(SIGUSR1);
		/*
		 * How many ticks arrive is the kernel's business (above); that every tick the
		 * engine took was stored, the sink's: the count is the engine's own.
		 */
		profil_stats_get(&st);
		tap_check(handler_calls == 2 && from_handler > 0 &&
		    (uint64_t)from_handler == st.ticks &&
		    in_range(arr, (size_t)from_handler, HOT_START(hot_a), HOT_END(hot_a)) > 0,
		    "started and stopped from a signal handler (%ld samples of %llu ticks)",
		    (long)from_handler, (unsigned long long)st.ticks);
	}

	/*
	 * Every thread: "samples the program counter of the process".  Each burns 0.3 s (30
	 * ticks), then on until a pc of its own is stored: beside two CPU burners a thread once
	 * had none in 0.3 s, its timer's expirations never found (above).
	 */
	for (i = 0; i < 8192; i++)
		arr[i] = GUARD;
	pcsample(arr, 8192);
	pthread_create(&t, NULL, burner, NULL);
	hot_a(0.3);
	burn_until_stored(hot_a, HOT_START(hot_a), HOT_END(hot_a));
	pthread_join(t, NULL);
	r = pcsample(NULL, 0);
	tap_check(in_range(arr, (size_t)r, HOT_START(hot_a), HOT_END(hot_a)) > 0 &&
	    in_range(arr, (size_t)r, HOT_START(hot_b), HOT_END(hot_b)) > 0,
	    "both threads' pcs are stored (%zu in hot_a, %zu in hot_b)",
	    in_range(arr, (size_t)r, HOT_START(hot_a), HOT_END(hot_a)),
	    in_range(arr, (size_t)r, HOT_START(hot_b), HOT_END(hot_b)));
	return tap_done();
}
