/*
 * Flushes handed to the recorder's thread: the program's threads ask it, through
 * profil_life.req and futex(2), to write the files at exit, exec and fatal signals and to read
 * the mappings after dlopen, so that its own descriptor table does the opening.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>

#include "protocol.h"
#include "life.h"
#include "record.h"

/* The ring clock's figures in the engine's terms, for the header. */
static void
ring_stats(struct profil_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->requested_hz = profil_rec.hz;
	st->clock = PROFIL_FILE_CLOCK_RING;
	st->running = 1;
	st->signals = profil_ring_stats.samples;
	/*
	 * The samples the kernel could not store on a full ring (its LOST records) were ticks
	 * too; the header counts them as dropped, so that every tick is counted or dropped.
	 */
	st->ticks = profil_ring_stats.samples + profil_ring_stats.lost;
	st->cpu_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - profil_life.cpu_start_ns;
	st->threads = profil_ring_stats.threads;
	st->thread_failures = profil_ring_stats.failures;
	if (st->cpu_ns > 0)
		st->achieved_hz = (double)st->ticks * 1e9 / (double)st->cpu_ns;
}

long
profil_record_futex(atomic_int *word, int op, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* Writes the file; lock held.  st is NULL with the ring clock, whose figures are taken here. */
static void
write_locked(uint32_t kind, int32_t code, const struct profil_stats *st)
{
	struct profil_stats ring;

	if (profil_life.ring_mode) {
		profil_ring_drain_all();
		ring_stats(&ring);
		st = &ring;
	}
	/* A periodic flush after the final one would say "running" of a process that ended. */
	if (profil_life.final_written ||
	    (kind == PROFIL_EXIT_RUNNING && atomic_load(&profil_life.exec_quiet)))
		return;
	profil_record_flush_locked(kind, code, st);
	if (kind == PROFIL_EXIT_NORMAL || kind == PROFIL_EXIT_SIGNAL)
		profil_life.final_written = 1;
	if (kind == PROFIL_EXIT_EXEC)
		atomic_store(&profil_life.exec_quiet, 1);
}

/*
 * Hands a flush to the recorder's thread and waits for it.  Returns 1 when it is done (or
 * must not be done), 0 when the caller must write it itself: no recorder thread with a table
 * of its own, or it did not answer within two seconds.  Async-signal-safe: futex(2) only.
 */
static int
delegate(uint32_t kind, int32_t code, const struct profil_stats *st)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000000L };
	int me = profil_record_tid(), expect, waits;

	/*
	 * The recorder thread's first moments: a dlopen at the program's start would otherwise
	 * read the maps here, in the program's table, while the program counts on its numbers.
	 */
	for (waits = 0; atomic_load(&profil_life.flusher_tid) == 0 &&
	    atomic_load(&profil_life.flusher_starting) && waits < 200; waits++)
		profil_record_futex(&profil_life.flusher_starting, FUTEX_WAIT_PRIVATE, 1, &ts);
	if (atomic_load(&profil_life.flusher_tid) == 0 ||
	    atomic_load(&profil_life.flusher_tid) == me)
		return 0;
	/* Under the program's filter no thread can write safely: the periodic file stays. */
	if (atomic_load(&profil_life.sealed))
		return 1;
	/*
	 * A fatal signal in the middle of an update, or of this thread's own request (a dlopen's
	 * mappings): see profil_record_flush_now().  The request cannot finish under us, nor be
	 * waited for.
	 */
	if (atomic_load(&profil_life.lock_owner) == me || atomic_load(&profil_life.req.owner) == me)
		return 1;
	/* One request at a time: two threads exiting or exec'ing together take turns. */
	for (waits = 0;; waits++) {
		expect = 0;
		if (atomic_compare_exchange_strong(&profil_life.req.owner, &expect, me))
			break;
		if (waits >= 200)
			return 0;
		profil_record_futex(&profil_life.req.owner, FUTEX_WAIT_PRIVATE, expect, &ts);
	}
	profil_life.req.kind = kind;
	profil_life.req.code = code;
	if (st != NULL)
		profil_life.req.st = *st;
	atomic_store(&profil_life.req.state, REQ_PENDING);
	profil_record_futex(&profil_life.req.state, FUTEX_WAKE_PRIVATE, 1, NULL);
	for (waits = 0; atomic_load(&profil_life.req.state) == REQ_PENDING && waits < 200; waits++)
		profil_record_futex(&profil_life.req.state, FUTEX_WAIT_PRIVATE, REQ_PENDING, &ts);
	expect = REQ_DONE;
	if (!atomic_compare_exchange_strong(&profil_life.req.state, &expect, REQ_NONE))
		return 0;	/* the recorder's thread is gone; the request stays */
	atomic_store(&profil_life.req.owner, 0);
	profil_record_futex(&profil_life.req.owner, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	return 1;
}

