/*
 * reaper - a program with a thread that reaps every child it sees (waitpid(-1), as a process
 * supervisor's), which calls profil(3): under a seccomp filter, no child of profiling's may
 * be made in it, for that thread could take it.  Prints profil(3)'s result and what the
 * thread reaped.  usage: reaper
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int stop, started, reaped;

static void *
reap(void *unused)
{
	int status;

	atomic_store(&started, 1);
	while (!atomic_load(&stop))
		if (waitpid(-1, &status, WNOHANG | __WALL) > 0)
			atomic_fetch_add(&reaped, 1);
	return unused;
}

static unsigned short bins[1 << 12];

int
main(void)
{
	pthread_t t;
	int r, e;

	if (pthread_create(&t, NULL, reap, NULL) != 0)
		return 1;
	while (!atomic_load(&started))
		;
	errno = 0;
	r = profil(bins, sizeof(bins), (size_t)main & ~(size_t)0xffff, 65536);
	e = errno;
	usleep(20000);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("profil %d %s\nreaped %d\n", r, r < 0 ? strerror(e) : "", atomic_load(&reaped));
	return 0;
}
