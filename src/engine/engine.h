/*
 * engine.h - the sampling engine's control side: choosing and arming the kernel clocks for
 * every thread, installing the handler, and keeping profiling right across fork, exec and
 * thread creation.  Ticks go to one sink at a time (src/sample).
 *
 * Every function here that changes state is called with the engine lock held; the lock blocks
 * all signals in the calling thread and spins, so the whole control path stays
 * async-signal-safe (pcsample(2) is callable from a signal handler).
 */
#ifndef PROFIL_ENGINE_H
#define PROFIL_ENGINE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <profil.h>
#include "base/clock.h"
#include "sample/sample.h"

#define PROFIL_HZ_MAX 20000

/* One armed thread: a POSIX timer on its CPU clock, or a perf event fd. */
struct profil_thread {
	pid_t tid;		/* 0: free slot */
	int clock;		/* PROFIL_CLOCK_TIMER or PROFIL_CLOCK_PERF */
	int id;			/* kernel timer id or fd */
	uint64_t perf_id;	/* PERF_EVENT_IOC_ID: is the fd still our event? */
	uint64_t quiet_cpu;	/* perf: the thread's CPU time when a tick was last seen */
	int kick;		/* perf: the kick timer's id, when kicking */
	int kicking;
};

void profil_engine_lock(sigset_t *saved);
void profil_engine_unlock(const sigset_t *saved);

/*
 * Start ticking into sink at hz on the given clock, for every thread of the process, replacing
 * whatever ran before.  Returns 0 or -errno (nothing armed on failure).
 */
int profil_engine_start_locked(const struct profil_sink *sink, unsigned int hz,
    enum profil_clock clock);
/* Disarm every thread, discard pending ticks, restore the program's signal disposition. */
void profil_engine_stop_locked(void);
/* The sink ticking now, or NULL. */
const struct profil_sink *profil_engine_sink_locked(void);
void profil_engine_stats_locked(struct profil_stats *st);
/*
 * The perf clock's watchdog, every few tens of milliseconds from a thread that may make
 * POSIX timers (the recorder's): see profil_clock_watch.
 */
void profil_engine_rearm_quiet_locked(void);

/* Hooks called by the interposed pthread_create, fork and exec functions. */
void profil_engine_thread_start(void);
void profil_engine_thread_exit(void);
void profil_engine_fork_child_locked(void);
int profil_engine_exec_prepare(void);
void profil_engine_exec_failed(int token);

/*
 * src/engine/hooks.c: the one registry of what the engine's consumers (the recorder, the gmon
 * runtime) do at each moment of the program's life; the engine runs them at its own handling of
 * that moment.  fn(why, arg) runs at the moment `when`, in registration order (FORK_PREPARE in
 * reverse, as pthread_atfork(3) runs prepare handlers, so that prepare and parent nest); why is
 * 0 but at EXIT.  Registration is not thread-safe against itself; do it at start-up.  Returns 0,
 * -EINVAL or -ENOSPC.  Each library that holds the engine (libprofil, libprofil-record.so) has
 * a registry of its own, and its engine is the only caller of pthread_atfork in it (fork.c):
 * with both loaded, each runs its own parts inside its own engine lock.
 *
 * THREAD_START	in a new thread (created through pthread_create) before its clock is armed.
 * THREAD_EXIT	as such a thread ends (return, pthread_exit, cancellation).
 *
 * The fork places run inside the library's one pthread_atfork (fork.c), in whatever context
 * fork(2) was called from (a signal handler included), with the engine lock held and every
 * signal blocked throughout: fn must not take the engine lock.  A lock of its own taken at
 * FORK_PREPARE is released at FORK_PARENT and made anew in the child.  In the child of a
 * threaded process only the forking thread exists; glibc has reset malloc's and stdio's
 * locks before the handlers run.
 * FORK_PREPARE	the forking thread before the copy, once the engine lock is taken.
 * FORK_PARENT	the parent after the copy; the lock is released after the last one.
 * FORK_CHILD_FIRST	the child, first: the engine's state is still the parent's (its
 *		clocks not forgotten, the exit hooks still the parent's).  For a part whose reset
 *		touches nothing of the engine's: the recorder's, which has always run here.
 * FORK_CHILD	the child, once the engine forgot the parent's clocks, re-armed the forking
 *		thread (its ticks stay blocked) and gave the exit hooks to the child; the lock
 *		is released after the last one.
 *
 * EXEC_BEFORE	before an exec function disarms the clocks (also in a vfork child: compare
 *		getpid()); EXEC_FAILED after it returned, clocks re-armed.  errno is kept.
 * EXIT		once per process as it ends (src/engine/exit.c): why is 0 for exit and _exit,
 *		or the number of the fatal signal, from its handler on a stack of its own; fn
 *		must be async-signal-safe.  Registering one installs the fatal-signal handlers.
 */
enum profil_hook {
	PROFIL_HOOK_THREAD_START,
	PROFIL_HOOK_THREAD_EXIT,
	PROFIL_HOOK_FORK_PREPARE,
	PROFIL_HOOK_FORK_PARENT,
	PROFIL_HOOK_FORK_CHILD_FIRST,
	PROFIL_HOOK_FORK_CHILD,
	PROFIL_HOOK_EXEC_BEFORE,
	PROFIL_HOOK_EXEC_FAILED,
	PROFIL_HOOK_EXIT,
	PROFIL_HOOK_MAX
};
int profil_engine_hook_add(enum profil_hook when, void (*fn)(int why, void *arg), void *arg);
void profil_engine_hooks_run(enum profil_hook when, int why);

