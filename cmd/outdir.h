/*
 * outdir.h - the output directory of `profil record`: one recording per directory.  A new
 * recording moves the one already there to DIR.old, as perf keeps perf.data.old; --append adds
 * to it instead.  A directory that holds anything but profiles is never moved nor emptied.
 * The profiles there before the run are remembered, so that what is said at the end (notes,
 * the summary line) speaks of this run's alone.  Internal to the profil command.
 */
#ifndef PROFIL_CMD_OUTDIR_H
#define PROFIL_CMD_OUTDIR_H

#include <stddef.h>
#include <sys/stat.h>

struct profil_cmd_outdir_entry;

struct profil_cmd_outdir {
	const char *path;			/* as given */
	int fd;					/* the directory, for the recorders' *at() calls */
	struct profil_cmd_outdir_entry *before;	/* profiles there before this run (--append) */
	size_t nbefore;
};

/*
 * profil_cmd_outdir_open - makes path the directory of a new recording: created if missing;
 * a recording there is renamed path.old (an older path.old, itself a recording, removed), unless
 * append.  An empty directory is used as it is.  A directory holding other files, a mount
 * point, a last component "." or "..", or a path.old that is not a recording, is left
 * untouched and refused, with one message on stderr, as is another user's symbolic link.  The
 * directory stays locked (flock) until d->fd is closed, by release or profil's exit: a
 * directory, or a path.old, that another recording holds is refused, with append too.
 * Returns 0, or 1 (the exit status) after the message.
 */
int profil_cmd_outdir_open(struct profil_cmd_outdir *d, const char *path, int append);

/* Whether the profile name (in d, with its stat st) was written by this run. */
int profil_cmd_outdir_is_new(const struct profil_cmd_outdir *d, const char *name,
    const struct stat *st);

/*
 * profil_cmd_outdir_summary - one line on stderr for the end of a recording: this run's
 * profiles (processes), their samples and bytes, and where, counted as `profil report` counts
 * them.
 */
void profil_cmd_outdir_summary(const struct profil_cmd_outdir *d);

/* Closes the directory and forgets the list. */
void profil_cmd_outdir_release(struct profil_cmd_outdir *d);

/*
 * profil_cmd_outdir_private - a private recording (profil top's, profil serve's): a new
 * directory $TMPDIR/<name>.XXXXXX (default /tmp), its path in dir (len bytes), opened as d.
 * Returns 0, or 1 (the exit status) after a message, nothing left behind.
 */
int profil_cmd_outdir_private(struct profil_cmd_outdir *d, char *dir, size_t len,
    const char *name);

/*
 * profil_cmd_outdir_remove - removes a private recording (profil top's, profil serve's): what
 * the recorder wrote there (profiles, temporaries), and the directory.
 */
void profil_cmd_outdir_remove(const char *dir);

#endif /* PROFIL_CMD_OUTDIR_H */
