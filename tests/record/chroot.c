/*
 * chroot - burns SECONDS of CPU, half before and half after chroot(2) into NEWROOT (an empty
 * directory) and chdir("/"), then prints its CPU time and exits 0.  Exits 77 if chroot is not
 * permitted here.  usage: chroot NEWROOT SECONDS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn.h"

BURNER(before_work)
BURNER(after_work)

int
main(int argc, char **argv)
{
	double s;

	if (argc < 3)
		return 2;
	s = atof(argv[2]);
	before_work(s / 2);
	if (chroot(argv[1]) != 0) {
		printf("chroot: errno %d\n", errno);
		return 77;
	}
	if (chdir("/") != 0)
		return 1;
	after_work(s / 2);
	printf("cpu %.6f\n", burn_process_cpu());
	return 0;
}
