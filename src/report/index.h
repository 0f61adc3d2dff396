/*
 * index.h - an open-addressing hash index over a caller's array of rows: it maps a key to the
 * number of the row that holds it, and the rows stay the caller's (in insertion order, which is
 * what makes output independent of the hash).  The one index the report's entries, the views'
 * tallies, the exporters' tree and pprof's ids share; and over it, interned strings.  Internal
 * to the profil command; not thread-safe.
 */
#ifndef PROFIL_REPORT_INDEX_H
#define PROFIL_REPORT_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* profil_hash3(): the hash of a key of up to three words the views' tables share. */
#include "base/hash.h"

struct profil_index_slot;

/* A zeroed index is an empty one, as after profil_index_init(). */
struct profil_index {
	struct profil_index_slot *slots;	/* a power of two of them, at most half used */
	size_t nslots;
	size_t n;				/* rows indexed */
};

void profil_index_init(struct profil_index *ix);

/* Frees the slots; the index is empty (and usable) again.  The rows are the caller's. */
void profil_index_release(struct profil_index *ix);

/*
 * profil_index_get - the number of the row that holds key: one indexed under hash for which
 * same(key, row) is true.  When there is none, row next is indexed under hash and next is
 * returned: the caller then stores the key in row next, which must already have room, so that
 * a row the index knows always exists.  hash is the whole 64-bit hash of the key (folded to 32
 * bits, it picks the slot); same is called only for rows whose folded hash is equal.  Returns
 * the row number or -ENOMEM (the index is unchanged), also for a row number of 2^32 - 1 or
 * more.
 */
ssize_t profil_index_get(struct profil_index *ix, uint64_t hash,
    int (*same)(const void *key, size_t row), const void *key, size_t next);

/* The row that holds key, as profil_index_get finds it, or -1: nothing is added. */
ssize_t profil_index_find(const struct profil_index *ix, uint64_t hash,
    int (*same)(const void *key, size_t row), const void *key);

/*
 * struct profil_index_rows - the same index in half the memory: a slot holds a row number
 * alone (4 bytes, not 8), so every probe asks same(), and growing asks rehash(arg, row) for
 * the hash of each row's key again.  For tables of millions of rows whose rows hold their key
 * (the call graph's nodes and arcs, the export tree's nodes: a file of deep distinct stacks
 * has one of each for almost every frame, issue 19).  Rows are indexed in order, each new
 * one the row after the last, so that growing reads them in order.  Zeroed but for rehash
 * and arg, it is empty.
 */
struct profil_index_rows {
	uint32_t *slots;		/* row number + 1, 0 free; a power of two, at most half
					   used */
	size_t nslots;
	size_t n;
	size_t first;			/* the first row indexed */
	uint64_t (*rehash)(const void *arg, size_t row);
	const void *arg;
};

/* As profil_index_get(), for an index of rows. */
ssize_t profil_index_rows_get(struct profil_index_rows *ix, uint64_t hash,
    int (*same)(const void *key, size_t row), const void *key, size_t next);

/* Frees the slots; the index is empty (and usable) again. */
void profil_index_rows_release(struct profil_index_rows *ix);

/*
 * struct profil_strtab - strings interned in the order first seen, through an index: row i is
 * strs[i], a copy the table owns, so equal strings share one pointer.  A zeroed table is empty.
 */
struct profil_strtab_block;

struct profil_strtab {
	char **strs;
	size_t n, cap;
	struct profil_index index;
	struct profil_strtab_block *blocks;	/* the copies, packed: no allocation each */
};

/*
 * profil_strtab_intern - the row of the string s, copied in as row n on first use (and *added
 * set, else cleared).  Returns the row or -ENOMEM.
 */
ssize_t profil_strtab_intern(struct profil_strtab *t, const char *s, int *added);

/* Frees the copies; the table is empty (and usable) again. */
void profil_strtab_release(struct profil_strtab *t);

#endif /* PROFIL_REPORT_INDEX_H */
