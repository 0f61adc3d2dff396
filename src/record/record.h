/*
 * record.h - the preloaded recorder (libprofil-record.so): it starts itself from the
 * environment, aggregates ticks per (thread, epoch, stack) in src/sample/stacks.c, follows the
 * memory mappings, and writes <progname>.<pid>.profil (docs/FORMAT.md) about once a second and
 * whenever the process ends, execs or dies.  Internal to the library.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "format/format.h"
#include "sample/stacks.h"

#define PROFIL_RECORD_MAX_MAPS		4096
#define PROFIL_RECORD_MAX_THREADS	8192
#define PROFIL_RECORD_PATHS		(512 * 1024)	/* bytes for all mapping paths */
/* The recorder thread's period: rings drained, tables checked for spilling. */
#define PROFIL_RECORD_DRAIN_MS		10

struct profil_record_map {
	struct profil_file_mapping m;	/* m.path points into the path arena */
	int live;			/* in the last snapshot */
	int seen;			/* in the snapshot being taken */
};

struct profil_record_thread {
	uint32_t tid;
	char name[16];
};

struct profil_record {
	int enabled;
	pid_t pid;
	unsigned int hz;
	int clock;			/* enum profil_clock requested */
	unsigned int depth;		/* 1 unless PROFIL_RECORD_STACKS */
	int wall;			/* PROFIL_RECORD_WALL: waiting threads sampled too */
	uint64_t start_ns;
	char dir[PROFIL_FORMAT_MAX_PATH];
	char path[PROFIL_FORMAT_MAX_PATH + 64];	/* the file's final name */
	/*
	 * The output directory opened at start (O_PATH), so that chroot(2) and chdir(2) later
	 * change nothing: files are made with *at() calls relative to it.  dir_dev and dir_ino
	 * tell whether the program has since closed the number and reused it.
	 */
	int dir_fd;
	uint64_t dir_dev, dir_ino;
	char progname[PROFIL_FORMAT_MAX_NAME];
	char exe[PROFIL_FORMAT_MAX_PATH];
	struct profil_stacks stacks;
	struct profil_sink sink;

	/* Guarded by the recorder lock (record.c). */
	struct profil_record_map maps[PROFIL_RECORD_MAX_MAPS];
	size_t nmaps;
	char paths[PROFIL_RECORD_PATHS];
	size_t paths_used;
	struct profil_record_thread threads[PROFIL_RECORD_MAX_THREADS];
	size_t nthreads;
	int warned;			/* said our one line on stderr */
	/* PROFIL_RECORD_REPORT: where a failed write is reported (flush.c), or empty. */
	char report[108];
	unsigned int report_len;	/* bytes of the address's sun_path, 0: none */
	int report_failed;		/* the last write of this process failed and was said */

	/* Tables spilled so far: SAMPLE records in an unnamed file in the output directory. */
	int spill_fd;			/* -1: none yet */
	uint64_t spill_dev, spill_ino;	/* so a reused descriptor number is never written */
	uint64_t spill_bytes;
	uint64_t spill_records;
};

extern struct profil_record profil_rec;

/*
 * The recorder lock: a spinlock that knows its owner, so a fatal signal on the owning thread
 * skips instead of deadlocking.  Returns 1 if taken, 0 if this thread already holds it: then
 * the caller interrupted itself in the middle of an update and must do nothing (a fatal
 * signal's flush is skipped; the file keeps the last periodic flush).
 */
int profil_record_lock(void);
void profil_record_unlock(void);
void profil_record_lock_reset(void);

/* src/record/maps.c: reads /proc/self/maps into the table; bumps the epoch on change.
 * Async-signal-safe.  Lock held. */
void profil_record_maps_snapshot(void);

/*
 * src/record/unwind.c: the unwind tables of --call-graph cfi, for the signal handler.
 * open_locked: maps the files of new objects; the recorder's thread (its own descriptor
 * table), lock held, allocates nothing.  build: their tables and a space of the live mappings,
 * published without waiting for any handler; a program thread that may allocate, without the
 * lock (nothing allocates under it).  Neither in signal context.  Nothing to do when
 * profil_rec.stacks.unwind is NULL.  fork_prepare comes before the lock is taken for a fork.
 */
struct profil_unwind_shared *profil_record_unwind_shared(void);
void profil_record_unwind_open_locked(void);
void profil_record_unwind_build(void);
void profil_record_unwind_fork_prepare(void);
void profil_record_unwind_fork_parent(void);
void profil_record_unwind_fork_child(void);
void profil_record_unwind_release(void);

/* src/record/threads.c: notes a thread's name. Lock held. Async-signal-safe. */
void profil_record_thread_note(uint32_t tid, const char *name);
void profil_record_threads_scan(void);

