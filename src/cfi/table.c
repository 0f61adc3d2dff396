/*
 * table.c - the rows the CFI instructions give (frame.c), sorted into an unwind table: the
 * last rule of each address kept, repeats of one rule dropped, within 4 GiB of the first
 * address; two tables merged (.eh_frame and .debug_frame); entries' ranges made disjoint.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf.h"

/* An entry's range, for profil_cfi_entries: the same bounds on memory as rows. */
void
cfi_push_entry(struct rows *r, uint64_t start, uint64_t end)
{
	struct profil_cfi_entries *e = r->ents;

	if (r->err)
		return;
	if (e->n == r->ents_cap) {
		size_t cap = r->ents_cap ? r->ents_cap * 2 : 256;
		struct profil_cfi_entry *v;

		if (e->n >= MAX_ROWS) {
			r->err = -E2BIG;
			return;
		}
		v = realloc(e->v, cap * sizeof(*v));
		if (v == NULL) {
			r->err = -ENOMEM;
			return;
		}
		e->v = v;
		r->ents_cap = cap;
	}
	e->v[e->n].start = start;
	e->v[e->n].end = end;
	e->n++;
}

void
cfi_push(struct rows *r, uint64_t addr, uint8_t prio, const struct profil_unwind_row *row)
{
	if (r->err)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct pending *v;

		if (r->n >= MAX_ROWS) {
			r->err = -E2BIG;
			return;
		}
		v = realloc(r->v, cap * sizeof(*v));
		if (v == NULL) {
			r->err = -ENOMEM;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].addr = addr;
	r->v[r->n].seq = (uint32_t)r->n;
	r->v[r->n].prio = prio;
	r->v[r->n].row = *row;
	r->n++;
}

static int
pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
row_same(const struct profil_unwind_row *a, const struct profil_unwind_row *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->fp == b->fp &&
	    a->fp_off == b->fp_off && a->bx == b->bx && a->bx_off == b->bx_off;
}

/* Sorts the rows, keeps the last of each address and drops repeats of the same rule. */
int
cfi_finish(struct rows *r, struct profil_unwind_table *out)
{
	struct profil_unwind_row *v;
	size_t n = 0;
	uint64_t base;

	memset(out, 0, sizeof(*out));
	if (r->n == 0)
		return 0;
	qsort(r->v, r->n, sizeof(*r->v), pending_cmp);
	base = r->v[0].addr;
	v = malloc(r->n * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		const struct pending *p = &r->v[i];

		if (i + 1 < r->n && r->v[i + 1].addr == p->addr)
			continue;
		if (p->addr - base > UINT32_MAX) {
			/* Code beyond 4 GiB of the first: no rules, rather than the last one's. */
			if (n > 0 && v[n - 1].cfa != PROFIL_CFA_NONE && v[n - 1].addr < UINT32_MAX) {
				memset(&v[n], 0, sizeof(v[n]));
				v[n++].addr = UINT32_MAX;
			}
			break;
		}
		if (n > 0 && row_same(&v[n - 1], &p->row))
			continue;
		v[n] = p->row;
		v[n].addr = (uint32_t)(p->addr - base);
		n++;
	}
	out->base = base;
	out->rows = v;
	out->nrows = n;
	return 0;
}

int
profil_cfi_merge(const struct profil_unwind_table *a, const struct profil_unwind_table *b,
    struct profil_unwind_table *out)
{
	static const struct profil_unwind_row none;
	struct profil_unwind_row *v;
	uint64_t base = a->base;
	size_t i = 0, j = 0, n = 0;

	memset(out, 0, sizeof(*out));
	if (a->nrows == 0 || b->nrows == 0) {
		const struct profil_unwind_table *t = a->nrows == 0 ? b : a;

		v = malloc((t->nrows ? t->nrows : 1) * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		memcpy(v, t->rows, t->nrows * sizeof(*v));
		out->base = t->base;
		out->rows = v;
		out->nrows = t->nrows;
		return 0;
	}
	/* b's rows below a's only where the window of 4 GiB then still holds all of a's. */
	if (b->base < a->base && a->base + a->rows[a->nrows - 1].addr - b->base <= UINT32_MAX)
		base = b->base;
	v = malloc((a->nrows + b->nrows + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	/* At each address where either table changes, a's rule, or b's where a has none. */
	while (i < a->nrows || j < b->nrows) {
		uint64_t xa = i < a->nrows ? a->base + a->rows[i].addr : UINT64_MAX;
		uint64_t xb = j < b->nrows ? b->base + b->rows[j].addr : UINT64_MAX;
		uint64_t x = xa < xb ? xa : xb;
		const struct profil_unwind_row *r = profil_unwind_row_find(a, x);

		i += xa == x;
		j += xb == x;
		if (x < base)
			continue;
		if (r == NULL || r->cfa == PROFIL_CFA_NONE)
			r = profil_unwind_row_find(b, x);
		if (r == NULL)
			r = &none;
		if (x - base > UINT32_MAX) {
			/* Code beyond 4 GiB of the first: no rules, as cfi_finish() leaves it. */
			if (n > 0 && v[n - 1].cfa != PROFIL_CFA_NONE && v[n - 1].addr < UINT32_MAX) {
				v[n] = none;
				v[n++].addr = UINT32_MAX;
			}
			break;
		}
		if (n > 0 && row_same(&v[n - 1], r))
			continue;
		v[n] = *r;
		v[n].addr = (uint32_t)(x - base);
		n++;
	}
	out->base = base;
	out->rows = v;
	out->nrows = n;
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct profil_cfi_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

void
profil_cfi_entries_finish(struct profil_cfi_entries *e)
{
	size_t i, n = 0;

	if (e->n == 0)
		return;
	qsort(e->v, e->n, sizeof(*e->v), entry_cmp);
	/* Disjoint, so that one binary search answers: an entry overlapping the one before it
	 * (the same function in .eh_frame and .debug_frame, or a hostile table) is left out. */
	for (i = 0; i < e->n; i++) {
		if (n > 0 && e->v[i].start < e->v[n - 1].end)
			continue;
		e->v[n++] = e->v[i];
	}
	e->n = n;
}
