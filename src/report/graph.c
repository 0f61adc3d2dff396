/*
 * graph.c - the call graph view: gprof's call graph, but from sampled stacks.  gprof counts
 * calls through mcount; a sampler sees only which functions were on the stack when the clock
 * ticked, so every figure here is a count of samples (ticks), and an arc's figure is the ticks
 * whose stack held that caller directly above that callee.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"
#include "report/index.h"
#include "report/view.h"

/*
 * The node or arc numbers a sample has counted already: a node (or arc) a recursive stack
 * holds twice counts once.  A set of the sample at hand, not a mark in every node and arc: a
 * file of deep distinct stacks has a node and an arc for almost every frame, and a mark each
 * was 16 of their 120 bytes (issue 19).  Open addressing over twice the deepest stack's
 * frames; a slot is taken when its stamp is the sample's.
 */
#define SEEN_SLOTS	(4 * PROFIL_FORMAT_MAX_DEPTH)

struct seen {
	uint32_t id[SEEN_SLOTS];
	uint32_t stamp[SEEN_SLOTS];
	uint32_t now;			/* the sample's stamp; never 0 */
};

/* Starts a sample: every slot free. */
static void
seen_clear(struct seen *sn)
{
	if (++sn->now == 0) {
		memset(sn->stamp, 0, sizeof(sn->stamp));
		sn->now = 1;
	}
}

/* Whether id is new to the sample, which then holds it. */
static int
seen_add(struct seen *sn, uint32_t id)
{
	size_t j = (id * 0x9e3779b1u) >> 20 & (SEEN_SLOTS - 1);

	for (; sn->stamp[j] == sn->now; j = (j + 1) & (SEEN_SLOTS - 1))
		if (sn->id[j] == id)
			return 0;
	sn->stamp[j] = sn->now;
	sn->id[j] = id;
	return 1;
}

/* The view's nodes and arcs (view.h) as they are counted, found again through indexes. */
struct graph {
	struct profil_graph_node *nodes;
	size_t nnodes, capnodes;
	struct profil_index_rows node_index;
	struct profil_graph_arc *arcs;
	size_t narcs, caparcs;
	struct profil_index_rows arc_index;
	struct profil_graph_self *self;	/* as the view's */
	size_t nself, capself;
	double *waiting;		/* --wall: per node, as the view's */
	size_t capwaiting;
	uint32_t ids[PROFIL_FORMAT_MAX_DEPTH];	/* the node of each frame of the sample */
	struct seen nodes_seen, arcs_seen;	/* what the sample counted */
	int keep_waiting;		/* a file of the session is a --wall recording */
	int wall;			/* a sample of one was seen: waiting time shown apart */
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
 * stack's end, a thread's wait).  pc is the marker's pc, or the offset when nothing names the
 * code. */
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
	key[1] = loc == NULL ? 0 : loc->known ? loc->function_start : pc;
	key[2] = loc == NULL ? 0 : loc->known == PROFIL_LOCATION_UNWIND ? 4 : loc->known ? 1 : 2;
}

struct node_key {
	const struct graph *g;
	uint64_t key[3];
};

/* The hash of node i's key, for its index to grow. */
static uint64_t
node_hash(const void *arg, size_t i)
{
	const struct graph *g = arg;
	uint64_t key[3];

	frame_key(g->nodes[i].loc, profil_graph_node_module(&g->nodes[i]), g->nodes[i].pc, key);
	return profil_hash3(key[0], key[1], key[2]);
}

static int
node_same(const void *arg, size_t i)
{
	const struct node_key *k = arg;
	uint64_t key[3];

	frame_key(k->g->nodes[i].loc, profil_graph_node_module(&k->g->nodes[i]),
	    k->g->nodes[i].pc, key);
	return key[0] == k->key[0] && key[1] == k->key[1] && key[2] == k->key[2];
}

