/*
 * --wall's waits for a CPU (src/cfi/waiting.c), exact: run_delay from schedstat, the periods
 * each tick counts (the time before the first read left out, a remainder owed to the next
 * tick, the wait for a CPU that ends a counted wait left to that wait), and the sample they
 * are counted with (the leaf, the stack of the last CPU sample, held back while none is known,
 * cut at the depth limit).
 */
#include "cfi/frame.c"
#include "cfi/read.c"
#include "cfi/table.c"
#include "cfi/object.c"
#include "cfi/fpproof.c"
#include "cfi/waiting.c"

#include "../tap.h"

#define MS	1000000ULL
#define PERIOD	(10 * MS)

int
main(void)
{
	struct profil_wait_cpu c;
	uint64_t runs = 0, delay = 0, n, pcs[8];
	size_t depth;

	n = (uint64_t)profil_wait_runs("123456 7890 42\n", &runs, &delay);
	tap_check(n == 0 && runs == 42 && delay == 7890, "schedstat: run count %llu, run_delay %llu",
	    (unsigned long long)runs, (unsigned long long)delay);
	tap_check(profil_wait_runs("123456 7890\n", &runs, &delay) < 0, "schedstat cut: refused");

	memset(&c, 0, sizeof(c));
	n = profil_wait_cpu_periods(&c, 500 * MS, 3, 5, PERIOD);
	tap_check(n == 0, "the first read is the start: the time before is not counted (%llu)",
	    (unsigned long long)n);
	n = profil_wait_cpu_periods(&c, 525 * MS, 5, 9, PERIOD);
	tap_check(n == 2 && c.owed == (int64_t)(5 * MS), "25 ms: 2 periods, 5 ms owed (%llu, %lld)",
	    (unsigned long long)n, (long long)c.owed);
	n = profil_wait_cpu_periods(&c, 530 * MS, 9, 10, PERIOD);
	tap_check(n == 1 && c.owed == 0, "5 ms more: the owed ms make a period (%llu)",
	    (unsigned long long)n);
	n = profil_wait_cpu_periods(&c, 560 * MS, 10, 11, PERIOD);
	tap_check(n == 3, "a wait read afresh, then 30 ms for a CPU: all counted (%llu)",
	    (unsigned long long)n);
	c.recounts = 50;
	n = profil_wait_cpu_periods(&c, 585 * MS, 11, 12, PERIOD);
	tap_check(n == 0 && c.owed == (int64_t)(5 * MS) && c.frac == 5 * MS && c.recounts == 0,
	    "recounted, then 25 ms for a CPU: 2 periods the recounts counted, a half carried "
	    "(%llu)", (unsigned long long)n);
	c.recounts = 50;
	n = profil_wait_cpu_periods(&c, 590 * MS, 12, 13, PERIOD);
	tap_check(n == 0 && c.owed == 0 && c.frac == 0,
	    "5 ms more after recounts: with the half carried, one period off (%llu, %lld)",
	    (unsigned long long)n, (long long)c.owed);
	c.recounts = 1;
	n = profil_wait_cpu_periods(&c, 650 * MS, 13, 15, PERIOD);
	tap_check(n == 5 && c.owed == 0 && c.frac == 0,
	    "one recount, two runs: at most one period off the first run's 30 ms (%llu, %lld)",
	    (unsigned long long)n, (long long)c.owed);
	n = profil_wait_cpu_periods(&c, 100 * MS, 15, 16, PERIOD);
	tap_check(n == 0, "run_delay going back (another thread's tid): a new start (%llu)",
	    (unsigned long long)n);

	memset(&c, 0, sizeof(c));
	n = 3;
	depth = profil_wait_cpu_place(&c, pcs, 1, 8, &n, 100);
	tap_check(depth == 0 && c.unplaced == 3, "no CPU sample yet: held back");
	pcs[1] = 0x1000;
	pcs[2] = 0x2000;
	n = 2;
	depth = profil_wait_cpu_place(&c, pcs, 3, 8, &n, 100);
	tap_check(depth == 3 && n == 5 && pcs[0] == PROFIL_PC_WAIT_CPU && pcs[1] == 0x1000 &&
	    c.unplaced == 0, "with a stack: the leaf over it, the held periods with it");
	c.unplaced = 100;
	n = 1;
	depth = profil_wait_cpu_place(&c, pcs, 1, 8, &n, 100);
	tap_check(depth == 2 && n == 101 && pcs[1] == PROFIL_PC_CUT_STACK,
	    "held back long enough: counted, the stack said unknown");
	n = 1;
	for (size_t i = 1; i < 8; i++)
		pcs[i] = 0x1000 + i;
	depth = profil_wait_cpu_place(&c, pcs, 8, 8, &n, 100);
	tap_check(depth == 8 && pcs[7] == PROFIL_PC_CUT_DEPTH, "at the depth limit: cut");
	n = 1;
	depth = profil_wait_cpu_place(&c, pcs, 1, 1, &n, 100);
	tap_check(depth == 1 && pcs[0] == PROFIL_PC_WAIT_CPU, "without stacks: the leaf alone");

	/* The same wait goes on while the thread is not put on a CPU: counted again. */
	memset(&c, 0, sizeof(c));
	runs = 0;
	tap_check(!profil_wait_goes_on(&c, &runs, 7, 0, 1) && runs == 7 && c.recounts == 0,
	    "no stack kept: the wait is read afresh, its run count noted");
	tap_check(profil_wait_goes_on(&c, &runs, 7, 1, 3) && c.recounts == 3,
	    "the run count unchanged: the same wait, counted again");
	tap_check(!profil_wait_goes_on(&c, &runs, 8, 1, 1) && runs == 8 && c.recounts == 0,
	    "put on a CPU since: read afresh, the recounts restart");
	tap_check(!profil_wait_goes_on(&c, &runs, 0, 1, 1) && !profil_wait_goes_on(&c, &runs, 0, 1,
	    1), "a kernel without schedstats (zeros): never the same wait");
	tap_check(profil_wait_leaf(PROFIL_WAIT_DISK, 7) == PROFIL_PC_WAIT(PROFIL_WAIT_DISK, 7) &&
	    profil_wait_leaf(PROFIL_WAIT_SLEEPING, -1) ==
	    PROFIL_PC_WAIT(PROFIL_WAIT_SLEEPING, PROFIL_WAIT_NO_SYSCALL) &&
	    profil_wait_leaf(PROFIL_WAIT_SLEEPING, 5000) ==
	    PROFIL_PC_WAIT(PROFIL_WAIT_SLEEPING, PROFIL_WAIT_NO_SYSCALL),
	    "the leaf: state and system call, none for a page fault or a number out of range");
	return tap_done();
}
