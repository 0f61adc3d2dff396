/*
 * index.c - the open-addressing hash index over a caller's rows (see index.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/index.h"

/*
 * The hash is kept beside the row so that growing needs no callback and a probe past another
 * key rarely reaches the caller's comparison.  32 bits of each are enough (a table of 2^32
 * rows would not fit in memory anyway) and halve the slots: a report of millions of distinct
 * frames is mostly index (issue 11).
 */
struct profil_index_slot {
	uint32_t hash;			/* the low bits of the hash: they pick the slot */
	uint32_t row;			/* row number + 1, 0 free */
};

void
profil_index_init(struct profil_index *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void
profil_index_release(struct profil_index *ix)
{
	free(ix->slots);
	profil_index_init(ix);
}

/* Twice the slots, every row placed again: linear probing needs free slots to end its runs. */
static int
index_grow(struct profil_index *ix)
{
	size_t i, j, n = ix->nslots ? 2 * ix->nslots : 256;
	struct profil_index_slot *slots = calloc(n, sizeof(*slots));

	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < ix->nslots; i++) {
		if (ix->slots[i].row == 0)
			continue;
		for (j = ix->slots[i].hash & (n - 1); slots[j].row != 0; j = (j + 1) & (n - 1))
			;
		slots[j] = ix->slots[i];
	}
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = n;
	return 0;
}

ssize_t
profil_index_get(struct profil_index *ix, uint64_t hash, int (*same)(const void *key, size_t row),
    const void *key, size_t next)
{
	struct profil_index_slot *s;
	uint32_t h = (uint32_t)(hash ^ hash >> 32);
	size_t j;

	/* A load factor of one half keeps probe runs short. */
	if (2 * (ix->n + 1) > ix->nslots && index_grow(ix) != 0)
		return -ENOMEM;
	for (j = h & (ix->nslots - 1); ix->slots[j].row != 0; j = (j + 1) & (ix->nslots - 1)) {
		s = &ix->slots[j];
		if (s->hash == h && same(key, s->row - 1))
			return (ssize_t)(s->row - 1);
	}
	if (next >= UINT32_MAX)
		return -ENOMEM;
	ix->slots[j].hash = h;
	ix->slots[j].row = (uint32_t)next + 1;
	ix->n++;
	return (ssize_t)next;
}

ssize_t
profil_index_find(const struct profil_index *ix, uint64_t hash,
    int (*same)(const void *key, size_t row), const void *key)
{
	uint32_t h = (uint32_t)(hash ^ hash >> 32);
	size_t j;

	for (j = h & (ix->nslots - 1); ix->nslots > 0 && ix->slots[j].row != 0;
	    j = (j + 1) & (ix->nslots - 1))
		if (ix->slots[j].hash == h && same(key, ix->slots[j].row - 1))
			return (ssize_t)(ix->slots[j].row - 1);
	return -1;
}

/* The slot a hash starts its probe at: its folded 32 bits, as profil_index_get() uses. */
static size_t
rows_start(uint64_t hash, size_t nslots)
{
	return (uint32_t)(hash ^ hash >> 32) & (nslots - 1);
}

/* Twice the slots, every row placed again under its hash, asked again: the rows in order,
 * which a cache reads ahead, not in the old slots' order. */
static int
rows_grow(struct profil_index_rows *ix)
{
	size_t i, j, n = ix->nslots ? 2 * ix->nslots : 256;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (slots == NULL)
		return -ENOMEM;
	for (i = ix->first; i < ix->first + ix->n; i++) {
		for (j = rows_start(ix->rehash(ix->arg, i), n); slots[j] != 0;
		    j = (j + 1) & (n - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = n;
	return 0;
}

ssize_t
profil_index_rows_get(struct profil_index_rows *ix, uint64_t hash,
    int (*same)(const void *key, size_t row), const void *key, size_t next)
{
	size_t j;

	if (2 * (ix->n + 1) > ix->nslots && rows_grow(ix) != 0)
		return -ENOMEM;
	for (j = rows_start(hash, ix->nslots); ix->slots[j] != 0; j = (j + 1) & (ix->nslots - 1))
		if (same(key, ix->slots[j] - 1))
			return (ssize_t)(ix->slots[j] - 1);
	if (next >= UINT32_MAX)
		return -ENOMEM;
	if (ix->n == 0)
		ix->first = next;
	ix->slots[j] = (uint32_t)next + 1;
	ix->n++;
	return (ssize_t)next;
}

void
profil_index_rows_release(struct profil_index_rows *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->nslots = 0;
	ix->n = 0;
	ix->first = 0;
}

/* FNV-1a, 64 bits. */
static uint64_t
strtab_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

struct strtab_key {
	const struct profil_strtab *t;
	const char *s;
};

static int
strtab_same(const void *arg, size_t i)
{
	const struct strtab_key *k = arg;

	return k->t->strs[i] != NULL && strcmp(k->t->strs[i], k->s) == 0;
}

/*
 * The copies live in blocks of 64 KiB, newest first: a table of millions of short names (deep
 * distinct stacks) pays no allocator header and rounding per name.  A long string gets a block
 * of its own behind the newest, which stays the one filled.
 */
#define STRTAB_BLOCK	65536

struct profil_strtab_block {
	struct profil_strtab_block *next;
	size_t used, size;
	char data[];
};

static char *
strtab_copy(struct profil_strtab *t, const char *s)
{
	size_t len = strlen(s) + 1;
	struct profil_strtab_block *b = t->blocks, *nb;

	if (b == NULL || b->size - b->used < len) {
		size_t size = len > STRTAB_BLOCK / 16 ? len : STRTAB_BLOCK;

		nb = malloc(sizeof(*nb) + size);
		if (nb == NULL)
			return NULL;
		nb->used = 0;
		nb->size = size;
		if (b != NULL && size != STRTAB_BLOCK) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			t->blocks = nb;
		}
		b = nb;
	}
	memcpy(b->data + b->used, s, len);
	b->used += len;
	return b->data + b->used - len;
}

ssize_t
profil_strtab_intern(struct profil_strtab *t, const char *s, int *added)
{
	const struct strtab_key k = { t, s };
	char **strs;
	ssize_t i;

	*added = 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		strs = realloc(t->strs, cap * sizeof(*strs));
		if (strs == NULL)
			return -ENOMEM;
		t->strs = strs;
		t->cap = cap;
	}
	i = profil_index_get(&t->index, strtab_hash(s), strtab_same, &k, t->n);
	if (i < 0 || (size_t)i < t->n)
		return i;
	/* Indexed already, so the row must exist: a copy that fails stays there as NULL. */
	t->strs[t->n++] = strtab_copy(t, s);
	if (t->strs[i] == NULL)
		return -ENOMEM;
	*added = 1;
	return i;
}

void
profil_strtab_release(struct profil_strtab *t)
{
	struct profil_strtab_block *b, *next;

	for (b = t->blocks; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(t->strs);
	profil_index_release(&t->index);
	memset(t, 0, sizeof(*t));
}
