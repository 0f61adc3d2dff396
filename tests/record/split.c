/*
 * split - burns the CPU 50/25/15/10 across four functions: main_work50 and main_work10 in this
 * PIE, lib_work25 in a linked shared library, plugin_work15 in a library it dlopens and
 * dlcloses before exiting.  Rounds interleave the four so the split holds at any length.
 * usage: split SECONDS PLUGIN_PATH, or split -n BLOCKS PLUGIN_PATH for a fixed amount of work
 * (BLOCKS blocks of the burners' loop, 50/25/15/10, in 20 rounds).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burn.h"

BURNER(main_work50)
BURNER(main_work10)
void lib_work25(double s);
void lib_work25_blocks(unsigned long n);

static int
fixed_work(unsigned long blocks, void *h)
{
	void (*plugin)(unsigned long);
	unsigned long r = blocks / 20;
	int i;

	*(void **)&plugin = dlsym(h, "plugin_work15_blocks");
	if (plugin == NULL || r < 20)
		return 1;
	for (i = 0; i < 20; i++) {
		main_work50_blocks(r * 50 / 100);
		lib_work25_blocks(r * 25 / 100);
		plugin(r * 15 / 100);
		main_work10_blocks(r * 10 / 100);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int fixed = argc > 3 && strcmp(argv[1], "-n") == 0;
	double total = argc > 1 ? atof(argv[1]) : 1.0, round = 0.040;
	const char *path = argv[fixed ? 3 : 2];
	void (*plugin)(double);
	void *h;
	int i, rounds = (int)(total / round + 0.5);

	if (argc < 3)
		return 2;
	h = dlopen(path, RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "split: %s\n", dlerror());
		return 1;
	}
	*(void **)&plugin = dlsym(h, "plugin_work15");
	if (fixed) {
		if (fixed_work(strtoul(argv[2], NULL, 10), h) != 0)
			return 2;
		rounds = 0;
	}
	for (i = 0; i < rounds; i++) {
		main_work50(round * 0.50);
		lib_work25(round * 0.25);
		plugin(round * 0.15);
		main_work10(round * 0.10);
	}
	dlclose(h);
	printf("cpu %.6f\n", burn_process_cpu());
	return 0;
}
