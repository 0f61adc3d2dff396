/*
 * reader.c - libFuzzer harness of the profile reader, profil_file_parse(): whatever the bytes,
 * the reader returns 0 with a consistent model or -errno with a message, and never crashes,
 * leaks, reads out of bounds or overflows (built with ASan and UBSan, see `make fuzz`).
 *
 * Every record carries a CRC-32, so almost every mutation would stop at the first checksum; each
 * input is therefore parsed twice, as is and with the checksums made right, so that the fuzzer
 * also reaches the checks of the records' contents.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites the CRC of every record whose frame fits, as docs/FORMAT.md lays them out. */
static void
fix_crcs(uint8_t *p, size_t size)
{
	size_t off = 16, len;
	uint32_t crc;

	while (off + 8 <= size) {
		len = get_u32(p + off + 4);
		if (len > size - off - 8 || size - off - 8 - len < 4)
			break;
		crc = profil_crc32(0, p + off, 8 + len);
		p[off + 8 + len] = (uint8_t)crc;
		p[off + 9 + len] = (uint8_t)(crc >> 8);
		p[off + 10 + len] = (uint8_t)(crc >> 16);
		p[off + 11 + len] = (uint8_t)(crc >> 24);
		off += 12 + len;
	}
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
