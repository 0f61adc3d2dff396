/* pcsample(2): raw program counter samples, as the Solaris page describes. */
#include <errno.h>

#include "classic.h"

static struct profil_pcstore store;
static const struct profil_sink sink = { profil_pcstore_tick, &store };
static int called;

PROFIL_API long
pcsample(uintptr_t samples[], long nsamples)
{
	sigset_t saved;
	size_t previous;
	int r;

	/* "If nsamples is invalid, it returns -1 and sets errno" (EINVAL). */
	if (nsamples < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)nsamples > SIZE_MAX / sizeof(uintptr_t)) {
		errno = EINVAL;
		return -1;
	}
	profil_engine_lock(&saved);
	/* Stopped first: the probe below copies the array out and back, which a live tick would race. */
	if (profil_engine_sink_locked() == &sink)
		profil_engine_stop_locked();
	r = profil_memory_writable(samples, (size_t)nsamples * sizeof(uintptr_t));
	if (r < 0) {
		/* The count of the previous invocation stays for the next successful call. */
		profil_engine_unlock(&saved);
		errno = -r;
		return -1;
	}
	/*
	 * "always returns 0 the first time it is called.  On subsequent calls, it returns the
	 * number of samples that were stored during the previous invocation."
	 */
	previous = called ? atomic_load(&store.count) : 0;
	called = 1;
	atomic_store(&store.count, 0);
	store.samples = samples;
	store.size = (size_t)nsamples;
	r = 0;
	/* "The sampling can be stopped by a subsequent call to pcsample() with nsamples 0." */
	if (nsamples > 0)
		r = profil_engine_start_locked(&sink, profil_classic_hz(), profil_classic_clock());
	profil_engine_unlock(&saved);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return (long)previous;
}
