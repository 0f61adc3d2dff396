/*
 * exec HOW API HZ SPIN - starts profil(3) or pcsample(2) at HZ, burns CPU so ticks are flowing,
 * then replaces itself with SPIN (tests/progs/spin) by the exec function HOW.  pcsample(2):
 * sampling "is disabled by a call to one of the exec family of functions"; the new image must
 * run to completion, never killed by a tick (itimers survive execve: "Profiling timer expired").
 * HOW "threads" execs while a second thread burns CPU; "fork" execs in a forked child.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "work.h"

HOT(busy)

extern char **environ;

static void *
burner(void *arg)
{
	(void)arg;
	for (;;)
		busy(1.0);
	return NULL;
}

static int
do_exec(const char *how, const char *spin)
{
	char *argv[] = { (char *)spin, "0.2", NULL };

	if (strcmp(how, "execv") == 0 || strcmp(how, "threads") == 0 || strcmp(how, "fork") == 0)
		return execv(spin, argv);
	if (strcmp(how, "execve") == 0)
		return execve(spin, argv, environ);
	if (strcmp(how, "execvp") == 0)
		return execvp(spin, argv);
	if (strcmp(how, "execvpe") == 0)
		return execvpe(spin, argv, environ);
	if (strcmp(how, "execl") == 0)
		return execl(spin, spin, "0.2", (char *)NULL);
	if (strcmp(how, "execlp") == 0)
		return execlp(spin, spin, "0.2", (char *)NULL);
	if (strcmp(how, "execle") == 0)
		return execle(spin, spin, "0.2", (char *)NULL, environ);
	if (strcmp(how, "fexecve") == 0)
		return fexecve(open(spin, O_RDONLY | O_CLOEXEC), argv, environ);
	fprintf(stderr, "exec: unknown HOW '%s'\n", how);
	return -1;
}

int
main(int argc, char **argv)
{
	static unsigned short bins[1 << 16];
	static uintptr_t samples[1 << 16];
	pthread_t t;
	pid_t pid;
	int status;

	if (argc < 5)
		return 2;
	profil_rate_set((unsigned int)atoi(argv[3]), PROFIL_CLOCK_AUTO);
	if (strcmp(argv[2], "pcsample") == 0)
		pcsample(samples, 1 << 16);
	else
		profil(bins, sizeof(bins), HOT_START(busy), 65536);
	if (strcmp(argv[1], "threads") == 0)
		pthread_create(&t, NULL, burner, NULL);
	busy(0.1);
	if (strcmp(argv[1], "fork") == 0) {
		pid = fork();
		if (pid == 0) {
			busy(0.1);
			do_exec(argv[1], argv[4]);
			_exit(126);
		}
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "exec: child killed by signal %d\n", WTERMSIG(status));
			return 128 + WTERMSIG(status);
		}
		return WEXITSTATUS(status);
	}
	do_exec(argv[1], argv[4]);
	perror("exec");
	return 126;
}
