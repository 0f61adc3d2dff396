/*
 * profil.h - program counter profiling for Linux, in user space.
 *
 * The classic interfaces keep their classic names and signatures: profil(3) as on Linux and the
 * BSDs, pcsample(2) as on Solaris.  Everything else is ours and carries the profil_ prefix.
 * See profil(3), pcsample(3).
 */
#ifndef PROFIL_H
#define PROFIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PROFIL_API __attribute__((visibility("default")))
#else
#define PROFIL_API
#endif

/*
 * profil - execution time profile into 16-bit bins.
 *
 * Every profiling clock tick (every 10 ms of the thread's CPU time unless profil_rate_set()
 * chose another rate), for every thread of the process, the program counter is examined: the
 * bin [(pc - offset) / 2] * scale / 65536 of buf is incremented if it lies inside the bufsiz
 * bytes of buf.  Bins are unsigned short and wrap.  A scale of 0 or a NULL buf disables
 * profiling; a new call replaces the previous buffer.
 *
 * Returns 0, or -1 with errno: EINVAL if scale > 65536, EFAULT if buf is not writable for its
 * whole length (then nothing is armed), or the error of the clock that could not be armed.
 * Unlike glibc's, it takes neither ITIMER_PROF nor SIGPROF from the program.
 * Thread-safe; not async-signal-safe.
 */
PROFIL_API int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale);

/*
 * pcsample - store the raw program counter at each tick.
 *
 * Samples are stored into samples[0..nsamples-1] at sysconf(_SC_CLK_TCK) per second of CPU
 * time (or the rate set by profil_rate_set()); writing stops when the array is full.  A
 * nsamples of 0 stops sampling.  The first call returns 0; each later call returns the number
 * of samples stored during the previous invocation.  Sampling continues across fork(2) (the
 * child keeps position and count) and ends at exec.  profil() and pcsample() exclude each
 * other: starting one stops the other.
 *
 * Errors: -1 with EINVAL if nsamples is negative, EFAULT if the array is not writable.
 * Async-signal-safe and thread-safe.
 */
PROFIL_API long pcsample(uintptr_t samples[], long nsamples);

/* Which kernel clock drives the samples. */
enum profil_clock {
	PROFIL_CLOCK_AUTO = 0,	/* per-thread CPU timers up to 100 Hz, perf events above */
	PROFIL_CLOCK_TIMER = 1,	/* timer_create(2) on each thread's CPU clock */
	PROFIL_CLOCK_PERF = 2,	/* perf_event_open(2) task-clock, one event per thread */
};

/*
 * profil_rate_set - choose the rate and clock used by later profil() and pcsample() calls.
 *
 * hz ranges from 1 to 20000; 0 restores the classic default (sysconf(_SC_CLK_TCK), 100 on
 * Linux).  PROFIL_CLOCK_AUTO uses per-thread CPU timers up to 100 Hz (every kernel ticks at
 * least that fast) and perf events above, falling back to timers if perf events are refused.
 * Takes effect at the next start.  Returns 0, or -1 with EINVAL.  Async-signal-safe.
 */
PROFIL_API int profil_rate_set(unsigned int hz, enum profil_clock clock);

/* What the profiling clock really did, since the last start. */
struct profil_stats {
	unsigned int requested_hz;	/* the rate asked for */
	int clock;			/* enum profil_clock actually in use (never AUTO) */
	int signo;			/* the signal the engine uses */
	int running;			/* 1 while armed */
	uint64_t signals;		/* handler invocations that sampled */
	uint64_t ticks;			/* signals plus missed expirations (si_overrun) */
	uint64_t cpu_ns;		/* process CPU time while armed */
	uint64_t threads;		/* threads armed so far */
	uint64_t thread_failures;	/* threads that could not be armed */
	double achieved_hz;		/* ticks per second of process CPU time */
};

/*
 * profil_stats_get - report the achieved rate and counters of the profiling clock.
 * Returns 0, or -1 with EINVAL for a NULL argument.  Thread-safe.
 */
PROFIL_API int profil_stats_get(struct profil_stats *st);

/*
 * The -pg runtime.  A program compiled with -pg and linked with -lprofil (pkg-config --libs
 * profil) gets libprofil's monstartup(3), moncontrol(3), _mcleanup and mcount instead of
 * glibc's: every thread's arcs, a histogram at PROFIL_HZ (default 100), and the profile written
 * as gmon.<progname>.<pid>.out in PROFDIR or the starting directory at exit, at _exit, when a
 * fatal signal ends the process, and even at SIGKILL (the buffer is a shared mapping of the
 * file).  See moncontrol(3).
 */

/*
 * moncontrol - stop (mode 0) or restart (any other mode) profiling of a -pg program: both the
 * histogram and the counting of calls.  A no-op in a program without -pg, and after the profile
 * was finished by exit or _mcleanup.  glibc defines it but declares it nowhere; this is its
 * declaration.  Thread-safe; not async-signal-safe.
 */
PROFIL_API void moncontrol(int mode);

/*
 * profil_gmon - OpenBSD's profil(2) for the -pg runtime.
 *
 * The runtime makes the first call at start-up: buf is the profile buffer, buflen bytes holding
 * the gmon header, samplesize bytes of 16-bit bins counting the pcs from offset on at scale
 * 32768 (4 bytes of text a bin), and the arc tables; the output file goes to the directory
 * dirfd, or the starting one for -1.  Later calls stop profiling (scale 0, any buf) or restart
 * it with the same buf, offset, samplesize and scale (take them from profil_gmon_status_get());
 * a dirfd other than -1 then moves the profile to that directory.
 *
 * Returns 0, or -1 with errno, checked in this order: EPERM if the program was not linked with
 * -pg (the runtime is not set up); EINVAL if scale > 65536; (scale 0 stops and returns 0);
 * EALREADY for a buf other than the registered buffer; EBADF if dirfd is not a valid
 * descriptor; ENOTDIR if it is not a directory; EINVAL if buflen, samplesize, offset or scale
 * differ from the registered layout; EBUSY if the profile could not be moved safely.
 * Thread-safe; not async-signal-safe.
 */
PROFIL_API int profil_gmon(void *buf, size_t buflen, size_t samplesize, unsigned long offset,
    unsigned int scale, int dirfd);

/* The -pg runtime's state: the registered buffer and layout, and what happened so far. */
struct profil_gmon_status {
	int setup;			/* the -pg runtime is set up */
	int running;			/* profiling now (moncontrol(1)) */
	int finished;			/* the profile is final (exit or _mcleanup) */
	int dirfd;			/* the output directory, fixed at start */
	void *buf;			/* the buffer: a shared mapping of the output file */
	size_t buflen;
	size_t samplesize;		/* bytes of bins */
	unsigned long offset;		/* lowest pc counted */
	unsigned int scale;
	unsigned int hz;		/* the histogram's rate, as the file's header says */
	size_t tables;			/* per-thread arc tables handed out */
	size_t arcs_per_table;		/* distinct arcs a table holds (PROFIL_ARCS) */
	uint64_t arcs_dropped;		/* calls not counted because a table was full */
	char name[256];			/* gmon.<progname>.<pid>.out */
};

/*
 * profil_gmon_status_get - the -pg runtime's state; all zero in a program without -pg.
 * Returns 0, or -1 with EINVAL for a NULL argument.  Thread-safe.
 */
PROFIL_API int profil_gmon_status_get(struct profil_gmon_status *st);

#ifdef __cplusplus
}
#endif

#endif /* PROFIL_H */
