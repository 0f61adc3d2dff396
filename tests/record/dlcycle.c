/*
 * dlcycle - dlopens and dlcloses PLUGIN N times, then exits 0.  usage: dlcycle PLUGIN N
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	long i, n;

	if (argc < 3)
		return 2;
	n = atol(argv[2]);
	for (i = 0; i < n; i++) {
		void *h = dlopen(argv[1], RTLD_NOW);

		if (h == NULL)
			return 1;
		dlclose(h);
	}
	printf("cycles %ld\n", n);
	return 0;
}
