/*
 * The engine: one sink, one rate, a clock on every thread of the process.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

/* Threads beyond this are counted in thread_failures and not sampled. */
#define PROFIL_MAX_THREADS 4096

static struct {
	atomic_flag lock;
	int running;
	const struct profil_sink *sink;
	unsigned int hz;
	enum profil_clock requested;
	int clock;		/* resolved: TIMER or PERF */
	pid_t pid;		/* the process whose threads the slots describe */
	uint64_t cpu_start;	/* process CPU time at start, ns */
	uint64_t cpu_ns;	/* CPU time of the last completed run */
	uint64_t threads;
	uint64_t thread_failures;
	unsigned int generation;	/* bumped at every start and stop; wraps */
	int starved;		/* the program took our signal and left no free one */
	struct profil_thread slots[PROFIL_MAX_THREADS];
} engine = { .lock = ATOMIC_FLAG_INIT };

static pid_t
current_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

void
profil_engine_lock(sigset_t *saved)
{
	sigset_t all;

	/* No signal handler of this thread can then re-enter while we hold the lock. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	while (atomic_flag_test_and_set_explicit(&engine.lock, memory_order_acquire))
		sched_yield();
}

void
profil_engine_unlock(const sigset_t *saved)
{
	atomic_flag_clear_explicit(&engine.lock, memory_order_release);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static struct profil_thread *
slot_for(pid_t tid)
{
	struct profil_thread *free_slot = NULL;
	size_t i;

	for (i = 0; i < PROFIL_MAX_THREADS; i++) {
		if (engine.slots[i].tid == tid)
			return &engine.slots[i];
		if (free_slot == NULL && engine.slots[i].tid == 0)
			free_slot = &engine.slots[i];
	}
	return free_slot;
}

static int
arm_thread(pid_t tid)
{
	struct profil_thread *t = slot_for(tid);
	int r;

	if (t == NULL) {
		engine.thread_failures++;
		return -EAGAIN;
	}
	/* A recycled tid, or a thread that armed itself before we enumerated it. */
	profil_clock_disarm(t);
	r = profil_clock_arm(t, tid, engine.clock, engine.hz, profil_signal_current());
	if (r == 0)
		engine.threads++;
	else
		engine.thread_failures++;
	return r;
}

static void
arm_other_thread(pid_t tid, void *self)
{
	if (tid != *(pid_t *)self)
		arm_thread(tid);
}

static void
disarm_all(void)
{
	size_t i;

	for (i = 0; i < PROFIL_MAX_THREADS; i++)
		profil_clock_disarm(&engine.slots[i]);
}

int
profil_engine_start_locked(const struct profil_sink *sink, unsigned int hz,
    enum profil_clock clock)
{
	pid_t self = current_tid();
	int r, killed;

	if (hz == 0 || hz > PROFIL_HZ_MAX)
		return -EINVAL;
	if (engine.running)
		profil_engine_stop_locked();
	r = profil_signal_install();
	if (r < 0)
		return r;
	engine.sink = sink;
	engine.hz = hz;
	engine.requested = clock;
	engine.clock = profil_clock_resolve(clock, hz);
	engine.pid = getpid();
	engine.threads = 0;
	engine.thread_failures = 0;
	atomic_store(&profil_ticks.signals, 0);
	atomic_store(&profil_ticks.ticks, 0);
	atomic_store(&profil_ticks.armed, 1);
	atomic_store(&profil_ticks.sink, sink);

	/*
	 * The calling thread first: it decides whether perf events are allowed here.  Under a
	 * seccomp filter, a probe child first (profil_clock_allowed()).
	 */
	r = killed = profil_clock_allowed(engine.clock, hz, profil_signal_current());
	if (r == 0)
		r = arm_thread(self);
	/*
	 * Refused (perf_event_paranoid 3, seccomp, no PERF_EVENTS): fall back to the timers.  A
	 * filter that would kill timer_create(2) leaves perf events to try.
	 */
	if (r < 0 && clock == PROFIL_CLOCK_AUTO && (engine.clock == PROFIL_CLOCK_PERF || killed)) {
		engine.thread_failures = 0;
		engine.clock = engine.clock == PROFIL_CLOCK_PERF ? PROFIL_CLOCK_TIMER :
		    PROFIL_CLOCK_PERF;
		r = profil_clock_allowed(engine.clock, hz, profil_signal_current());
		if (r == 0)
			r = arm_thread(self);
	}
	if (r < 0) {
		atomic_store(&profil_ticks.armed, 0);
		atomic_store(&profil_ticks.sink, NULL);
		profil_signal_restore();
		return r;
	}
	profil_threads_foreach(arm_other_thread, &self);
	engine.cpu_start = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	engine.running = 1;
	engine.starved = 0;
	engine.generation++;
	return 0;
}

void
profil_engine_stop_locked(void)
{
	if (!engine.running)
		return;
	atomic_store(&profil_ticks.armed, 0);
	atomic_store(&profil_ticks.sink, NULL);
	disarm_all();
	profil_signal_restore();
	/*
	 * Handlers already running on other threads may still hold the sink: let them finish.
	 * One takes microseconds.  One that never finishes faulted (SIGSEGV is not blocked in
	 * it, so that a thread's stack overflow reaches the program's own handler) and was left
	 * by that handler's siglongjmp: its count stays, and waiting for it would hang the
	 * program at its exit.  Two seconds is past any handler that still runs, short of a
	 * thread stopped inside one by a debugger.
	 */
	for (uint64_t t0 = profil_monotonic_ns(); atomic_load(&profil_ticks.running) != 0 &&
	    profil_monotonic_ns() - t0 < 2000000000ULL; )
		sched_yield();
	engine.cpu_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - engine.cpu_start;
	engine.running = 0;
	engine.generation++;
}

