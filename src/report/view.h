/*
 * view.h - the views of `profil report` as data: each view builds its rows from the session
 * (report.h) in one step, and renderers (text, --tsv, --json) turn those rows into output in
 * another, so a new output reads the same rows instead of computing the view again.  Rows
 * hold figures computed as the text prints them but unrounded (percentages, interval bounds
 * as fractions, seconds, raw counts); the renderers alone round.  Names in rows are raw, as
 * the binaries and profiles spell them, and renderers escape them (escape.h); --diff's
 * function alone is held as shown, for rows are matched by it.  Rows point into the session,
 * valid until it is freed or a file is added.  Memory: a view holds at most one row per entry (function, line, graph node and arc)
 * the session already has.  Internal to the profil command; not thread-safe.
 */
#ifndef PROFIL_REPORT_VIEW_H
#define PROFIL_REPORT_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

struct profil_json;
struct profil_location;
struct profil_module;

/*
 * The heading every view starts with: the files (processes) and what their samples stand for.
 * time[i] is file i's, summed over the files in all; a program's line sums the files of one
 * progname that have samples.
 */
struct profil_summary_program {
	size_t first;			/* its first file */
	size_t processes;		/* of its files, those with samples */
	struct profil_report_time time;
};

struct profil_summary {
	size_t nfiles;
	uint64_t ran;			/* processes that ran, when the recorder counted more than
					   left files (from outside, those without samples leave
					   none); else 0 */
	struct profil_report_time all;
	struct profil_report_time *time; /* per file */
	size_t busy;			/* files with samples */
	struct profil_summary_program *programs;	/* programs with samples, in file order */
	size_t nprograms;
};

/* Builds s from the session; 0 or -ENOMEM.  Release with profil_summary_release(). */
int profil_summary_build(struct profil_report *r, struct profil_summary *s);
void profil_summary_release(struct profil_summary *s);

/* Writes the heading as the member "heading" of the object open in j (json.h); 0 or -ENOMEM. */
int profil_report_heading_json(struct profil_report *r, struct profil_json *j);

/*
 * The flat view: tables of rows, one table without a split or with --threads, one per file
 * (program) with --per-process (--per-program).  A row's share is of its table's total.
 */
struct profil_flat_row {
	const struct profil_report_entry *e;
	double percent;			/* 100 * e->count / the table's total */
	double lo, hi;			/* its 95% interval (profil_share_interval) */
	double cumulative;		/* seconds of this row and the rows above it */
};

struct profil_flat_table {
	size_t proc;			/* per-process: the file; per-program: its first file */
	size_t processes;		/* per-program: its files; else 1 */
	uint64_t total;			/* ticks of the table's rows, all of them */
	size_t nentries;		/* its rows before the limit */
	struct profil_report_time time;	/* per-process (program): the file's (program's) */
	struct profil_flat_row *rows;	/* the nrows heaviest, at most opt->limit */
	size_t nrows;
};

struct profil_flat_view {
	enum profil_report_split split;
	struct profil_flat_table *tables;
	size_t ntables;
};

/* Builds v, at most limit rows a table (0: all); 0 or -ENOMEM.  Release it once built. */
int profil_flat_view_build(struct profil_report *r, size_t limit, struct profil_flat_view *v);
void profil_flat_view_release(struct profil_flat_view *v);

/*
 * The call graph (--graph) of sampled stacks: a node per function met on a stack, named as
 * the flat view names it (the owner of the machine code), and an arc per caller -> callee pair
 * seen.  Figures are ticks: a node's self (at the leaf) and total (on the stack, once per
 * sample); an arc's, the ticks whose stack held that call directly.  A file of deep distinct
 * stacks has a node and an arc for almost every PC it holds, so both are small (issue 11).
 */
struct profil_graph_node {
	const struct profil_location *loc;	/* NULL for [unmapped] and marker frames; its
						   module is the node's */
	uint64_t pc;			/* a marker frame's pc (a cut, a wait), a bare frame's
					   offset (loc is its module's, shared); else 0 */
	uint64_t count;			/* ticks: total */
	double seconds;
	uint32_t self;			/* 0, or 1 + its row of the view's self: a node met at
					   a leaf (few of them in deep stacks) */
};

/* A node's ticks at the leaf. */
struct profil_graph_self {
	uint64_t count;
	double seconds;
};

struct profil_graph_arc {
	uint32_t key[2];		/* caller, callee: node numbers */
	uint64_t count;
	double seconds;
};

struct profil_graph_view {
	struct profil_graph_node *nodes;
	size_t nnodes;
	struct profil_graph_arc *arcs;
	size_t narcs;
	struct profil_graph_self *self;	/* the rows nodes' self names */
	size_t nself;
	double *waiting;		/* --wall: per node, the seconds of its total threads
					   waited; else NULL */
	uint32_t *order;		/* node numbers in view order: heaviest total, then self,
					   then name; order[0 .. nrows) are shown */
	size_t nrows;			/* at most the limit */
	uint32_t *rank;			/* node -> its place in order: the view's index is rank + 1 */
	uint32_t *by_arc[2];		/* arc numbers sorted by [0] caller, [1] callee, each
					   node's arcs heaviest first */
	uint64_t total;			/* ticks of the session, what %total is of */
	int wall;			/* a --wall recording: waiting time shown apart */
};

