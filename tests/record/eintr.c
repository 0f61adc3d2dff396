/*
 * eintr - three threads block in read(2) on a pipe, poll(2) and nanosleep(2), counting every
 * EINTR they get, while the main thread burns the CPU for SECONDS.  Prints "eintr N".
 * With --control the main thread also sends SIGUSR1 (handler without SA_RESTART) to each
 * blocked thread, which must produce EINTRs: the counting itself is shown to work.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

BURNER(eintr_work)

static atomic_int eintrs;
static atomic_int done;
static int fds[2];

static void
on_usr1(int signo)
{
	(void)signo;
}

static void *
reader(void *unused)
{
	char c;

	(void)unused;
	while (!atomic_load(&done)) {
		if (read(fds[0], &c, 1) < 0 && errno == EINTR)
			atomic_fetch_add(&eintrs, 1);
	}
	return NULL;
}

static void *
poller(void *unused)
{
	struct pollfd p = { .fd = fds[0], .events = 0 };

	(void)unused;
	while (!atomic_load(&done))
		if (poll(&p, 1, 50) < 0 && errno == EINTR)
			atomic_fetch_add(&eintrs, 1);
	return NULL;
}

static void *
sleeper(void *unused)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	(void)unused;
	while (!atomic_load(&done))
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			atomic_fetch_add(&eintrs, 1);
	return NULL;
}

int
main(int argc, char **argv)
{
	int control = argc > 2 && strcmp(argv[2], "--control") == 0;
	void *(*fns[3])(void *) = { reader, poller, sleeper };
	struct sigaction sa;
	pthread_t t[3];
	int i, k;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(fds) != 0)
		return 1;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, fns[i], NULL);
	for (k = 0; k < 10; k++) {
		eintr_work((argc > 1 ? atof(argv[1]) : 1.0) / 10);
		for (i = 0; control && i < 3; i++)
			pthread_kill(t[i], SIGUSR1);
	}
	atomic_store(&done, 1);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("eintr %d\n", atomic_load(&eintrs));
	return 0;
}
