/*
 * Writing a whole buffer to a descriptor, and a file under a temporary name renamed over the
 * final one once complete, so the name holds a whole file or none.  Inline and raw system calls
 * alone, so the recorder's flush, which runs in fatal-signal handlers too, and the -pg runtime
 * use them as the command does.
 */
#ifndef PROFIL_BASE_WRITE_H
#define PROFIL_BASE_WRITE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>		/* renameat(2), a system call; no stdio is used */
#include <unistd.h>

/*
 * Writes all of p to fd, again after EINTR and after a short write: 0, or -errno (-EIO when
 * write(2) writes nothing).  AS-safe; errno is changed on failure only.
 */
static inline int
profil_write_all(int fd, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len > 0) {
		ssize_t w = write(fd, b, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Creates tmp in dirfd for writing, mode 0600: neither an existing file nor a symbolic link is
 * followed.  The descriptor, or -errno.  AS-safe.
 */
static inline int
profil_tmp_create(int dirfd, const char *tmp)
{
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

/*
 * Ends a file written to fd under tmp in dirfd, r the writing's result (0 or -errno): closes fd
 * and, all well, renames tmp over name; on any failure removes tmp.  0 or -errno.  AS-safe.
 */
static inline int
profil_tmp_commit(int dirfd, const char *tmp, const char *name, int fd, int r)
{
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) != 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

#endif
