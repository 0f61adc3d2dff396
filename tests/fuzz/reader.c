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
#include <stdlib.h>
#include <string.h>

#include "crc.h"
#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
			sink += profil_file_mapping_find(f, s->pcs[j], s->epoch) != NULL;
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
