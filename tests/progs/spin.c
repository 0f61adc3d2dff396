/*
 * spin SECONDS - the new image of the exec tests: burns SECONDS of CPU, then exits 0 if no
 * real-time signal or SIGPROF is pending (a tick that crossed exec would be).  A stray tick with
 * its default action kills it before that, which the test sees as death by a signal.
 */
#include <signal.h>
#include <stdlib.h>

#include "work.h"

HOT(burn)

int
main(int argc, char **argv)
{
	sigset_t pending;
	int s;

	burn(argc > 1 ? atof(argv[1]) : 0.5);
	sigpending(&pending);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (sigismember(&pending, s))
			return 3;
	return sigismember(&pending, SIGPROF) ? 3 : 0;
}
