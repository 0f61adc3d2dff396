/*
 * sigcgt - burns SECONDS of CPU, then prints "caught N" for every real-time signal the kernel
 * says has a handler (SigCgt in /proc/self/status: what no interposed sigaction can hide).
 * usage: sigcgt SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burn.h"

BURNER(sigcgt_work)

int
main(int argc, char **argv)
{
	unsigned long long mask = 0;
	char line[256];
	FILE *f;
	int s;

	if (argc < 2)
		return 2;
	sigcgt_work(atof(argv[1]));
	f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return 3;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "SigCgt:", 7) == 0)
			mask = strtoull(line + 7, NULL, 16);
	fclose(f);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (mask & (1ULL << (s - 1)))
			printf("caught %d\n", s);
	return 0;
}
