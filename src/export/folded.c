/*
 * folded.c - folded stacks, the input of flamegraph.pl and speedscope: "root;...;leaf count",
 * one line per distinct stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/export.h"
#include "export/tree.h"

/* Prints every node with self ticks, its path from the root first; depth-first, in name order. */
static int
print_tree(const struct profil_tree *t, FILE *out)
{
	const struct profil_tree_node *nd = t->nodes;
	size_t *path, n, i, d;
	char buf[256];

	path = malloc((t->max_depth + 1) * sizeof(*path));
	if (path == NULL)
		return -ENOMEM;
	n = nd[0].child;
	while (n != 0) {
		if (nd[n].self > 0) {
			for (i = n, d = nd[n].depth; i != 0; i = nd[i].parent)
				path[--d] = i;
			for (d = 0; d < nd[n].depth; d++)
				fprintf(out, "%s%s", d > 0 ? ";" : "",
				    profil_tree_name(t, path[d], buf, sizeof(buf)));
			fprintf(out, " %" PRIu64 "\n", nd[n].self);
		}
		/* Next in pre-order: first child, else the next sibling of the nearest ancestor. */
		if (nd[n].child != 0) {
			n = nd[n].child;
			continue;
		}
		while (n != 0 && nd[n].next == 0)
			n = nd[n].parent;
		if (n != 0)
			n = nd[n].next;
	}
	free(path);
	return ferror(out) ? -EIO : 0;
}

int
profil_export_folded(struct profil_report *r, FILE *out)
{
	struct profil_tree t;
	int err;

	err = profil_tree_build(&t, r);
	if (err == 0)
		err = print_tree(&t, out);
	profil_tree_release(&t);
	return err;
}
