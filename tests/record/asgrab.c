/*
 * asgrab - maps 1 MiB blocks of address space (never touched) until mmap fails, as a program
 * that sizes itself to RLIMIT_AS would, and prints how many it got.  usage: asgrab
 */
#include <stdio.h>
#include <sys/mman.h>

int
main(void)
{
	unsigned long n = 0;

	while (n < 1UL << 20 && mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
		n++;
	printf("blocks %lu\n", n);
	return 0;
}
