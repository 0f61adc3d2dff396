/*
 * allsignals - takes every real-time signal for a handler of its own, as the Go runtime does,
 * then burns SECONDS of CPU and exits 0.  With "raw" it goes past any interposed sigaction(3)
 * (glibc's __sigaction, as Go's raw rt_sigaction), after the burn's first tenth.
 * usage: allsignals SECONDS [raw]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burn.h"

BURNER(own_work)

extern int __sigaction(int, const struct sigaction *, struct sigaction *);

static void
on_signal(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)si;
	(void)uc;
}

int
main(int argc, char **argv)
{
	int raw = argc > 2 && strcmp(argv[2], "raw") == 0;
	struct sigaction sa;
	double s;
	int i;

	if (argc < 2)
		return 2;
	s = atof(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (raw)
		own_work(s / 10);
	for (i = SIGRTMIN; i <= SIGRTMAX; i++)
		if ((raw ? __sigaction(i, &sa, NULL) : sigaction(i, &sa, NULL)) != 0)
			return 1;
	own_work(raw ? s * 9 / 10 : s);
	printf("done\n");
	return 0;
}
