/*
 * outdir.c - the output directory of `profil record` (outdir.h): one recording per directory.
 * Two runs into one directory used to read back as one ("2 processes") with no word said.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "format/format.h"
#include "outdir.h"
#include "report/escape.h"

struct profil_cmd_outdir_entry {
	char *name;
	ino_t ino;
	struct timespec mtime;
	off_t size;
};

enum outdir_kind {
	OUTDIR_EMPTY,
	OUTDIR_RECORDING,	/* the recorders' files alone */
	OUTDIR_OTHER,		/* anything else: never moved, never emptied */
};

/* A profile's name, as the recorders write it and `profil report` reads it. */
static int
is_profile_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 7 && strcmp(name + n - 7, ".profil") == 0;
}

/* Whether the n characters at s are decimal digits, at least one. */
static int
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

/*
 * A writer's temporary, left by a run killed while writing: ".<prog>.<pid>.<serial>.tmp", the
 * name both recorders make (src/outside/images.c, src/record/flush.c); prog is never empty.
 * Any hidden ".tmp" was taken for one, and an editor's draft went with the recording.
 */
static int
is_temporary_name(const char *name)
{
	size_t n = strlen(name), end, dot;

	if (name[0] != '.' || n < 9 || strcmp(name + n - 4, ".tmp") != 0)
		return 0;
	end = n - 4;
	for (dot = end; dot > 1 && name[dot - 1] != '.'; dot--)
		;
	if (dot <= 1 || !all_digits(name + dot, end - dot))
		return 0;
	end = dot - 1;
	for (dot = end; dot > 1 && name[dot - 1] != '.'; dot--)
		;
	return dot > 2 && all_digits(name + dot, end - dot);
}

/*
 * Whether name in dfd is a recorder's file: a regular file, and a temporary or a profile that
 * starts as one does.  The magic is read rather than trusting the name: a file of the user's
 * that happens to end in .profil keeps its directory from being moved.  A temporary may also
 * be empty, when the run was killed before its first write.
 */
static int
is_recording_file(int dfd, const char *name)
{
	char magic[8];
	struct stat st;
	int fd, ok, tmp = is_temporary_name(name);

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (tmp && st.st_size == 0)
		return 1;
	if (!tmp && !is_profile_name(name))
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	    memcmp(magic, PROFIL_FORMAT_MAGIC, sizeof(magic)) == 0;
	close(fd);
	return ok;
}

/* A DIR stream of dfd's directory of its own, dfd staying open. */
static DIR *
dir_stream(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp;

	if (fd < 0)
		return NULL;
	dp = fdopendir(fd);
	if (dp == NULL)
		close(fd);
	return dp;
}

static int
is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* What the directory dfd holds (enum outdir_kind), or -errno. */
static int
classify(int dfd)
{
	struct dirent *d;
	int kind = OUTDIR_EMPTY;
	DIR *dp = dir_stream(dfd);

	if (dp == NULL)
		return -errno;
	while ((d = readdir(dp)) != NULL) {
		if (is_dot(d->d_name))
			continue;
		if (!is_recording_file(dfd, d->d_name)) {
			kind = OUTDIR_OTHER;
			break;
		}
		kind = OUTDIR_RECORDING;
	}
	closedir(dp);
	return kind;
}

/*
 * Removes the recording directory dfd, at path, file by file: each is checked again before it
 * goes, so a file that appeared since it was classified stays, and so does the directory.
 */
static int
remove_recording(int dfd, const char *path)
{
	struct dirent *d;
	DIR *dp = dir_stream(dfd);
	int r = 0;

	if (dp == NULL)
		return -errno;
	while (r == 0 && (d = readdir(dp)) != NULL) {
		if (is_dot(d->d_name))
			continue;
		if (!is_recording_file(dfd, d->d_name))
			r = -ENOTEMPTY;
		else if (unlinkat(dfd, d->d_name, 0) != 0 && errno != ENOENT)
			r = -errno;
	}
	closedir(dp);
	if (r == 0 && rmdir(path) != 0)
		r = -errno;
	return r;
}

static void
error_errno(const char *what, int e, const char *subject)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s (%s)", what, strerror(e));
	profil_cmd_error(msg, subject);
}

/*
 * Locks the directory dfd for the recording being written in it, for as long as dfd stays
 * open: 0, or 1 when another recording holds it.  Where the filesystem cannot lock (NFS takes
 * flock(2) on a read-only descriptor as EBADF) the recording goes on unguarded, as before.
 */
