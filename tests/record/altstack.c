/*
 * altstack - a thread on a stack of known bounds recurses until it overflows, burning CPU on
 * each of its last frames so that ticks arrive when little of the stack is left; its SIGSEGV
 * handler runs on a sigaltstack of SIGSTKSZ bytes and siglongjmps back.  Prints "recovered N"
 * and exits 0 after N overflows.  With "die", SIGSEGV stays at its default: the first overflow
 * ends the process, as it would a program that has an alternate stack for other signals.
 * usage: altstack N [die]
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "burn.h"

#define STACK_BYTES (256 * 1024)
/* The last frames spin: within this much of the guard page a tick finds no room on the stack. */
#define SPIN_ZONE (8 * 1024)

BURNER(deep_work)

static sigjmp_buf back;
static uintptr_t stack_lo;

static void
on_segv(int s)
{
	(void)s;
	siglongjmp(back, 1);
}

static volatile int forever = 1;	/* the compiler must not see the recursion is endless */

static int
dive(int depth)
{
	volatile char frame[192];
	uintptr_t here = (uintptr_t)&frame;

	frame[0] = (char)depth;
	if (here - stack_lo < SPIN_ZONE)
		deep_work(0.01);
	if (!forever)
		return 0;
	return dive(depth + 1) + frame[0];
}

static void *
thread_main(void *arg)
{
	int n = *(int *)arg;
	volatile int done = 0;
	stack_t ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_size = SIGSTKSZ;
	ss.ss_sp = malloc(ss.ss_size);
	if (ss.ss_sp == NULL || sigaltstack(&ss, NULL) != 0)
		return NULL;
	while (done < n) {
		if (sigsetjmp(back, 1) == 0)
			dive(0);
		else
			done++;
	}
	printf("recovered %d\n", done);
	fflush(stdout);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t t;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem;
	int n;

	if (argc < 2)
		return 2;
	n = atoi(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if ((argc < 3 || strcmp(argv[2], "die") != 0) && sigaction(SIGSEGV, &sa, NULL) != 0)
		return 1;
	/* A guard page of our own below the stack: the overflow faults there, at a known place. */
	mem = mmap(NULL, STACK_BYTES + page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || mprotect(mem, page, PROT_NONE) != 0)
		return 1;
	stack_lo = (uintptr_t)mem + page;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, mem + page, STACK_BYTES);
	if (pthread_create(&t, &attr, thread_main, &n) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
