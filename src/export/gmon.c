/*
 * gmon.c - the session as gmon.out files for GNU gprof (gmon/sys/gmon_out.h layout, version 1),
 * one per object.  binutils gprof/hist.c sums records with identical ranges, rejects partial
 * overlaps, and counts every non-zero bin in its total even when no symbol of the analysed
 * binary covers it, which would dilute every percentage; so each file holds one object's
 * samples over that object's own ELF virtual addresses, which is what `gprof OBJECT FILE`
 * looks symbols up in (glibc's -pg runtime does the same for a PIE since BZ #22284).
 *
 * No call-graph arcs are written: gprof prints an arc's count as the number of calls, and a
 * sampled stack says how often a call was on the stack, not how often it was made.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "profile/profile.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

#define GMON_VERSION		1
#define GMON_TAG_TIME_HIST	0
#define GMON_BIN_MAX		65535	/* HISTCOUNTER is an unsigned short */
/* Records of one range at most: 67 million ticks on one instruction (an hour of CPU at 20 kHz)
 * is real, a file claiming 2^64 is hostile and would make an endless gmon file. */
#define GMON_MAX_RECORDS	1024

/* The histogram's ends are aligned, so that function starts are bin starts. */
#define GMON_ALIGN		16

struct gmon_hit {
	uint64_t offset;		/* file offset in the object */
	uint64_t count;
};

struct gmon_object {
	struct profil_module *module;	/* NULL: PCs in no mapping */
	struct gmon_hit *hits;
	size_t nhits, cap;
	uint64_t ticks;
	double seconds;			/* ticks / each file's achieved rate */
};

struct gmon_export {
	struct gmon_object *objs;
	size_t nobjs;
};

static struct gmon_object *
object_get(struct gmon_export *g, struct profil_module *mod)
{
	struct gmon_object *o;
	size_t i;

	for (i = 0; i < g->nobjs; i++)
		if (g->objs[i].module == mod)
			return &g->objs[i];
	o = realloc(g->objs, (g->nobjs + 1) * sizeof(*o));
	if (o == NULL)
		return NULL;
	g->objs = o;
	o = &g->objs[g->nobjs++];
	memset(o, 0, sizeof(*o));
	o->module = mod;
	return o;
}

