/*
 * The registry of lifecycle hooks (src/engine/hooks.c) and the library's one pthread_atfork
 * (src/engine/fork.c): each fork place runs where engine.h says, in the order it says, with
 * every signal blocked, inside the program's own fork handlers; EXIT runs once per process,
 * with the fatal signal that ends it; errno survives the hooks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "engine/engine.h"

/* What one process saw, in order: a letter per hook. */
static char trace[32];
static size_t ntrace;
static int unblocked;		/* fork hooks that ran with a signal deliverable */

/* What the children leave for the parent. */
static struct {
	char child[32];
	int child_unblocked;
	int exits;
	int why;
} *sh;

static void
note(char c)
{
	if (ntrace < sizeof(trace) - 1)
		trace[ntrace++] = c;
}

static int
all_blocked(void)
{
	static const int sigs[] = { SIGPROF, SIGALRM, SIGTERM, SIGUSR1, SIGCHLD, SIGSEGV };
	sigset_t cur;
	size_t i;

	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0 || !sigismember(&cur, SIGRTMIN) ||
	    !sigismember(&cur, SIGRTMAX))
		return 0;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigismember(&cur, sigs[i]))
			return 0;
	return 1;
}

static void
fork_hook(int why, void *arg)
{
	note(*(const char *)arg);
	if (why != 0 || !all_blocked())
		unblocked++;
}

static void
exit_hook(int why, void *arg)
{
	(void)arg;
	sh->exits++;
	sh->why = why;
}

static void
clobber(int why, void *arg)
{
	(void)why;
	(void)arg;
	errno = EBADF;
}

/* The program's own handlers, registered after the library's constructor made its one. */
static void
prog_prepare(void)
{
	note('P');
}

static void
prog_parent(void)
{
	note('Q');
}

static void
prog_child(void)
{
	note('R');
}

static int
child_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int
main(void)
{
	int i, r, status;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;

	tap_check(profil_engine_hook_add(PROFIL_HOOK_MAX, clobber, NULL) == -EINVAL &&
	    profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD, NULL, NULL) == -EINVAL,
	    "no such moment, no function: -EINVAL");
	for (i = 0, r = 0; i < 8 && r == 0; i++)
		r = profil_engine_hook_add(PROFIL_HOOK_THREAD_EXIT, clobber, NULL);
	tap_check(r == 0 && profil_engine_hook_add(PROFIL_HOOK_THREAD_EXIT, clobber, NULL) ==
	    -ENOSPC, "8 hooks at one moment, the 9th: -ENOSPC");
	errno = ENOENT;
	profil_engine_hooks_run(PROFIL_HOOK_THREAD_EXIT, 0);
	tap_check(errno == ENOENT, "errno as it was before the hooks (they set EBADF)");

	/* a, b prepare; c, d parent; e first in the child; f, g in the child. */
	profil_engine_hook_add(PROFIL_HOOK_FORK_PREPARE, fork_hook, "a");
	profil_engine_hook_add(PROFIL_HOOK_FORK_PREPARE, fork_hook, "b");
	profil_engine_hook_add(PROFIL_HOOK_FORK_PARENT, fork_hook, "c");
	profil_engine_hook_add(PROFIL_HOOK_FORK_PARENT, fork_hook, "d");
	profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD, fork_hook, "f");
	profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD_FIRST, fork_hook, "e");
	profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD, fork_hook, "g");
	profil_engine_hook_add(PROFIL_HOOK_EXIT, exit_hook, NULL);
	pthread_atfork(prog_prepare, prog_parent, prog_child);

	pid = fork();
	if (pid == 0) {
		memcpy(sh->child, trace, sizeof(trace));
		sh->child_unblocked = unblocked;
		exit(0);
	}
	status = child_status(pid);
	tap_check(strcmp(trace, "PbacdQ") == 0,
	    "parent: prepare in reverse, parent in order, inside the program's handlers: '%s'",
	    trace);
	tap_check(strcmp(sh->child, "PbaefgR") == 0,
	    "child: FORK_CHILD_FIRST, then FORK_CHILD in order, inside the program's: '%s'",
	    sh->child);
	tap_check(unblocked == 0 && sh->child_unblocked == 0,
	    "every fork hook ran with every signal blocked (parent %d, child %d unblocked)",
	    unblocked, sh->child_unblocked);
	tap_check(status == 0 && sh->exits == 1 && sh->why == 0,
	    "the child's exit ran the EXIT hooks once, why 0 (status %d, %d runs, why %d)",
	    status, sh->exits, sh->why);

	sh->exits = 0;
	pid = fork();
	if (pid == 0) {
		raise(SIGTERM);
		_exit(0);
	}
	status = child_status(pid);
	tap_check(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM &&
	    sh->exits == 1 && sh->why == SIGTERM,
	    "SIGTERM: the EXIT hooks once, why SIGTERM, and the signal still ends the child "
	    "(%d runs, why %d)", sh->exits, sh->why);
	return tap_failures != 0;
}
