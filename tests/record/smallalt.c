/*
 * smallalt - threads on a small sigaltstack, such as MINSIGSTKSZ (2048) bytes, that never take
 * a signal there: each installs one of SIZE bytes, burns SECONDS of its CPU time, and the
 * program prints "done" and exits 0.  Alone nothing lands on those stacks; a profiler's tick
 * that did would not fit.  With "overflow", a thread recurses until its stack overflows,
 * burning CPU on its last frames, and its SIGSEGV handler, on an alternate stack big enough
 * for it, prints "caught" and _exit(7)s.  With "abort", the program ends by abort(3) after
 * "done", on its small alternate stack's thread.  Also built with -pg (tests/pg/smallalt.c).
 * usage: smallalt SIZE SECONDS [THREADS [abort]] | smallalt overflow
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "burn.h"

#define STACK_BYTES (256 * 1024)
#define SPIN_ZONE (8 * 1024)	/* the last frames, where no signal frame fits any more */

BURNER(small_work)
BURNER(deep_work)

static size_t alt_size;
static double seconds;

static int
alt_install(size_t size)
{
	stack_t ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_size = size;
	ss.ss_sp = malloc(size);
	return ss.ss_sp == NULL ? -1 : sigaltstack(&ss, NULL);
}

static void *
burn_main(void *unused)
{
	(void)unused;
	if (alt_install(alt_size) != 0) {
		perror("sigaltstack");
		exit(1);
	}
	small_work(seconds);
	return NULL;
}

static uintptr_t stack_lo;
static volatile int forever = 1;	/* the compiler must not see the recursion is endless */

static void
on_segv(int s)
{
	static const char msg[] = "caught\n";

	(void)s;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	_exit(7);
}

static int
dive(int depth)
{
	volatile char frame[192];

	frame[0] = (char)depth;
	if ((uintptr_t)&frame - stack_lo < SPIN_ZONE)
		deep_work(0.01);
	if (!forever)
		return 0;
	return dive(depth + 1) + frame[0];
}

static void *
dive_main(void *unused)
{
	(void)unused;
	/* Big enough for the kernel's signal frame: the program's own handler runs there. */
	if (alt_install(256 * 1024) != 0)
		return NULL;
	dive(0);
	return NULL;
}

static int
overflow(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t t;
	char *mem;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return 1;
	/* A guard page of our own below the stack: the overflow faults there, at a known place. */
	mem = mmap(NULL, STACK_BYTES + page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || mprotect(mem, page, PROT_NONE) != 0)
		return 1;
	stack_lo = (uintptr_t)mem + page;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, mem + page, STACK_BYTES);
	if (pthread_create(&t, &attr, dive_main, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 1;
}

int
main(int argc, char **argv)
{
	pthread_t t[16];
	int i, n;

	if (argc >= 2 && strcmp(argv[1], "overflow") == 0)
		return overflow();
	if (argc < 3)
		return 2;
	alt_size = strtoul(argv[1], NULL, 10);
	seconds = atof(argv[2]);
	n = argc > 3 ? atoi(argv[3]) : 1;
	if (n < 1 || n > 16)
		return 2;
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, burn_main, NULL) != 0)
			return 1;
	burn_main(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	fflush(stdout);
	if (argc > 4 && strcmp(argv[4], "abort") == 0)
		abort();
	return 0;
}
