/*
 * Every thread is sampled on its own CPU clock: threads that exist at start are found in
 * /proc/self/task (tasks.c), threads created later arm themselves from the pthread_create we
 * interpose, and disarm when they end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"

struct thread_start {
	void *(*fn)(void *);
	void *arg;
};

static void
thread_end(void *unused)
{
	(void)unused;
	profil_engine_hooks_run(PROFIL_HOOK_THREAD_EXIT, 0);
	profil_engine_thread_exit();
}

static void *
thread_main(void *p)
{
	struct thread_start start = *(struct thread_start *)p;
	void *ret;

	free(p);
	profil_engine_hooks_run(PROFIL_HOOK_THREAD_START, 0);
	profil_engine_thread_start();
	/* Runs on return, pthread_exit and cancellation alike. */
	pthread_cleanup_push(thread_end, NULL);
	ret = start.fn(start.arg);
	pthread_cleanup_pop(1);
	return ret;
}

PROFIL_API int
pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct thread_start *start;
	int r;

	if (profil_real.pthread_create == NULL)
		profil_real_resolve();
	start = malloc(sizeof(*start));
	if (start == NULL)
		return EAGAIN;
	start->fn = fn;
	start->arg = arg;
	r = profil_real.pthread_create(thread, attr, thread_main, start);
	if (r != 0)
		free(start);
	return r;
}
