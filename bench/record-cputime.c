/*
 * record-cputime - runs a command and prints "wall_us cpu_us" for it and every descendant it
 * waited for (wait4's rusage, microseconds: /usr/bin/time rounds to 10 ms, too coarse to price
 * one sample) into OUT.  Used by bench/record.sh.  usage: record-cputime OUT COMMAND [ARGS...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	pid_t pid;

	FILE *out;

	if (argc < 3)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	out = fopen(argv[1], "w");
	if (out == NULL)
		return 1;
	fprintf(out, "%ld %ld\n",
	    (long)((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000),
	    (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
	    (long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
	if (fclose(out) != 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
