/*
 * output.c - output files written under a temporary name and renamed into place, so that a
 * reader (or a crash half-way) never leaves a truncated gmon.out or profile behind; and only
 * over a regular file of the user's, with no other name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"

/* mkstemp(3) makes 0600; an export is an ordinary file, with the mode open(2) would give it.
 * Reading the umask means setting it: the command is single-threaded. */
static mode_t
creation_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/*
 * What may be at path, to be replaced by rename(2): nothing, or a regular file of ours with no
 * other name.  rename replaces the directory entry whatever it is, so without this check a
 * device node became a regular file (as root, -o /dev/null would replace the real one), a
 * symbolic link was replaced rather than followed or refused, another user's file in a shared
 * directory was taken over, and a hard link was split off.  *mode is the mode to give the new
 * file: the old file's (never wider), or open(2)'s for a fresh one.
 */
static int
check_target(const char *path, mode_t *mode)
{
	struct stat st;

	*mode = creation_mode();
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISREG(st.st_mode))
		return -EEXIST;
	if (st.st_uid != geteuid())
		return -EPERM;
	if (st.st_nlink > 1)
		return -EMLINK;
	*mode = st.st_mode & 07777;
	return 0;
}

const char *
profil_output_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "is a symbolic link, not replaced";
	case -EEXIST:
		return "exists and is not a regular file, not replaced";
	case -EPERM:
		return "belongs to another user, not replaced";
	case -EMLINK:
		return "has other hard links, not replaced";
	default:
		return strerror(-err);
	}
}

/*
 * The stream's writes: stdio keeps a flag of a failed write, not its errno, which the calls
 * after it overwrite (the exporters could only say "Input/output error" on a full disk).
 * The first errno is kept here for profil_output_commit and profil_output_abort to say.
 */
struct profil_output_sink {
	int fd;
	int owned;			/* fd is ours to close: the temporary's, not stdout */
	int error;			/* the first errno of a write, or 0 */
};

static ssize_t
sink_write(void *cookie, const char *buf, size_t n)
{
	struct profil_output_sink *s = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(s->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (s->error == 0)
				s->error = w < 0 ? errno : EIO;
			break;
		}
		done += (size_t)w;
	}
	/* Short: stdio marks the stream in error. */
	return (ssize_t)done;
}

/*
 * Standard output is not ours to close; the temporary's descriptor is, even when it is 1
 * (profil run with stdout closed): told by the flag, not the number.
 */
static int
sink_close(void *cookie)
{
	struct profil_output_sink *s = cookie;

	if (s->owned && close(s->fd) != 0 && s->error == 0)
		s->error = errno;
	return 0;
}

static int
sink_open(struct profil_output *o, int fd, int owned)
{
	static const cookie_io_functions_t io = { NULL, sink_write, NULL, sink_close };

	o->sink = calloc(1, sizeof(*o->sink));
	if (o->sink == NULL)
		return -ENOMEM;
	o->sink->fd = fd;
	o->sink->owned = owned;
	o->f = fopencookie(o->sink, "w", io);
	if (o->f == NULL) {
		free(o->sink);
		o->sink = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* err, or the errno of the write behind it when err is the -EIO of a stream in error. */
static int
sink_error(const struct profil_output *o, int err)
{
	if (o->sink != NULL && o->sink->error != 0 && (err == 0 || err == -EIO))
		return -o->sink->error;
	return err;
}

int
profil_output_open(struct profil_output *o, const char *path)
{
	mode_t mode;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		/* Whatever stdout holds goes first: the sink writes to its descriptor. */
		if (fflush(stdout) != 0)
			return -errno;
		return sink_open(o, STDOUT_FILENO, 0);
	}
	err = check_target(path, &mode);
	if (err != 0)
		return err;
	o->path = strdup(path);
	if (o->path == NULL || asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		free(o->path);
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		err = -errno;
		free(o->tmp);
		free(o->path);
		return err;
	}
	(void)fchmod(fd, mode);
	err = sink_open(o, fd, 1);
	if (err != 0) {
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		free(o->path);
		return err;
	}
	return 0;
}

int
profil_output_commit(struct profil_output *o)
{
	int err = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		err = -EIO;
	/* A file's blocks may be allocated only now (NFS, quotas): its close can fail too. */
	if (fclose(o->f) != 0 && err == 0)
		err = -EIO;
	err = sink_error(o, err);
	if (err == 0 && o->tmp != NULL && rename(o->tmp, o->path) != 0)
		err = -errno;
	if (err != 0 && o->tmp != NULL)
		unlink(o->tmp);
	free(o->sink);
	free(o->tmp);
	free(o->path);
	o->sink = NULL;
	o->f = NULL;
	return err;
}

int
profil_output_abort(struct profil_output *o, int err)
{
	if (o->f != NULL)
		fclose(o->f);
	err = sink_error(o, err);
	if (o->tmp != NULL)
		unlink(o->tmp);
	free(o->sink);
	free(o->tmp);
	free(o->path);
	o->sink = NULL;
	o->f = NULL;
	return err;
}
