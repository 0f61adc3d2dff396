/*
 * dlcycle - dlopens and dlcloses PLUGIN N times, then prints the cycles and the peak resident
 * memory (VmHWM, KiB) and exits 0.  usage: dlcycle PLUGIN N
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	{
		FILE *f = fopen("/proc/self/status", "r");
		char line[256];

		while (f != NULL && fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "VmHWM:", 6) == 0)
				printf("hwm %ld\n", atol(line + 6));
		if (f != NULL)
			fclose(f);
	}
	return 0;
}
