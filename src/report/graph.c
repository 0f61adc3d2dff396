/*
 * graph.c - the call graph view: gprof's call graph, but from sampled stacks.  gprof counts
 * calls through mcount; a sampler sees only which functions were on the stack when the clock
 * ticked, so every figure here is a count of samples (ticks), and an arc's figure is the ticks
 * whose stack held that caller directly above that callee.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"
#include "report/tally.h"

/*
 * Nodes: count/seconds [0] self, [1] total; ptr[0] the location that named it first (NULL
 * for [unmapped]), ptr[1] the module.  Arcs: key (caller, callee), count/seconds [0].
 */
struct graph {
	struct profil_tally nodes;
	struct profil_tally arcs;
	size_t *ids;			/* the node of each frame of the sample at hand */
	uint64_t stamp;			/* samples seen: marks count a node or arc once each */
};

/* A frame's function as the flat view knows it: the owner of the machine code. */
static ssize_t
frame_node(struct graph *g, const struct profil_stack_frame *fr)
{
	const struct profil_location *loc = fr->loc;
	ssize_t id;

	if (loc == NULL)
		id = profil_tally_get(&g->nodes, 0, 0, 0);
	else if (loc->known)
		id = profil_tally_get(&g->nodes, (uintptr_t)fr->module, loc->function_start, 1);
	else
		id = profil_tally_get(&g->nodes, (uintptr_t)fr->module, loc->offset, 2);
	if (id >= 0 && g->nodes.rows[id].count[1] == 0) {
		g->nodes.rows[id].ptr[0] = loc;
		g->nodes.rows[id].ptr[1] = fr->module;
	}
	return id;
}

static void
add_once(struct profil_tally_row *row, uint64_t stamp, size_t i, uint64_t count, double s)
{
	if (row->mark == stamp)
		return;
	row->mark = stamp;
	row->count[i] = profil_count_add(row->count[i], count);
	row->seconds[i] += s;
}

static int
add_stack(void *arg, const struct profil_stack *st)
{
	struct graph *g = arg;
	uint64_t count = st->sample->count;
	double s = (double)count / st->hz;
	ssize_t id;
	size_t d;

	g->stamp++;
	for (d = 0; d < st->nframes; d++) {
		id = frame_node(g, &st->frames[d]);
		if (id < 0)
			return (int)id;
		g->ids[d] = (size_t)id;
		/* Recursion puts a function on the stack more than once; its total counts once. */
		add_once(&g->nodes.rows[id], g->stamp, 1, count, s);
	}
	g->nodes.rows[g->ids[0]].count[0] = profil_count_add(g->nodes.rows[g->ids[0]].count[0],
	    count);
	g->nodes.rows[g->ids[0]].seconds[0] += s;
	for (d = 0; d + 1 < st->nframes; d++) {
		/* Direct recursion is no arc of interest; indirect recursion is, once a sample. */
		if (g->ids[d + 1] == g->ids[d])
			continue;
		id = profil_tally_get(&g->arcs, g->ids[d + 1], g->ids[d], 0);
		if (id < 0)
			return (int)id;
		add_once(&g->arcs.rows[id], g->stamp, 0, count, s);
	}
	return 0;
}

/* The node's function name as the flat view names it (raw: for sorting). */
static const char *
node_raw_name(const struct profil_tally_row *row, char *buf, size_t len)
{
	struct profil_stack_frame fr;

	memset(&fr, 0, sizeof(fr));
	fr.loc = row->ptr[0];
	fr.module = (struct profil_module *)(uintptr_t)row->ptr[1];
	return profil_stack_frame_name(&fr, profil_stack_frame_levels(&fr) - 1, buf, len);
}

/* The same escaped, for printing (escape.h). */
static const char *
node_name(const struct profil_tally_row *row, char *buf, size_t len)
{
	const char *name, *shown;
	char tmp[1024];

	name = node_raw_name(row, tmp, sizeof(tmp));
	shown = profil_escape(name, buf, len);
	if (shown == tmp) {
		snprintf(buf, len, "%s", tmp);
		return buf;
	}
	return shown;
}

