/*
 * Opening a file named by input (a profile, a binary, a source file, a debug file): a FIFO, a
 * terminal or a device with that name must neither block the open nor be read, so the open is
 * non-blocking and only a regular file is kept, then read as usual (a regular file never
 * blocks, and the flag is cleared).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

int
profil_file_open_regular(const char *path, struct stat *st)
{
	struct stat own;
	int fd, e;

	if (st == NULL)
		st = &own;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
