/*
 * life.h - the preloaded recorder's life, shared by the files that make it up: record.c (set-up,
 * lock, warnings, environment), delegate.c (flushes handed to the recorder's thread), flusher.c
 * (the recorder's and the keeper's threads), seccomp.c (what a filter in force at start would
 * kill) and hooks.c (threads, exec, exit and fork).  Internal to the library.
 */
#ifndef PROFIL_RECORD_LIFE_H
#define PROFIL_RECORD_LIFE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "record.h"

enum { REQ_NONE, REQ_PENDING, REQ_DONE };
#define REQ_MAPS UINT32_MAX	/* req.kind: re-read the mappings, write nothing */

struct profil_record_life {
	atomic_int lock_owner;		/* tid holding the recorder lock, or 0 */
	unsigned int flush_ms;
	int ring_mode;			/* samples come from perf ring buffers, not signals */
	uint64_t cpu_start_ns;		/* process CPU time at start, for the ring's rate */
	/*
	 * The recorder's thread works in a descriptor table of its own (unshare(CLONE_FILES)), so
	 * its opens and closes never race the program's: a shell's close(1) then dup2(fd, 1) must
	 * find fd 1 as it left it.  flusher_tid is that thread once its table is private, 0 before.
	 * The program's threads hand it the flushes at exit, exec and fatal signals, through req.
	 */
	atomic_int flusher_tid;
	/*
	 * 1 from the recorder thread's creation until it has its own table (flusher_tid) or has
	 * found it cannot: a request meanwhile waits for it rather than open files on a program
	 * thread.
	 */
	atomic_int flusher_starting;
	atomic_int keeper_running, keeper_go;
	atomic_int keeper_tid;		/* ours, never sampled while it waits (--wall) */
	struct {
		atomic_int state;
		atomic_int owner;	/* tid of the thread whose request it is, 0: free */
		uint32_t kind;
		int32_t code;
		struct profil_stats st;		/* signal clocks: taken by the requester */
	} req;
	int final_written;		/* an exit or fatal-signal file is out: no more flushes */
	atomic_int sealed;	/* a seccomp filter reached the recorder thread: no files */
	/*
	 * What a seccomp filter in force at start would kill (profil_record_seccomp_probe()):
	 * clone3(2), so no thread of ours; unshare(2) or close_range(2), so no descriptor table of
	 * its own for the recorder's thread (it writes nothing, the program's threads write at
	 * exit); prctl(2).
	 */
	int no_threads, no_table, no_prctl;
	/*
	 * The exec file is out and the exec is under way: a periodic flush started now would be
	 * killed with the old image and leave its temporary file behind.  Cleared if exec fails.
	 */
	atomic_int exec_quiet;
	/*
	 * /proc files the recorder thread reads again and again (flusher.c): opened once in its
	 * own table, -1 without one.
	 */
	int stat_fd, status_fd;
	int start_seccomp;		/* profil_seccomp_filtered() at start: 0, no filter */
	/* A filter in force at start: what it would kill, probed before anything is armed. */
	const char *seccomp_note;	/* the first degradation, said once setup is done */
	const char *seccomp_call;	/* the call that forced it */
};
extern struct profil_record_life profil_life;

int profil_record_tid(void);
long profil_record_futex(atomic_int *word, int op, int val, const struct timespec *timeout);

/* delegate.c */
void profil_record_flush_now(uint32_t kind, int32_t code);
void profil_record_drain_now(int files);
void profil_record_serve_request(void);

/* flusher.c */
void profil_record_flusher_start(void);

/* seccomp.c */
int profil_record_seccomp_probe(void);
void profil_record_seccomp_degrade(const char *note);
const char *profil_record_seccomp_what(const char *before, const char *call, const char *after);
void profil_record_try_ring(void *unused);

/* hooks.c */
void profil_record_note_stack_bounds(void);
void profil_record_note_self_text(struct profil_stacks *s);
void profil_record_open_ring_cb(pid_t tid, void *unused);
void profil_record_hooks_add(void);

#endif
