/*
 * write.c - an image of the outside recorder as its profile file: a name made from its
 * program's (no '/', no control character), then the records from its tables, written to a
 * temporary file and renamed into place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session.h"

/* A file name from a program name: no '/', no control character, not "." or "..". */
static void
safe_name(const char *in, char *out, size_t cap)
{
	size_t i;

	for (i = 0; in[i] != '\0' && i + 1 < cap; i++) {
		unsigned char c = (unsigned char)in[i];

		out[i] = c == '/' || c < 0x20 || c == 0x7f ? '_' : (char)c;
	}
	out[i] = '\0';
	if (i == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, cap, "_");
}

static int
choose_name(struct profil_outside *s, struct profil_outside_image *im)
{
	char prog[PROFIL_FORMAT_MAX_NAME + 1], name[PROFIL_FORMAT_MAX_NAME + 64];
	struct stat st;
	unsigned int n;

	safe_name(im->progname, prog, sizeof(prog));
	for (n = 0; n < 10000; n++) {
		if (n == 0)
			snprintf(name, sizeof(name), "%s.%d.profil", prog, im->pid);
		else
			snprintf(name, sizeof(name), "%s.%d.%u.profil", prog, im->pid, n);
		if (fstatat(s->opts.dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
		    errno == ENOENT) {
			im->name = strdup(name);
			return im->name != NULL ? 0 : -ENOMEM;
		}
	}
	return -EEXIST;
}

static void
write_error(struct profil_outside *s, int e, const char *name)
{
	if (s->stats.write_error != 0)
		return;
	s->stats.write_error = e;
	snprintf(s->stats.write_error_path, sizeof(s->stats.write_error_path), "%s",
	    name != NULL ? name : "");
}

/*
 * The image's whole profile so far, under a temporary name (O_EXCL, O_NOFOLLOW, mode 0600)
 * renamed over its final one: the name never holds a partial file.  An image without samples
 * gets no file, unless it is the command's and no other file counts every image that ran.
 */
int
profil_outside_image_write(struct profil_outside *s, struct profil_outside_image *im)
{
	struct profil_writer *w = s->writer;
	struct profil_file_header h;
	char tmp[PROFIL_FORMAT_MAX_NAME + 96], prog[PROFIL_FORMAT_MAX_NAME + 1];
	size_t i;
	int fd, r;

	if ((im->samples == 0 && !im->always) || im->skip)
		return 0;
	if (im->name == NULL && (r = choose_name(s, im)) < 0) {
		write_error(s, -r, im->progname);
		return r;
	}
	safe_name(im->progname, prog, sizeof(prog));
	snprintf(tmp, sizeof(tmp), ".%s.%d.%u.tmp", prog, im->pid, s->serial++);
	fd = openat(s->opts.dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0) {
		r = -errno;
		write_error(s, -r, tmp);
		return r;
	}
	memset(&h, 0, sizeof(h));
	h.pid = (uint32_t)im->pid;
	h.ppid = im->ppid;
	h.requested_hz = s->opts.hz;
	h.clock = PROFIL_FILE_CLOCK_OUTSIDE;
	/* The kernel's timer ticks every period of the thread's CPU time, exactly. */
	h.achieved_mhz = (uint64_t)s->opts.hz * 1000;
	h.start_ns = im->start_ns;
	h.end_ns = im->end_ns > im->start_ns ? im->end_ns : im->start_ns;
	h.cpu_ns = im->samples * s->period_ns;
	profil_outside_system_update(im);
	h.system_ns = im->system_ns;
	h.samples = im->samples;
	h.ticks = im->samples;
	h.dropped = im->lost;
	h.exit_kind = im->exit_kind;
	h.exit_code = im->exit_code;
	h.flags = (s->opts.depth > 1 ? PROFIL_HDR_STACKS : 0) | (s->opts.wall ?
	    PROFIL_HDR_WALL | PROFIL_HDR_WAIT_CPU : 0) | (s->kernel ? PROFIL_HDR_KERNEL : 0) |
	    (im->system_known ? PROFIL_HDR_SYSTEM_NS : 0);
	h.max_depth = s->opts.depth;
	h.threads = (uint32_t)im->nthreads;
	h.progname = im->progname;
	h.exe = im->exe;
	profil_writer_init(w, fd);
	profil_writer_header(w, &h);
	for (i = 0; i < im->nmaps; i++)
		profil_writer_mapping(w, &im->maps[i].m);
	for (i = 0; i < im->nthreads; i++)
		profil_writer_thread(w, im->threads[i].tid, im->threads[i].name);
	profil_outside_jit_write(s, im, w);
	profil_outside_kernel_write(s, im, w);
	/* Images without samples get no file: the report learns from here how many ran. */
	profil_writer_processes(w, s->stats.processes);
	s->processes_written = s->stats.processes;
	profil_samples_write(&im->stacks, w);
	r = profil_writer_finish(w);
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(s->opts.dirfd, tmp, s->opts.dirfd, im->name) != 0)
		r = -errno;
	if (r < 0) {
		unlinkat(s->opts.dirfd, tmp, 0);
		write_error(s, -r, im->name);
		return r;
	}
	if (im->written == 0)
		s->stats.files++;
	im->written = im->samples;
	return 0;
}
