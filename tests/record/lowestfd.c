/*
 * lowestfd - keeps PLUGIN loaded while a second thread dlopens and dlcloses it again and again
 * (a reference count only: the C library opens nothing), and the main thread checks, N times,
 * what POSIX promises: open(2) returns the lowest free descriptor, the number it just closed.
 * Prints "moved K" (times the number was not the expected one) and exits 0.
 * usage: lowestfd PLUGIN N
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *plugin;
static atomic_int stop, started;

static void *
loop(void *unused)
{
	(void)unused;
	atomic_store(&started, 1);
	while (!atomic_load(&stop)) {
		void *h = dlopen(plugin, RTLD_NOW);

		if (h != NULL)
			dlclose(h);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	long i, n, moved = 0;
	pthread_t t;
	int fd, want;

	if (argc < 3)
		return 2;
	plugin = argv[1];
	n = atol(argv[2]);
	if (dlopen(plugin, RTLD_NOW) == NULL || pthread_create(&t, NULL, loop, NULL) != 0)
		return 1;
	/*
	 * The number is taken once the loop runs: a new thread's own clock (a perf event with
	 * the ring clock) is opened as it starts, a descriptor that then stays; what is checked
	 * is that the recorder takes none while the loop dlopens and dlcloses.
	 */
	while (!atomic_load(&started))
		sched_yield();
	want = open("/dev/null", O_RDONLY);
	close(want);
	for (i = 0; i < n; i++) {
		fd = open("/dev/null", O_RDONLY);
		if (fd != want)
			moved++;
		close(fd);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("moved %ld\n", moved);
	return 0;
}