static ssize_t
frame_node(struct graph *g, const struct profil_stack_frame *fr)
{
	struct node_key k = { g, { 0, 0, 0 } };
	struct profil_graph_node *nd;
	ssize_t id;

	if (room((void **)&g->nodes, &g->capnodes, g->nnodes, sizeof(*g->nodes)) != 0)
		return -ENOMEM;
	frame_key(fr->loc, fr->loc != NULL ? fr->module : NULL,
	    fr->loc != NULL ? fr->offset : fr->pc, k.key);
	id = profil_index_rows_get(&g->node_index, profil_hash3(k.key[0], k.key[1], k.key[2]),
	    node_same, &k, g->nnodes);
	if (id < 0 || (size_t)id < g->nnodes)
		return id;
	if (g->keep_waiting) {
		if (room((void **)&g->waiting, &g->capwaiting, g->nnodes, sizeof(*g->waiting)) != 0)
			return -ENOMEM;
		g->waiting[g->nnodes] = 0;
	}
	nd = &g->nodes[g->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->loc = fr->loc;
	nd->pc = k.key[2] == 3 ? fr->pc : k.key[2] == 2 ? fr->offset : 0;
	return id;
}

struct arc_key {
	const struct graph *g;
	uint32_t caller, callee;
};

static uint64_t
arc_hash(const void *arg, size_t i)
{
	const struct graph *g = arg;

	return profil_hash3(g->arcs[i].key[0], g->arcs[i].key[1], 3);
}

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
	struct profil_graph_arc *a;
	ssize_t id;

	if (room((void **)&g->arcs, &g->caparcs, g->narcs, sizeof(*g->arcs)) != 0)
		return -ENOMEM;
	id = profil_index_rows_get(&g->arc_index, profil_hash3(caller, callee, 3), arc_same, &k,
	    g->narcs);
	if (id < 0 || (size_t)id < g->narcs)
		return id;
	a = &g->arcs[g->narcs++];
	memset(a, 0, sizeof(*a));
	a->key[0] = caller;
	a->key[1] = callee;
	return id;
}

static int
add_stack(void *arg, const struct profil_stack *st)
{
	struct graph *g = arg;
	uint64_t count = st->sample->count;
	double s = st->seconds;
	struct profil_graph_node *nd;
	struct profil_graph_arc *a;
	struct profil_graph_self *self;
	ssize_t id;
	size_t d;
	/* A waiting thread's sample (--wall): its leaf is the wait frame. */
	int waiting = st->nframes > 0 && profil_pc_is_wait(st->frames[0].pc);

	if (st->file->hdr.flags & PROFIL_HDR_WALL)
		g->wall = 1;
	seen_clear(&g->nodes_seen);
	seen_clear(&g->arcs_seen);
	for (d = 0; d < st->nframes; d++) {
		id = frame_node(g, &st->frames[d]);
		if (id < 0)
			return (int)id;
		g->ids[d] = (uint32_t)id;
		/* Recursion puts a function on the stack more than once; its total counts once. */
		if (!seen_add(&g->nodes_seen, (uint32_t)id))
			continue;
		nd = &g->nodes[id];
		nd->count = profil_count_add(nd->count, count);
		nd->seconds += s;
		if (waiting && g->keep_waiting)
			g->waiting[id] += s;
	}
	nd = &g->nodes[g->ids[0]];
	if (nd->self == 0) {
		if (room((void **)&g->self, &g->capself, g->nself, sizeof(*g->self)) != 0)
			return -ENOMEM;
		memset(&g->self[g->nself], 0, sizeof(g->self[0]));
		nd->self = (uint32_t)++g->nself;
	}
	self = &g->self[nd->self - 1];
	self->count = profil_count_add(self->count, count);
	self->seconds += s;
	for (d = 0; d + 1 < st->nframes; d++) {
		/* Direct recursion is no arc of interest; indirect recursion is, once a sample. */
		if (g->ids[d + 1] == g->ids[d])
			continue;
		id = arc_get(g, g->ids[d + 1], g->ids[d]);
		if (id < 0)
			return (int)id;
		if (!seen_add(&g->arcs_seen, (uint32_t)id))
			continue;
		a = &g->arcs[id];
		a->count = profil_count_add(a->count, count);
		a->seconds += s;
	}
	return 0;
}

const char *
profil_graph_node_name(const struct profil_graph_node *n, char *buf, size_t len)
{
	struct profil_stack_frame fr;

	memset(&fr, 0, sizeof(fr));
	fr.pc = n->pc;
	fr.offset = n->pc;
	fr.loc = n->loc;
	fr.module = (struct profil_module *)(uintptr_t)profil_graph_node_module(n);
	return profil_stack_frame_name(&fr, profil_stack_frame_levels(&fr) - 1, buf, len);
}

const struct profil_module *
profil_graph_node_module(const struct profil_graph_node *n)
{
	return n->loc != NULL ? n->loc->module : NULL;
}

const struct profil_graph_self *
profil_graph_node_self(const struct profil_graph_self *self, const struct profil_graph_node *row)
{
	static const struct profil_graph_self none;

	return row->self != 0 ? &self[row->self - 1] : &none;
}

/* What the comparisons read: the nodes and arcs, each node's place in the view, the arcs' end. */
struct graph_sort {
	const struct profil_graph_node *nodes;
	const struct profil_graph_self *self;
	const struct profil_graph_arc *arcs;
	const uint32_t *rank;
	int k;				/* arcs: 0 sorted by caller, 1 by callee */
};

