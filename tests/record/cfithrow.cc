// cfithrow - C++ exceptions thrown through frames of code without frame pointers (built -O2
// -fomit-frame-pointer), for t2103: most samples land in the C++ runtime's unwinder (libgcc_s,
// libstdc++), whose stacks must still reach main.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

static volatile unsigned long sink;

static double
cpu_now()
{
	timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

__attribute__((noinline)) static void
thrower(int depth)
{
	if (depth == 0)
		throw std::runtime_error("deep");
	thrower(depth - 1);
	sink++;
}

__attribute__((noinline)) static void
catcher(double secs)
{
	double end = cpu_now() + secs;

	while (cpu_now() < end) {
		try {
			thrower(20);
		} catch (const std::exception &e) {
			sink += e.what()[0];
		}
	}
}

int
main(int argc, char **argv)
{
	catcher(argc > 1 ? atof(argv[1]) : 1.0);
	std::printf("%lu\n", sink & 1);
	return 0;
}