/* src/engine/clock.c */
int profil_clock_arm(struct profil_thread *t, pid_t tid, int clock, unsigned int hz, int signo);
void profil_clock_disarm(struct profil_thread *t);
void profil_clock_forget(struct profil_thread *t);
/* A perf event whose thread ran without a tick is enabled again (clock.c). */
void profil_clock_watch(struct profil_thread *t, unsigned int hz, int signo);
int profil_clock_resolve(enum profil_clock clock, unsigned int hz);
/*
 * 0 if the clock can be armed here; -EPERM if a seccomp filter would kill the calls that arm it
 * (profil_seccomp_killer() names the one), or no probe may be made under the filter in force
 * (profil_seccomp_may_probe(): the killer is then NULL), or the probe could not tell.
 */
int profil_clock_allowed(int clock, unsigned int hz, int signo);

/* src/engine/signal.c: the signals taken from the program, behind a shadow disposition. */
enum profil_signal_owner {
	PROFIL_SIGNAL_PROGRAM = 0,	/* not ours */
	PROFIL_SIGNAL_TICK,		/* the engine's tick */
	PROFIL_SIGNAL_FATAL,		/* an exit path's flush */
};
int profil_signal_install(void);
void profil_signal_restore(void);
int profil_signal_current(void);
int profil_signal_owner(int s);
int profil_signal_take(int s, const struct sigaction *act, enum profil_signal_owner owner);
void profil_signal_give_back(int s);
void profil_signal_hand_over(int s, const struct sigaction *act);
/*
 * The program installed a handler of its own on the tick signal (through the interposed
 * sigaction): it gets the signal, and a running engine moves to another one.  Lock held.
 */
void profil_engine_signal_taken(int s, const struct sigaction *act);
/*
 * Why the engine's ticks stopped reaching the sink, or 0: the program took the tick signal and
 * no real-time signal was left free to move to, or it replaced our handler through a raw
 * rt_sigaction(2) that no interposition sees.  Lock held.
 */
enum { PROFIL_STARVED_NO_SIGNAL = 1, PROFIL_STARVED_REPLACED };
int profil_engine_starved_locked(void);

/* src/engine/tasks.c: calls fn(tid, arg) for every thread of the process. */
int profil_threads_foreach(void (*fn)(pid_t tid, void *arg), void *arg);

/*
 * src/engine/exit.c: runs the EXIT hooks once per process (profil_exit_run(why), which the
 * destructor, _exit and the fatal-signal handlers call); profil_exit_arm() is the registry's,
 * on each EXIT hook (it installs the fatal-signal handlers); profil_exit_fork_child()
 * gives the hooks to a fork child.
 */
void profil_exit_arm(void);
void profil_exit_run(int why);
void profil_exit_fork_child(void);

/*
 * src/engine/env.c: the environment through the C library's environ array, never through a
 * getenv(3) or setenv(3) that the program may define (bash does).  profil_env_replace() swaps
 * the existing entry for entry's name in place: 0, or -ENOENT.  Not thread-safe: start-up only.
 */
const char *profil_env_get(const char *name);
int profil_env_replace(char *entry);

/*
 * src/engine/seccomp.c: seccomp filters that kill.  profil_seccomp_filtered() is 0 when the
 * calling thread runs under no filter, else 1 + the number of filters proc(5) counts (1 where it
 * cannot tell), read from /proc/thread-self/status, never through prctl(2), which a filter may
 * kill.  profil_seccomp_may_probe() is 1 where a probe child may be made: `profil record`
 * vouched that a process clone survives the filters (PROFIL_RECORD_ENV_CLONE_OK), their count
 * is unchanged and the process has one thread; elsewhere a caller under a filter makes none of
 * the calls it would probe, and says so.  profil_seccomp_kills() runs try(arg) in a child
 * process, all signals blocked, and returns 1 if a filter killed it (or held it for 2 s), 0 if
 * not, -EPERM without a child where none may be made, -errno if none could be;
 * profil_seccomp_step() names, in that child, the call try makes next, and
 * profil_seccomp_killer() the one a filter killed in the last probe (static storage), or NULL.
 * Async-signal-safe; the caller makes sure no other thread probes at once.
 */
int profil_seccomp_filtered(void);
int profil_seccomp_may_probe(void);
int profil_seccomp_kills(void (*try)(void *arg), void *arg);
void profil_seccomp_step(const char *name);
const char *profil_seccomp_killer(void);

/* src/engine/writable.c: 0 if [p, p+len) can be read and written, else -EFAULT (or -errno). */
int profil_memory_writable(void *p, size_t len);

/* The real libc functions behind the ones interposed in src/engine (resolved at load time). */
struct profil_real {
	int (*pthread_create)(void *, const void *, void *(*)(void *), void *);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvp)(const char *, char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*execv)(const char *, char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*execveat)(int, const char *, char *const[], char *const[], int);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t);
	int (*setenv)(const char *, const char *, int);	/* the C library's, not bash's */
};
extern struct profil_real profil_real;
/* Fills profil_real; runs at load, and again on first use if another constructor was first. */
void profil_real_resolve(void);

#endif /* PROFIL_ENGINE_H */
