/*
 * The outside recorder's session: started on a command before it execs, or attached to
 * running processes; read, snapshotted and finished by cmd/record.c's loop.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

int
profil_outside_new(const struct profil_outside_opts *o, struct profil_outside **out)
{
	struct profil_outside *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	s->writer = malloc(sizeof(*s->writer));
	if (s->writer == NULL) {
		free(s);
		return -ENOMEM;
	}
	s->opts = *o;
	if (s->opts.depth == 0)
		s->opts.depth = 1;
	if (s->opts.depth > PROFIL_FORMAT_MAX_DEPTH)
		s->opts.depth = PROFIL_FORMAT_MAX_DEPTH;
	/*
	 * The kernel writes the whole copy size into the ring for every sample, however little
	 * of the stack is used: above 1 kHz the default shrinks with the rate (down to 4 KiB), so
	 * that the bytes a second stay what 1 kHz writes.
	 */
	if (s->opts.stack_copy == 0 && s->opts.hz > 1000)
		s->opts.stack_copy = PROFIL_OUTSIDE_STACK_COPY * 1000 / s->opts.hz < 4096 ? 4096 :
		    PROFIL_OUTSIDE_STACK_COPY * 1000 / s->opts.hz;
	if (s->opts.stack_copy == 0)
		s->opts.stack_copy = PROFIL_OUTSIDE_STACK_COPY;
	/* The kernel's limit: a record's size is 16 bits, and the copy a multiple of 8. */
	if (s->opts.stack_copy > PROFIL_OUTSIDE_STACK_COPY_MAX)
		s->opts.stack_copy = PROFIL_OUTSIDE_STACK_COPY_MAX;
	s->opts.stack_copy &= ~7u;
	s->period_ns = 1000000000ULL / (o->hz > 0 ? o->hz : 1000);
	s->kernel = !o->user_only;
	s->realtime_offset = (int64_t)profil_clock_ns(CLOCK_REALTIME) -
	    (int64_t)profil_monotonic_ns();
	s->last_read = profil_monotonic_ns();
	s->self = getpid();
	*out = s;
	return 0;
}

int
profil_outside_start(struct profil_outside *s, pid_t pid, char *err, size_t errlen)
{
	int r;

	s->root = pid;
	r = profil_outside_rings_open(s, pid, 1, err, errlen);
	/*
	 * With stack copies, now, while the command waits for its exec and the rings are empty
	 * (profil_outside_kernel_names).  After the rings: the first event says whether the
	 * kernel is sampled at all.
	 */
	if (r == 0)
		profil_outside_kernel_names(s);
	return r;
}

/* A process of user space: a kernel thread has no executable to name. */
static int
user_process(pid_t pid)
{
	char path[64], exe[16];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return readlink(path, exe, sizeof(exe)) > 0 || errno != ENOENT;
}

int
profil_outside_system(struct profil_outside *s, pid_t root, char *err, size_t errlen)
{
	struct dirent *d;
	DIR *dir;
	int r;

	s->root = root;
	/* Every process may be sampled in the kernel (the probe's condition): names first. */
	profil_outside_kernel_names(s);
	r = profil_outside_rings_open(s, -1, 0, err, errlen);
	if (r < 0)
		return r;
	/*
	 * The command, forked and held before its exec, runs profil's code until then: described
	 * now, while /proc still shows it so, its samples are left out as profil's own are.
	 * Described later, at its first sample, /proc would show the program it became.
	 */
	if (root > 0) {
		struct profil_outside_image *im = profil_outside_image_of(s, root, 1);

		if (im == NULL)
			return -ENOMEM;
		im->skip = 1;
	}
	if (!s->opts.wall)
		return 0;
	/*
	 * Waiting threads are sampled in the processes known: with --wall, every one there is
	 * now, described after the events are on so that a later mapping comes as a record.
	 */
	dir = opendir("/proc");
	while (dir != NULL && (d = readdir(dir)) != NULL) {
		pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);

		if (pid > 0 && pid != s->self && pid != root && user_process(pid) &&
		    profil_outside_image_of(s, pid, 1) == NULL)
			r = -ENOMEM;
	}
	if (dir != NULL)
		closedir(dir);
	return r;
}

/*
 * Every thread of pid gets its events, and the list is read again until no thread appears
 * that has none: a thread made by one already followed is followed by inheritance, one made
 * by another in the meantime is found by the next reading.
 */