static int
lock_dir(int dfd)
{
	return flock(dfd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

/*
 * Whether the directory dfd is where a filesystem is mounted (or the root), which rename(2)
 * cannot move (EBUSY).  A bind mount within one filesystem is not seen here; its rename fails,
 * before anything else was changed.
 */
static int
is_mount_point(int dfd)
{
	struct stat st, parent;

	if (fstat(dfd, &st) != 0 || fstatat(dfd, "..", &parent, 0) != 0)
		return 0;
	return st.st_dev != parent.st_dev || st.st_ino == parent.st_ino;
}

/*
 * Moves the recording at path (no trailing slash) to path.old, replacing an older one there.
 * Nothing there, or an empty directory: nothing to do.  Returns 0, or 1 after a message.
 */
static int
rotate(const char *path)
{
	char old[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	int kind, r, dfd, ofd = -1, ret = 1;

	/* Missing or no directory: open_output() makes it, or says why it cannot. */
	if (lstat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && (errno == ENOTDIR || errno == ENOENT))
		return 0;
	/* Moved, a recording still being written would go on in DIR.old, and be removed next. */
	if (dfd >= 0 && lock_dir(dfd)) {
		profil_cmd_error("output directory is in use by another recording", path);
		goto out;
	}
	kind = dfd < 0 ? -errno : classify(dfd);
	if (kind < 0) {
		error_errno("cannot read output directory", -kind, path);
		goto out;
	}
	if (kind == OUTDIR_EMPTY) {
		ret = 0;
		goto out;
	}
	if (kind == OUTDIR_OTHER) {
		profil_cmd_error("output directory holds other files than profiles, left as it is "
		    "(another -o, or --append to add to it)", path);
		goto out;
	}
	/* Moving a link would not move the recording it leads to; nor is another's ours to move. */
	if (S_ISLNK(st.st_mode)) {
		profil_cmd_error("output directory is a symbolic link to a recording, left as it "
		    "is (--append adds to it)", path);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		profil_cmd_error("output directory is another user's recording, left as it is "
		    "(another -o, or --append to add to it)", path);
		goto out;
	}
	if (is_mount_point(dfd)) {
		profil_cmd_error("output directory is a mount point, which cannot be renamed, left "
		    "as it is (another -o, or --append to add to it)", path);
		goto out;
	}
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.old.%ld.tmp", path, (long)getpid()) >=
	    sizeof(tmp)) {
		profil_cmd_error("output directory name too long", path);
		goto out;
	}
	if (lstat(old, &st) == 0) {
		ofd = S_ISDIR(st.st_mode) ? open(old, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC) : -1;
		if (ofd >= 0 && lock_dir(ofd)) {
			profil_cmd_error("output directory is in use by another recording", old);
			goto out;
		}
		kind = ofd >= 0 ? classify(ofd) : OUTDIR_OTHER;
		if (kind == OUTDIR_OTHER || st.st_uid != geteuid()) {
			profil_cmd_error("the previous recording's place holds something else, "
			    "left as it is (another -o, or --append)", old);
			goto out;
		}
		if (kind < 0) {
			error_errno("cannot remove the older recording", -kind, old);
			goto out;
		}
	} else if (errno != ENOENT) {
		error_errno("cannot keep the previous recording", errno, old);
		goto out;
	}
	if (ofd < 0) {
		if (rename(path, old) != 0)
			error_errno("cannot keep the previous recording", errno, path);
		else
			ret = 0;
		goto out;
	}
	/*
	 * The move that can still fail comes before the older recording goes (a bind mount is
	 * busy, say): moved aside first under a name of ours, and put back if the rest fails.
	 * Killed half way, the recording is under that name, not lost.
	 */
	if (rename(path, tmp) != 0) {
		error_errno("cannot keep the previous recording", errno, path);
		goto out;
	}
	r = remove_recording(ofd, old);
	if (r < 0) {
		error_errno("cannot remove the older recording", -r, old);
		rename(tmp, path);
		goto out;
	}
	if (rename(tmp, old) != 0) {
		error_errno("cannot keep the previous recording", errno, old);
		rename(tmp, path);
		goto out;
	}
	ret = 0;
out:
	if (ofd >= 0)
		close(ofd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/*
 * The directory, made if missing, opened for the *at() calls.  A symbolic link there is
 * followed only if it is the user's own: one planted by another user is refused.
 */
static int
open_output(const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		error_errno("cannot create output directory", errno, dir);
		return -1;
	}
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != geteuid()) {
		profil_cmd_error("output directory is another user's symbolic link", dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		error_errno("cannot open output directory", errno, dir);
		return -1;
	}
	/*
	 * Held until profil ends, which is after the program it runs ends, so it guards the
	 * in-process recorder's files too.  --append waits its turn as well: two runs adding at
	 * once would each count the other's files as its own at the end.
	 */
	if (lock_dir(fd)) {
		profil_cmd_error("output directory is in use by another recording", dir);
		close(fd);
		return -1;
	}
	return fd;
}

/* The profiles there now, to tell this run's apart at the end. */
static int
remember(struct profil_cmd_outdir *d)
{
	struct profil_cmd_outdir_entry *grown;
	struct dirent *e;
	struct stat st;
	DIR *dp = dir_stream(d->fd);

	if (dp == NULL)
		return -errno;
	while ((e = readdir(dp)) != NULL) {
		if (!is_profile_name(e->d_name) ||
		    fstatat(d->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		grown = realloc(d->before, (d->nbefore + 1) * sizeof(*grown));
		if (grown == NULL)
			break;
		d->before = grown;
		grown[d->nbefore].name = strdup(e->d_name);
		if (grown[d->nbefore].name == NULL)
			break;
		grown[d->nbefore].ino = st.st_ino;
		grown[d->nbefore].mtime = st.st_mtim;
		grown[d->nbefore].size = st.st_size;
		d->nbefore++;
	}
	closedir(dp);
	return 0;
}

int
profil_cmd_outdir_open(struct profil_cmd_outdir *d, const char *path, int append)
{
	char base[PATH_MAX];
	const char *last;
	size_t n = strlen(path);

	memset(d, 0, sizeof(*d));
	d->path = path;
	d->fd = -1;
	/* "out/" is "out": its old copy is "out.old", and a trailing slash would follow a link. */
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(base)) {
		profil_cmd_error("output directory name too long", path);
		return 1;
	}
	memcpy(base, path, n);
	base[n] = '\0';
	/*
	 * "." or "..": no rename(2) moves the current directory or its parent, and "-o ." worked
	 * once, then failed for ever with a subject of "..old".  Adding to it needs no move.
	 */
	last = strrchr(base, '/');
	last = last != NULL ? last + 1 : base;
	if (!append && is_dot(last)) {
		profil_cmd_error("output directory cannot be renamed to keep one recording per "
		    "directory (name it, or --append to add to it)", path);
		return 1;
	}
	if (!append && rotate(base) != 0)
		return 1;
	d->fd = open_output(path);
	if (d->fd < 0)
		return 1;
	if (append && remember(d) != 0) {
		error_errno("cannot read output directory", errno, path);
		profil_cmd_outdir_release(d);
		return 1;
	}
	return 0;
}

int
profil_cmd_outdir_is_new(const struct profil_cmd_outdir *d, const char *name,
    const struct stat *st)
{
	size_t i;

	for (i = 0; i < d->nbefore; i++) {
		const struct profil_cmd_outdir_entry *e = &d->before[i];

		if (strcmp(e->name, name) == 0)
			return e->ino != st->st_ino || e->size != st->st_size ||
			    e->mtime.tv_sec != st->st_mtim.tv_sec ||
			    e->mtime.tv_nsec != st->st_mtim.tv_nsec;
	}
	return 1;
}

/* "52 KB": bytes as a person reads them. */
static void
human_size(uint64_t bytes, char *out, size_t cap)
{
	if (bytes < 1024)
		snprintf(out, cap, "%" PRIu64 " bytes", bytes);
	else if (bytes < 1024 * 1024)
		snprintf(out, cap, "%.0f KB", (double)bytes / 1024);
	else if (bytes < 1024ULL * 1024 * 1024)
		snprintf(out, cap, "%.1f MB", (double)bytes / (1024 * 1024));
	else
		snprintf(out, cap, "%.1f GB", (double)bytes / (1024 * 1024 * 1024));
}

void
profil_cmd_outdir_summary(const struct profil_cmd_outdir *d)
{
	char path[PATH_MAX], size[32], shown[PATH_MAX + 64];
	uint64_t samples = 0, bytes = 0;
	size_t files = 0, i, n = strlen(d->path);
	struct profil_file *f;
	struct dirent *e;
	struct stat st;
	DIR *dp = dir_stream(d->fd);

	if (dp == NULL)
		return;
	while ((e = readdir(dp)) != NULL) {
		if (!is_profile_name(e->d_name) ||
		    fstatat(d->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !profil_cmd_outdir_is_new(d, e->d_name, &st))
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->path, e->d_name);
		/* As the report counts: a file it reads is a process, its counts its samples. */
		if (profil_file_read(path, &f, NULL, 0) != 0)
			continue;
		files++;
		bytes += (uint64_t)st.st_size;
		for (i = 0; i < f->nsamples; i++)
			samples = samples + f->samples[i].count < samples ? UINT64_MAX :
			    samples + f->samples[i].count;
		profil_file_free(f);
	}
	closedir(dp);
	human_size(bytes, size, sizeof(size));
	fprintf(stderr, "profil: %zu process%s, %" PRIu64 " sample%s, %s in %s%s\n", files,
	    files == 1 ? "" : "es", samples, samples == 1 ? "" : "s", size,
	    profil_escape(d->path, shown, sizeof(shown)),
	    n > 0 && d->path[n - 1] == '/' ? "" : "/");
}

void
profil_cmd_outdir_release(struct profil_cmd_outdir *d)
{
	size_t i;

	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	for (i = 0; i < d->nbefore; i++)
		free(d->before[i].name);
	free(d->before);
	d->before = NULL;
	d->nbefore = 0;
}

void
profil_cmd_outdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

int
profil_cmd_outdir_private(struct profil_cmd_outdir *d, char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/%s.XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp", name);
	if (mkdtemp(dir) == NULL) {
		profil_cmd_error("cannot make a directory for the recording", strerror(errno));
		return 1;
	}
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (profil_cmd_outdir_open(d, dir, 0) != 0) {
		rmdir(dir);
		return 1;
	}
	return 0;
}