/* The flat view's attribution: the leaf PC only. */
static int
add_leaf(void *arg, const struct profil_stack *st)
{
	const struct profil_stack_frame *fr = &st->frames[0];
	struct gmon_object *o = object_get(arg, fr->module);
	uint64_t count = st->sample->count;

	if (o == NULL)
		return -ENOMEM;
	o->ticks = profil_count_add(o->ticks, count);
	o->seconds += st->seconds;
	if (fr->module == NULL)
		return 0;
	if (o->nhits == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 256;
		struct gmon_hit *h = realloc(o->hits, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		o->hits = h;
		o->cap = cap;
	}
	o->hits[o->nhits].offset = fr->offset;
	o->hits[o->nhits].count = count;
	o->nhits++;
	return 0;
}


/* Native byte order (gprof reads with the analysed binary's, and we read x86_64 files). */
static void
put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static void
put_u64(FILE *f, uint64_t v)
{
	put(f, &v, sizeof(v));
}

static void
put_u32(FILE *f, uint32_t v)
{
	put(f, &v, sizeof(v));
}

/* One histogram record over bins[first, last) of the file's range, each bin's count less
 * skip, at most GMON_BIN_MAX. */
static void
hist_record(FILE *f, uint64_t low, const uint64_t *bins, uint32_t first, uint32_t last,
    uint64_t skip, uint32_t rate)
{
	static const char dimen[15] = "seconds";
	uint64_t left;
	uint32_t i;
	uint16_t b;

	fputc(GMON_TAG_TIME_HIST, f);
	put_u64(f, low + 2 * (uint64_t)first);
	put_u64(f, low + 2 * (uint64_t)last);
	put_u32(f, last - first);
	put_u32(f, rate);
	put(f, dimen, sizeof(dimen));
	fputc('s', f);
	for (i = first; i < last; i++) {
		left = bins[i] > skip ? bins[i] - skip : 0;
		b = (uint16_t)(left > GMON_BIN_MAX ? GMON_BIN_MAX : left);
		put(f, &b, sizeof(b));
	}
}

/*
 * Writes the file: the gmon header, then the histogram over [low, high).  A bin holds 65535
 * at most and gprof adds records with identical ranges, so a bin with more ticks needs more
 * records; repeating the whole histogram for them made a 352-byte profile with one full bin
 * a 1.7 GB gmon file.  Instead the range is cut at each such bin: the bins between are one
 * record each, the heavy bin a record of its own, repeated.  The pieces do not overlap
 * (gprof refuses partial overlaps) and all have 2-byte bins (gprof wants one scale).
 */
static void
gmon_write(FILE *f, uint64_t low, const uint64_t *bins, uint32_t nbins, uint32_t rate)
{
	uint64_t rec;
	uint32_t i, first = 0;

	put(f, "gmon", 4);
	put_u32(f, GMON_VERSION);
	put(f, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	for (i = 0; i < nbins; i++) {
		if (bins[i] <= GMON_BIN_MAX)
			continue;
		if (first < i)
			hist_record(f, low, bins, first, i, 0, rate);
		for (rec = 0; rec * GMON_BIN_MAX < bins[i]; rec++)
			hist_record(f, low, bins, i, i + 1, rec * GMON_BIN_MAX, rate);
		first = i + 1;
	}
	if (first < nbins)
		hist_record(f, low, bins, first, nbins, 0, rate);
}

/* gmon.NAME.out in dir, or gmon.NAME.N.out when an earlier object of this export had the
 * same base name. */
static int
file_name(char *path, size_t len, const char *dir, const char *name, size_t nth)
{
	int n;

	if (nth == 0)
		n = snprintf(path, len, "%s/gmon.%s.out", dir, name);
	else
		n = snprintf(path, len, "%s/gmon.%s.%zu.out", dir, name, nth);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int
export_object(struct gmon_export *g, size_t k, const char *dir,
    void (*done)(void *, const char *, const struct profil_module *, uint64_t),
    void (*skipped)(void *, const struct profil_module *, uint64_t, const char *), void *arg)
{
	struct gmon_object *o = &g->objs[k];
	enum profil_module_status st = profil_module_status(o->module);
	struct profil_output out;
	uint64_t low = UINT64_MAX, high = 0, va, lost = 0, *bins;
	char path[PATH_MAX];
	size_t i, nth = 0;
	uint32_t nbins;
	double rate;
	int err;

	if (st == PROFIL_MODULE_MISSING || st == PROFIL_MODULE_CHANGED ||
	    st == PROFIL_MODULE_NOT_ELF || st == PROFIL_MODULE_PSEUDO) {
		skipped(arg, o->module, o->ticks, profil_module_status_str(st));
		return 0;
	}
	/* gprof looks symbols up by ELF address: the symbolizer's segments give them. */
	for (i = 0; i < o->nhits; i++) {
		if (profil_module_vaddr(o->module, o->hits[i].offset, &va) != 0) {
			lost = profil_count_add(lost, o->hits[i].count);
			o->hits[i].count = 0;
			continue;
		}
		o->hits[i].offset = va;
		if (va < low)
			low = va;
		if (va > high)
			high = va;
	}
	if (lost > 0)
		skipped(arg, o->module, lost, "PCs outside the loadable segments");
	if (low > high)
		return 0;
	low &= ~(uint64_t)(GMON_ALIGN - 1);
	high = (high | (GMON_ALIGN - 1)) + 1;
	if ((high - low) / 2 > UINT32_MAX) {
		skipped(arg, o->module, o->ticks - lost, "sampled range too large for gmon");
		return 0;
	}
	nbins = (uint32_t)((high - low) / 2);
	bins = calloc(nbins, sizeof(*bins));
	if (bins == NULL)
		return -ENOMEM;
	for (i = 0; i < o->nhits; i++) {
		uint64_t *b = &bins[(o->hits[i].offset - low) / 2];

		*b = profil_count_add(*b, o->hits[i].count);
		if (*b > (uint64_t)GMON_BIN_MAX * GMON_MAX_RECORDS) {
			free(bins);
			skipped(arg, o->module, o->ticks - lost, "too many ticks in one bin for gmon");
			return 0;
		}
	}
	/* One rate per file: the one that turns this object's ticks into the seconds they stand
	 * for (files recorded at different rates weigh in by their ticks). */
	rate = o->seconds > 0 ? (double)o->ticks / o->seconds : 100;
	for (i = 0; i < k; i++)
		if (g->objs[i].module != NULL && strcmp(profil_module_name(g->objs[i].module),
		    profil_module_name(o->module)) == 0)
			nth++;
	err = file_name(path, sizeof(path), dir, profil_module_name(o->module), nth);
	if (err == 0)
		err = profil_output_open(&out, path);
	if (err == 0) {
		gmon_write(out.f, low, bins, nbins, rate < 1 ? 1 :
		    rate >= INT32_MAX ? INT32_MAX : (uint32_t)(rate + 0.5));
		err = profil_output_commit(&out);
	}
	free(bins);
	if (err == 0)
		done(arg, path, o->module, o->ticks - lost);
	return err;
}

int
profil_export_gmon(struct profil_report *r, const char *dir,
    void (*done)(void *arg, const char *path, const struct profil_module *mod, uint64_t ticks),
    void (*skipped)(void *arg, const struct profil_module *mod, uint64_t ticks, const char *why),
    void *arg)
{
	struct gmon_export g = { NULL, 0 };
	size_t i;
	int err;

	err = profil_report_stacks(r, add_leaf, &g);
	for (i = 0; i < g.nobjs && err == 0; i++) {
		if (g.objs[i].module == NULL)
			skipped(arg, NULL, g.objs[i].ticks, "PCs in no recorded mapping");
		else
			err = export_object(&g, i, dir, done, skipped, arg);
	}
	for (i = 0; i < g.nobjs; i++)
		free(g.objs[i].hits);
	free(g.objs);
	return err;
}