void
profil_engine_signal_taken(int s, const struct sigaction *act)
{
	const struct profil_sink *sink = engine.sink;
	int was_running = engine.running;

	profil_engine_stop_locked();
	profil_signal_hand_over(s, act);
	/* The program's signal stays the program's: start again on a free one. */
	if (was_running && profil_engine_start_locked(sink, engine.hz, engine.requested) < 0)
		engine.starved = 1;
}

int
profil_engine_starved_locked(void)
{
	struct sigaction cur;
	int s = profil_signal_current();

	if (engine.starved)
		return PROFIL_STARVED_NO_SIGNAL;
	/* sigaction(2) through a raw system call (the Go runtime) passes no interposition. */
	if (engine.running && s > 0 && profil_real.sigaction(s, NULL, &cur) == 0 &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != profil_tick_handler))
		return PROFIL_STARVED_REPLACED;
	return 0;
}

const struct profil_sink *
profil_engine_sink_locked(void)
{
	return engine.running ? engine.sink : NULL;
}

void
profil_engine_stats_locked(struct profil_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->requested_hz = engine.hz;
	st->clock = engine.clock;
	st->signo = profil_signal_current();
	st->running = engine.running;
	st->signals = atomic_load(&profil_ticks.signals);
	st->ticks = atomic_load(&profil_ticks.ticks);
	st->cpu_ns = engine.running ? profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - engine.cpu_start : engine.cpu_ns;
	st->threads = engine.threads;
	st->thread_failures = engine.thread_failures;
	if (st->cpu_ns > 0)
		st->achieved_hz = (double)st->ticks * 1e9 / (double)st->cpu_ns;
}

void
profil_engine_rearm_quiet_locked(void)
{
	size_t i;

	if (!engine.running || engine.clock != PROFIL_CLOCK_PERF || engine.pid != getpid())
		return;
	for (i = 0; i < PROFIL_MAX_THREADS; i++)
		profil_clock_watch(&engine.slots[i], engine.hz, profil_signal_current());
}

void
profil_engine_thread_start(void)
{
	sigset_t saved;

	profil_engine_lock(&saved);
	if (engine.running && engine.pid == getpid())
		arm_thread(current_tid());
	profil_engine_unlock(&saved);
}

void
profil_engine_thread_exit(void)
{
	pid_t tid = current_tid();
	sigset_t saved;
	size_t i;

	profil_engine_lock(&saved);
	for (i = 0; i < PROFIL_MAX_THREADS; i++)
		if (engine.slots[i].tid == tid)
			profil_clock_disarm(&engine.slots[i]);
	profil_engine_unlock(&saved);
}

/*
 * fork(2) child, lock held since the prepare handler.  pcsample(2): "sampling continues across
 * a call to fork"; the child keeps the sink and its memory, and only its own thread exists.
 */
void
profil_engine_fork_child_locked(void)
{
	size_t i;

	/*
	 * Only the forking thread exists here; a handler another thread was running at the
	 * moment of the copy never finishes in this process, and stop must not wait for it.
	 */
	atomic_store(&profil_ticks.running, 0);
	for (i = 0; i < PROFIL_MAX_THREADS; i++)
		profil_clock_forget(&engine.slots[i]);
	if (!engine.running)
		return;
	engine.pid = getpid();
	engine.threads = 0;
	engine.thread_failures = 0;
	atomic_store(&profil_ticks.signals, 0);
	atomic_store(&profil_ticks.ticks, 0);
	if (arm_thread(current_tid()) < 0) {
		/* Nothing ticks; leave the handler in place, it cannot be reached. */
		return;
	}
	engine.cpu_start = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/*
 * Before execve: every clock off and every pending tick discarded, so the new image never
 * receives a signal it has no handler for.  Returns a token for profil_engine_exec_failed():
 * 0, or the generation that the stop made.
 */
int
profil_engine_exec_prepare(void)
{
	sigset_t saved;
	int token = 0;

	profil_engine_lock(&saved);
	/* In a vfork child the engine state is the parent's: leave it alone. */
	if (engine.running && engine.pid == getpid()) {
		profil_engine_stop_locked();
		/* A generation that wrapped to 0 reads as "never resume": once in 2^32 stops. */
		token = engine.generation ? (int)engine.generation : -1;
	}
	profil_engine_unlock(&saved);
	return token;
}

void
profil_engine_exec_failed(int token)
{
	int saved_errno = errno;
	sigset_t saved;

	if (!token)
		return;
	profil_engine_lock(&saved);
	/*
	 * Resume only what this exec stopped: if another thread started or stopped profiling
	 * meanwhile (and perhaps freed the buffer), the generation has moved on.
	 */
	if (!engine.running && (int)engine.generation == token)
		profil_engine_start_locked(engine.sink, engine.hz, engine.requested);
	profil_engine_unlock(&saved);
	errno = saved_errno;
}
