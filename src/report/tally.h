/*
 * tally.h - counting by a small fixed key: the rows of the views that walk stacks (call graph
 * nodes and arcs, source lines, addresses), in rows found through a hash index.  Internal to
 * src/report.
 */
#ifndef PROFIL_REPORT_TALLY_H
#define PROFIL_REPORT_TALLY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/index.h"

/* What a row counts is the view's business; count[0]/seconds[0] is the main figure. */
struct profil_tally_row {
	uint64_t key[3];
	uint64_t count[2];
	double seconds[2];
	uint64_t mark;			/* the last sample that counted here, to count it once */
	const void *ptr[2];		/* what names the row (a location, a module) */
};

struct profil_tally {
	struct profil_tally_row *rows;
	size_t n, cap;
	struct profil_index index;	/* key -> row */
};

/* The index of the row keyed (a, b, c), created zeroed on first use; -ENOMEM.  Rows move when
 * the table grows: hold indices, not pointers, across calls. */
ssize_t profil_tally_get(struct profil_tally *t, uint64_t a, uint64_t b, uint64_t c);

/* Frees the rows; the table is empty (and usable) again. */
void profil_tally_release(struct profil_tally *t);

#endif /* PROFIL_REPORT_TALLY_H */
