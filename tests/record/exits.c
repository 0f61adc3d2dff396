/*
 * exits - burns the CPU in exit_work for SECONDS, prints its CPU time, then ends the way MODE
 * says: exit, _exit, return, abort, segv, bus, int, term, kill (SIGKILL to itself), exec
 * (replaces itself with ARGS...), pthread_exit (main ends with pthread_exit(3) while a thread
 * it started sleeps 100 ms, prints "worker done" and returns).
 * usage: exits MODE SECONDS [ARGS...]
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

BURNER(exit_work)

static void *
last_worker(void *unused)
{
	struct timespec ts = { 0, 100000000L };

	(void)unused;
	nanosleep(&ts, NULL);
	/* Buffered on a pipe: only exit(3), not a bare exit_group, prints it. */
	printf("worker done\n");
	return NULL;
}

int
main(int argc, char **argv)
{
	const char *mode;
	struct rusage ru;

	if (argc < 3)
		return 2;
	mode = argv[1];
	exit_work(atof(argv[2]));
	printf("cpu %.6f\n", burn_process_cpu());
	/* What a busy machine did to the run: the bound on the samples grows with it. */
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		printf("preemptions %ld\n", ru.ru_nivcsw);
	fflush(stdout);
	if (strcmp(mode, "exit") == 0)
		exit(7);
	if (strcmp(mode, "_exit") == 0)
		_exit(8);
	if (strcmp(mode, "return") == 0)
		return 9;
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "segv") == 0) {
		int *volatile bad = (int *)(uintptr_t)8;

		*bad = 1;
	}
	if (strcmp(mode, "bus") == 0) {
		/* A file mapping past the end of its file: the access raises SIGBUS. */
		FILE *f = tmpfile();
		volatile char *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fileno(f), 0);

		if (p != MAP_FAILED)
			(void)p[4096];
	}
	if (strcmp(mode, "int") == 0)
		raise(SIGINT);
	if (strcmp(mode, "term") == 0)
		raise(SIGTERM);
	if (strcmp(mode, "kill") == 0)
		raise(SIGKILL);
	if (strcmp(mode, "pthread_exit") == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, last_worker, NULL) != 0)
			return 1;
		pthread_exit(NULL);
	}
	if (strcmp(mode, "exec") == 0 && argc > 3) {
		execvp(argv[3], argv + 3);
		return 126;
	}
	return 1;
}
