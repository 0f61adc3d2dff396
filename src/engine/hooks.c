/*
 * Callbacks for consumers that keep state per thread or per process image (the recorder): they
 * must hear of a thread starting or ending, a fork child, and an exec about to replace the
 * image, at the moments the engine itself handles them.
 */
#include <errno.h>

#include "engine.h"

#define MAX_HOOKS 8

static struct {
	void (*fn)(void *arg);
	void *arg;
} hooks[PROFIL_HOOK_MAX][MAX_HOOKS];
static atomic_int nhooks[PROFIL_HOOK_MAX];

int
profil_engine_hook_add(enum profil_hook when, void (*fn)(void *arg), void *arg)
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
	return 0;
}

void
profil_engine_hooks_run(enum profil_hook when)
{
	int i, n = atomic_load(&nhooks[when]), saved_errno = errno;

	for (i = 0; i < n; i++)
		hooks[when][i].fn(hooks[when][i].arg);
	/* exec's failure, for one, must reach the caller intact. */
	errno = saved_errno;
}
