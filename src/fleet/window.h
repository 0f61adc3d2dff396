/*
 * window.h - what a recording gained between two moments: the profile of a window of time, as
 * the endpoints of continuous profilers want it (a scrape of the next N seconds, a push every
 * N seconds).  The recording is a directory the outside recorder keeps writing (one file per
 * process image, running ones rewritten as snapshots); a window marks what each file held at
 * its start, and at its end the files, less those counts per (thread, epoch, stack), are the
 * window's profile, read by the report and exporters as any other.  Internal to the profil
 * command; not thread-safe.  The caller has the recorder write its snapshots
 * (profil_outside_snapshot) just before marking and before ending.
 */
#ifndef PROFIL_FLEET_WINDOW_H
#define PROFIL_FLEET_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct profil_report;
struct profil_window_base;

struct profil_window {
	char *dir;
	uint64_t start_ns;		/* CLOCK_REALTIME at the mark */
	struct profil_window_base *base;	/* each file's counts at the mark, by name */
	size_t nbase;
};

/*
 * profil_window_mark - starts a window on the recording in dir: reads every profile there.
 * With prune, the files of images that had ended are removed once read: nothing is added to
 * them any more, so no window marked from now on needs them; the caller says whether a window
 * marked before (still open) does.  Without that a recording of -a grows by a file per process
 * that ever ran.  A file that cannot be read is skipped (the recorder may be replacing it).
 * Returns 0 or -errno (-ENOMEM, or opendir's).
 */
int profil_window_mark(struct profil_window *w, const char *dir, int prune);

/*
 * profil_window_report - adds to r what the recording gained since the mark: each file with the
 * samples of the mark subtracted, its header's counts (ticks, samples, dropped, CPU time) the
 * window's, and its start the mark's for an image that was running then.  Files whose image
 * had ended at the mark add nothing.  The window stays marked (it can be read again later).
 * Returns 0 or -errno.
 */
int profil_window_report(const struct profil_window *w, struct profil_report *r);

/*
 * profil_window_pprof - the same as a gzipped pprof profile (profil_export_pprof) in memory:
 * *data (malloc'ed, the caller frees it) of *len bytes.  Returns 0 or -errno.
 */
int profil_window_pprof(const struct profil_window *w, char **data, size_t *len);

/* Frees what the mark kept; the window is empty again. */
void profil_window_release(struct profil_window *w);

#endif /* PROFIL_FLEET_WINDOW_H */
