/*
 * session.h - the outside recorder's state, shared by its files: events.c (the kernel's events
 * and rings, and the queue that puts their records in time order), images.c (what the records
 * say about each process image, and its file) and outside.c (starting, attaching, finishing).
 * Internal to src/outside.
 */
#ifndef PROFIL_OUTSIDE_SESSION_H
#define PROFIL_OUTSIDE_SESSION_H

#include <asm/perf_regs.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/read.h"
#include "cfi/cfi.h"
#include "format/format.h"
#include "jit/jit.h"
#include "outside.h"
#include "perf/perf.h"
#include "profile/samples.h"
#include "report/index.h"

/* One CPU's ring buffer, written by every event of that CPU. */
struct profil_outside_ring {
	int fd;				/* the event the ring belongs to */
	int cpu;
	struct profil_perf_ring ring;	/* ring.meta: the mapping */
	size_t map_len;
};

/* A record copied out of a ring, waiting until every ring has been read past its time. */
struct profil_outside_rec {
	uint64_t time;			/* CLOCK_MONOTONIC, ns */
	uint64_t seq;			/* order of reading: ties keep it */
	size_t off;			/* in the queue's arena */
	uint32_t len;
};

struct profil_outside_map {
	struct profil_file_mapping m;	/* m.path is owned */
	int live;
};

struct profil_outside_thread {
	uint32_t tid;
	int alive;			/* started, not yet ended, as far as the records say */
	char name[16];
	/* --wall: the wait seen at the last tick, while the thread has not run since. */
	uint64_t wall_runs;		/* times it was put on a CPU (schedstat) */
	int wall_fd;			/* its schedstat, kept open; -1 */
	uint64_t *wall_pcs;		/* the waiting stack, wait frame first; NULL: running */
	uint32_t wall_depth;
	struct profil_wait_cpu wall_cpu;	/* its waits for a CPU */
	ssize_t cpu_row;		/* the row of its last CPU sample in stacks; -1: none */
};

/* A process between its start (or exec) and its exit (or next exec). */
#define PROFIL_OUTSIDE_JIT_SOURCES	4

struct profil_outside_image {
	pid_t pid;
	uint32_t ppid;
	char *progname;
	char *exe;
	uint64_t start_ns;		/* CLOCK_REALTIME */
	uint64_t end_ns;
	struct profil_outside_map *maps;
	size_t nmaps, mapcap;
	struct profil_unwind_module *mods;	/* the live maps, sorted, for the walk */
	size_t nmods, modcap;
	int mods_stale;				/* maps changed since mods were built */
	uint32_t epoch;
	struct profil_outside_thread *threads;
	size_t nthreads, threadcap;
	struct profil_index thread_index;
	long live_threads;		/* threads alive */
	/* Its samples, and when they were taken: slots from start_ns. */
	struct profil_samples stacks;
	uint64_t samples;
	uint64_t lost;
	uint64_t written;		/* samples in the last file written */
	/* The kernel's count of the process's time in kernel mode (/proc/PID/stat stime), ns:
	 * when the image began, and the last read (it cannot be read once the process is
	 * reaped). */
	uint64_t system_base_ns;
	uint64_t system_ns;
	int system_known;
	uint32_t exit_kind;		/* enum profil_exit_kind */
	int32_t exit_code;
	int skip;			/* not written: -x, and this image came from an exec */
	int hold;			/* the command: written when its status is known */
	int always;			/* written even without samples */
	char *name;			/* its file's name, chosen at the first write */
	/* Names of its JIT code: the perf map first, then each jitdump it mapped. */
	struct profil_jit_table jit;
	struct profil_jit_source jit_sources[PROFIL_OUTSIDE_JIT_SOURCES];
	size_t njit_sources;
};

/* An object's unwind table, loaded once for every process that maps it. */
struct profil_outside_object {
	struct profil_cfi_object cfi;
	int ok;				/* read, and the build-id the kernel saw */
};

/* The last image of each pid seen, through an index: a pid's row outlives its images. */
struct profil_outside_pid {
	pid_t pid;
	struct profil_outside_image *image;	/* NULL when it ended */
};

/* The kernel's functions from /proc/kallsyms, sorted by address, read once when first needed. */
struct profil_outside_ksym {
	uint64_t addr;
	size_t name;			/* in the session's ksym_names */
	int wanted;			/* a pc of the file being written falls in it */
};

struct profil_outside {
	struct profil_outside_opts opts;
	uint64_t period_ns;
	int kernel;			/* the kernel is sampled too (events.c decides) */
	struct profil_outside_ksym *ksyms;
	size_t nksyms;
	char *ksym_names;
	int ksyms_read;

	struct profil_outside_ring *rings;
	size_t nrings;
	int *fds;			/* every event, rings' included */
	size_t nfds, fdcap;

	struct profil_outside_rec *queue;
	size_t nqueue, queuecap;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	uint64_t seq;
	uint64_t last_read;		/* when the previous read began */

	struct profil_outside_pid *pids;
	size_t npids, pidcap;
	struct profil_index pid_index;
	pid_t root;			/* the command started, or 0 */
	pid_t self;			/* profil's own process, never sampled */
	int root_execed;		/* its first exec was seen */