/* src/record/flush.c: writes the whole profile so far.  Async-signal-safe.  Lock held. */
int profil_record_flush_locked(uint32_t exit_kind, int32_t exit_code,
    const struct profil_stats *st);
int profil_record_choose_path(void);
/* The output directory's descriptor, or AT_FDCWD if it is no longer ours (then use paths). */
int profil_record_dir_fd(void);
/* Spills the current table if it is half full.  Lock held. */
void profil_record_spill_check_locked(void);
/* fork child: the parent's spill is not ours. */
void profil_record_spill_forget(void);

/* src/record/ring.c: the perf ring-buffer clock.  Lock held; drain is async-signal-safe. */
struct profil_ring_stats {
	uint64_t samples;		/* sample records drained */
	uint64_t lost;			/* samples the kernel lost on a full ring */
	uint64_t threads;		/* rings opened */
	uint64_t failures;		/* threads whose ring could not be opened */
};
extern struct profil_ring_stats profil_ring_stats;
void profil_ring_init(long pagesize);
int profil_ring_open(pid_t tid, unsigned int hz, int stacks);
void profil_ring_drain_all(void);
void profil_ring_close(pid_t tid);
void profil_ring_forget_all(void);

/*
 * src/record/wall.c: PROFIL_RECORD_WALL, the waiting threads sampled on the wall clock.  init
 * maps the memory at start; tick, on the recorder's thread alone (its own descriptor table),
 * adds weight periods of each waiting thread but self and keeper to the table.  Not in signal
 * context; allocates nothing; no lock.  fork_child forgets the parent's threads.
 */
struct profil_wall_stats {
	uint64_t waits;			/* samples of waiting threads */
	uint64_t cpu_waits;		/* of threads waiting for a CPU */
	uint64_t unread;		/* waiting stacks that could not be read */
	uint64_t unfollowed;		/* threads beyond the table, not sampled while they wait */
};
extern struct profil_wall_stats profil_wall_stats;
int profil_record_wall_init(void);
void profil_record_wall_tick(uint64_t weight, uint32_t self, uint32_t keeper);
void profil_record_wall_fork_child(void);

/*
 * src/record/times.c: when the ticks were taken (TIME records).  init maps the queue the
 * adders fill and the timeline it is emptied into, at start (the recorder runs without times
 * when it fails: -1), vdso when the vDSO is mapped (profil_time_queue);
 * release gives them back; fork_child empties both.  The rest: lock
 * held, async-signal-safe.
 * drain empties the queue into the timeline; ranks is where write_table() notes, for each row
 * of table t, the number of the SAMPLE record it was written as (NULL: no times kept).  A
 * spill calls spill_begin once its adders are gone, before writing the table, and spill_end
 * after, with the number of the spill file's first record it wrote and whether it did.  write
 * adds the TIME records after every SAMPLE record (the spill file's numbered from
 * spill_base, if spilled says they were all copied).  untimed: ticks whose time was dropped.
 */
int profil_record_times_init(int fine);
void profil_record_times_release(void);
void profil_record_times_fork_child(void);
void profil_record_times_drain(void);
/* Before a signal clock is armed: slots as wide as the handler's time can tell apart. */
void profil_record_times_signals(uint64_t coarse_ns);
/* The recorder's thread, every drain: the time the handler takes where it reads no clock. */
void profil_record_times_clock(void);
uint32_t *profil_record_times_ranks(const struct profil_stack_table *t);
void profil_record_times_spill_begin(void);
void profil_record_times_spill_end(int which, uint64_t base, int written);
void profil_record_times_write(struct profil_writer *w, uint64_t spill_base, int spilled);
uint64_t profil_record_times_untimed(void);

/*
 * The process's time in kernel mode from now on, as the kernel counts it (getrusage(2)): the
 * header's system_ns, the time the samples, of user space alone, could not see.
 */
void profil_record_system_mark(void);

/* Zero pages mapped without reserving memory (MAP_NORESERVE), or NULL. */
void *profil_record_map_zero(size_t bytes);
/* jitnames.c: CODE records for the JIT code the tables' samples ran, from the process's perf
 * map, for its last profile; how many were written.  Async-signal-safe. */
size_t profil_record_jit_names(struct profil_writer *w);

/* Moves fd to a high number under RLIMIT_NOFILE: the new descriptor, or fd itself. */
int profil_record_fd_high(int fd);

/* After dlopen/dlclose: drain, then re-read the mappings.  Takes the lock; keeps errno. */
void profil_record_maps_changed(void);

/* One line on stderr, once per process: "profil: <what>: '<subject>'". */
void profil_record_warn(const char *what, const char *subject);
/* The same with ": <errno text>" after the subject when err > 0.  Async-signal-safe. */
void profil_record_warn_errno(const char *what, const char *subject, int err);

#endif /* PROFIL_RECORD_H */
