/* Signal context: the one handler behind every clock of the engine. */
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include "sample.h"
#include "stacks.h"

/*
 * What the handler and the deepest sink (a walk into the stack table) need below the frame
 * the kernel pushed: under 3 KiB (gcc -fstack-usage).  The tick runs on the thread's own stack
 * (signal.c): within this much of its end, the tick is dropped before anything is counted or
 * held, so that a fault can come only from this frame's first bytes, where the program's own
 * overflow handler may take it (SIGSEGV is not blocked here) and never return.
 */
#define TICK_STACK_NEED (4 * 1024)

struct profil_tickstate profil_ticks;

static int
perf_fd_is_ours(int fd)
{
	if (fd < 0 || fd >= PROFIL_MAX_PERF_FD)
		return 0;
	return (atomic_load_explicit(&profil_ticks.perf_fds[fd / 8], memory_order_relaxed) >>
	    (fd % 8)) & 1;
}

void
profil_tick_handler(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	const struct profil_sink *sink;
	struct profil_tick tick;
	int perf_fd = -1;
	uintptr_t here = (uintptr_t)&tick;

	(void)signo;
	/* A thread about to overflow its stack: the tick is lost, not the program. */
	if (here >= profil_stack_bounds.lo && here < profil_stack_bounds.hi &&
	    here - profil_stack_bounds.lo < TICK_STACK_NEED)
		return;
	atomic_fetch_add(&profil_ticks.running, 1);
	if (si->si_code == SI_TIMER && si->si_value.sival_int == PROFIL_TIMER_COOKIE) {
		/* Missed expirations are CPU time that was used: they count (si_overrun). */
		tick.weight = 1 + (si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0);
	} else if ((si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
	    perf_fd_is_ours(si->si_fd)) {
		tick.weight = 1;
		perf_fd = si->si_fd;
	} else {
		goto out;	/* not a tick of ours: somebody sent the signal by hand */
	}
	sink = atomic_load(&profil_ticks.sink);
	if (sink != NULL) {
		tick.pc = profil_pc_from_ucontext(uc);
		tick.uc = uc;
		sink->fn(&tick, sink->arg);
		atomic_fetch_add_explicit(&profil_ticks.signals, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&profil_ticks.ticks, tick.weight, memory_order_relaxed);
	}
	/*
	 * A perf event disables itself after each overflow (PERF_EVENT_IOC_REFRESH 1) so that
	 * the time spent here is not sampled; re-enable it last.
	 */
	if (perf_fd >= 0 && atomic_load(&profil_ticks.armed))
		ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1);
out:
	atomic_fetch_sub(&profil_ticks.running, 1);
	errno = saved_errno;
}
