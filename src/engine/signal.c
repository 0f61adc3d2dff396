/*
 * The signals the engine takes from the program, and how the program keeps seeing its own.
 *
 * The tick signal is a real-time signal of its own, never SIGPROF, so a program that uses
 * ITIMER_PROF and a SIGPROF handler itself keeps both (Linux profil(3) says the classic profil
 * "cannot be used on a program that also uses interval timers").  The exit paths (exit.c) also
 * catch the fatal signals a program leaves at SIG_DFL.  For each signal taken, the program's
 * disposition is kept as a shadow, and the interposed sigaction() and signal() answer with it:
 * a program that asks sees what it set (CPython installs its KeyboardInterrupt handler only where
 * SIGINT is SIG_DFL), a program that resets every signal to SIG_DFL before exec resets only its
 * shadow (the tick's default action would kill it), and a program that installs a handler of its
 * own gets the signal: a fatal signal is simply given up, the tick moves to another free signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define NSIGNALS 65

static struct {
	int owner;			/* enum profil_signal_owner */
	struct sigaction shadow;	/* what the program set, or had before we took it */
} owned[NSIGNALS];

static int chosen = -1;		/* PROFIL_SIGNAL once read, 0 to pick a free one */
static int installed;		/* the tick signal our handler is on now, or 0 */

static int
real_sigaction(int s, const struct sigaction *act, struct sigaction *old)
{
	if (profil_real.sigaction == NULL)
		profil_real_resolve();
	return profil_real.sigaction(s, act, old);
}

int
profil_signal_owner(int s)
{
	return s > 0 && s < NSIGNALS ? owned[s].owner : PROFIL_SIGNAL_PROGRAM;
}

int
profil_signal_take(int s, const struct sigaction *act, enum profil_signal_owner owner)
{
	if (s <= 0 || s >= NSIGNALS)
		return -EINVAL;
	if (real_sigaction(s, act, &owned[s].shadow) != 0)
		return -errno;
	owned[s].owner = owner;
	return 0;
}

/* The program's disposition becomes the real one again. */
void
profil_signal_give_back(int s)
{
	if (profil_signal_owner(s) == PROFIL_SIGNAL_PROGRAM)
		return;
	owned[s].owner = PROFIL_SIGNAL_PROGRAM;
	real_sigaction(s, &owned[s].shadow, NULL);
}

/* The program's own disposition for a signal we no longer hold, set for real. */
void
profil_signal_hand_over(int s, const struct sigaction *act)
{
	real_sigaction(s, act, NULL);
}

