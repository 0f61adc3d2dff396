/*
 * reader.c - libFuzzer harness of the profile reader, profil_file_parse(): whatever the bytes,
 * the reader returns 0 with a consistent model or -errno with a message, and never crashes,
 * leaks, reads out of bounds or overflows (built with ASan and UBSan, see `make fuzz`).
 *
 * Each input is parsed twice, as is and with its checksums made right (crc.h), so that the
 * fuzzer also reaches the checks of the records' contents.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crc.h"
#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The indexed mapping lookup against a linear search: a mapping that holds the sample, and
 * one whenever any does. */
static void
check_find(const struct profil_file *f, uint64_t pc, uint32_t epoch)
{
	const struct profil_file_mapping *m = profil_file_mapping_find(f, pc, epoch);
	size_t i;
	int any = 0;

	for (i = 0; i < f->nmaps; i++)
		any |= pc >= f->maps[i].start && pc < f->maps[i].end &&
		    epoch >= f->maps[i].load_epoch && epoch <= f->maps[i].unload_epoch;
	if ((m == NULL) == any)
		abort();
	if (m != NULL && !(pc >= m->start && pc < m->end && epoch >= m->load_epoch &&
	    epoch <= m->unload_epoch))
		abort();
}

/*
 * The same bytes through profil_file_read(), which reads a file one record at a time: it must
 * agree with the parse of the buffer.
 */
static void
check_file(const uint8_t *data, size_t size, int rc)
{
	struct profil_file *f = NULL;
	char err[256], path[64];
	int fd, r;

	fd = memfd_create("profile", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = profil_file_read(path, &f, err, sizeof(err));
	close(fd);
	if (r != rc || (r == 0) != (f != NULL) || memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	profil_file_free(f);
}

/* Touches every field the model promises, so that a bad length or pointer shows up here. */
static void
check(const uint8_t *data, size_t size)
{
	struct profil_file *f = NULL;
	char err[256];
	size_t i, j;
	volatile uint64_t sink = 0;
	int rc;

	err[0] = 'x';
	rc = profil_file_parse(data, size, &f, err, sizeof(err));
	check_file(data, size, rc);
	if (rc != 0) {
		if (rc >= 0 || memchr(err, '\0', sizeof(err)) == NULL || f != NULL ||
		    (rc == -EINVAL && err[0] == '\0'))
			abort();
		return;
	}
	sink += strlen(f->hdr.progname) + strlen(f->hdr.exe);
	for (i = 0; i < f->nmaps; i++) {
		if (f->maps[i].end <= f->maps[i].start ||
		    f->maps[i].build_id_len > PROFIL_FORMAT_MAX_BUILD_ID)
			abort();
		sink += strlen(f->maps[i].path) + f->maps[i].build_id[0];
	}
	for (i = 0; i < f->nthreads; i++)
		sink += strlen(f->threads[i].name);
	for (i = 0; i < f->nsamples; i++) {
		const struct profil_file_sample *s = &f->samples[i];

		if (s->depth == 0 || s->depth > PROFIL_FORMAT_MAX_DEPTH)
			abort();
		for (j = 0; j < s->depth; j++)
			check_find(f, s->pcs[j], s->epoch);
	}
	/* Every time entry names a sample, and no sample has more timed ticks than ticks. */
	if (f->ntimes > 0) {
		uint64_t *timed = calloc(f->nsamples, sizeof(*timed));

		if (timed == NULL || f->slot_ns < PROFIL_TIME_MIN_SLOT_NS)
			abort();
		for (i = 0; i < f->ntimes; i++) {
			if (f->times[i].sample >= f->nsamples || f->times[i].count == 0)
				abort();
			timed[f->times[i].sample] += f->times[i].count;
			if (timed[f->times[i].sample] > f->samples[f->times[i].sample].count)
				abort();
		}
		free(timed);
	}
	(void)sink;
	profil_file_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	check(data, size);
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	check(copy, size);
	free(copy);
	return 0;
}
