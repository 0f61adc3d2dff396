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
#include "report/index.h"

/*
 * A file of deep distinct stacks has a node and an arc for almost every PC it holds, so both
 * are kept small (issue 11): a node is named by the location that named it first and its
 * module, and found again by the key those give (frame_key); an arc holds two node numbers.
 */
struct graph_node {
	const struct profil_location *loc;	/* NULL for [unmapped] and marker frames */
	const struct profil_module *module;
	uint64_t pc;			/* a marker frame's pc (a cut, a wait); else 0 */
	uint64_t count[2];		/* ticks: [0] self, [1] total */
	double seconds[2];
	double waiting;			/* of total, the seconds threads waited (--wall) */
	uint64_t mark;			/* the last sample that counted here, to count it once */
};

struct graph_arc {
	uint32_t key[2];		/* caller, callee */
	uint64_t count;
	double seconds;
	uint64_t mark;
};

struct graph {
	struct graph_node *nodes;
	size_t nnodes, capnodes;
	struct profil_index node_index;
	struct graph_arc *arcs;
	size_t narcs, caparcs;
	struct profil_index arc_index;
	uint32_t *ids;			/* the node of each frame of the sample at hand */
	uint64_t stamp;			/* samples seen: marks count a node or arc once each */
	int wall;			/* a --wall recording: waiting time shown apart */
};

/* Room for one more of *n elements of size at *p; 0 or -ENOMEM (also beyond 2^32 - 1). */
static int
room(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	if (n >= UINT32_MAX)
		return -ENOMEM;
	q = reallocarray(*p, *cap ? 2 * *cap : 256, size);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = *cap ? 2 * *cap : 256;
	return 0;
}

/* A frame's function as the flat view knows it, the owner of the machine code, as a key:
 * (module, function start, 1) when a symbol names it, (module, entry start, 4) when an unwind
 * entry does, (module, offset, 2) when nothing does, (0, pc, 3) for a marker frame (a cut
 * stack's end, a thread's wait). */
static void
frame_key(const struct profil_location *loc, const struct profil_module *mod, uint64_t pc,
    uint64_t key[3])
{
	if (loc == NULL && profil_pc_is_marker(pc)) {
		key[0] = 0;
		key[1] = pc;
		key[2] = 3;
		return;
	}
	key[0] = (uintptr_t)mod;
	key[1] = loc == NULL ? 0 : loc->known ? loc->function_start : loc->offset;
	key[2] = loc == NULL ? 0 : loc->known == PROFIL_LOCATION_UNWIND ? 4 : loc->known ? 1 : 2;
}

struct node_key {
	const struct graph *g;
	uint64_t key[3];
};

static int
node_same(const void *arg, size_t i)
{
	const struct node_key *k = arg;
	uint64_t key[3];

	frame_key(k->g->nodes[i].loc, k->g->nodes[i].module, k->g->nodes[i].pc, key);
	return key[0] == k->key[0] && key[1] == k->key[1] && key[2] == k->key[2];
}