/* The recorder's thread: a flush a program thread asked for. */
void
profil_record_serve_request(void)
{
	if (!atomic_load(&profil_life.sealed) && profil_record_lock()) {
		if (profil_life.req.kind == REQ_MAPS) {
			if (profil_life.ring_mode)
				profil_ring_drain_all();
			profil_record_maps_snapshot();
			/* The requester builds the tables: this thread must not allocate. */
			profil_record_unwind_open_locked();
		} else {
			write_locked(profil_life.req.kind, profil_life.req.code,
			    profil_life.ring_mode ? NULL : &profil_life.req.st);
		}
		profil_record_unlock();
	}
	atomic_store(&profil_life.req.state, REQ_DONE);
	profil_record_futex(&profil_life.req.state, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

void
profil_record_flush_now(uint32_t kind, int32_t code)
{
	struct profil_stats st;
	sigset_t saved;
	int starved;

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	memset(&st, 0, sizeof(st));
	if (!profil_life.ring_mode) {
		/* The engine lock is never held with the recorder lock: fork takes both. */
		profil_engine_lock(&saved);
		starved = profil_engine_starved_locked();
		/*
		 * The last write of a process that ends: no tick may land between the header's
		 * counts and the table's, so the file accounts for every one.  (Not at exec: the
		 * engine stops itself next, and restarts if exec fails.)
		 */
		if (kind == PROFIL_EXIT_NORMAL || kind == PROFIL_EXIT_SIGNAL)
			profil_engine_stop_locked();
		profil_engine_stats_locked(&st);
		profil_engine_unlock(&saved);
		/* Once, when the program has done it: a profile without samples says why. */
		if (starved == PROFIL_STARVED_NO_SIGNAL)
			profil_record_warn("no more samples: "
			    "the program took every real-time signal", profil_rec.progname);
		else if (starved == PROFIL_STARVED_REPLACED)
			profil_record_warn("no more samples: the program replaced the handler of "
			    "the profiling signal", profil_rec.progname);
	}
	/* The engine's part (its perf descriptors are the program's) is done: the file is not. */
	if (delegate(kind, code, profil_life.ring_mode ? NULL : &st))
		return;
	/*
	 * A fatal signal on the thread that holds the lock: the tables are half updated, so this
	 * flush is skipped and the file stays as the last periodic flush wrote it.
	 */
	if (!profil_record_lock())
		return;
	write_locked(kind, code, profil_life.ring_mode ? NULL : &st);
	profil_record_unlock();
}

/*
 * Every few milliseconds: the rings emptied, and a half-full table spilled (only from a
 * private descriptor table: the spill file is a descriptor kept open).
 */
void
profil_record_drain_now(int files)
{
	if (!profil_rec.enabled || profil_rec.pid != getpid() || !profil_record_lock())
		return;
	profil_record_times_clock();
	if (profil_life.ring_mode)
		profil_ring_drain_all();
	profil_record_times_drain();
	if (files)
		profil_record_spill_check_locked();
	profil_record_unlock();
}

/*
 * dlopen/dlclose (src/record/dl.c): drained first, samples taken so far keep their epoch.
 * /proc/self/maps and the libraries' build-ids are opened by the recorder's thread, in its own
 * descriptor table, while this one waits: another thread of the program may be between a
 * close(2) and the open(2) it expects to get that number.
 */
void
profil_record_maps_changed(void)
{
	int saved_errno = errno;

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	if (!delegate(REQ_MAPS, 0, NULL)) {
		if (!profil_record_lock())
			return;
		if (profil_life.ring_mode)
			profil_ring_drain_all();
		profil_record_maps_snapshot();
		profil_record_unwind_open_locked();
		profil_record_unlock();
	}
	/* This thread called dlopen or dlclose: it may allocate, as they do. */
	profil_record_unwind_build();
	errno = saved_errno;
}