static int
signal_is_free(int s)
{
	struct sigaction cur;

	if (owned[s].owner != PROFIL_SIGNAL_PROGRAM || real_sigaction(s, NULL, &cur) != 0)
		return 0;
	return !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

/* Read at the first start, not in a constructor: the recorder starts before those run. */
static void
read_choice(void)
{
	const char *v = profil_env_get("PROFIL_SIGNAL");
	char *end;
	long s;

	chosen = 0;
	if (v == NULL || *v == '\0')
		return;
	s = strtol(v, &end, 10);
	if (*end == '\0' && s >= SIGRTMIN && s <= SIGRTMAX)
		chosen = (int)s;
}

/* Returns the installed tick signal, or -errno. */
int
profil_signal_install(void)
{
	struct sigaction sa;
	int s, r;

	if (installed)
		return installed;
	if (chosen < 0)
		read_choice();
	s = chosen;
	if (s == 0 || !signal_is_free(s)) {
		/* The highest real-time signal nobody handles; the lowest ones belong to libc. */
		for (s = SIGRTMAX - 1; s > SIGRTMIN + 1; s--)
			if (signal_is_free(s))
				break;
		if (s <= SIGRTMIN + 1)
			return -EBUSY;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = profil_tick_handler;
	/*
	 * SA_RESTART: a tick never makes a restartable call fail with EINTR.  No SA_ONSTACK: the
	 * flags are the process's, but an alternate stack is each thread's, sized for what the
	 * program runs there, and often too small for the kernel's signal frame (MINSIGSTKSZ is
	 * 2048 bytes; AT_MINSIGSTKSZ, the frame with every register the CPU has, can be 12 KiB).
	 * A tick there would kill a program that never takes a signal on it.  On the thread's
	 * own stack a tick only fails where that stack is within one frame of overflowing: then
	 * the kernel sends SIGSEGV, which the program that catches its own overflow handles on
	 * its alternate stack (the fatal-signal handlers of exit.c keep SA_ONSTACK for it), and
	 * which would have come a few frames later anyway.
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/*
	 * Not SIGSEGV and SIGBUS: a fault in the handler's first bytes, on a stack that had room
	 * for the frame and no more, must reach the program's overflow handler as its own
	 * overflow would; blocked, the kernel would kill the process instead.
	 */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	r = profil_signal_take(s, &sa, PROFIL_SIGNAL_TICK);
	if (r < 0)
		return r;
	installed = s;
	return s;
}

/*
 * Called with every clock disarmed.  Setting SIG_IGN discards the ticks still pending on any
 * thread (POSIX sigaction: "the pending signal shall be discarded"); only then is the
 * program's own disposition back, so a late tick can never reach a default action that kills.
 */
void
profil_signal_restore(void)
{
	struct sigaction ign, cur;

	if (!installed)
		return;
	/*
	 * A handler the program set behind our back (a raw rt_sigaction(2), as the Go runtime
	 * does) is the program's now: it stays, and late ticks go to it as the others did.
	 */
	if (real_sigaction(installed, NULL, &cur) == 0 &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != profil_tick_handler)) {
		owned[installed].owner = PROFIL_SIGNAL_PROGRAM;
		installed = 0;
		return;
	}
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	real_sigaction(installed, &ign, NULL);
	profil_signal_give_back(installed);
	installed = 0;
}

int
profil_signal_current(void)
{
	return installed;
}

/* sigaction() on a signal we hold: the program reads and writes its shadow. */
static void
virtual_sigaction(int s, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev = owned[s].shadow;

	if (act != NULL) {
		if (act->sa_handler == SIG_DFL ||
		    (act->sa_handler == SIG_IGN && owned[s].owner == PROFIL_SIGNAL_TICK)) {
			owned[s].shadow = *act;
		} else if (owned[s].owner == PROFIL_SIGNAL_FATAL) {
			/* Its own handler, or SIG_IGN (SIGPIPE): the program decides, we step back. */
			owned[s].owner = PROFIL_SIGNAL_PROGRAM;
			real_sigaction(s, act, NULL);
		} else {
			profil_engine_signal_taken(s, act);
		}
	}
	if (old != NULL)
		*old = prev;
}

PROFIL_API int
sigaction(int s, const struct sigaction *act, struct sigaction *old)
{
	sigset_t saved;

	if (profil_signal_owner(s) == PROFIL_SIGNAL_PROGRAM)
		return real_sigaction(s, act, old);
	profil_engine_lock(&saved);
	/* Checked again under the lock: another thread may have given it back meanwhile. */
	if (profil_signal_owner(s) == PROFIL_SIGNAL_PROGRAM) {
		profil_engine_unlock(&saved);
		return real_sigaction(s, act, old);
	}
	virtual_sigaction(s, act, old);
	profil_engine_unlock(&saved);
	return 0;
}

/* glibc's signal() calls its internal sigaction, which no interposition reaches. */
PROFIL_API sighandler_t
signal(int s, sighandler_t handler)
{
	struct sigaction sa, old;

	if (profil_signal_owner(s) == PROFIL_SIGNAL_PROGRAM) {
		if (profil_real.signal == NULL)
			profil_real_resolve();
		return profil_real.signal(s, handler);
	}
	/* BSD semantics, as glibc's signal(): restart, and the signal blocked in its handler. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, s);
	sa.sa_flags = SA_RESTART;
	if (sigaction(s, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}
