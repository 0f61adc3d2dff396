/*
 * outside.h - the outside recorder behind `profil record`: perf events opened by the profil
 * process itself on the command it starts (enabled when it execs) or on processes already
 * running, inherited by every thread and child they make, and read from the kernel's ring
 * buffers, one per CPU.  Nothing is loaded into the program: no library, signal, thread,
 * descriptor or environment variable.  Each process image (a process between its start or
 * exec and its exit or next exec) becomes one profile file (docs/FORMAT.md) in the output
 * directory.  Internal to the profil command; not thread-safe.
 */
#ifndef PROFIL_OUTSIDE_H
#define PROFIL_OUTSIDE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/clock.h"

/* Bytes of user stack copied with each sample: the default, and the most the kernel takes. */
#define PROFIL_OUTSIDE_STACK_COPY	16384u
#define PROFIL_OUTSIDE_STACK_COPY_MAX	65000u

struct profil_outside_opts {
	unsigned int hz;		/* samples per second of each thread's CPU time */
	unsigned int depth;		/* 1: flat; else the deepest stack kept (-g) */
	int frame_pointers;		/* -g walks frame pointers (the kernel's callchain) */
	unsigned int stack_copy;	/* else: bytes of user stack copied with each sample */
	int wall;			/* also sample waiting threads (profil_outside_wall_tick) */
	int user_only;			/* never sample the kernel (--user-only) */
	int follow_exec;		/* 0: images started by exec are not written (-x) */
	int system_wide;		/* -a: every process, one cpu-clock event per CPU */
	int dirfd;			/* the output directory, opened by the caller */
	size_t ring_pages;		/* data pages per CPU ring; 0: the default */
};

struct profil_outside_stats {
	uint64_t samples;		/* sample records read */
	uint64_t lost;			/* samples the kernel dropped on a full ring */
	uint64_t throttled;		/* times the kernel throttled an event */
	uint64_t stacks;		/* stacks walked by unwind tables */
	uint64_t cut_depth;		/* of which cut at the depth limit */
	uint64_t cut_short;		/* cut where the stack copy ended */
	uint64_t cut_rule;		/* cut where no unwind rule could be followed */
	uint64_t waits;			/* samples of waiting threads (--wall) */
	uint64_t cpu_waits;		/* of threads waiting for a CPU (--wall) */
	uint64_t wall_unread;		/* waiting stacks we could not read (ptrace access) */
	int kernel;			/* the kernel was sampled too */
	uint64_t processes;		/* process images seen */
	uint64_t files;			/* profiles written (images with samples) */
	uint64_t jit_names;		/* JIT names copied into profiles */
	char jit_refused[600];		/* a perf map or jitdump not read, and why; "" */
	int write_error;		/* the first -errno of a write, or 0 */
	char write_error_path[512];	/* the file it concerns */
};

struct profil_outside;

/*
 * profil_outside_probe - whether perf events may sample a process of ours here: 0, or the
 * -errno of perf_event_open(2) (-EACCES or -EPERM for kernel.perf_event_paranoid or a
 * container's policy, -ENOSYS or -EPERM under a seccomp filter, -ENOENT without the event).
 */
int profil_outside_probe(void);

/*
 * profil_outside_probe_system - whether perf events may sample every process here (-a): 0, or
 * the -errno of perf_event_open(2), with err saying what the kernel wants (the sysctl
 * kernel.perf_event_paranoid 0 or less, or CAP_PERFMON).
 */
int profil_outside_probe_system(char *err, size_t errlen);

/*
 * profil_outside_system - profil record -a: every process of the machine, from one cpu-clock
 * event per CPU (opts.system_wide), while root runs (the command started and held, as for
 * profil_outside_start; 0 for none).  Processes running already are described from /proc as
 * their first sample or record comes, all of them at once with opts.wall.  profil's own
 * process is never sampled.  Returns 0 or -errno (err says why: -EACCES or -EPERM unless
 * kernel.perf_event_paranoid is 0 or less or the caller has CAP_PERFMON).
 */
int profil_outside_system(struct profil_outside *s, pid_t root, char *err, size_t errlen);

/* The value of the sysctl kernel.<name> as text for a message, or "?". */
void profil_outside_sysctl(const char *name, char *out, size_t cap);

/* A new session writing to o->dirfd (kept open by the caller).  Returns 0 or -errno. */
int profil_outside_new(const struct profil_outside_opts *o, struct profil_outside **out);
void profil_outside_free(struct profil_outside *s);

/*
 * profil_outside_set_dirfd - where the profiles go, when it was not known at
 * profil_outside_new: -p attaches first, so that a process it cannot attach to costs no
 * rotation of the output directory.  Nothing is written before the first profil_outside_read
 * or profil_outside_snapshot, which must come after this.
 */
void profil_outside_set_dirfd(struct profil_outside *s, int dirfd);

/*
 * profil_outside_start - opens the events on pid, a child of ours that has not yet exec'ed:
 * they are enabled by the kernel when it execs, so only the new image is sampled, from its
 * first instruction in the dynamic loader.  Returns 0 or -errno; err gets a message naming
 * the limit involved (sysctl, rlimit) when there is one.
 */
int profil_outside_start(struct profil_outside *s, pid_t pid, char *err, size_t errlen);

/*
 * profil_outside_attach - opens enabled events on every thread of the running process pid and
 * describes its mappings from /proc, so its samples from now on are attributed; the children
 * it starts from now on are followed.  Returns the number of threads it found, or -errno
 * (-EACCES/-EPERM: no ptrace access or perf_event_paranoid; -ESRCH: gone), with err as above.
 */
