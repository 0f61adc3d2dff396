/*
 * tree.h - the stacks of a session merged into a tree of frames (a trie, root first), what
 * folded stacks and flame graphs are drawn from.  Internal to src/export.
 *
 * Every stack stands on its program (the file's progname), so a recording of a build keeps
 * cc1, as and ld apart instead of merging them under one _start; with the session's split
 * (profil_report_set_split) PROCESS, on "progname[pid]" too, and THREAD, on that and
 * "thread[tid]" (the thread's recorded name).  These frames are labels, not code.
 */
#ifndef PROFIL_EXPORT_TREE_H
#define PROFIL_EXPORT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "report/index.h"
#include "report/report.h"

struct profil_report;

/*
 * Node 0 is the root (all samples, no name); 0 also means "none" in the links.  A node of code
 * nothing names (bare) is module+0xoffset: it keeps the offset, and its name is made when it
 * is read (profil_tree_name), since a file of deep distinct stacks is mostly such frames and
 * interning each name cost some 40 bytes a frame (issue 19).
 */
struct profil_tree_node {
	union {
		const char *name;	/* interned; ';' and line breaks replaced */
		uint64_t offset;	/* bare: the offset in module */
	} u;
	const char *module;		/* interned base name of the module first seen here, or
					   NULL (no mapping, or the root); a bare node's own */
	uint64_t total;			/* ticks here and below */
	uint64_t self;			/* ticks whose leaf is here */
	/* Node numbers in 32 bits, depth and flag in one word: 48 bytes a node, not 64, as a
	 * file of deep distinct stacks has a node for almost every PC it holds. */
	uint32_t parent;
	uint32_t child;			/* first child, children sorted by name */
	uint32_t next;			/* next sibling */
	unsigned depth : 29;		/* root 0 */
	unsigned inlined : 1;		/* code inlined into its caller (the first stack seen) */
	unsigned bare : 1;		/* named module+0xoffset */
	unsigned label : 1;		/* a program, process or thread: what the code ran in */
};

struct profil_tree {
	struct profil_tree_node *nodes;
	size_t n, cap;
	struct profil_index_rows index;	/* (parent, name) -> node; the root is not in it.
					   Rows alone: the nodes hold their keys */
	struct profil_strtab names;	/* node and module names, ';' and line breaks replaced */
	unsigned max_depth;
	enum profil_report_split split;	/* the session's: which labels stacks stand on */
	const struct profil_file *tid_file;	/* the thread name looked up last */
	uint32_t tid;
	const char *tid_name;
};

/* Builds the tree of every sample of r, each stack on its labels (above).  Returns 0 or
 * -ENOMEM, also beyond 2^32 - 1 nodes (release it either way). */
int profil_tree_build(struct profil_tree *t, struct profil_report *r);
/*
 * The same, calling fn(arg, stack, leaf) after each stack is added with the node its leaf frame
 * ended at (node numbers never change once given: a child's is above its parent's); a non-zero
 * return stops the build and is returned.  The viewer keeps each sample's node this way.
 */
struct profil_stack;
int profil_tree_build_each(struct profil_tree *t, struct profil_report *r,
    int (*fn)(void *arg, const struct profil_stack *st, size_t leaf), void *arg);
void profil_tree_release(struct profil_tree *t);

/* The name of node n ("" for the root): interned, or made in buf (len bytes) for a bare node,
 * as profil_stack_frame_name() makes it. */
const char *profil_tree_name(const struct profil_tree *t, size_t n, char *buf, size_t len);

#endif /* PROFIL_EXPORT_TREE_H */
