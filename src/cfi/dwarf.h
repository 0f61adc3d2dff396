/*
 * dwarf.h - inside src/cfi: what frame.c (the instructions run into rules), read.c (the
 * encodings, bounds checked) and table.c (rows sorted into tables) share.
 */
#ifndef PROFIL_CFI_DWARF_H
#define PROFIL_CFI_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "cfi.h"

#define MAX_ROWS	(4u << 20)		/* 128 MiB of pending rows; cc1 has 0.5M */

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

/* Where the section is: pc-relative pointers are relative to their own image address. */
struct section {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;
	int eh;
};

/* A row being collected: sorted by (addr, prio, seq); the last of each address wins. */
struct pending {
	uint64_t addr;
	uint32_t seq;
	uint8_t prio;		/* 0: the end of an entry's range; 1: a rule */
	struct profil_unwind_row row;
};

struct rows {
	struct pending *v;
	size_t n, cap;
	int err;
	struct profil_cfi_entries *ents;	/* set: the entries' ranges wanted, not rows */
	size_t ents_cap;
};

/* read.c: each sets c->bad, and returns 0, rather than read past c->end. */
uint64_t cfi_get_n(struct cursor *c, size_t n);
uint64_t cfi_uleb(struct cursor *c);
int64_t cfi_sleb(struct cursor *c);
void cfi_skip(struct cursor *c, uint64_t n);
int64_t cfi_factored(uint64_t v, int64_t align);
uint64_t cfi_pointer(struct cursor *c, const struct section *s, uint8_t enc);

/* table.c: rows and entries collected (r->err set on failure), then sorted into a table. */
void cfi_push_entry(struct rows *r, uint64_t start, uint64_t end);
void cfi_push(struct rows *r, uint64_t addr, uint8_t prio, const struct profil_unwind_row *row);
int cfi_finish(struct rows *r, struct profil_unwind_table *out);

#endif
