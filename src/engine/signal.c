/*
 * The engine's signal.  It is a real-time signal of its own, never SIGPROF, so a program that
 * uses ITIMER_PROF and a SIGPROF handler itself keeps both (Linux profil(3) says the classic
 * profil "cannot be used on a program that also uses interval timers").
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int chosen;		/* fixed at load: PROFIL_SIGNAL, or 0 to pick a free one */
static int installed;		/* the signal our handler is on now, or 0 */
static struct sigaction saved;	/* the program's disposition before we took it */

static int
signal_is_free(int s)
{
	struct sigaction cur;

	if (sigaction(s, NULL, &cur) != 0)
		return 0;
	return !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

__attribute__((constructor)) static void
signal_init(void)
{
	const char *v = getenv("PROFIL_SIGNAL");
	char *end;
	long s;

	if (v == NULL || *v == '\0')
		return;
	s = strtol(v, &end, 10);
	if (*end == '\0' && s >= SIGRTMIN && s <= SIGRTMAX)
		chosen = (int)s;
}

/* Returns the installed signal number, or -errno. */
int
profil_signal_install(void)
{
	struct sigaction sa;
	int s;

	if (installed)
		return installed;
	s = chosen;
	if (s == 0) {
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
	 * SA_RESTART: a tick never makes a restartable call fail with EINTR.  No SA_ONSTACK: a
	 * program's alternate stack is sized for its own fault handler (often SIGSTKSZ), and a
	 * tick belongs on the thread's own stack.
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(s, &sa, &saved) != 0)
		return -errno;
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
	struct sigaction ign;

	if (!installed)
		return;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(installed, &ign, NULL);
	sigaction(installed, &saved, NULL);
	installed = 0;
}

int
profil_signal_current(void)
{
	return installed;
}
