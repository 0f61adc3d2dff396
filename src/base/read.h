/*
 * Reading a small text file whole (/proc, /sys) into a caller's buffer.  Inline and raw system
 * calls alone, no allocation: the in-process recorder's thread (src/record/wall.c) uses it as
 * the outside recorder does.
 */
#ifndef PROFIL_BASE_READ_H
#define PROFIL_BASE_READ_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * The start of the file at path, at most cap - 1 bytes, NUL-terminated: its length, or -1.
 * Opened non-blocking: a name in /proc or /sys is no promise that a FIFO is not there instead.
 */
static inline ssize_t
profil_read_text(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

#endif /* PROFIL_BASE_READ_H */