static ssize_t
frame_node(struct graph *g, const struct profil_stack_frame *fr)
{
	struct node_key k = { g, { 0, 0, 0 } };
	struct graph_node *nd;
	ssize_t id;

	if (room((void **)&g->nodes, &g->capnodes, g->nnodes, sizeof(*g->nodes)) != 0)
		return -ENOMEM;
	frame_key(fr->loc, fr->loc != NULL ? fr->module : NULL, fr->pc, k.key);
	id = profil_index_get(&g->node_index, profil_index_hash(k.key[0], k.key[1], k.key[2]),
	    node_same, &k, g->nnodes);
	if (id < 0 || (size_t)id < g->nnodes)
		return id;
	nd = &g->nodes[g->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->loc = fr->loc;
	nd->module = fr->loc != NULL ? fr->module : NULL;
	nd->pc = k.key[2] == 3 ? fr->pc : 0;
	nd->mark = UINT64_MAX;
	return id;
}

struct arc_key {
	const struct graph *g;
	uint32_t caller, callee;
};

static int
arc_same(const void *arg, size_t i)
{
	const struct arc_key *k = arg;

	return k->g->arcs[i].key[0] == k->caller && k->g->arcs[i].key[1] == k->callee;
}

static ssize_t
arc_get(struct graph *g, uint32_t caller, uint32_t callee)
{
	const struct arc_key k = { g, caller, callee };
	struct graph_arc *a;
	ssize_t id;

	if (room((void **)&g->arcs, &g->caparcs, g->narcs, sizeof(*g->arcs)) != 0)
		return -ENOMEM;
	id = profil_index_get(&g->arc_index, profil_index_hash(caller, callee, 3), arc_same, &k,
	    g->narcs);
	if (id < 0 || (size_t)id < g->narcs)
		return id;
	a = &g->arcs[g->narcs++];
	memset(a, 0, sizeof(*a));
	a->key[0] = caller;
	a->key[1] = callee;
	a->mark = UINT64_MAX;
	return id;
}

/* Adds count to what mark guards, once per sample (stamp); returns whether it did. */
static int
add_once(uint64_t *mark, uint64_t stamp, uint64_t *sum, double *seconds, uint64_t count,
    double s)
{
	if (*mark == stamp)
		return 0;
	*mark = stamp;
	*sum = profil_count_add(*sum, count);
	*seconds += s;
	return 1;
}

static int
add_stack(void *arg, const struct profil_stack *st)
{
	struct graph *g = arg;
	uint64_t count = st->sample->count;
	double s = (double)count / st->hz;
	struct graph_node *nd;
	struct graph_arc *a;
	ssize_t id;
	size_t d;
	/* A waiting thread's sample (--wall): its leaf is the wait frame. */
	int waiting = st->nframes > 0 && profil_pc_is_wait(st->frames[0].pc);

	g->stamp++;
	if (st->file->hdr.flags & PROFIL_HDR_WALL)
		g->wall = 1;
	for (d = 0; d < st->nframes; d++) {
		id = frame_node(g, &st->frames[d]);
		if (id < 0)
			return (int)id;
		g->ids[d] = (uint32_t)id;
		/* Recursion puts a function on the stack more than once; its total counts once. */
		nd = &g->nodes[id];
		if (add_once(&nd->mark, g->stamp, &nd->count[1], &nd->seconds[1], count, s) &&
		    waiting)
			nd->waiting += s;
	}
	nd = &g->nodes[g->ids[0]];
	nd->count[0] = profil_count_add(nd->count[0], count);
	nd->seconds[0] += s;
	for (d = 0; d + 1 < st->nframes; d++) {
		/* Direct recursion is no arc of interest; indirect recursion is, once a sample. */
		if (g->ids[d + 1] == g->ids[d])
			continue;
		id = arc_get(g, g->ids[d + 1], g->ids[d]);
		if (id < 0)
			return (int)id;
		a = &g->arcs[id];
		add_once(&a->mark, g->stamp, &a->count, &a->seconds, count, s);
	}
	return 0;
}

/* The node's function name as the flat view names it (raw: for sorting). */
static const char *
node_raw_name(const struct graph_node *row, char *buf, size_t len)
{
	struct profil_stack_frame fr;

	memset(&fr, 0, sizeof(fr));
	fr.pc = row->pc;
	fr.loc = row->loc;
	fr.module = (struct profil_module *)(uintptr_t)row->module;
	return profil_stack_frame_name(&fr, profil_stack_frame_levels(&fr) - 1, buf, len);
}

/* The same escaped, for printing (escape.h). */
static const char *
node_name(const struct graph_node *row, char *buf, size_t len)
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
node_module(const struct graph_node *row, char *buf, size_t len)
{
	return row->module != NULL ? profil_escape(profil_module_name(row->module), buf, len) :
	    "?";
}

/* What the comparisons read: the graph, each node's place in the view, the arcs' end. */
struct graph_sort {
	const struct graph *g;
	const uint32_t *rank;
	int k;				/* arcs: 0 sorted by caller, 1 by callee */
};

/* Heaviest total first, then self, then name: the order and the index numbers of the view. */
static int
node_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct graph_node *x = &gs->g->nodes[*(const uint32_t *)a];
	const struct graph_node *y = &gs->g->nodes[*(const uint32_t *)b];
	char bx[256], by[256];
	int c;

	if (x->count[1] != y->count[1])
		return x->count[1] > y->count[1] ? -1 : 1;
	if (x->count[0] != y->count[0])
		return x->count[0] > y->count[0] ? -1 : 1;
	c = strcmp(node_raw_name(x, bx, sizeof(bx)), node_raw_name(y, by, sizeof(by)));
	if (c != 0)
		return c;
	return strcmp(x->module != NULL ? profil_module_name(x->module) : "?",
	    y->module != NULL ? profil_module_name(y->module) : "?");
}

/* Arcs by one end (key[k]), then heaviest first, then by the other end's place in the view. */
static int
arc_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct graph_arc *x = &gs->g->arcs[*(const uint32_t *)a];
	const struct graph_arc *y = &gs->g->arcs[*(const uint32_t *)b];
	int k = gs->k;

	if (x->key[k] != y->key[k])
		return x->key[k] < y->key[k] ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return gs->rank[x->key[!k]] < gs->rank[y->key[!k]] ? -1 : 1;
}

