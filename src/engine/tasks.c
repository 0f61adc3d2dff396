/*
 * The threads of the process, from /proc/self/task.  Async-signal-safe (no opendir, which
 * allocates): the engine's start, pcsample(2) from a handler and the recorder's fatal-signal
 * flush call it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine.h"

/* getdents64's record; glibc does not declare it. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Raw getdents64 with a buffer on the stack: opendir() would allocate. */
int
profil_threads_foreach(void (*fn)(pid_t tid, void *arg), void *arg)
{
	char buf[4096] __attribute__((aligned(8)));
	long n, off;
	int fd;

	fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;	/* no /proc (chroot): only the calling thread is armed */
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			const char *p = d->d_name;
			pid_t tid = 0;

			off += d->d_reclen;
			if (*p < '0' || *p > '9')
				continue;
			while (*p >= '0' && *p <= '9')
				tid = tid * 10 + (*p++ - '0');
			fn(tid, arg);
		}
	}
	close(fd);
	return 0;
}
