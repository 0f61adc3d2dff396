/*
 * waits - threads that wait, for t2105 (profil record --wall):
 *   thirds S   the main thread burns the CPU for S seconds of wall time in burn() (on a CPU
 *              or waiting for one, under load), sleeps S in snooze() (nanosleep) and blocks
 *              about S in blocked_read() (read on a pipe that a writer thread fills S after
 *              snooze ends): a third of its wall time each, whatever else runs; then prints
 *              "eintr N", the times a system call of its failed with EINTR.
 *   reasons S  three threads wait S: lock_waiter() on a mutex main holds, poll_waiter() in
 *              poll on a silent pipe, and main in waitpid for a child that sleeps S.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static int eintr;
static double secs;
static int data[2], go[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
sleep_for(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		if (errno == EINTR)
			eintr++;
}

__attribute__((noinline)) static void
burn(double s)
{
	double end = now() + s;

	/* Read the clock every ~100 us, so that the time is the loop's. */
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink++;
}

__attribute__((noinline)) static void
snooze(double s)
{
	sleep_for(s);
	sink++;
}

__attribute__((noinline)) static void
blocked_read(void)
{
	char c;
	ssize_t n;

	while ((n = read(data[0], &c, 1)) < 0 && errno == EINTR)
		eintr++;
	if (n != 1)
		abort();
	sink++;
}

static void *
writer(void *arg)
{
	char c;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		abort();
	sleep_for(secs);
	if (write(data[1], "x", 1) != 1)
		abort();
	return NULL;
}

__attribute__((noinline)) static void
thirds(void)
{
	pthread_t t;

	if (pipe(data) != 0 || pipe(go) != 0 || pthread_create(&t, NULL, writer, NULL) != 0)
		abort();
	burn(secs);
	snooze(secs);
	if (write(go[1], "g", 1) != 1)
		abort();
	blocked_read();
	pthread_join(t, NULL);
	printf("eintr %d\n", eintr);
}

__attribute__((noinline)) static void *
lock_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

__attribute__((noinline)) static void *
poll_waiter(void *arg)
{
	struct pollfd p = { data[0], POLLIN, 0 };

	(void)arg;
	poll(&p, 1, (int)(secs * 1000));
	return NULL;
}

__attribute__((noinline)) static void
reasons(void)
{
	pthread_t a, b;
	pid_t child;
	int status;

	if (pipe(data) != 0)
		abort();
	pthread_mutex_lock(&lock);
	if (pthread_create(&a, NULL, lock_waiter, NULL) != 0 ||
	    pthread_create(&b, NULL, poll_waiter, NULL) != 0)
		abort();
	child = fork();
	if (child == 0) {
		sleep_for(secs);
		_exit(0);
	}
	waitpid(child, &status, 0);
	pthread_mutex_unlock(&lock);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("eintr %d\n", eintr);
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	secs = atof(argv[2]);
	if (strcmp(argv[1], "thirds") == 0)
		thirds();
	else if (strcmp(argv[1], "reasons") == 0)
		reasons();
	else
		return 2;
	return 0;
}
