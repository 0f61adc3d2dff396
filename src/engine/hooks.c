/*
 * The one registry of lifecycle hooks (engine.h says what each moment guarantees): the
 * recorder and the gmon runtime keep state per thread or per process image, and must do their
 * part at the moments the engine itself handles: a thread starting or ending, fork, exec, exit.
 * Runs in signal context (the fatal-signal flush runs EXIT): no allocation, no lock.
 */
#include <errno.h>

#include "engine.h"

#define MAX_HOOKS 8

static struct {
	void (*fn)(int why, void *arg);
	void *arg;
} hooks[PROFIL_HOOK_MAX][MAX_HOOKS];
static atomic_int nhooks[PROFIL_HOOK_MAX];

int
profil_engine_hook_add(enum profil_hook when, void (*fn)(int why, void *arg), void *arg)
{
	int n;

	if ((unsigned int)when >= PROFIL_HOOK_MAX || fn == NULL)
		return -EINVAL;
	n = atomic_load(&nhooks[when]);
	if (n >= MAX_HOOKS)
		return -ENOSPC;
	hooks[when][n].fn = fn;
	hooks[when][n].arg = arg;
	atomic_store(&nhooks[when], n + 1);
	if (when == PROFIL_HOOK_EXIT)
		profil_exit_arm();
	return 0;
}

void
profil_engine_hooks_run(enum profil_hook when, int why)
{
	int i, n = atomic_load(&nhooks[when]), saved_errno = errno;

	/*
	 * pthread_atfork(3)'s order: the part registered last prepares first and hears of the
	 * copy last, so each part's prepare and parent (or child) nest around the later ones'.
	 */
	if (when == PROFIL_HOOK_FORK_PREPARE) {
		for (i = n - 1; i >= 0; i--)
			hooks[when][i].fn(why, hooks[when][i].arg);
	} else {
		for (i = 0; i < n; i++)
			hooks[when][i].fn(why, hooks[when][i].arg);
	}
	/* exec's failure, for one, must reach the caller intact. */
	errno = saved_errno;
}
