/*
 * lines.h - what the source line views share (lines.c: --lines, annotate.c: --annotate):
 * the leaf ticks by location, rows made from them, and names escaped for printing.  Private
 * to src/report.
 */
#ifndef PROFIL_REPORT_LINES_H
#define PROFIL_REPORT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "report/escape.h"
#include "report/stack.h"
#include "report/tally.h"
#include "report/view.h"

/* Names from the profile and the binaries, escaped (escape.h); buf is char[N]. */
#define SHOW(s, buf)	profil_escape((s), (buf), sizeof(buf))

struct lines {
	struct profil_tally t;		/* ptr[0] the location, ptr[1] the module */
	const char *function;		/* --annotate: the function, else NULL */
	uint64_t matched;		/* --annotate: ticks in it */
	struct profil_tally addrs;	/* --annotate: by module and offset */
};

/* profil_report_stacks()'s callback: each stack's leaf ticks into ln (struct lines). */
int profil_lines_add_leaf(void *arg, const struct profil_stack *st);
/* strcmp, a NULL after every string. */
int profil_lines_str_cmp(const char *a, const char *b);
void profil_lines_rows_free(struct profil_line_row *rows, size_t n);
/* Rows of the tally sorted by cmp (place or count): *n of them, or NULL. */
struct profil_line_row *profil_lines_rows_make(const struct profil_tally *t,
    int (*cmp)(const void *, const void *), size_t *n);
/* Where a row is: file and line, then function and module (rows without a line). */
int profil_lines_place_cmp(const void *a, const void *b);

#endif /* PROFIL_REPORT_LINES_H */
