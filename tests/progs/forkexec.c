/*
 * forkexec SPIN N - a threaded program that keeps forking children that exec while its threads
 * tick at 20 kHz.  A child is a copy of the moment of fork: a tick handler another thread was
 * running then never finishes in the child, and the child's exec must not wait for it.  Each
 * child gets 5 s; one that does not exit in time counts as hung.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

static volatile int done;

static void *
burn(void *arg)
{
	(void)arg;
	while (!done)
		hot_a(0.01);
	return NULL;
}

int
main(int argc, char **argv)
{
	static unsigned short bins[1 << 16];
	int n = argc > 2 ? atoi(argv[2]) : 300, i, hung = 0, bad = 0;
	pthread_t t[3];

	if (argc < 2)
		return 2;
	profil_rate_set(20000, PROFIL_CLOCK_PERF);
	profil(bins, sizeof(bins), HOT_START(hot_a), 65536);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		int status, waited;

		if (pid == 0) {
			execl(argv[1], argv[1], "0", (char *)NULL);
			_exit(126);
		}
		for (waited = 0; waited < 500; waited++) {
			struct timespec ts = { 0, 10000000 };

			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			nanosleep(&ts, NULL);
		}
		if (waited == 500) {
			hung++;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			bad++;
		}
	}
	done = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	tap_check(hung == 0 && bad == 0, "%d fork+exec children of a ticking threaded process: "
	    "%d hung, %d failed", n, hung, bad);
	return tap_done();
}
