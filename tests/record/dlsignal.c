/*
 * dlsignal - one thread dlopens and dlcloses PLUGIN without end, so it spends most of its time
 * inside the recorder's lock (every dlopen and dlclose re-reads the mappings); after SECONDS
 * the main thread sends that thread SIGTERM.  usage: dlsignal PLUGIN SECONDS
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *plugin;

static void *
loop(void *unused)
{
	(void)unused;
	for (;;) {
		void *h = dlopen(plugin, RTLD_NOW);

		if (h != NULL)
			dlclose(h);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct timespec ts;
	pthread_t t;
	double s;

	if (argc < 3)
		return 2;
	plugin = argv[1];
	s = atof(argv[2]);
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	if (pthread_create(&t, NULL, loop, NULL) != 0)
		return 3;
	nanosleep(&ts, NULL);
	pthread_kill(t, SIGTERM);
	pause();
	return 1;
}
