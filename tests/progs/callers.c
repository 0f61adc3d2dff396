/*
 * callers - a workload whose call stacks and CPU split are known by construction, for the
 * export tests: main calls left() and right(); both call hot_a, right also calls hot_b through
 * a function inlined into it.  Shares of CPU time:
 *
 *	main;left;hot_a			0.1875
 *	main;right;hot_a		0.1875
 *	main;right;right_inner;hot_b	0.625	(right_inner is inlined into right)
 *
 * so hot_a has 0.375 of the samples and hot_b 0.625.  usage: callers [SECONDS] (default 0.8).
 */
#include <stdlib.h>

#include "work.h"

HOT(hot_a)
HOT(hot_b)

static double total = 0.8;

/* noinline and a use after the call: each caller keeps its own frame and return address. */
__attribute__((noinline)) static int
left(void)
{
	hot_a(total * 0.1875);
	return 1;
}

static inline __attribute__((always_inline)) int
right_inner(void)
{
	hot_b(total * 0.625);
	return 2;
}

__attribute__((noinline)) static int
right(void)
{
	int r;

	hot_a(total * 0.1875);
	r = right_inner();
	return r + 1;
}

int
main(int argc, char **argv)
{
	volatile int r;

	if (argc > 1)
		total = atof(argv[1]);
	r = left();
	r += right();
	return r == 4 ? 0 : 1;
}