/* Heaviest total first, then self, then name: the order and the index numbers of the view. */
static int
node_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct profil_graph_node *x = &gs->nodes[*(const uint32_t *)a];
	const struct profil_graph_node *y = &gs->nodes[*(const uint32_t *)b];
	const struct profil_module *mx, *my;
	uint64_t sx, sy;
	char bx[256], by[256];
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	sx = profil_graph_node_self(gs->self, x)->count;
	sy = profil_graph_node_self(gs->self, y)->count;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	c = strcmp(profil_graph_node_name(x, bx, sizeof(bx)),
	    profil_graph_node_name(y, by, sizeof(by)));
	if (c != 0)
		return c;
	mx = profil_graph_node_module(x);
	my = profil_graph_node_module(y);
	return strcmp(mx != NULL ? profil_module_name(mx) : "?",
	    my != NULL ? profil_module_name(my) : "?");
}

/* Arcs by one end (key[k]), then heaviest first, then by the other end's place in the view. */
static int
arc_cmp(const void *a, const void *b, void *arg)
{
	const struct graph_sort *gs = arg;
	const struct profil_graph_arc *x = &gs->arcs[*(const uint32_t *)a];
	const struct profil_graph_arc *y = &gs->arcs[*(const uint32_t *)b];
	int k = gs->k;

	if (x->key[k] != y->key[k])
		return x->key[k] < y->key[k] ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return gs->rank[x->key[!k]] < gs->rank[y->key[!k]] ? -1 : 1;
}

void
profil_graph_view_arcs(const struct profil_graph_view *v, size_t node, int k, size_t *first,
    size_t *end)
{
	const uint32_t *a = v->by_arc[k];
	size_t lo = 0, hi = v->narcs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v->arcs[a[mid]].key[k] < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < v->narcs && v->arcs[a[hi]].key[k] == node)
		hi++;
	*end = hi;
}

void
profil_graph_view_release(struct profil_graph_view *v)
{
	free(v->nodes);
	free(v->arcs);
	free(v->waiting);
	free(v->self);
	free(v->order);
	free(v->rank);
	free(v->by_arc[0]);
	free(v->by_arc[1]);
	memset(v, 0, sizeof(*v));
}

/* The view's order of g's nodes and arcs; g's nodes and arcs move into v. */
static int
graph_sort(struct graph *g, size_t limit, struct profil_graph_view *v)
{
	/* Node and arc numbers fit 32 bits (room() sees to it). */
	size_t i, n = g->nnodes, na = g->narcs;
	struct graph_sort gs = { NULL, NULL, NULL, NULL, 0 };
	int k;

	v->nodes = g->nodes;
	v->nnodes = n;
	v->arcs = g->arcs;
	v->narcs = na;
	v->wall = g->wall;
	v->waiting = g->waiting;
	v->self = g->self;
	v->nself = g->nself;
	g->self = NULL;
	g->nodes = NULL;
	g->arcs = NULL;
	g->waiting = NULL;
	v->order = malloc((n + 1) * sizeof(*v->order));
	v->rank = malloc((n + 1) * sizeof(*v->rank));
	v->by_arc[0] = malloc((na + 1) * sizeof(*v->by_arc[0]));
	v->by_arc[1] = malloc((na + 1) * sizeof(*v->by_arc[1]));
	if (v->order == NULL || v->rank == NULL || v->by_arc[0] == NULL || v->by_arc[1] == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v->order[i] = (uint32_t)i;
	gs.nodes = v->nodes;
	gs.self = v->self;
	gs.arcs = v->arcs;
	gs.rank = v->rank;
	qsort_r(v->order, n, sizeof(*v->order), node_cmp, &gs);
	for (i = 0; i < n; i++)
		v->rank[v->order[i]] = (uint32_t)i;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < na; i++)
			v->by_arc[k][i] = (uint32_t)i;
		gs.k = k;
		qsort_r(v->by_arc[k], na, sizeof(*v->by_arc[k]), arc_cmp, &gs);
	}
	v->nrows = limit > 0 && n > limit ? limit : n;
	return 0;
}

int
profil_graph_view_build(struct profil_report *r, size_t limit, struct profil_graph_view *v)
{
	struct graph *g;
	size_t i;
	int err;

	memset(v, 0, sizeof(*v));
	v->total = profil_report_total(r);
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	/* Known before the walk: the waiting seconds are kept only for a --wall recording. */
	for (i = 0; i < profil_report_nfiles(r); i++)
		if (profil_report_file(r, i, NULL)->hdr.flags & PROFIL_HDR_WALL)
			g->keep_waiting = 1;
	g->node_index.rehash = node_hash;
	g->node_index.arg = g;
	g->arc_index.rehash = arc_hash;
	g->arc_index.arg = g;
	err = profil_report_stacks(r, add_stack, g);
	/* The indexes go before the view is sorted: only the rows stay. */
	profil_index_rows_release(&g->node_index);
	profil_index_rows_release(&g->arc_index);
	if (err == 0)
		err = graph_sort(g, limit, v);
	free(g->nodes);
	free(g->arcs);
	free(g->waiting);
	free(g->self);
	free(g);
	if (err != 0)
		profil_graph_view_release(v);
	return err;
}
