/*
 * forkexec - the parent burns parent_work; a fork child burns child_work, then execs
 * PROGRAM ARGS... (a second workload); the parent waits.  usage: forkexec SECONDS PROGRAM ARGS...
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

BURNER(parent_work)
BURNER(child_work)

int
main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.3;
	int status;
	pid_t pid;

	if (argc < 3)
		return 2;
	parent_work(s / 2);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_work(s);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	parent_work(s / 2);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("child %d status %d\n", (int)pid, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
