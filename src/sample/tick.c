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

/*
 * A perf tick's event disabled itself at its overflow (PERF_EVENT_IOC_REFRESH 1, POLL_HUP), so
 * that the time spent here is not sampled: it is enabled again here, last.  A POLL_IN tick
 * came from an event that a kick (below) enabled twice: it is still on, and the extra count is
 * used up by this overflow rather than added to.
 */
static void
perf_refresh(int fd, int code)
{
	if (fd >= 0 && code == POLL_HUP && atomic_load(&profil_ticks.armed))
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

void
profil_tick_handler(int signo, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	const struct profil_sink *sink;
	struct profil_tick tick;
	int perf_fd = -1, code = si->si_code, kick = 0;
	uintptr_t here = (uintptr_t)&tick;

	(void)signo;
	if (code == SI_TIMER && si->si_value.sival_int == PROFIL_TIMER_COOKIE) {
		/* Missed expirations are CPU time that was used: they count (si_overrun). */
		tick.weight = 1 + (si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0);
		tick.precise = 0;
	} else if ((code == POLL_IN || code == POLL_HUP) && perf_fd_is_ours(si->si_fd)) {
		tick.weight = 1;
		tick.precise = 1;
		perf_fd = si->si_fd;
		atomic_store_explicit(&profil_ticks.perf_seen[perf_fd], 1, memory_order_relaxed);
	} else if (code == SI_TIMER &&
	    (si->si_value.sival_int & ~PROFIL_KICK_FD_MASK) == PROFIL_KICK_TAG &&
	    perf_fd_is_ours(si->si_value.sival_int & PROFIL_KICK_FD_MASK)) {
		/*
		 * The recorder saw this thread run without a tick (engine.c, rearm_quiet): its
		 * event's last overflow was never handled (the kernel found no room for the frame
		 * and made it the program's SIGSEGV).  Not a sample: the event is enabled again.
		 */
		perf_fd = si->si_value.sival_int & PROFIL_KICK_FD_MASK;
		code = POLL_HUP;
		kick = 1;
	} else {
		errno = saved_errno;
		return;	/* not a tick of ours: somebody sent the signal by hand */
	}
	/*
	 * A thread about to overflow its stack: the tick is lost, not the program, nor the clock.
	 * Nothing is held here, as a fault in these last bytes may never return.
	 */
	if (here >= profil_stack_bounds.lo && here < profil_stack_bounds.hi &&
	    here - profil_stack_bounds.lo < TICK_STACK_NEED) {
		perf_refresh(perf_fd, code);
		errno = saved_errno;
		return;
	}
	atomic_fetch_add(&profil_ticks.running, 1);
	sink = atomic_load(&profil_ticks.sink);
	if (sink != NULL && !kick) {
		tick.pc = profil_pc_from_ucontext(uc);
		tick.uc = uc;
		sink->fn(&tick, sink->arg);
		atomic_fetch_add_explicit(&profil_ticks.signals, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&profil_ticks.ticks, tick.weight, memory_order_relaxed);
	}
	perf_refresh(perf_fd, code);
	atomic_fetch_sub(&profil_ticks.running, 1);
	errno = saved_errno;
}