/* Builds v from every sample's stack, nrows at most limit (0: all); 0, -ENOMEM or -EIO. */
int profil_graph_view_build(struct profil_report *r, size_t limit, struct profil_graph_view *v);
void profil_graph_view_release(struct profil_graph_view *v);

/* The function name of a node, raw, as the flat view names it (buf may hold it). */
const char *profil_graph_node_name(const struct profil_graph_node *n, char *buf, size_t len);

/* The module of a node's code, or NULL ([unmapped] and marker frames). */
const struct profil_module *profil_graph_node_module(const struct profil_graph_node *n);
/* A node's ticks at the leaf in self (the view's), none for a node never met there. */
const struct profil_graph_self *profil_graph_node_self(const struct profil_graph_self *self,
    const struct profil_graph_node *n);

/*
 * The arcs of node (by number): k = 0 those it is the caller of (its callees), k = 1 those it
 * is the callee of (its callers); by_arc[k][*first .. *end), heaviest first.
 */
void profil_graph_view_arcs(const struct profil_graph_view *v, size_t node, int k,
    size_t *first, size_t *end);

/*
 * The source line views.  --lines: the hottest lines, each the leaf's innermost inline
 * frame's file:line, rows without line information by function.  --annotate: one function's
 * ticks by line (the line executing in that function) and by address.  Rows of one file name
 * and line are merged, as each compilation unit has its own copy of a header's name.
 */
struct profil_line_row {
	const char *file;		/* NULL: no line information, by function or address */
	const char *comp_dir;		/* where a relative file is */
	int line;
	const char *function;		/* innermost function (--lines) */
	const char *outer;		/* the function it is inlined into, or NULL */
	const struct profil_module *module;
	char *label;			/* module+0xoffset or [unmapped]: when nothing names it */
	uint64_t offset;		/* --annotate's addresses */
	uint64_t count;
	double seconds;
	double percent;			/* 100 * count / the view's total (--annotate: matched) */
	double lo, hi;			/* --lines: the share's 95% interval */
};

struct profil_lines_view {
	struct profil_line_row *rows;	/* heaviest first */
	size_t nrows;			/* shown: at most the limit */
	size_t nall;			/* built (and freed) */
	uint64_t total;			/* ticks of the session */
};

struct profil_annotate_view {
	const char *function;
	uint64_t matched;		/* ticks in it */
	uint64_t total;			/* ticks of the session */
	struct profil_line_row *lines;	/* by file and line; rows without a line come last */
	size_t nlines;
	struct profil_line_row *addrs;	/* by module and offset */
	size_t naddrs;
};

/*
 * profil_source_open - a source file named by debug information, read whole into *buf (free
 * it after fclose) and given as a stream; NULL when it is not a regular file of at most
 * 64 MiB that can be read.  A FIFO or device there never blocks.
 */
FILE *profil_source_open(const char *path, char **buf);

/* Build the views; 0, -ENOMEM, -EIO, or for --annotate -ENOENT when no tick is in function. */
int profil_lines_view_build(struct profil_report *r, size_t limit, struct profil_lines_view *v);
void profil_lines_view_release(struct profil_lines_view *v);
int profil_annotate_view_build(struct profil_report *r, const char *function,
    struct profil_annotate_view *v);
void profil_annotate_view_release(struct profil_annotate_view *v);

/* A row's function, or its label when nothing names it; its module's name or "?"; its file as
 * it can be opened (DWARF names files relative to the compiler's directory; buf may hold it),
 * "" without one. */
const char *profil_line_row_function(const struct profil_line_row *row);
const char *profil_line_row_module(const struct profil_line_row *row);
const char *profil_line_row_path(const struct profil_line_row *row, char *buf, size_t len);

/*
 * --diff: two sessions compared function by function, matched by name and module: the shares
 * in base ([0]) and now ([1]), the difference and the two-proportion z statistic, largest
 * |difference| first.  |z| >= PROFIL_DIFF_Z is beyond the sampling noise at 95%.
 */
#define PROFIL_DIFF_Z	1.96

struct profil_diff_row {
	char *function;			/* as the text view shows it: escaped (escape.h), for
					   rows are matched and sorted by it */
	const char *module;		/* raw, "?" for [unmapped] */
	uint64_t k[2];			/* ticks in base, now */
	double p[2];			/* shares (fractions) */
	double diff;			/* points: 100 * (p[1] - p[0]) */
	double z;
};

struct profil_diff_view {
	struct profil_diff_row *rows;
	size_t nrows;			/* shown: at most the limit */
	size_t nall;
	uint64_t total[2];		/* ticks of base, of now */
};

/* Builds v comparing r with base; 0 or -ENOMEM. */
int profil_diff_view_build(struct profil_report *r, struct profil_report *base, size_t limit,
    struct profil_diff_view *v);
void profil_diff_view_release(struct profil_diff_view *v);

#endif /* PROFIL_REPORT_VIEW_H */
