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
static int caught[sizeof(fatal_signals) / sizeof(fatal_signals[0])];

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
	struct sigaction dfl;

	(void)si;
	(void)uc;
	profil_exit_run(signo);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(signo, &dfl, NULL);
	/*
	 * Send it again: it stays pending while this handler runs and ends the process with the
	 * default action as soon as the handler returns (a fault would also recur on return).
	 */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
}

/* Catches the fatal signals the program leaves at SIG_DFL; the program's own handlers stay. */
static void
fatal_install(void)
{
	struct sigaction sa, cur;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		if (caught[i] || sigaction(fatal_signals[i], NULL, &cur) != 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		if (sigaction(fatal_signals[i], &sa, NULL) == 0)
			caught[i] = 1;
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
