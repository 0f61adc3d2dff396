/*
 * waitfp.c - a thread that waits in read(2) inside a function framed by rbp (CFA = rbp + 16,
 * built -fno-omit-frame-pointer), whose unwind rule a waiting thread's registers from /proc
 * cannot follow: they give sp and pc, not rbp.  Before it waits, the same caller recurses
 * through stale() down the stack the waiting function's buffer then takes: its locals hold
 * frame records (saved rbp, return address) of calls that have returned, chained to the live
 * frames above, each one a walk that reaches main through a caller that is not the real one.
 *
 *   waitfp [LEN]     main -> outer -> waiter -> read(0): prints "ready PID" and blocks until
 *                    its standard input has a byte or ends, then prints "done".  With LEN,
 *                    waiter_vla, whose buffer is LEN bytes long.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

/* Frame records all the way down, each one a real call's, left behind when it returns. */
__attribute__((noinline, noipa)) static int
stale(int n)
{
	volatile char pad[24];
	int r;

	pad[0] = (char)n;
	r = n > 0 ? stale(n - 1) : sink;
	__asm__ volatile("" : : "r"(pad) : "memory");
	return r + pad[0];
}

/* Its buffer, never written before read returns, holds what stale() left. */
__attribute__((noinline, noipa)) static long
waiter(int fd)
{
	char buf[1024];
	long n = read(fd, buf, 1);

	__asm__ volatile("" : : "r"(buf) : "memory");
	return n;
}

/*
 * The same with a buffer of variable length: rsp moves after the prologue, so rbp is not sp
 * plus what the prologue takes.  Of len 48 * k, the slot that would be rbp holds the k-th
 * of stale()'s records (each of its frames is 48 bytes: a record and 32 of room).
 */
__attribute__((noinline, noipa)) static int
same(int x)
{
	return x;
}

__attribute__((noinline, noipa)) static long
waiter_vla(int fd, int len)
{
	volatile int fixed[4];
	int m = same(len);
	char buf[m];
	long n;

	fixed[0] = fd;
	n = read(fixed[0], buf, 1);

	__asm__ volatile("" : : "r"(buf) : "memory");
	return n;
}

__attribute__((noinline, noipa)) static long
outer(int depth, int vla)
{
	long n;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sink += stale(depth);
	n = vla > 0 ? waiter_vla(0, vla) : waiter(0);
	__asm__ volatile("" : : : "memory");
	return n;
}

int
main(int argc, char **argv)
{
	long n = outer(16, argc > 1 ? atoi(argv[1]) : 0);

	printf("done %ld\n", n);
	return 0;
}
