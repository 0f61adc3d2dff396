/*
 * jit.c - names for the code a process's JIT compiler wrote into anonymous memory: read from
 * its perf map (/tmp/perf-PID.map) and from the jitdump files it maps, each time its profile
 * is written, and copied into the profile for the PCs its samples hold.  perf reads these
 * files when it reports, and a profile read after they are gone (or on another machine) has
 * no names; here the profile keeps the ones it needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

static struct profil_jit_source *
source_add(struct profil_outside_image *im, uint32_t kind, const char *path, size_t len)
{
	struct profil_jit_source *src;
	size_t i;

	for (i = 0; i < im->njit_sources; i++)
		if (strlen(im->jit_sources[i].path) == len &&
		    memcmp(im->jit_sources[i].path, path, len) == 0)
			return &im->jit_sources[i];
	if (im->njit_sources == PROFIL_OUTSIDE_JIT_SOURCES)
		return NULL;
	src = &im->jit_sources[im->njit_sources];
	memset(src, 0, sizeof(*src));
	src->path = strndup(path, len);
	if (src->path == NULL)
		return NULL;
	src->kind = kind;
	im->njit_sources++;
	return src;
}

void
profil_outside_jit_dump(struct profil_outside_image *im, const char *path, size_t len)
{
	(void)source_add(im, PROFIL_CODE_JITDUMP, path, len);
}

/* Reads the sources; a refusal is said once, for the first file refused. */
static void
sources_read(struct profil_outside *s, struct profil_outside_image *im)
{
	char map[64];
	size_t i;

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)im->pid);
	if (im->njit_sources == 0 || strcmp(im->jit_sources[0].path, map) != 0) {
		/* The perf map goes first: moved there if a jitdump came before it. */
		struct profil_jit_source *src = source_add(im, PROFIL_CODE_PERF_MAP, map,
		    strlen(map));

		if (src != NULL && src != &im->jit_sources[0]) {
			struct profil_jit_source t = *src;

			memmove(&im->jit_sources[1], &im->jit_sources[0],
			    (size_t)(src - im->jit_sources) * sizeof(*src));
			im->jit_sources[0] = t;
		}
	}
	for (i = 0; i < im->njit_sources; i++) {
		struct profil_jit_source *src = &im->jit_sources[i];

		if (src->done)
			continue;
		(void)profil_jit_source_read(&im->jit, src);
		if (src->why != NULL && s->stats.jit_refused[0] == '\0')
			snprintf(s->stats.jit_refused, sizeof(s->stats.jit_refused),
			    "%.500s: %s", src->path, src->why);
	}
}

void
profil_outside_jit_write(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_writer *w)
{
	struct profil_jit_table *t = &im->jit;
	size_t i;

	sources_read(s, im);
	if (t->n == 0)
		return;
	for (i = 0; i < im->stacks.n; i++)
		profil_jit_mark(t, profil_samples_pcs(&im->stacks, i), im->stacks.rows[i].depth);
	i = profil_jit_write_marked(t, w);
	if (i > s->stats.jit_names)
		s->stats.jit_names = i;
}

void
profil_outside_jit_free(struct profil_outside_image *im)
{
	size_t i;

	for (i = 0; i < im->njit_sources; i++)
		free(im->jit_sources[i].path);
	im->njit_sources = 0;
	profil_jit_table_free(&im->jit);
}
