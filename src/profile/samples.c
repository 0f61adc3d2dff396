/*
 * The samples of a profile outside signal context (samples.h): rows in an array, found through
 * an index over a hash of the whole key, their pcs packed in one pool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "samples.h"

void
profil_samples_release(struct profil_samples *t)
{
	free(t->rows);
	free(t->pool);
	free(t->times.e);
	profil_index_release(&t->index);
	memset(t, 0, sizeof(*t));
}

struct row_key {
	const struct profil_samples *t;
	uint32_t tid, epoch, depth;
	const uint64_t *pcs;
};

static int
row_same(const void *arg, size_t row)
{
	const struct row_key *k = arg;
	const struct profil_sample_row *e = &k->t->rows[row];

	return e->tid == k->tid && e->epoch == k->epoch && e->depth == k->depth &&
	    memcmp(k->t->pool + e->pcs, k->pcs, k->depth * sizeof(*k->pcs)) == 0;
}

ssize_t
profil_samples_add(struct profil_samples *t, uint32_t tid, uint32_t epoch, const uint64_t *pcs,
    uint32_t depth, uint64_t weight)
{
	struct row_key k = { t, tid, epoch, depth, pcs };
	uint64_t h = profil_hash_mix(profil_hash_mix(profil_hash_mix(2, tid), epoch), depth);
	struct profil_sample_row *e;
	ssize_t row;
	uint32_t i;

	for (i = 0; i < depth; i++)
		h = profil_hash_mix(h, pcs[i]);
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct profil_sample_row *p = realloc(t->rows, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		t->rows = p;
		t->cap = cap;
	}
	if (t->npool + depth > t->poolcap) {
		size_t cap = t->poolcap ? t->poolcap : 256;
		uint64_t *p;

		while (cap < t->npool + depth)
			cap *= 2;
		p = realloc(t->pool, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		t->pool = p;
		t->poolcap = cap;
	}
	row = profil_index_get(&t->index, h, row_same, &k, t->n);
	if (row < 0)
		return -ENOMEM;
	e = &t->rows[row];
	if ((size_t)row == t->n) {
		e->count = 0;
		e->tid = tid;
		e->epoch = epoch;
		e->depth = depth;
		e->pcs = t->npool;
		memcpy(t->pool + t->npool, pcs, depth * sizeof(*pcs));
		t->npool += depth;
		t->n++;
	}
	e->count = e->count + weight < e->count ? UINT64_MAX : e->count + weight;
	return row;
}

void
profil_samples_time(struct profil_samples *t, size_t row, uint64_t slot, uint64_t weight)
{
	struct profil_timeline *tl = &t->times;

	if (slot >= UINT32_MAX) {
		tl->untimed += weight;
		return;
	}
	while (profil_timeline_add(tl, (uint32_t)row, (uint32_t)slot, weight) == 1) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct profil_file_time *e;

		cap = cap < tl->max ? cap : tl->max;
		e = realloc(tl->e, cap * sizeof(*e));
		if (e == NULL) {
			tl->max = tl->cap;
			continue;
		}
		tl->e = e;
		tl->cap = cap;
	}
}

const uint64_t *
profil_samples_pcs(const struct profil_samples *t, size_t row)
{
	return t->pool + t->rows[row].pcs;
}

void
profil_samples_write(const struct profil_samples *t, struct profil_writer *w)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct profil_sample_row *e = &t->rows[i];

		profil_writer_sample(w, e->count, e->tid, e->epoch, e->depth, t->pool + e->pcs);
	}
	/* Keys are rows, and row i is SAMPLE record i. */
	if (t->times.n > 0)
		profil_writer_time(w, profil_timeline_slot_ns(&t->times), t->times.e, t->times.n);
}
