/*
 * forkdl - three threads dlopen and dlclose PLUGIN 400 times each while the main thread forks
 * 60 children, each of which dlopens PLUGIN once and exits; prints "done" when every child
 * exited 0.  With -g the recorder rebuilds its unwind tables at each dlopen and dlclose, and a
 * fork must never leave the child a lock held by a thread it does not have.  (glibc's loader
 * is not fork-safe: a child forked while another thread is inside dlopen may hang in its own
 * dlopen, so the program keeps its forks and its dlopen calls apart with a mutex.)
 * usage: forkdl PLUGIN
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *plugin;
static pthread_mutex_t loader = PTHREAD_MUTEX_INITIALIZER;

static void *
cycle(void *unused)
{
	(void)unused;
	for (int i = 0; i < 400; i++) {
		void *h;

		pthread_mutex_lock(&loader);
		h = dlopen(plugin, RTLD_NOW);
		pthread_mutex_unlock(&loader);
		pthread_mutex_lock(&loader);
		if (h != NULL)
			dlclose(h);
		pthread_mutex_unlock(&loader);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[3];
	int i, st;

	if (argc < 2)
		return 2;
	plugin = argv[1];
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, cycle, NULL) != 0)
			return 1;
	for (i = 0; i < 60; i++) {
		pid_t p;

		pthread_mutex_lock(&loader);
		p = fork();
		if (p != 0)
			pthread_mutex_unlock(&loader);
		if (p == 0) {
			void *h = dlopen(plugin, RTLD_NOW);

			if (h != NULL)
				dlclose(h);
			_exit(0);
		}
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
			return 1;
	}
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
