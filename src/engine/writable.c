/*
 * Probe that a buffer can be read and written, without faulting and without changing it: each
 * chunk goes through a pipe and back into place, and the kernel answers EFAULT where we would
 * have crashed.  The pages' EFAULT ("The buffer samples contains an invalid address") becomes a
 * check at the call, because a fault in the signal handler would kill the program.
 * Async-signal-safe: pipe2, write, read and close only.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "engine.h"

#define CHUNK 4096	/* well under the pipe's capacity, so a write never blocks */

int
profil_memory_writable(void *p, size_t len)
{
	char *c = p;
	int fds[2], r = 0;

	if (len == 0)
		return 0;
	if ((uintptr_t)c + len < (uintptr_t)c)
		return -EFAULT;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	while (len > 0) {
		size_t n = len < CHUNK ? len : CHUNK;
		ssize_t w = write(fds[1], c, n);

		if (w != (ssize_t)n) {
			r = -EFAULT;
			break;
		}
		if (read(fds[0], c, n) != (ssize_t)n) {
			r = -EFAULT;
			break;
		}
		c += n;
		len -= n;
	}
	close(fds[0]);
	close(fds[1]);
	return r;
}
