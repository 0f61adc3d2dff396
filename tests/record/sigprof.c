/*
 * sigprof - a program with its own SIGPROF handler and ITIMER_PROF at 100 Hz; burns SECONDS
 * and prints how many SIGPROFs it received.  usage: sigprof SECONDS
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "burn.h"

BURNER(sigprof_work)

static atomic_int profs;

static void
on_prof(int signo)
{
	(void)signo;
	atomic_fetch_add(&profs, 1);
}

int
main(int argc, char **argv)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	sigprof_work(argc > 1 ? atof(argv[1]) : 1.0);
	printf("sigprof %d\n", atomic_load(&profs));
	return 0;
}
