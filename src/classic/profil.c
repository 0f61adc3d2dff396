/* profil(3): execution time profile into 16-bit bins, as the Linux and BSD pages describe. */
#include <errno.h>

#include "classic.h"

/*
 * glibc's <unistd.h> (reached through <signal.h>) declares profil() __nonnull((1)), yet Linux
 * profil(3) gives a NULL buf a meaning.  The library is built with
 * -fno-delete-null-pointer-checks so the comparison below is kept, and a test calls it.
 */
#pragma GCC diagnostic ignored "-Wnonnull-compare"

static struct profil_bins bins;
static const struct profil_sink sink = { profil_bins_tick, &bins };

PROFIL_API int
profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	sigset_t saved;
	int r = 0;

	/* BSD profil(2): "The scale argument ranges from 1 to 65536"; larger is EINVAL. */
	if (scale > 65536) {
		errno = EINVAL;
		return -1;
	}
	/* "A scale value of 0 disables profiling" (BSD); "If buf is NULL, profiling is disabled" (Linux). */
	if (buf == NULL || scale == 0) {
		profil_engine_lock(&saved);
		if (profil_engine_sink_locked() == &sink)
			profil_engine_stop_locked();
		profil_engine_unlock(&saved);
		return 0;
	}
	profil_engine_lock(&saved);
	/*
	 * A new call replaces the previous buffer: stop before the handler can see a half-made
	 * one, and before the probe below copies the buffer out and back (on a live buffer that
	 * would undo the ticks counted meanwhile).
	 */
	profil_engine_stop_locked();
	/* EFAULT: "The buffer samples contains an invalid address"; then nothing is armed. */
	r = profil_memory_writable(buf, bufsiz);
	if (r < 0) {
		profil_engine_unlock(&saved);
		errno = -r;
		return -1;
	}
	bins.buf = buf;
	bins.nbins = bufsiz / sizeof(unsigned short);
	bins.offset = offset;
	bins.scale = scale;
	r = profil_engine_start_locked(&sink, profil_classic_hz(), profil_classic_clock());
	profil_engine_unlock(&saved);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}
