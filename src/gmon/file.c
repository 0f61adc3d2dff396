/*
 * The output file, which is also the profile buffer.  The rules are OpenBSD's: the name
 * gmon.<progname>.<pid>.out, in the directory fixed at start; mode 0600; O_NOFOLLOW; a file
 * that belongs to someone else is never clobbered.  Everything here is raw system calls: the
 * file moves in a fork(2) child and grows from mcount, where only async-signal-safe calls do.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/append.h"
#include "base/write.h"
#include "gmon.h"

static atomic_size_t file_len;	/* bytes the file has now: it only grows until exit */

/*
 * Gives [0, end) of the file its disk blocks now.  The file is the buffer, mapped shared: a
 * first store into a hole that the filesystem cannot fill raises SIGBUS in mcount or the tick
 * handler, so no page may stay a hole.  Mode 0 also extends the file and never shrinks it.
 * A filesystem without fallocate(2) gets a sparse file as before: its last byte written, which
 * never shrinks it either.  Returns 0 or -errno.
 */
static int
file_reserve(int fd, size_t end)
{
	char zero = 0;

	if (end == 0 || fallocate(fd, 0, 0, (off_t)end) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	if (pwrite(fd, &zero, 1, (off_t)end - 1) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

/* OpenBSD profil(2): "The kernel then constructs a pathname gmon.progname.pid.out". */
void
profil_gmon_name(char *out, size_t len, pid_t pid)
{
	const char *prog = program_invocation_short_name;
	size_t at;

	if (prog == NULL || *prog == '\0')
		prog = "a.out";
	at = profil_append(out, 0, len, "gmon.");
	at = profil_append(out, at, len, prog);
	at = profil_append(out, at, len, ".");
	at = profil_append_uint(out, at, len, (unsigned long)pid);
	profil_append(out, at, len, ".out");
}

void
profil_gmon_warn(const char *what, const char *subject)
{
	char line[512];
	size_t at;
	ssize_t r;

	at = profil_append(line, 0, sizeof(line) - 1, "profil: gmon: ");
	at = profil_append(line, at, sizeof(line) - 1, what);
	at = profil_append(line, at, sizeof(line) - 1, ": '");
	at = profil_append(line, at, sizeof(line) - 1, subject);
	at = profil_append(line, at, sizeof(line) - 1, "'");
	line[at++] = '\n';
	r = write(STDERR_FILENO, line, at);
	(void)r;
}

/*
 * Opens (creating if need be) name in dirfd for the profile and sizes it to len bytes of
 * zeros, every block allocated.  Returns the descriptor or -errno: -ELOOP for a symbolic link
 * (O_NOFOLLOW), -EPERM for a file of another owner, not a regular file or with another name
 * too, which are left as they are; -ENOSPC when the filesystem has no room for it.
 */
int
profil_gmon_file_create(int dirfd, const char *name, size_t len)
{
	struct stat st;
	int fd, e;

	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		e = -errno;
		goto fail;
	}
	/*
	 * A hard link at the name (protected_hardlinks=0) could make a set-user-ID program
	 * truncate a file of its owner elsewhere, such as /etc/shadow; OpenBSD's gmon.c refuses
	 * a file with more than one link too.
	 */
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		e = -EPERM;
		goto fail;
	}
	if (ftruncate(fd, 0) != 0 || fchmod(fd, 0600) != 0) {
		e = -errno;
		goto fail;
	}
	e = file_reserve(fd, len);
	if (e < 0) {
		/* Ours and truncated already: no empty file is left to look like a profile. */
		unlinkat(dirfd, name, 0);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return e;
}

/* Maps maplen bytes of fd shared (the tail beyond the file is only touched once it grows). */
int
profil_gmon_file_map(int fd, size_t filelen, size_t maplen, void *at, unsigned char **out)
{
	void *p;

	(void)filelen;
	p = mmap(at, maplen, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_NORESERVE | (at != NULL ? MAP_FIXED : 0), fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

/*
 * Makes the file at least end bytes long, all of it allocated (file_reserve()).  fallocate
 * never shrinks, so threads that grow it at the same time cannot cut each other's tables
 * (ftruncate could).  Returns 0 or -errno (-ENOSPC: the caller goes without the new table).
 */
int
profil_gmon_file_grow(size_t end)
{
	size_t cur = atomic_load(&file_len);
	int r;

	if (end <= cur)
		return 0;
	r = file_reserve(profil_gmon_rt.fd, end);
	if (r < 0)
		return r;
	while (cur < end && !atomic_compare_exchange_weak(&file_len, &cur, end))
		;
	return 0;
}

/* Where the data ends now, for exit. */
size_t
profil_gmon_file_length(void)
{
	return atomic_load(&file_len);
}

void
profil_gmon_file_set_length(size_t len)
{
	atomic_store(&file_len, len);
}

/*
 * Moves the profile to a new file in dirfd named for the current pid: a fork(2) child writes
 * its own file ("A forked child keeps profiling and writes its own file"), and a later
 * profil_gmon() call may name another directory.  The data so far is copied, then the new file
 * is mapped over the old mapping at the same address, so every pointer into the buffer (the
 * engine's bins, the threads' tables) stays right.  Returns 0 or -errno; on failure the old
 * mapping is left in place.
 */
int
profil_gmon_file_relocate(int dirfd)
{
	struct profil_gmon *g = &profil_gmon_rt;
	size_t len = atomic_load(&file_len);
	unsigned char *p;
	char name[sizeof(g->name)];
	int fd, r;

	profil_gmon_name(name, sizeof(name), getpid());
	fd = profil_gmon_file_create(dirfd, name, 0);
	if (fd < 0)
		return fd;
	r = profil_write_all(fd, g->buf, len);
	if (r < 0)
		goto fail;
	r = profil_gmon_file_map(fd, len, g->buflen, g->buf, &p);
	if (r < 0)
		goto fail;
	close(g->fd);
	g->fd = fd;
	memcpy(g->name, name, sizeof(name));
	return 0;
fail:
	close(fd);
	unlinkat(dirfd, name, 0);
	return r;
}
