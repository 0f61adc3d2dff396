/*
 * report.c - the report session: owns the files, the symbolizer and the aggregation of ticks by
 * function and module.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/index.h"
#include "report/report.h"
#include "report/session.h"
#include "report/stack.h"
#include "report/symbols.h"

struct profil_report *
profil_report_new(void)
{
	struct profil_report *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->sym = profil_symbolizer_new();
	if (r->sym == NULL) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void
profil_report_free(struct profil_report *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nfiles; i++) {
		free(r->files[i].name);
		profil_file_free(r->files[i].f);
	}
	free(r->files);
	free(r->entries);
	profil_index_release(&r->index);
	profil_strtab_release(&r->prognames);
	free(r->program_first);
	free(r->sorted);
	free(r->touched);
	profil_symbolizer_free(r->sym);
	free(r);
}

void
profil_report_set_split(struct profil_report *r, enum profil_report_split split)
{
	r->split = split;
}

enum profil_report_split
profil_report_get_split(const struct profil_report *r)
{
	return r->split;
}

void
profil_report_set_pid(struct profil_report *r, uint32_t pid)
{
	r->pid_only = 1;
	r->pid = pid;
}

/*
 * Sums of counts saturate: each file's sum fits (the reader refuses one that does not), but
 * a session of many files could still wrap, and a wrapped sum shows a few samples where there
 * were 2^64.
 */
uint64_t
profil_count_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct entry_key {
	const struct profil_report *r;
	const struct profil_module *mod;
	uint64_t key;
	int known;
	uint64_t group;
};

static int
entry_same(const void *arg, size_t i)
{
	const struct entry_key *k = arg;
	const struct report_entry *e = &k->r->entries[i];

	return e->e.module == k->mod && e->key == k->key && e->known == k->known &&
	    e->group == k->group;
}

/* The entry for (module, key, known, group), created empty on first use. */
static struct report_entry *
entry_get(struct profil_report *r, const struct profil_module *mod, uint64_t key, int known,
    uint64_t group)
{
	const struct entry_key k = { r, mod, key, known, group };
	struct report_entry *e;
	ssize_t i;

	if (r->nentries == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;

		e = realloc(r->entries, cap * sizeof(*e));
		if (e == NULL)
			return NULL;
		r->entries = e;
		r->cap = cap;
	}
	i = profil_index_get(&r->index,
	    profil_hash3((uint64_t)(uintptr_t)mod, key + (uint64_t)known, group), entry_same, &k,
	    r->nentries);
	if (i < 0)
		return NULL;
	e = &r->entries[i];
	if ((size_t)i < r->nentries)
		return e;
	r->nentries++;
	memset(e, 0, sizeof(*e));
	e->e.module = mod;
	e->key = key;
	e->known = known;
	e->group = group;
	e->e.thread = "";
	return e;
}