static const char *
node_module(const struct profil_tally_row *row, char *buf, size_t len)
{
	return row->ptr[1] != NULL ? profil_escape(profil_module_name(row->ptr[1]), buf, len) :
	    "?";
}

/* What the comparisons read: the graph, each node's place in the view, the arcs' end. */
struct graph_sort {
	const struct graph *g;
	const size_t *rank;
	int k;				/* arcs: 0 sorted by caller, 1 by callee */
};

/* Heaviest total first, then self, then name: the order and the index numbers of the view. */
static int
node_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct profil_tally_row *x = &gs->g->nodes.rows[*(const size_t *)a];
	const struct profil_tally_row *y = &gs->g->nodes.rows[*(const size_t *)b];
	char bx[256], by[256];
	int c;

	if (x->count[1] != y->count[1])
		return x->count[1] > y->count[1] ? -1 : 1;
	if (x->count[0] != y->count[0])
		return x->count[0] > y->count[0] ? -1 : 1;
	c = strcmp(node_raw_name(x, bx, sizeof(bx)), node_raw_name(y, by, sizeof(by)));
	if (c != 0)
		return c;
	return strcmp(x->ptr[1] != NULL ? profil_module_name(x->ptr[1]) : "?",
	    y->ptr[1] != NULL ? profil_module_name(y->ptr[1]) : "?");
}

/* Arcs by one end (key[k]), then heaviest first, then by the other end's place in the view. */
static int
arc_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct profil_tally_row *x = &gs->g->arcs.rows[*(const size_t *)a];
	const struct profil_tally_row *y = &gs->g->arcs.rows[*(const size_t *)b];
	int k = gs->k;

	if (x->key[k] != y->key[k])
		return x->key[k] < y->key[k] ? -1 : 1;
	if (x->count[0] != y->count[0])
		return x->count[0] > y->count[0] ? -1 : 1;
	return gs->rank[x->key[!k]] < gs->rank[y->key[!k]] ? -1 : 1;
}

/* The first of arcs a[0 .. n) (sorted by key[k]) whose key[k] is node. */
static size_t
arcs_from(const struct graph *g, const size_t *a, size_t n, int k, size_t node)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->arcs.rows[a[mid]].key[k] < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The caller (k = 0) or callee (k = 1) lines of node, from the arcs a[] sorted by key[k]. */
static void
print_arcs(const struct graph *g, const size_t *rank, const size_t *a, size_t n, int k,
    size_t node, const struct profil_flat_options *opt, size_t index, FILE *out)
{
	const struct profil_tally_row *arc, *peer;
	const char *what = k == 0 ? "callee" : "caller";
	char buf[1024], mod[512];
	size_t i;

	for (i = arcs_from(g, a, n, k, node); i < n && g->arcs.rows[a[i]].key[k] == node; i++) {
		arc = &g->arcs.rows[a[i]];
		peer = &g->nodes.rows[arc->key[!k]];
		if (opt->tsv)
			fprintf(out, "%s\t%zu\t%zu\t%" PRIu64 "\t\t%.6f\t\t%s\t%s\n", what, index,
			    rank[arc->key[!k]] + 1, arc->count[0], arc->seconds[0],
			    node_name(peer, buf, sizeof(buf)), node_module(peer, mod, sizeof(mod)));
		else
			fprintf(out, "%13s %9.3f %9s %9" PRIu64 " %9s      %s [%zu]\n", "",
			    arc->seconds[0], "", arc->count[0], "",
			    node_name(peer, buf, sizeof(buf)), rank[arc->key[!k]] + 1);
	}
}

