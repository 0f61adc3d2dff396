/*
 * split - burns the CPU 50/25/15/10 across four functions: main_work50 and main_work10 in this
 * PIE, lib_work25 in a linked shared library, plugin_work15 in a library it dlopens and
 * dlcloses before exiting.  Rounds interleave the four so the split holds at any length.
 * usage: split SECONDS PLUGIN_PATH
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

BURNER(main_work50)
BURNER(main_work10)
void lib_work25(double s);

int
main(int argc, char **argv)
{
	double total = argc > 1 ? atof(argv[1]) : 1.0, round = 0.040;
	void (*plugin)(double);
	void *h;
	int i, rounds = (int)(total / round + 0.5);

	if (argc < 3)
		return 2;
	h = dlopen(argv[2], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "split: %s\n", dlerror());
		return 1;
	}
	*(void **)&plugin = dlsym(h, "plugin_work15");
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
