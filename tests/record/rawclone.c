/*
 * rawclone - CPU split across threads and processes made with clone(2) directly, not
 * pthread_create or fork: main_work, a CLONE_THREAD thread's clone_thread_work and a clone
 * process's clone_proc_work each burn the same CPU time.  Nothing of libc's thread machinery
 * knows about them, so only a recorder that follows the kernel's tasks sees them.
 * usage: rawclone SECONDS
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "burn.h"

BURNER(main_work)
BURNER(clone_thread_work)
BURNER(clone_proc_work)

#define STACK (256 * 1024)

static double seconds;
static atomic_int thread_done;

static int
thread_main(void *arg)
{
	(void)arg;
	clone_thread_work(seconds);
	atomic_store(&thread_done, 1);
	return 0;
}

static int
proc_main(void *arg)
{
	(void)arg;
	clone_proc_work(seconds);
	return 5;
}

int
main(int argc, char **argv)
{
	char *st1, *st2;
	struct timespec nap = { 0, 1000000 };
	int status;
	pid_t p;

	seconds = argc > 1 ? atof(argv[1]) : 0.3;
	st1 = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	st2 = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st1 == MAP_FAILED || st2 == MAP_FAILED)
		return 1;
	if (clone(thread_main, st1 + STACK, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
	    CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0)
		return 1;
	p = clone(proc_main, st2 + STACK, SIGCHLD, NULL);
	if (p < 0)
		return 1;
	main_work(seconds);
	while (!atomic_load(&thread_done))
		nanosleep(&nap, NULL);
	if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status) != 5)
		return 1;
	printf("done\n");
	return 0;
}