int
profil_outside_attach(struct profil_outside *s, pid_t pid, char *err, size_t errlen)
{
	struct profil_outside_image *im;
	char path[64];
	pid_t *done = NULL;
	size_t ndone = 0, cap = 0, i;
	int added, r = 0, threads = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	do {
		struct dirent *d;
		DIR *dir = opendir(path);

		if (dir == NULL) {
			r = -errno;
			snprintf(err, errlen, "no such process");
			break;
		}
		added = 0;
		while (r == 0 && (d = readdir(dir)) != NULL) {
			pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

			if (tid <= 0)
				continue;
			for (i = 0; i < ndone && done[i] != tid; i++)
				;
			if (i < ndone)
				continue;
			if (ndone == cap) {
				pid_t *p;

				cap = cap ? cap * 2 : 16;
				p = realloc(done, cap * sizeof(*p));
				if (p == NULL) {
					r = -ENOMEM;
					break;
				}
				done = p;
			}
			done[ndone++] = tid;
			added = 1;
			if (s->nrings == 0)
				r = profil_outside_rings_open(s, tid, 0, err, errlen);
			else
				r = profil_outside_event_add(s, tid, err, errlen);
			/* A thread that ended meanwhile is no error. */
			if (r == -ESRCH)
				r = 0;
			else if (r == 0)
				threads++;
		}
		closedir(dir);
	} while (r == 0 && added);
	free(done);
	if (r < 0)
		return r;
	/* The kernel's names (profil_outside_start): the rings are live, but not read yet. */
	profil_outside_kernel_names(s);
	/* Described after the events are on: a later mapping comes as a record. */
	im = profil_outside_image_of(s, pid, 0);
	if (im == NULL)
		im = profil_outside_image_of(s, pid, 1);
	return im != NULL ? threads : -ENOMEM;
}

void
profil_outside_snapshot(struct profil_outside *s)
{
	size_t i;

	for (i = 0; i < s->npids; i++) {
		struct profil_outside_image *im = s->pids[i].image;

		if (im != NULL && im->samples != im->written)
			profil_outside_image_write(s, im);
	}
}

void
profil_outside_status(struct profil_outside *s, pid_t pid, int status)
{
	struct profil_outside_image *im = profil_outside_image_of(s, pid, 0);

	if (im == NULL)
		return;
	im->hold = 0;
	/*
	 * The command's file comes last: without samples it is still written when it alone can
	 * say how many images ran (the others without samples had no file), and its exit.
	 */
	im->always = s->stats.processes > s->processes_written;
	if (WIFSIGNALED(status))
		profil_outside_image_end(s, im, PROFIL_EXIT_SIGNAL, WTERMSIG(status));
	else
		profil_outside_image_end(s, im, PROFIL_EXIT_NORMAL, WEXITSTATUS(status));
}

void
profil_outside_exited(struct profil_outside *s, pid_t pid)
{
	struct profil_outside_image *im = profil_outside_image_of(s, pid, 0);

	if (im != NULL)
		profil_outside_system_update(im);
}

/* Every image still open ends as it is; held ones (the command) too when all is set. */
static void
end_all(struct profil_outside *s, int held)
{
	size_t i;

	for (i = 0; i < s->npids; i++) {
		struct profil_outside_image *im = s->pids[i].image;

		if (im != NULL && (held || !im->hold))
			profil_outside_image_end(s, im, im->exit_kind, im->exit_code);
	}
}

void
profil_outside_finish(struct profil_outside *s)
{
	if (s->rings != NULL)
		profil_outside_events_close(s);
	end_all(s, 0);
}

void
profil_outside_stats(const struct profil_outside *s, struct profil_outside_stats *st)
{
	*st = s->stats;
	st->kernel = s->kernel;
}

void
profil_outside_set_dirfd(struct profil_outside *s, int dirfd)
{
	s->opts.dirfd = dirfd;
}

void
profil_outside_free(struct profil_outside *s)
{
	if (s == NULL)
		return;
	profil_outside_finish(s);
	end_all(s, 1);
	free(s->pids);
	profil_index_release(&s->pid_index);
	profil_outside_objects_free(s);
	profil_outside_kernel_free(s);
	free(s->queue);
	free(s->arena);
	free(s->writer);
	free(s);
}