/* The first of arcs a[0 .. n) (sorted by key[k]) whose key[k] is node. */
static size_t
arcs_from(const struct graph *g, const uint32_t *a, size_t n, int k, size_t node)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->arcs[a[mid]].key[k] < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The caller (k = 0) or callee (k = 1) lines of node, from the arcs a[] sorted by key[k]. */
static void
print_arcs(const struct graph *g, const uint32_t *rank, const uint32_t *a, size_t n, int k,
    size_t node, const struct profil_flat_options *opt, size_t index, FILE *out)
{
	const struct graph_arc *arc;
	const struct graph_node *peer;
	const char *what = k == 0 ? "callee" : "caller";
	char buf[1024], mod[512];
	size_t i;

	for (i = arcs_from(g, a, n, k, node); i < n && g->arcs[a[i]].key[k] == node; i++) {
		arc = &g->arcs[a[i]];
		peer = &g->nodes[arc->key[!k]];
		if (opt->tsv)
			fprintf(out, "%s\t%zu\t%zu\t%" PRIu64 "\t\t%.6f\t\t%s\t%s%s\n", what, index,
			    (size_t)rank[arc->key[!k]] + 1, arc->count, arc->seconds,
			    node_name(peer, buf, sizeof(buf)), node_module(peer, mod, sizeof(mod)),
			    g->wall ? "\t" : "");
		else
			fprintf(out, "%13s %9.3f %*s%9s %9" PRIu64 " %9s      %s [%zu]\n", "",
			    arc->seconds, g->wall ? 10 : 0, "", "", arc->count, "",
			    node_name(peer, buf, sizeof(buf)), (size_t)rank[arc->key[!k]] + 1);
	}
}

static int
graph_print(struct profil_report *r, struct graph *g, const struct profil_flat_options *opt,
    FILE *out)
{
	/* Node and arc numbers fit 32 bits (room() sees to it). */
	uint32_t *order, *rank, *by_caller, *by_callee;
	size_t i, n = g->nnodes, na = g->narcs;
	uint64_t total = profil_report_total(r);
	const struct graph_node *row;
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
		order[i] = (uint32_t)i;
	gs.g = g;
	gs.rank = rank;
	qsort_r(order, n, sizeof(*order), node_cmp, &gs);
	for (i = 0; i < n; i++)
		rank[order[i]] = (uint32_t)i;
	for (i = 0; i < na; i++)
		by_caller[i] = by_callee[i] = (uint32_t)i;
	gs.k = 0;
	qsort_r(by_caller, na, sizeof(*by_caller), arc_cmp, &gs);
	gs.k = 1;
	qsort_r(by_callee, na, sizeof(*by_callee), arc_cmp, &gs);
	if (opt->limit > 0 && n > opt->limit)
		n = opt->limit;
	if (opt->tsv) {
		fprintf(out, "kind\tindex\tpeer\ttotal\tself\ttotal_s\tself_s\tfunction\tmodule%s\n",
		    g->wall ? "\twaiting_s" : "");
	} else if (g->wall) {
		profil_report_summary_print(r, "Call graph", out);
		fprintf(out, "Counts are sampled stack counts, not call counts: total is the "
		    "samples with the function\nanywhere on the stack (once per sample, also in "
		    "recursion), self those with it at the\nleaf; waiting the part of total when "
		    "threads waited, not on a CPU (--wall).\n\n");
		fprintf(out, "               -------------seconds------------- ------samples------\n"
		    "index  %%total     total   waiting      self     total      self  function "
		    "[index]  module\n");
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
		row = &g->nodes[order[i]];
		if (opt->tsv) {
			print_arcs(g, rank, by_callee, na, 1, order[i], opt, i + 1, out);
			fprintf(out, "function\t%zu\t%zu\t%" PRIu64 "\t%" PRIu64
			    "\t%.6f\t%.6f\t%s\t%s", i + 1, i + 1, row->count[1], row->count[0],
			    row->seconds[1], row->seconds[0], node_name(row, buf, sizeof(buf)),
			    node_module(row, mod, sizeof(mod)));
			if (g->wall)
				fprintf(out, "\t%.6f", row->waiting);
			fputc('\n', out);
			print_arcs(g, rank, by_caller, na, 0, order[i], opt, i + 1, out);
			continue;
		}
		print_arcs(g, rank, by_callee, na, 1, order[i], opt, i + 1, out);
		snprintf(idx, sizeof(idx), "[%zu]", i + 1);
		fprintf(out, "%-6s %6.2f %9.3f ", idx,
		    total > 0 ? 100.0 * (double)row->count[1] / (double)total : 0.0,
		    row->seconds[1]);
		if (g->wall)
			fprintf(out, "%9.3f ", row->waiting);
		fprintf(out, "%9.3f %9" PRIu64 " %9" PRIu64 "  %s [%zu]  %s\n", row->seconds[0],
		    row->count[1], row->count[0], node_name(row, buf, sizeof(buf)), i + 1,
		    node_module(row, mod, sizeof(mod)));
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
	free(g.nodes);
	profil_index_release(&g.node_index);
	free(g.arcs);
	profil_index_release(&g.arc_index);
	return err;
}
