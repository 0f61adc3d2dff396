/*
 * fork(2): the profiling signal is blocked in the forking thread from before the copy until
 * after it (a tick arriving mid-clone() restarts it, which livelocks a large process), and the
 * child re-arms: timers are not inherited, and pcsample(2) says sampling continues.
 *
 * The one pthread_atfork(3) of the library: the parts that must act around a fork (the
 * recorder, the gmon runtime) register at the registry's FORK_* places (engine.h), which run
 * here inside the engine lock, whenever the part registered.  Their order against the engine
 * no longer rests on which constructor ran first: gcrt1's __gmon_start__ (the gmon runtime)
 * runs from .preinit_array, before any library's constructor, and the recorder's constructor
 * ran before the engine's only by link order.
 */
#include <pthread.h>

#include "engine.h"

static _Thread_local sigset_t fork_saved;

static void
fork_prepare(void)
{
	profil_engine_lock(&fork_saved);
	profil_engine_hooks_run(PROFIL_HOOK_FORK_PREPARE, 0);
}

static void
fork_parent(void)
{
	profil_engine_hooks_run(PROFIL_HOOK_FORK_PARENT, 0);
	profil_engine_unlock(&fork_saved);
}

static void
fork_child(void)
{
	profil_engine_hooks_run(PROFIL_HOOK_FORK_CHILD_FIRST, 0);
	profil_engine_fork_child_locked();
	profil_exit_fork_child();
	profil_engine_hooks_run(PROFIL_HOOK_FORK_CHILD, 0);
	profil_engine_unlock(&fork_saved);
}

__attribute__((constructor)) static void
fork_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
