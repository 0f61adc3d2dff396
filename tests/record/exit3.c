/*
 * exit3 - burns SECONDS of CPU, prints "done" and exits 3: a status of its own, which a
 * profiler must leave as it is.
 * usage: exit3 SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

BURNER(exit3_work)

int
main(int argc, char **argv)
{
	exit3_work(argc > 1 ? atof(argv[1]) : 0.3);
	printf("done\n");
	return 3;
}
