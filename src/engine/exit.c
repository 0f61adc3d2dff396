/*
 * Every way a process ends, for the consumers that must write a profile then: normal exit
 * (a destructor), _exit(2) and _Exit(2) (interposed), and death by a fatal signal (a handler on
 * each fatal signal the program left at its default; it flushes, restores the default and lets
 * the same signal end the process, so the exit status is the one the program would have had).
 * SIGKILL cannot be caught: a consumer bounds that loss itself (periodic flush, or a file-backed
 * mapping that the kernel writes back).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"

#define MAX_HOOKS 8

static struct {
	void (*fn)(int why, void *arg);
	void *arg;
} hooks[MAX_HOOKS];
static atomic_int nhooks;
static atomic_int ran;		/* hooks run at most once per process */
static pid_t owner;		/* the process the hooks belong to; a vfork child is not it */

static const int fatal_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS,
	SIGFPE, SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS };

void
profil_exit_run(int why)
{
	int i, n;

	if (owner != 0 && owner != getpid())
		return;
	if (atomic_exchange(&ran, 1))
		return;
	n = atomic_load(&nhooks);
	for (i = 0; i < n; i++)
		hooks[i].fn(why, hooks[i].arg);
}

static void
fatal_handler(int signo, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	profil_exit_run(signo);
	/* The program's disposition, which was SIG_DFL when we took the signal. */
	profil_signal_give_back(signo);
	/*
	 * Send it again: it stays pending while this handler runs and ends the process with the
	 * default action as soon as the handler returns (a fault would also recur on return).
	 */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
}

/*
 * Catches the fatal signals the program leaves at SIG_DFL; the program's own handlers stay,
 * and the program still sees SIG_DFL where it asks (signal.c).  No SA_ONSTACK: a program's
 * alternate stack is sized for its own handler, and a flush on it could overflow it.
 */
static void
fatal_install(void)
{
	struct sigaction sa, cur;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int s = fatal_signals[i];

		if (profil_signal_owner(s) != PROFIL_SIGNAL_PROGRAM ||
		    profil_real.sigaction(s, NULL, &cur) != 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		profil_signal_take(s, &sa, PROFIL_SIGNAL_FATAL);
	}
}

/*
 * Registers fn to run once when the process ends: why is 0 for exit and _exit, or the number
 * of the fatal signal.  fn must be async-signal-safe.  Returns 0 or -ENOSPC.
 */
int
profil_exit_hook_add(void (*fn)(int why, void *arg), void *arg)
{
	int n = atomic_load(&nhooks);

	if (n >= MAX_HOOKS)
		return -ENOSPC;
	hooks[n].fn = fn;
	hooks[n].arg = arg;
	atomic_store(&nhooks, n + 1);
	owner = getpid();
	if (profil_real.sigaction == NULL)
		profil_real_resolve();
	fatal_install();
	return 0;
}

/* fork(2) child: the hooks now belong to it, and have not run in it. */
void
profil_exit_fork_child(void)
{
	if (atomic_load(&nhooks) == 0)
		return;
	owner = getpid();
	atomic_store(&ran, 0);
}

__attribute__((destructor)) static void
exit_at_destructor(void)
{
	profil_exit_run(0);
}

PROFIL_API void
_exit(int status)
{
	profil_exit_run(0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

PROFIL_API void
_Exit(int status)
{
	_exit(status);
}
