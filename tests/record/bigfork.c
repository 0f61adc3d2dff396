/*
 * bigfork - touches MIB megabytes, then forks N times while the CPU is busy, each child exiting
 * at once.  A tick arriving during the copy restarts fork() (ERESTARTNOINTR): unless the
 * profiling signal is blocked across fork, a large process can retry forever.
 * usage: bigfork MIB N; prints "forks N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

BURNER(bigfork_work)

int
main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	int n = argc > 2 ? atoi(argv[2]) : 10, i, done = 0;
	char *mem = malloc(mib << 20);

	if (mem == NULL)
		return 1;
	memset(mem, 1, mib << 20);
	for (i = 0; i < n; i++) {
		pid_t pid;
		int status;

		bigfork_work(0.01);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(mem[(size_t)i << 20]);
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
			done++;
	}
	printf("forks %d\n", done);
	return 0;
}
