/*
 * output.c - output files written under a temporary name and renamed into place, so that a
 * reader (or a crash half-way) never leaves a truncated gmon.out or profile behind; and only
 * over a regular file of the user's, with no other name.
 */
#include <errno.h>
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

int
profil_output_open(struct profil_output *o, const char *path)
{
	mode_t mode;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
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
	o->f = fdopen(fd, "w");
	if (o->f == NULL) {
		err = -errno;
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

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno != 0 ? -errno : -EIO;
	if (o->tmp == NULL)
		return err;
	if (fclose(o->f) != 0 && err == 0)
		err = -errno;
	if (err == 0 && rename(o->tmp, o->path) != 0)
		err = -errno;
	if (err != 0)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->f = NULL;
	return err;
}

void
profil_output_abort(struct profil_output *o)
{
	if (o->tmp == NULL)
		return;
	fclose(o->f);
	unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->f = NULL;
}