int profil_outside_attach(struct profil_outside *s, pid_t pid, char *err, size_t errlen);

/* The ring descriptors, to poll(2) for POLLIN (a ring half full).  Returns how many. */
size_t profil_outside_pollfds(const struct profil_outside *s, struct pollfd *fds, size_t max);

/*
 * profil_outside_drain_ns - how often to read a ring that poll(2) no longer wakes for: a
 * quarter of the time the smallest ring takes to fill at the session's rate and sample size,
 * between 1 and 100 ms.  A ring belongs to the events of the first thread attached to on its
 * CPU; once that thread exits its descriptor polls POLLHUP for ever, never POLLIN, while the
 * other threads' samples still go to it.
 */
uint64_t profil_outside_drain_ns(const struct profil_outside *s);

/*
 * profil_outside_read - reads what the kernel wrote into the rings.  Records are put in time
 * order across CPUs before they are applied, so a record waits for one more read unless final
 * is set (nothing more will come).  Images that ended are written out and freed.
 */
void profil_outside_read(struct profil_outside *s, int final);

/*
 * profil_outside_wall_tick - one tick of the wall clock (--wall), weight periods long: every
 * thread that waits now is counted with its stack and a leaf frame naming the wait
 * (PROFIL_PC_WAIT), and each whole period a thread waited for a CPU since the last tick with
 * the stack of its last CPU sample under PROFIL_PC_WAIT_CPU.  Threads on a CPU are left to the
 * CPU samples.
 */
void profil_outside_wall_tick(struct profil_outside *s, uint64_t weight);

/* Rewrites the file of every running image that has new samples since its last write. */
void profil_outside_snapshot(struct profil_outside *s);

/*
 * profil_outside_exited - pid has exited and is not reaped yet: what /proc still says of it
 * (its time in the kernel) is read now, before waitpid(2) makes it go.
 */
void profil_outside_exited(struct profil_outside *s, pid_t pid);

/* The command's end as waitpid(2) reported it: its image's exit kind and code. */
void profil_outside_status(struct profil_outside *s, pid_t pid, int status);

/*
 * profil_outside_finish - disables and closes the events (processes attached to run on), reads
 * what is left, and writes every image that has samples: running ones as snapshots.  The
 * command's image waits for profil_outside_status(), or profil_outside_free().
 */
void profil_outside_finish(struct profil_outside *s);

void profil_outside_stats(const struct profil_outside *s, struct profil_outside_stats *st);

/* The run (run.c): what profil record does with a session once it has one. */

/* Processes one -p may name. */
#define PROFIL_OUTSIDE_ATTACH_MAX	64

/*
 * A live view of the recording (profil top): fn(s, woken, arg) every every_ns, and as soon as
 * fd (-1: none) is readable (woken 1).  fn returns 1 to end the recording.
 */
struct profil_outside_watch {
	uint64_t every_ns;
	int fd;
	int (*fn)(struct profil_outside *s, int woken, void *arg);
	void *arg;
};

struct profil_outside_run {
	uint64_t wall_ns;			/* --wall: how often waits are sampled; 0 */
	const struct profil_outside_watch *watch;	/* or NULL */
	/* Says a problem to the user, about subject (profil_cmd_error's form). */
	void (*say)(const char *what, const char *subject);
	/*
	 * -p and -a: called once the events are on, before anything is read; s's output
	 * directory may be set here (profil_outside_set_dirfd).  Non-zero gives up (-p).
	 */
	int (*ready)(struct profil_outside *s, int threads, void *arg);
	void *arg;
};

/*
 * profil_outside_run_command - runs cmd recorded by s (opts.system_wide: with every process):
 * forked, held before exec until its events are open (the kernel enables them at the exec),
 * released, and read until it ends, or until ro->watch ends the recording (the command then
 * gets SIGINT, as from a ^C).  Our SIGTERM and SIGHUP are forwarded to it; SIGINT and SIGQUIT
 * are ignored (its terminal sends them to it).  The session is finished and given the
 * command's status, which *status gets.  Returns 0; or -errno when the command did not run:
 * err holds why the events were refused (EACCES, EPERM, ENOSYS, ENOENT: the inside recorder
 * may stand in), or is "" when ro->say has said it.
 */
int profil_outside_run_command(struct profil_outside *s, char **cmd,
    const struct profil_outside_run *ro, int *status, char *err, size_t errlen);

/*
 * profil_outside_run_attach - profil record -p: the events are put on the n running processes
 * (at most PROFIL_OUTSIDE_ATTACH_MAX), which are never stopped or touched otherwise, and read
 * until each has ended or SIGINT, SIGTERM or SIGHUP comes; then the session is finished and
 * they run on.  Returns 0, or -1 after ro->say (a process not attached to) or ro->ready.
 */
int profil_outside_run_attach(struct profil_outside *s, const pid_t *pids, size_t n,
    const struct profil_outside_run *ro);

/*
 * profil_outside_run_system - profil record -a alone: every process of the machine until
 * SIGINT, SIGTERM or SIGHUP.  Returns 0, or -1 after ro->say.
 */
int profil_outside_run_system(struct profil_outside *s, const struct profil_outside_run *ro);

/*
 * profil_outside_notes - what a finished session says that the user should know, through say:
 * lost samples, throttling, unread waits and JIT names, stacks cut short, a profile not
 * written (about dir, or its file).  Returns -1 when a profile was not written, else 0.
 */
int profil_outside_notes(struct profil_outside *s, const char *dir,
    void (*say)(const char *what, const char *subject));

#endif /* PROFIL_OUTSIDE_H */
