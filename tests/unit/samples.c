/*
 * The samples table of the profile model (src/profile/samples.c), as the outside recorder
 * fills it: one row per distinct (thread, epoch, stack) in the order first seen, counts that
 * add up and saturate, rows that keep their pcs however the pool grows, a timeline that grows
 * to its bound, and the file written from it read back the same.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "format/crc32.c"
#include "format/open.c"
#include "format/reader.c"
#include "format/writer.c"
#include "profile/profile.c"
#include "profile/samples.c"
#include "profile/timeline.c"
#include "report/index.c"

int
main(void)
{
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	struct profil_samples t;
	struct profil_writer w;
	struct profil_file_header h;
	struct profil_file *f;
	char err[256] = "";
	ssize_t a, b, c, d, row;
	size_t i, bad = 0;
	uint8_t *buf;
	off_t end;
	int fd;

	memset(&t, 0, sizeof(t));
	pcs[0] = 0x1000;
	pcs[1] = 0x2000;
	a = profil_samples_add(&t, 7, 0, pcs, 2, 1);
	b = profil_samples_add(&t, 7, 0, pcs, 2, 2);
	c = profil_samples_add(&t, 7, 1, pcs, 2, 1);
	d = profil_samples_add(&t, 8, 0, pcs, 1, 1);
	tap_check(a == 0 && b == 0 && c == 1 && d == 2 && t.n == 3,
	    "a row per distinct (thread, epoch, stack), numbered in the order first seen");
	tap_check(t.rows[0].count == 3 && t.rows[1].count == 1 && t.rows[2].count == 1,
	    "counts add up");
	profil_samples_add(&t, 7, 1, pcs, 2, UINT64_MAX);
	tap_check(t.rows[1].count == UINT64_MAX, "a count saturates");
	t.rows[1].count = 1;	/* a file's counts must add up within 64 bits */

	/* Many stacks: the pool moves as it grows, and each row keeps its own pcs. */
	for (i = 0; i < 5000; i++) {
		pcs[0] = i;
		pcs[1] = i * 3;
		pcs[2] = i * 7;
		row = profil_samples_add(&t, 9, 2, pcs, 3, 1);
		if (row != (ssize_t)(3 + i))
			bad++;
	}
	for (i = 0; i < 5000; i++) {
		const uint64_t *p = profil_samples_pcs(&t, 3 + i);

		if (p[0] != i || p[1] != i * 3 || p[2] != i * 7 || t.rows[3 + i].depth != 3)
			bad++;
	}
	tap_check(bad == 0 && t.n == 5003, "5000 more stacks: rows and pcs kept (%zu wrong)", bad);

	/* Times: the list grows past its first room, to its bound, then widens its slots. */
	profil_timeline_init(&t.times, NULL, 0, 4096, 1000000);
	for (i = 0; i < 20000; i++) {
		t.rows[3 + i % 500].count++;
		profil_samples_time(&t, 3 + i % 500, i, 1);
	}
	profil_samples_time(&t, 0, (uint64_t)UINT32_MAX + 1, 5);
	tap_check(t.times.n > 0 && t.times.n <= 4096 && t.times.cap <= 4096 && t.times.shift > 0 &&
	    t.times.untimed == 5, "the timeline grows to its bound (%zu entries, %zu untimed), a "
	    "slot too far untimed", t.times.n, (size_t)t.times.untimed);

	fd = memfd_create("samples", 0);
	memset(&h, 0, sizeof(h));
	h.pid = 1;
	h.requested_hz = 1000;
	h.clock = 4;
	h.flags = PROFIL_HDR_STACKS;
	h.max_depth = 8;
	h.progname = "samples";
	h.exe = "/bin/samples";
	profil_writer_init(&w, fd);
	profil_writer_header(&w, &h);
	profil_samples_write(&t, &w);
	tap_check(profil_writer_finish(&w) == 0, "written");
	end = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)end);
	f = NULL;
	if (buf == NULL || pread(fd, buf, (size_t)end, 0) != end ||
	    profil_file_parse(buf, (size_t)end, &f, err, sizeof(err)) < 0)
		tap_diag("%s", err);
	tap_check(f != NULL && f->nsamples == t.n && f->ntimes > 0 && f->samples[0].count == 3 &&
	    f->samples[2].tid == 8 && f->samples[3].pcs[2] == 0 &&
	    f->samples[4].pcs[1] == 3,
	    "read back: the rows in order, SAMPLE record i of row i");
	profil_file_free(f);
	free(buf);
	close(fd);
	profil_samples_release(&t);
	tap_check(t.n == 0 && t.rows == NULL && t.pool == NULL, "released: empty again");
	return tap_done();
}
