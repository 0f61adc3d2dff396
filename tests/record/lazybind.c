/*
 * lazybind LIBRARY N - N times: dlopen LIBRARY lazily, call its lz_all() and dlclose it.  t2103
 * gives it a library whose lz_all() calls each of 2000 functions once through the library's
 * PLT, so that the run is spent in ld.so's lazy binding: its trampoline keeps the CFA in rbx.
 * Prints the sum of what lz_all() returned.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long
cycle(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	int (*all)(void);
	long s;

	if (h == NULL) {
		fprintf(stderr, "lazybind: %s\n", dlerror());
		exit(1);
	}
	*(void **)&all = dlsym(h, "lz_all");
	if (all == NULL) {
		fprintf(stderr, "lazybind: no lz_all\n");
		exit(1);
	}
	s = all();
	dlclose(h);
	return s;
}

int
main(int argc, char **argv)
{
	long s = 0;
	int n;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: lazybind LIBRARY N\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		s += cycle(argv[1]);
	printf("%ld\n", s);
	return 0;
}
