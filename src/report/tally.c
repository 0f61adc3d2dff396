/*
 * tally.c - the views' counting table (see tally.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/tally.h"

static size_t
tally_hash(uint64_t a, uint64_t b, uint64_t c, size_t nslots)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full ^
	    c * 0x165667b19e3779f9ull;

	h ^= h >> 29;
	return (size_t)h & (nslots - 1);
}

static int
tally_grow(struct profil_tally *t)
{
	size_t i, j, n = t->nslots ? 2 * t->nslots : 256;
	size_t *slots = calloc(n, sizeof(*slots));

	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		const uint64_t *k = t->rows[i].key;

		for (j = tally_hash(k[0], k[1], k[2], n); slots[j] != 0; j = (j + 1) & (n - 1))
			;
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

ssize_t
profil_tally_get(struct profil_tally *t, uint64_t a, uint64_t b, uint64_t c)
{
	struct profil_tally_row *row;
	size_t j;

	if (2 * (t->n + 1) > t->nslots && tally_grow(t) != 0)
		return -ENOMEM;
	for (j = tally_hash(a, b, c, t->nslots); t->slots[j] != 0; j = (j + 1) & (t->nslots - 1)) {
		row = &t->rows[t->slots[j] - 1];
		if (row->key[0] == a && row->key[1] == b && row->key[2] == c)
			return (ssize_t)(t->slots[j] - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		row = realloc(t->rows, cap * sizeof(*row));
		if (row == NULL)
			return -ENOMEM;
		t->rows = row;
		t->cap = cap;
	}
	row = &t->rows[t->n];
	memset(row, 0, sizeof(*row));
	row->key[0] = a;
	row->key[1] = b;
	row->key[2] = c;
	row->mark = UINT64_MAX;
	t->slots[j] = ++t->n;
	return (ssize_t)(t->n - 1);
}

void
profil_tally_release(struct profil_tally *t)
{
	free(t->rows);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
