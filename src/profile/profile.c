/*
 * profile.c - what the profile model does for its readers once it is filled: the index of
 * its mappings and names, the lookups of a pc in them, the names of its enumerations, and
 * freeing it.  The reader (src/format/reader.c) fills one from a file and indexes it here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

/* The sort of the mapping index; qsort_r is not C11, so the maps come through a static. */
static const struct profil_file_mapping *sort_maps;

static int
map_order_cmp(const void *a, const void *b)
{
	const struct profil_file_mapping *x = &sort_maps[*(const size_t *)a];
	const struct profil_file_mapping *y = &sort_maps[*(const size_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->load_epoch != y->load_epoch)
		return x->load_epoch < y->load_epoch ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int
index_maps(struct profil_file *f)
{
	uint64_t max = 0;
	size_t i;

	f->map_order = malloc((f->nmaps ? f->nmaps : 1) * sizeof(*f->map_order));
	f->map_maxend = malloc((f->nmaps ? f->nmaps : 1) * sizeof(*f->map_maxend));
	if (f->map_order == NULL || f->map_maxend == NULL)
		return -ENOMEM;
	for (i = 0; i < f->nmaps; i++)
		f->map_order[i] = i;
	sort_maps = f->maps;
	qsort(f->map_order, f->nmaps, sizeof(*f->map_order), map_order_cmp);
	for (i = 0; i < f->nmaps; i++) {
		if (f->maps[f->map_order[i]].end > max)
			max = f->maps[f->map_order[i]].end;
		f->map_maxend[i] = max;
	}
	return 0;
}

static int
code_cmp(const void *a, const void *b)
{
	const struct profil_file_code *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Equal starts: the shorter last, where a lookup looks first; and an order that does
	 * not depend on qsort's. */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
profil_file_index(struct profil_file *f)
{
	/* The names by address, for profil_file_code_find(). */
	if (f->ncodes > 1)
		qsort(f->codes, f->ncodes, sizeof(*f->codes), code_cmp);
	return index_maps(f);
}

void
profil_file_free(struct profil_file *f)
{
	size_t i;

	if (f == NULL)
		return;
	free(f->hdr.progname);
	free(f->hdr.exe);
	for (i = 0; i < f->nmaps; i++)
		free(f->maps[i].path);
	for (i = 0; i < f->nthreads; i++)
		free(f->threads[i].name);
	for (i = 0; i < f->nsamples; i++)
		free(f->samples[i].pcs);
	for (i = 0; i < f->ncodes; i++)
		free(f->codes[i].name);
	free(f->codes);
	free(f->times);
	free(f->maps);
	free(f->map_order);
	free(f->map_maxend);
	free(f->threads);
	free(f->samples);
	free(f);
}

/* How far back from the last name starting at or below pc a lookup looks for one that holds
 * it: names nest only where a JIT reused memory, and a hostile file must not make it slow. */
#define CODE_FIND_BACK	64

const struct profil_file_code *
profil_file_code_find(const struct profil_file *f, uint64_t pc)
{
	size_t lo = 0, hi = f->ncodes, mid, i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->codes[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < CODE_FIND_BACK; i--)
		if (pc - f->codes[i - 1].start < f->codes[i - 1].size)
			return &f->codes[i - 1];
	return NULL;
}

/* How many of the first n mappings in start order start at or below pc. */
static size_t
maps_starting_by(const struct profil_file *f, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->maps[f->map_order[mid]].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Walks down the mappings that start at or below pc, one group of equal starts at a time (a
 * library loaded and unloaded 5,000 times at one address is one group), and stops where no
 * mapping further down reaches pc.  In a group, sorted by load epoch, the last one loaded at or
 * before epoch is the one that can hold the sample.
 */
const struct profil_file_mapping *
profil_file_mapping_find(const struct profil_file *f, uint64_t pc, uint32_t epoch)
{
	const struct profil_file_mapping *m;
	size_t i = maps_starting_by(f, f->nmaps, pc), g, lo, hi, mid;

	while (i > 0 && f->map_maxend[i - 1] > pc) {
		uint64_t start = f->maps[f->map_order[i - 1]].start;

		/* The group: [g, i), the mappings starting at start. */
		g = start > 0 ? maps_starting_by(f, i, start - 1) : 0;
		lo = g;
		hi = i;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (f->maps[f->map_order[mid]].load_epoch <= epoch)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* Usually the first one tried; the others only for overlaps no recorder writes. */
		for (; lo > g; lo--) {
			m = &f->maps[f->map_order[lo - 1]];
			if (pc < m->end && epoch <= m->unload_epoch)
				return m;
		}
		i = g;
	}
	return NULL;
}

const char *
profil_file_clock_name(uint32_t clock)
{
	switch (clock) {
	case PROFIL_FILE_CLOCK_TIMER:
		return "timer";
	case PROFIL_FILE_CLOCK_PERF:
		return "perf";
	case PROFIL_FILE_CLOCK_RING:
		return "ring";
	case PROFIL_FILE_CLOCK_OUTSIDE:
		return "outside";
	default:
		return "unknown";
	}
}

const char *
profil_file_exit_name(uint32_t exit_kind)
{
	switch (exit_kind) {
	case PROFIL_EXIT_RUNNING:
		return "running";
	case PROFIL_EXIT_NORMAL:
		return "exit";
	case PROFIL_EXIT_SIGNAL:
		return "signal";
	case PROFIL_EXIT_EXEC:
		return "exec";
	default:
		return "unknown";
	}
}
