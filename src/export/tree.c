/*
 * tree.c - merging symbolized stacks into a tree of frames, each stack on the labels of what
 * it ran in.  Names are interned so a child is found by (parent, name pointer) in one hash
 * table, whatever the fan-out; code nothing names by (parent, module name pointer, offset), its
 * name made only when it is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/tree.h"
#include "format/format.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

/*
 * The interned copy of name.  Folded stacks separate frames with ';' and stacks with line
 * breaks, so those never survive into a name.
 */
static const char *
intern(struct profil_tree *t, const char *name)
{
	size_t j, len = strlen(name);
	char clean[1024];
	ssize_t i;
	int added;

	if (len >= sizeof(clean))
		len = sizeof(clean) - 1;
	for (j = 0; j < len; j++)
		clean[j] = name[j] == ';' ? ':' :
		    name[j] == '\n' || name[j] == '\r' ? ' ' : name[j];
	clean[len] = '\0';
	i = profil_strtab_intern(&t->names, clean, &added);
	return i < 0 ? NULL : t->names.strs[i];
}

/* A child is (parent, name) or, bare, (parent, module, offset). */
struct node_key {
	const struct profil_tree *t;
	size_t parent;
	const char *name;		/* the interned name, or a bare node's module */
	uint64_t offset;
	int bare;
};

static uint64_t
node_hash(size_t parent, const char *name, uint64_t offset, int bare)
{
	return profil_hash3(parent, (uintptr_t)name, bare ? offset : UINT64_MAX);
}

/* The hash of node i's key, for the index to grow. */
static uint64_t
node_rehash(const void *arg, size_t i)
{
	const struct profil_tree_node *nd = &((const struct profil_tree *)arg)->nodes[i];

	return node_hash(nd->parent, nd->bare ? nd->module : nd->u.name, nd->u.offset, nd->bare);
}

static int
node_same(const void *arg, size_t i)
{
	const struct node_key *k = arg;
	const struct profil_tree_node *nd = &k->t->nodes[i];

	if (nd->parent != k->parent || nd->bare != k->bare)
		return 0;
	return k->bare ? nd->module == k->name && nd->u.offset == k->offset : nd->u.name == k->name;
}

/* The child of parent for key k, created on first use; 0 when out of memory. */
static size_t
child_get(struct profil_tree *t, const struct node_key *k)
{
	size_t parent = k->parent;
	struct profil_tree_node *nd;
	ssize_t i;

	if (t->n == UINT32_MAX)
		return 0;
	if (t->n == t->cap) {
		size_t cap = 2 * t->cap;

		nd = realloc(t->nodes, cap * sizeof(*nd));
		if (nd == NULL)
			return 0;
		t->nodes = nd;
		t->cap = cap;
	}
	t->index.rehash = node_rehash;
	t->index.arg = t;
	i = profil_index_rows_get(&t->index, node_hash(parent, k->name, k->offset, k->bare),
	    node_same, k, t->n);
	if (i < 0)
		return 0;
	if ((size_t)i < t->n)
		return (size_t)i;
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	if (k->bare) {
		nd->u.offset = k->offset;
		nd->module = k->name;
		nd->bare = 1;
	} else {
		nd->u.name = k->name;
	}
	nd->parent = (uint32_t)parent;
	nd->depth = t->nodes[parent].depth + 1;
	nd->next = t->nodes[parent].child;
	t->nodes[parent].child = (uint32_t)t->n;
	if (nd->depth > t->max_depth)
		t->max_depth = nd->depth;
	return t->n++;
}

/* What profil_tree_build_each() passes through the walk. */
struct tree_walk {
	struct profil_tree *t;
	int (*fn)(void *arg, const struct profil_stack *st, size_t leaf);
	void *arg;
};

/* The label frame name under parent (a program, process or thread), counted. */
static size_t
label_get(struct profil_tree *t, size_t parent, const char *name, uint64_t count)
{
	struct node_key k = { t, parent, intern(t, name), 0, 0 };
	size_t n;

	if (k.name == NULL || (n = child_get(t, &k)) == 0)
		return 0;
	t->nodes[n].label = 1;
	t->nodes[n].total = profil_count_add(t->nodes[n].total, count);
	return n;
}

/*
 * The label frames of stack st under the root, outermost first: its program, and with the
 * session's split its process and thread.  Returns the last one's node, or 0 when out of
 * memory.
 */
