/*
 * deleted - dlopens LIB, then unlinks it and leaves a FIFO named "LIB (deleted)", the name
 * /proc/self/maps now shows for the mapping; exits 0.  usage: deleted LIB
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char fifo[4096];

	if (argc < 2 || dlopen(argv[1], RTLD_NOW) == NULL)
		return 2;
	snprintf(fifo, sizeof(fifo), "%s (deleted)", argv[1]);
	if (unlink(argv[1]) != 0 || mkfifo(fifo, 0600) != 0)
		return 1;
	printf("fifo planted\n");
	return 0;
}
