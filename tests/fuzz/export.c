/*
 * export.c - libFuzzer harness of the exporters: whatever a profile that the reader accepts
 * holds (any stacks, depths, counts, rates, epochs, mappings, times), folding, the flame graph,
 * the pprof and the Firefox encoders neither crash nor overflow nor leak (ASan and UBSan, see
 * `make fuzz`).
 *
 * Inputs get their checksums made right (crc.h).  Every mapping is renamed to a pseudo path, so
 * the symbolizer opens no file whatever the input names; its lookups then answer module+offset,
 * and the exporters' own code is what is fuzzed.  gmon needs real binaries and is left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc.h"
#include "export/export.h"
#include "format/format.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profil_report *r;
	struct profil_file *f;
	uint8_t *copy;
	char err[256];
	size_t i;

	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	if (profil_file_parse(copy, size, &f, err, sizeof(err)) != 0) {
		free(copy);
		return 0;
	}
	free(copy);
	for (i = 0; i < f->nmaps; i++) {
		free(f->maps[i].path);
		f->maps[i].path = strdup(i % 2 ? "[fuzz]" : "[fuzz2]");
		if (f->maps[i].path == NULL)
			abort();
	}
	r = profil_report_new();
	if (r == NULL)
		abort();
	/* Stacks stand on their program, and on odd sizes on its process and thread too, whose
	 * names come from the input. */
	profil_report_set_split(r, size & 1 ? PROFIL_SPLIT_THREAD : PROFIL_SPLIT_NONE);
	if (profil_report_add(r, "fuzz", f) == 0) {
		(void)profil_export_folded(r, devnull);
		(void)profil_export_pprof(r, devnull);
		(void)profil_export_svg(r, profil_export_title(r, err, sizeof(err)), devnull);
		/* One entry per tick: a hostile count would only make the run slow. */
		if (profil_report_total(r) <= 65536)
			(void)profil_export_firefox(r, profil_export_title(r, err, sizeof(err)),
			    (int)(profil_report_total(r) & 1), devnull);
		(void)profil_export_html(r, NULL, "fuzz", devnull);
		clearerr(devnull);
	}
	profil_report_free(r);
	return 0;
}