static size_t
add_labels(struct profil_tree *t, const struct profil_stack *st, uint64_t count)
{
	const struct profil_file *f = st->file;
	const char *prog = f->hdr.progname[0] != '\0' ? f->hdr.progname : "[program]";
	char buf[PROFIL_FORMAT_MAX_NAME + 32];
	size_t node;

	node = label_get(t, 0, prog, count);
	if (node != 0 && (t->split == PROFIL_SPLIT_PROCESS || t->split == PROFIL_SPLIT_THREAD)) {
		snprintf(buf, sizeof(buf), "%s[%" PRIu32 "]", prog, f->hdr.pid);
		node = label_get(t, node, buf, count);
	}
	if (node != 0 && t->split == PROFIL_SPLIT_THREAD) {
		/* The last thread's name kept: a file's samples come mostly a thread at a time. */
		if (t->tid_file != f || t->tid != st->sample->tid) {
			t->tid_file = f;
			t->tid = st->sample->tid;
			t->tid_name = profil_report_thread_name(f, t->tid);
		}
		snprintf(buf, sizeof(buf), "%s[%" PRIu32 "]",
		    t->tid_name[0] != '\0' ? t->tid_name : "thread", t->tid);
		node = label_get(t, node, buf, count);
	}
	return node;
}

static int
add_stack(void *arg, const struct profil_stack *st)
{
	struct tree_walk *w = arg;
	struct profil_tree *t = w->t;
	uint64_t count = st->sample->count;
	const char *module;
	struct node_key k = { t, 0, NULL, 0, 0 };
	size_t d, i, node;
	char buf[256];

	t->nodes[0].total = profil_count_add(t->nodes[0].total, count);
	if ((node = add_labels(t, st, count)) == 0)
		return -ENOMEM;
	for (d = st->nframes; d-- > 0;) {
		const struct profil_stack_frame *fr = &st->frames[d];

		module = fr->module != NULL ? intern(t, profil_module_name(fr->module)) : "";
		if (module == NULL)
			return -ENOMEM;
		if (module[0] == '\0')
			module = NULL;
		for (i = profil_stack_frame_levels(fr); i-- > 0;) {
			k.parent = node;
			/* profil_stack_frame_name()'s module+0xoffset, made when read. */
			k.bare = fr->loc != NULL && module != NULL &&
			    fr->loc->frames[i].function == NULL;
			k.offset = fr->offset;
			k.name = k.bare ? module :
			    intern(t, profil_stack_frame_name(fr, i, buf, sizeof(buf)));
			if (k.name == NULL || (node = child_get(t, &k)) == 0)
				return -ENOMEM;
			if (t->nodes[node].total == 0) {
				if (!k.bare)
					t->nodes[node].module = module;
				t->nodes[node].inlined = i + 1 < profil_stack_frame_levels(fr);
			}
			t->nodes[node].total = profil_count_add(t->nodes[node].total, count);
		}
	}
	t->nodes[node].self = profil_count_add(t->nodes[node].self, count);
	return w->fn != NULL ? w->fn(w->arg, st, node) : 0;
}

const char *
profil_tree_name(const struct profil_tree *t, size_t n, char *buf, size_t len)
{
	const struct profil_tree_node *nd = &t->nodes[n];

	if (n == 0)
		return "";
	if (!nd->bare)
		return nd->u.name;
	snprintf(buf, len, "%s+0x%" PRIx64, nd->module, nd->u.offset);
	return buf;
}

static int
name_cmp(const void *a, const void *b, void *arg)
{
	const struct profil_tree *t = arg;
	char bx[256], by[256];

	return strcmp(profil_tree_name(t, *(const uint32_t *)a, bx, sizeof(bx)),
	    profil_tree_name(t, *(const uint32_t *)b, by, sizeof(by)));
}

/* Children in name order, so output does not depend on the order samples came in. */
static int
sort_children(struct profil_tree *t)
{
	uint32_t *kids = malloc(t->n * sizeof(*kids));
	size_t i, c, k;

	if (kids == NULL)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		k = 0;
		for (c = t->nodes[i].child; c != 0; c = t->nodes[c].next)
			kids[k++] = (uint32_t)c;
		if (k < 2)
			continue;
		qsort_r(kids, k, sizeof(*kids), name_cmp, t);
		t->nodes[i].child = kids[0];
		for (c = 0; c < k; c++)
			t->nodes[kids[c]].next = c + 1 < k ? kids[c + 1] : 0;
	}
	free(kids);
	return 0;
}

int
profil_tree_build(struct profil_tree *t, struct profil_report *r)
{
	return profil_tree_build_each(t, r, NULL, NULL);
}

int
profil_tree_build_each(struct profil_tree *t, struct profil_report *r,
    int (*fn)(void *arg, const struct profil_stack *st, size_t leaf), void *arg)
{
	struct tree_walk w;
	int err;

	memset(t, 0, sizeof(*t));
	w.t = t;
	w.fn = fn;
	w.arg = arg;
	t->cap = 1024;
	t->nodes = calloc(t->cap, sizeof(*t->nodes));
	if (t->nodes == NULL)
		return -ENOMEM;
	t->n = 1;
	t->split = profil_report_get_split(r);
	err = profil_report_stacks(r, add_stack, &w);
	if (err == 0)
		err = sort_children(t);
	return err;
}

void
profil_tree_release(struct profil_tree *t)
{
	profil_strtab_release(&t->names);
	profil_index_rows_release(&t->index);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}
