/*
 * syscalls N - a program that spends about half its CPU time in the kernel, for t2024: N
 * reads of 64 KiB from /dev/zero (the kernel clears the buffer: read_zero), each followed by
 * some arithmetic of its own in user space (spin).  Prints "stime S utime U", its own CPU
 * times as the kernel counted them (getrusage), in seconds.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile unsigned long sink;

static void __attribute__((noinline))
spin(void)
{
	for (int i = 0; i < 8000; i++)
		sink += (unsigned long)i * 7;
}

int
main(int argc, char **argv)
{
	static char buf[65536];
	long n = argc > 1 ? atol(argv[1]) : 20000;
	struct rusage ru;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
		spin();
	}
	close(fd);
	getrusage(RUSAGE_SELF, &ru);
	printf("stime %ld.%06ld utime %ld.%06ld\n", (long)ru.ru_stime.tv_sec,
	    (long)ru.ru_stime.tv_usec, (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
	return 0;
}
