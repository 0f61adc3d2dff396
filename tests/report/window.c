/*
 * window.c - src/fleet/window.c on profiles written here with known counts: a window is what
 * each file gained since the mark, per (thread, epoch, stack), duplicates summed; an image that
 * had ended at the mark adds nothing, one that started since adds all it has; pruning removes
 * the ended images' files alone; the pprof of a window is a gzip stream.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "fleet/window.h"
#include "format/format.h"
#include "report/report.h"

struct spec {
	uint64_t count;
	uint32_t tid;
	uint64_t pc;
};

static char dir[64];

static int
put(const char *name, uint32_t pid, uint32_t exit_kind, const struct spec *s, size_t n)
{
	static struct profil_writer w;
	struct profil_file_header h;
	char path[128], tmp[140];
	size_t i;
	int fd;

	memset(&h, 0, sizeof(h));
	h.pid = pid;
	h.requested_hz = 1000;
	h.achieved_mhz = 1000000;
	h.clock = PROFIL_FILE_CLOCK_OUTSIDE;
	h.start_ns = 1000;
	h.end_ns = 2000;
	h.exit_kind = exit_kind;
	h.max_depth = 1;
	h.progname = (char *)"prog";
	h.exe = (char *)"";
	for (i = 0; i < n; i++)
		h.ticks += s[i].count;
	h.samples = h.ticks;
	/* As the recorder does: a temporary, renamed into place. */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	profil_writer_init(&w, fd);
	profil_writer_header(&w, &h);
	for (i = 0; i < n; i++)
		profil_writer_sample(&w, s[i].count, s[i].tid, 0, 1, &s[i].pc);
	if (profil_writer_finish(&w) != 0 || close(fd) != 0)
		return -1;
	return rename(tmp, path);
}

/* The count of (tid, pc) in the report's file named name, or -1 without the file. */
static int64_t
count_of(struct profil_report *r, const char *name, uint32_t tid, uint64_t pc)
{
	const struct profil_file *f;
	const char *fname;
	int64_t c = -1;
	size_t i, j;

	for (i = 0; i < profil_report_nfiles(r); i++) {
		f = profil_report_file(r, i, &fname);
		if (strcmp(fname, name) != 0)
			continue;
		c = 0;
		for (j = 0; j < f->nsamples; j++)
			if (f->samples[j].tid == tid && f->samples[j].pcs[0] == pc)
				c += (int64_t)f->samples[j].count;
	}
	return c;
}

int
main(void)
{
	/* At the mark: a running image with a duplicate sample, and one that had ended. */
	const struct spec a0[] = { { 5, 1, 0x1000 }, { 5, 1, 0x1000 }, { 3, 2, 0x2000 } };
	const struct spec b0[] = { { 7, 1, 0x1000 } };
	/* At the end: the running one grew (and its duplicates came together), a new one. */
	const struct spec a1[] = { { 14, 1, 0x1000 }, { 3, 2, 0x2000 }, { 4, 1, 0x3000 } };
	const struct spec c1[] = { { 6, 9, 0x1000 } };
	struct profil_window w;
	struct profil_report *r;
	char path[128], *data = NULL;
	size_t len = 0;
	const struct profil_file *f;
	const char *name;
	int rc;

	strcpy(dir, "/tmp/profil-window.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	tap_check(put("prog.1.profil", 1, PROFIL_EXIT_RUNNING, a0, 3) == 0 &&
	    put("prog.2.profil", 2, PROFIL_EXIT_NORMAL, b0, 1) == 0, "profiles written");
	tap_check(profil_window_mark(&w, dir, 0) == 0, "marked");
	tap_check(put("prog.1.profil", 1, PROFIL_EXIT_RUNNING, a1, 3) == 0 &&
	    put("prog.3.profil", 3, PROFIL_EXIT_RUNNING, c1, 1) == 0, "profiles grown");
	r = profil_report_new();
	tap_check(r != NULL && profil_window_report(&w, r) == 0, "the window read");
	tap_check(profil_report_nfiles(r) == 2, "two images in the window, the ended one not "
	    "(%zu)", profil_report_nfiles(r));
	tap_check(count_of(r, "prog.1.profil", 1, 0x1000) == 4, "a stack of the mark: 14 - 5 - 5 "
	    "(%lld)", (long long)count_of(r, "prog.1.profil", 1, 0x1000));
	tap_check(count_of(r, "prog.1.profil", 2, 0x2000) == 0, "a stack that did not grow: 0");
	tap_check(count_of(r, "prog.1.profil", 1, 0x3000) == 4, "a new stack: all of it");
	tap_check(count_of(r, "prog.3.profil", 9, 0x1000) == 6, "a new image: all of it");
	tap_check(count_of(r, "prog.2.profil", 1, 0x1000) == -1, "the ended image: absent");
	tap_check(profil_report_total(r) == 14, "14 ticks in the window (%llu)",
	    (unsigned long long)profil_report_total(r));
	f = profil_report_file(r, 0, &name);
	if (strcmp(name, "prog.1.profil") != 0)
		f = profil_report_file(r, 1, NULL);
	tap_check(f->hdr.start_ns >= w.start_ns && f->hdr.ticks == 8, "a running image's header "
	    "starts at the mark, its ticks the window's (%llu)", (unsigned long long)f->hdr.ticks);
	profil_report_free(r);
	rc = profil_window_pprof(&w, &data, &len);
	tap_check(rc == 0 && len > 20 &&
	    (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b, "pprof: gzip, %zu "
	    "bytes", len);
	free(data);
	profil_window_release(&w);

	/* Pruning: the ended image's file goes, the running ones stay. */
	tap_check(profil_window_mark(&w, dir, 1) == 0, "marked, pruning");
	snprintf(path, sizeof(path), "%s/prog.2.profil", dir);
	tap_check(access(path, F_OK) != 0, "the ended image's file removed");
	snprintf(path, sizeof(path), "%s/prog.1.profil", dir);
	tap_check(access(path, F_OK) == 0, "the running image's file kept");
	r = profil_report_new();
	tap_check(r != NULL && profil_window_report(&w, r) == 0 && profil_report_total(r) == 0,
	    "nothing since the mark: an empty window");
	profil_report_free(r);
	profil_window_release(&w);
	unlink(path);
	snprintf(path, sizeof(path), "%s/prog.3.profil", dir);
	unlink(path);
	rmdir(dir);
	return tap_failures != 0;
}