static int
touch(struct profil_report *r, const struct profil_module *mod)
{
	const struct profil_module **t;
	size_t i;

	for (i = 0; i < r->ntouched; i++)
		if (r->touched[i] == mod)
			return 0;
	t = realloc(r->touched, (r->ntouched + 1) * sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	r->touched = t;
	r->touched[r->ntouched++] = mod;
	return 0;
}

/*
 * The rate that turns ticks into seconds: the achieved one.  A file without CPU time to
 * measure it (nothing ran) falls back to the requested rate, and that to the classic 100 Hz.
 */
static double
file_hz(const struct profil_file *f)
{
	if (f->hdr.achieved_mhz > 0)
		return (double)f->hdr.achieved_mhz / 1000.0;
	if (f->hdr.requested_hz > 0)
		return f->hdr.requested_hz;
	return 100.0;
}

/*
 * The seconds count ticks of a sample with leaf pc stand for.  A waiting thread is sampled
 * once per period of wall time at the requested rate (src/record/wall.c, src/outside/wall.c),
 * whatever rate its process's CPU clock achieved: its ticks are converted at that rate.
 */
static double
ticks_seconds(const struct report_file *rf, uint64_t pc, uint64_t count)
{
	return (double)count / (profil_pc_is_wait(pc) ? rf->wait_hz : rf->hz);
}

double
profil_report_sample_seconds(const struct profil_report *r, size_t i,
    const struct profil_file_sample *s)
{
	return i < r->nfiles && s->depth > 0 ? ticks_seconds(&r->files[i], s->pcs[0], s->count) :
	    0;
}

const char *
profil_report_thread_name(const struct profil_file *f, uint32_t tid)
{
	size_t i;

	for (i = 0; i < f->nthreads; i++)
		if (f->threads[i].tid == tid)
			return f->threads[i].name;
	return "";
}

/* Attributes the count ticks of sample s (at its leaf, the interrupted PC) of file rf. */
static int
report_pc(struct profil_report *r, const struct report_file *rf, struct profil_locator *l,
    const struct profil_file_sample *s)
{
	const struct profil_location *loc;
	struct profil_stack_frame fr;
	struct report_entry *e;
	uint64_t group = 0, pc = s->pcs[0], count = s->count;
	size_t fi = (size_t)(rf - r->files);
	int err;

	if (r->split == PROFIL_SPLIT_PROCESS)
		group = fi;
	else if (r->split == PROFIL_SPLIT_PROGRAM)
		group = rf->program;
	else if (r->split == PROFIL_SPLIT_THREAD)
		group = (uint64_t)fi << 32 | s->tid;
	err = profil_locate(l, pc, 0, s->epoch, &fr);
	if (err != 0)
		return err;
	loc = fr.loc;
	if (loc == NULL && profil_pc_is_marker(pc)) {
		/* A wait (--wall) or a cut stack's frame: named by itself. */
		e = entry_get(r, NULL, pc, 2, group);
		if (e != NULL && e->e.count == 0)
			e->e.function = profil_pc_marker_name(pc);
	} else if (loc == NULL) {
		/* vdso, JIT code, anonymous memory: nothing recorded says whose it is. */
		e = entry_get(r, NULL, 0, 0, group);
	} else {
		/* Modules are met once per file: the list of those touched stays short to make. */
		if (l->fresh && touch(r, fr.module) != 0)
			return -ENOMEM;
		l->fresh = 0;
		/* Keys of kind 1 (a symbol's start) and 3 (an unwind entry's) never meet. */
		if (loc->known)
			e = entry_get(r, fr.module, loc->function_start,
			    loc->known == PROFIL_LOCATION_UNWIND ? 3 : 1, group);
		else
			e = entry_get(r, fr.module, fr.offset, 0, group);
		if (e != NULL && e->e.count == 0) {
			e->e.function = loc->frames[loc->nframes - 1].function;
			e->e.offset = fr.offset;
			e->e.file = loc->frames[loc->nframes - 1].file;
			if (e->e.file == NULL)
				e->e.file = loc->frames[0].file;
		}
	}
	if (e == NULL)
		return -ENOMEM;
	if (e->e.count == 0 && r->split != PROFIL_SPLIT_NONE) {
		e->e.proc = r->split == PROFIL_SPLIT_PROGRAM ? rf->program : fi;
		if (r->split == PROFIL_SPLIT_THREAD) {
			e->e.tid = s->tid;
			e->e.thread = profil_report_thread_name(rf->f, s->tid);
		}
	}
	e->e.count = profil_count_add(e->e.count, count);
	e->e.seconds += ticks_seconds(rf, pc, count);
	return 0;
}

int
profil_report_add(struct profil_report *r, const char *name, struct profil_file *f)
{
	struct profil_locator l;
	struct report_file *files, *rf;
	ssize_t row;
	size_t i;
	int err = 0, added;

	if (r->pid_only && f->hdr.pid != r->pid) {
		profil_file_free(f);
		return 0;
	}
	files = realloc(r->files, (r->nfiles + 1) * sizeof(*files));
	if (files == NULL) {
		profil_file_free(f);
		return -ENOMEM;
	}
	r->files = files;
	rf = &r->files[r->nfiles];
	rf->name = strdup(name);
	rf->f = f;
	rf->hz = file_hz(f);
	rf->wait_hz = f->hdr.requested_hz > 0 ? f->hdr.requested_hz : rf->hz;
	rf->total = 0;
	rf->waiting = 0;
	rf->cpu_waiting = 0;
	rf->seconds = 0;
	rf->waiting_seconds = 0;
	rf->cpu_waiting_seconds = 0;
	if (rf->name == NULL) {
		profil_file_free(f);
		return -ENOMEM;
	}
	row = profil_strtab_intern(&r->prognames, f->hdr.progname, &added);
	if (row < 0) {
		free(rf->name);
		profil_file_free(f);
		return -ENOMEM;
	}
	if (added) {
		size_t *first = realloc(r->program_first, (size_t)(row + 1) * sizeof(*first));

		if (first == NULL) {
			free(rf->name);
			profil_file_free(f);
			return -ENOMEM;
		}
		r->program_first = first;
		first[row] = r->nfiles;
		r->nprograms = (size_t)row + 1;
	}
	rf->program = r->program_first[row];
	r->nfiles++;
	free(r->sorted);
	r->sorted = NULL;
	/* Each mapping's module, found once per file rather than once per sample. */
	err = profil_locator_init(&l, r->sym, f);
	for (i = 0; i < f->nsamples && err == 0; i++) {
		const struct profil_file_sample *s = &f->samples[i];

		double secs = ticks_seconds(rf, s->pcs[0], s->count);

		err = report_pc(r, rf, &l, s);
		rf->total = profil_count_add(rf->total, s->count);
		rf->seconds += secs;
		if (s->depth > 0 && profil_pc_is_wait(s->pcs[0])) {
			rf->waiting = profil_count_add(rf->waiting, s->count);
			rf->waiting_seconds += secs;
		}
		if (s->depth > 0 && s->pcs[0] == PROFIL_PC_WAIT_CPU) {
			rf->cpu_waiting = profil_count_add(rf->cpu_waiting, s->count);
			rf->cpu_waiting_seconds += secs;
		}
		r->total = profil_count_add(r->total, s->count);
		r->seconds += secs;
	}
	profil_locator_release(&l);
	return err;
}

uint64_t
profil_report_total(const struct profil_report *r)
{
	return r->total;
}

double
profil_report_seconds(const struct profil_report *r)
{
	return r->seconds;
}

size_t
profil_report_nfiles(const struct profil_report *r)
{
	return r->nfiles;
}

const struct profil_file *
profil_report_file(const struct profil_report *r, size_t i, const char **name)
{
	if (i >= r->nfiles)
		return NULL;
	if (name != NULL)
		*name = r->files[i].name;
	return r->files[i].f;
}

struct profil_symbolizer *
profil_report_symbolizer(struct profil_report *r)
{
	return r->sym;
}

uint64_t
profil_report_file_total(const struct profil_report *r, size_t i)
{
	return i < r->nfiles ? r->files[i].total : 0;
}

size_t
profil_report_file_program(const struct profil_report *r, size_t i)
{
	return i < r->nfiles ? r->files[i].program : i;
}

static const char *
entry_module_name(const struct profil_report_entry *e)
{
	return e->module != NULL ? profil_module_name(e->module) : "";
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct profil_report_entry *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->function != NULL && y->function != NULL) {
		c = strcmp(x->function, y->function);
		if (c != 0)
			return c;
	} else if (x->function != y->function) {
		return x->function != NULL ? -1 : 1;
	}
	c = strcmp(entry_module_name(x), entry_module_name(y));
	if (c != 0)
		return c;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* PROFIL_SPLIT_PROCESS: each file's rows together, in file order. */
static int
entry_cmp_by_file(const void *a, const void *b)
{
	const struct profil_report_entry *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return entry_cmp(a, b);
}

const struct profil_report_entry *
profil_report_entries(struct profil_report *r, size_t *n)
{
	size_t i;

	if (r->sorted == NULL && r->nentries > 0) {
		r->sorted = malloc(r->nentries * sizeof(*r->sorted));
		if (r->sorted == NULL) {
			*n = 0;
			return NULL;
		}
		for (i = 0; i < r->nentries; i++)
			r->sorted[i] = r->entries[i].e;
		qsort(r->sorted, r->nentries, sizeof(*r->sorted),
		    r->split == PROFIL_SPLIT_PROCESS || r->split == PROFIL_SPLIT_PROGRAM ?
		    entry_cmp_by_file : entry_cmp);
	}
	*n = r->sorted != NULL ? r->nentries : 0;
	return r->sorted;
}

void
profil_report_modules(const struct profil_report *r,
    void (*fn)(void *arg, const struct profil_module *mod), void *arg)
{
	size_t i;

	for (i = 0; i < r->ntouched; i++)
		fn(arg, r->touched[i]);
}

void
profil_share_interval(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p, denom, centre, half;

	if (n == 0 || k > n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	denom = 1 + z * z / (double)n;
	centre = (p + z * z / (2.0 * (double)n)) / denom;
	half = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / denom;
	*lo = centre - half < 0 ? 0 : centre - half;
	*hi = centre + half > 1 ? 1 : centre + half;
}