	struct profil_strtab objkeys;	/* "build-id/path" of each object tried */
	struct profil_outside_object **objects;	/* by row of objkeys; NULL: none */
	size_t objcap;

	uint64_t processes_written;	/* the image count in the last file written */
	int64_t realtime_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t wall_now;		/* --wall: the time of the tick being taken */
	unsigned int serial;		/* temporary file names */
	struct profil_writer *writer;
	struct profil_outside_stats stats;
};

/* events.c */
/* What the events' samples hold, and their user registers: rbx, rbp, rsp, rip in this order. */
uint64_t profil_outside_sample_type(const struct profil_outside *s);
#define PROFIL_OUTSIDE_REGS_USER	((1u << PERF_REG_X86_BX) | (1u << PERF_REG_X86_BP) | \
	(1u << PERF_REG_X86_SP) | (1u << PERF_REG_X86_IP))
int profil_outside_rings_open(struct profil_outside *s, pid_t pid, int on_exec, char *err,
    size_t errlen);
int profil_outside_event_add(struct profil_outside *s, pid_t tid, char *err, size_t errlen);
void profil_outside_events_close(struct profil_outside *s);

/* images.c */
void profil_outside_apply(struct profil_outside *s, const uint8_t *rec, size_t len);
struct profil_outside_image *profil_outside_image_of(struct profil_outside *s, pid_t pid,
    int create);
int profil_outside_image_synth(struct profil_outside *s, struct profil_outside_image *im);
void profil_outside_image_end(struct profil_outside *s, struct profil_outside_image *im,
    uint32_t kind, int32_t code);
int profil_outside_image_write(struct profil_outside *s, struct profil_outside_image *im);

/*
 * images.c: counts weight samples of (tid, stack) in the image, taken at when
 * (CLOCK_MONOTONIC ns).
 */
int profil_outside_image_count(struct profil_outside *s, struct profil_outside_image *im,
    uint32_t tid, const uint64_t *pcs, uint32_t depth, uint64_t weight, uint64_t when);
/*
 * The stack of thread t's last CPU sample, leaf first, at most max pcs, into pcs; its depth,
 * 0 when it had none (--wall: where it waits for a CPU).
 */
uint32_t profil_outside_image_cpu_stack(const struct profil_outside_image *im,
    const struct profil_outside_thread *t, uint64_t *pcs, uint32_t max);

/* stacks.c */
/*
 * The stack of a sample from its user registers and the copy of its stack from regs->sp
 * (len bytes): pcs[0..max) leaf first, with a marker frame where the walk was cut.
 */
size_t profil_outside_unwind(struct profil_outside *s, struct profil_outside_image *im,
    const struct profil_unwind_regs *regs, const uint8_t *stack, size_t len, uint64_t *pcs,
    size_t max);
void profil_outside_objects_free(struct profil_outside *s);

/* jit.c: names of a process's JIT code, from its perf map and the jitdump files it maps. */
void profil_outside_jit_dump(struct profil_outside_image *im, const char *path, size_t len);
/* Reads what the files added, and writes a CODE record for each name a sample needs. */
void profil_outside_jit_write(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_writer *w);
void profil_outside_jit_free(struct profil_outside_image *im);

/*
 * kernel.c: the kernel's side of a profile.  The process's time in kernel mode as the kernel
 * counts it, ns (stime of /proc/PID/stat), or -1 when it cannot be read (reaped).  The
 * "[kernel]" mapping and a CODE record for each kernel function the image's samples hold,
 * named from /proc/kallsyms (docs/FORMAT.md, Kernel code), read at the first profile with a
 * kernel pc, or at the start with stack copies (kernel_names).
 */
int64_t profil_outside_system_ns(pid_t pid);
void profil_outside_system_update(struct profil_outside_image *im);
void profil_outside_kernel_names(struct profil_outside *s);
void profil_outside_kernel_write(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_writer *w);
void profil_outside_kernel_free(struct profil_outside *s);

/*
 * images.c, for records.c: an image's threads (the row of tid, added unnamed if new; alive or
 * not; its name, or the name of another image's thread), its mappings, its samples (the row,
 * or -ENOMEM) and their times, and a new image.
 */
struct profil_outside_thread *profil_outside_thread_of(struct profil_outside_image *im,
    uint32_t tid);
void profil_outside_thread_alive(struct profil_outside_image *im, uint32_t tid, int alive);
void profil_outside_thread_name(struct profil_outside_image *im, uint32_t tid, const char *name,
    size_t n);
void profil_outside_thread_name_after(struct profil_outside_image *im, uint32_t tid,
    struct profil_outside_image *from, uint32_t from_tid);
void profil_outside_map_add(struct profil_outside *s, struct profil_outside_image *im,
    uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot, const uint8_t *bid,
    uint32_t bidlen, const char *path, size_t plen, uint64_t when);
int profil_outside_sample_add(struct profil_outside_image *im, uint32_t tid, const uint64_t *pcs,
    uint32_t depth, uint64_t weight);
void profil_outside_image_time(struct profil_outside *s, struct profil_outside_image *im, int row,
    uint64_t when, uint64_t weight);
struct profil_outside_image *profil_outside_image_new(struct profil_outside *s, pid_t pid,
    const char *progname, const char *exe);

#endif /* PROFIL_OUTSIDE_SESSION_H */
