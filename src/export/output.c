/*
 * output.c - output files written under a temporary name and renamed into place, so that a
 * reader (or a crash half-way) never leaves a truncated gmon.out or profile behind.
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

int
profil_output_open(struct profil_output *o, const char *path)
{
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
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
	(void)fchmod(fd, creation_mode());
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
