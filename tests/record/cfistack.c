/*
 * cfistack - call stacks of code without frame pointers (built -O2 -fomit-frame-pointer, as
 * Debian builds its libraries), each with a known truth for t2103:
 *   split SECONDS   leaf() through caller_a() for about 2 of every 3 calls, caller_b() for 1,
 *                   in random order; prints "calls A B", the leaf calls of each
 *   lib SECONDS     work inside libcfi.so (no frame pointers) reached through the PLT, and a
 *                   call so small that samples land in its PLT stub
 *   signal SECONDS  the work done in a SIGUSR1 handler that signal_loop() raises
 * Each burns about SECONDS of CPU time.  noinline, and work after each call, keep every
 * caller a real frame (no sibling calls).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long cfi_lib_work(unsigned long n);
unsigned long cfi_lib_tiny(unsigned long x);

static volatile unsigned long sink;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long
leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 20000; i++)
		x = x * 2654435761u + (x >> 7) + i;
	return x;
}

__attribute__((noinline)) static unsigned long
caller_a(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < 2 * n; i++)
		s += leaf(i);
	sink = s;
	return s * 3;
}

__attribute__((noinline)) static unsigned long
caller_b(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += leaf(i + 7);
	sink = s;
	return s * 5;
}

/*
 * The callers in random order (a fixed LCG), so that no clock that ticks in step with the
 * scheduler sees one more than its share; the leaf calls each made are printed, the truth.
 */
__attribute__((noinline)) static void
split(double secs)
{
	double end = cpu_now() + secs;
	unsigned long long a = 0, b = 0;
	uint32_t r = 12345;

	while (cpu_now() < end) {
		r = r * 1103515245u + 12345u;
		if ((r >> 16) & 1) {
			sink += caller_a(1);
			a += 2;
		} else {
			sink += caller_b(2);
			b += 2;
		}
		if ((r >> 17) & 1) {
			sink += caller_a(1);
			a += 2;
		}
	}
	printf("calls %llu %llu\n", a, b);
}

__attribute__((noinline)) static void
lib(double secs)
{
	double end = cpu_now() + secs;
	unsigned long x = 0;

	while (cpu_now() < end) {
		x += cfi_lib_work(x);
		for (int i = 0; i < 20000; i++)
			x = cfi_lib_tiny(x);
	}
	sink = x;
}

__attribute__((noinline)) static unsigned long
handler_work(void)
{
	return leaf(sink);
}

static void
on_usr1(int sig)
{
	(void)sig;
	sink += handler_work();
}

__attribute__((noinline)) static void
signal_loop(double secs)
{
	double end = cpu_now() + secs;

	while (cpu_now() < end)
		raise(SIGUSR1);
	sink++;
}

int
main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1.0;

	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "split") == 0) {
		split(secs);
	} else if (strcmp(argv[1], "lib") == 0) {
		lib(secs);
	} else if (strcmp(argv[1], "signal") == 0) {
		signal(SIGUSR1, on_usr1);
		signal_loop(secs);
	} else {
		return 2;
	}
	printf("%lu\n", sink & 1);
	return 0;
}