static int
graph_print(struct profil_report *r, struct graph *g, const struct profil_flat_options *opt,
    FILE *out)
{
	size_t *order, *rank, *by_caller, *by_callee, i, n = g->nodes.n, na = g->arcs.n;
	uint64_t total = profil_report_total(r);
	const struct profil_tally_row *row;
	struct graph_sort gs = { NULL, NULL, 0 };
	char buf[1024], mod[512], idx[32];

	order = malloc((n + 1) * sizeof(*order));
	rank = malloc((n + 1) * sizeof(*rank));
	by_caller = malloc((na + 1) * sizeof(*by_caller));
	by_callee = malloc((na + 1) * sizeof(*by_callee));
	if (order == NULL || rank == NULL || by_caller == NULL || by_callee == NULL) {
		free(order);
		free(rank);
		free(by_caller);
		free(by_callee);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	gs.g = g;
	gs.rank = rank;
	qsort_r(order, n, sizeof(*order), node_cmp, &gs);
	for (i = 0; i < n; i++)
		rank[order[i]] = i;
	for (i = 0; i < na; i++)
		by_caller[i] = by_callee[i] = i;
	gs.k = 0;
	qsort_r(by_caller, na, sizeof(*by_caller), arc_cmp, &gs);
	gs.k = 1;
	qsort_r(by_callee, na, sizeof(*by_callee), arc_cmp, &gs);
	if (opt->limit > 0 && n > opt->limit)
		n = opt->limit;
	if (opt->tsv) {
		fprintf(out, "kind\tindex\tpeer\ttotal\tself\ttotal_s\tself_s\tfunction\tmodule\n");
	} else {
		profil_report_summary_print(r, "Call graph", out);
		fprintf(out, "Counts are sampled stack counts, not call counts: total is the "
		    "samples with the function\nanywhere on the stack (once per sample, also in "
		    "recursion), self those with it at the\nleaf; a caller's or callee's line is "
		    "the samples whose stack held that call.\n\n");
		fprintf(out, "               ------seconds------ ------samples------\n"
		    "index  %%total     total      self     total      self  function [index]  "
		    "module\n");
	}
	for (i = 0; i < n; i++) {
		row = &g->nodes.rows[order[i]];
		if (opt->tsv) {
			print_arcs(g, rank, by_callee, na, 1, order[i], opt, i + 1, out);
			fprintf(out, "function\t%zu\t%zu\t%" PRIu64 "\t%" PRIu64
			    "\t%.6f\t%.6f\t%s\t%s\n", i + 1, i + 1, row->count[1], row->count[0],
			    row->seconds[1], row->seconds[0], node_name(row, buf, sizeof(buf)),
			    node_module(row, mod, sizeof(mod)));
			print_arcs(g, rank, by_caller, na, 0, order[i], opt, i + 1, out);
			continue;
		}
		print_arcs(g, rank, by_callee, na, 1, order[i], opt, i + 1, out);
		snprintf(idx, sizeof(idx), "[%zu]", i + 1);
		fprintf(out, "%-6s %6.2f %9.3f %9.3f %9" PRIu64 " %9" PRIu64 "  %s [%zu]  %s\n",
		    idx,
		    total > 0 ? 100.0 * (double)row->count[1] / (double)total : 0.0,
		    row->seconds[1], row->seconds[0], row->count[1], row->count[0],
		    node_name(row, buf, sizeof(buf)), i + 1, node_module(row, mod, sizeof(mod)));
		print_arcs(g, rank, by_caller, na, 0, order[i], opt, i + 1, out);
		fprintf(out, "-----------------------------------------------\n");
	}
	free(order);
	free(rank);
	free(by_caller);
	free(by_callee);
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

int
profil_report_graph_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	struct graph g;
	int err;

	memset(&g, 0, sizeof(g));
	g.ids = malloc(PROFIL_FORMAT_MAX_DEPTH * sizeof(*g.ids));
	err = g.ids == NULL ? -ENOMEM : profil_report_stacks(r, add_stack, &g);
	if (err == 0)
		err = graph_print(r, &g, opt, out);
	free(g.ids);
	profil_tally_release(&g.nodes);
	profil_tally_release(&g.arcs);
	return err;
}
