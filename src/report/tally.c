/*
 * tally.c - the views' counting table (see tally.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/tally.h"

struct tally_key {
	const struct profil_tally *t;
	uint64_t key[3];
};

static int
tally_same(const void *arg, size_t i)
{
	const struct tally_key *k = arg;
	const uint64_t *key = k->t->rows[i].key;

	return key[0] == k->key[0] && key[1] == k->key[1] && key[2] == k->key[2];
}

ssize_t
profil_tally_get(struct profil_tally *t, uint64_t a, uint64_t b, uint64_t c)
{
	const struct tally_key k = { t, { a, b, c } };
	struct profil_tally_row *row;
	ssize_t i;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		row = realloc(t->rows, cap * sizeof(*row));
		if (row == NULL)
			return -ENOMEM;
		t->rows = row;
		t->cap = cap;
	}
	i = profil_index_get(&t->index, profil_hash3(a, b, c), tally_same, &k, t->n);
	if (i < 0 || (size_t)i < t->n)
		return i;
	row = &t->rows[t->n++];
	memset(row, 0, sizeof(*row));
	row->key[0] = a;
	row->key[1] = b;
	row->key[2] = c;
	row->mark = UINT64_MAX;
	return i;
}

void
profil_tally_release(struct profil_tally *t)
{
	free(t->rows);
	profil_index_release(&t->index);
	memset(t, 0, sizeof(*t));
}
