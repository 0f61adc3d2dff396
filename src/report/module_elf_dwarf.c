/*
 * module_elf_dwarf.c - the chain of inlined calls at an address, by an index of each DWARF
 * unit's functions sorted by address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/module_elf.h"

static int
fn_range_add(struct profil_cu_index *ci, Dwarf_Addr low, Dwarf_Addr high, const Dwarf_Die *die)
{
	struct profil_fn_range *fns;

	if (ci->n == ci->cap) {
		size_t cap = ci->cap ? 2 * ci->cap : 64;

		fns = realloc(ci->fns, cap * sizeof(*fns));
		if (fns == NULL)
			return -ENOMEM;
		ci->fns = fns;
		ci->cap = cap;
	}
	ci->fns[ci->n].low = low;
	ci->fns[ci->n].high = high;
	ci->fns[ci->n].die = *die;
	ci->n++;
	return 0;
}

/*
 * The subprograms with code under parent: the unit's, those of namespaces and classes, and
 * those nested in other functions (GNU C nested functions, methods of local classes), whose
 * code lies outside their parent's ranges, so that a walk by address (dwarf_getscopes) never
 * finds them.
 */
static int
cu_collect(struct profil_cu_index *ci, Dwarf_Die *parent)
{
	Dwarf_Addr base, low, high;
	Dwarf_Die child;
	ptrdiff_t off;
	int tag, err = 0;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			/* Every range: a function split into hot and cold parts has two. */
			for (off = 0; (off = dwarf_ranges(&child, off, &base, &low, &high)) > 0;)
				if (low < high && (err = fn_range_add(ci, low, high, &child)) != 0)
					return err;
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
			err = cu_collect(ci, &child);
		if (err != 0)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int
fn_range_cmp(const void *a, const void *b)
{
	const struct profil_fn_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* The index of unit cu, built on first use; NULL when out of memory. */
static struct profil_cu_index *
cu_index(struct elf_module *mod, Dwarf_Die *cu)
{
	struct profil_cu_index *ci;
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t i;

	for (i = 0; i < mod->ncus; i++)
		if (mod->cus[i].off == off)
			return &mod->cus[i];
	ci = realloc(mod->cus, (mod->ncus + 1) * sizeof(*ci));
	if (ci == NULL)
		return NULL;
	mod->cus = ci;
	ci = &mod->cus[mod->ncus];
	memset(ci, 0, sizeof(*ci));
	ci->off = off;
	if (cu_collect(ci, cu) != 0) {
		free(ci->fns);
		return NULL;
	}
	qsort(ci->fns, ci->n, sizeof(*ci->fns), fn_range_cmp);
	mod->ncus++;
	return ci;
}

/* The subprogram whose code holds pc (a DWARF address), or NULL. */
static Dwarf_Die *
cu_function(struct profil_cu_index *ci, Dwarf_Addr pc)
{
	size_t lo = module_elf_count_at_or_below(ci->fns, ci->n, sizeof(*ci->fns),
	    offsetof(struct profil_fn_range, low), pc);

	return lo > 0 && pc < ci->fns[lo - 1].high ? &ci->fns[lo - 1].die : NULL;
}

/*
 * The DIEs from the subprogram fn down to the innermost inlined subroutine holding pc, outer
 * first: path[0] is fn.  Lexical blocks are passed through, not kept.  Returns the length.
 */
static size_t
inline_path(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *path, size_t max)
{
	Dwarf_Die cur = *fn, child;
	size_t n = 0;
	int tag, deeper;

	path[n++] = cur;
	do {
		deeper = 0;
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			tag = dwarf_tag(&child);
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
			    tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				if (tag == DW_TAG_inlined_subroutine && n < max)
					path[n++] = child;
				cur = child;
				deeper = 1;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	} while (deeper);
	return n;
}

/*
 * The inline chain at addr, innermost first, as eu-addr2line -i reports it: each
 * DW_TAG_inlined_subroutine names the inlined function, and its DW_AT_call_file/line is where
 * the next outer one called it.  Returns the number of frames written (at most max), 0 without
 * DWARF for the address.
 */
size_t
module_elf_inline_chain(struct elf_module *mod, Dwarf_Addr addr, struct profil_frame *frames,
    size_t max, uint64_t *outer_start, const char **comp_dir)
{
	Dwarf_Die *cu, *fn, path[32];
	struct profil_cu_index *ci;
	Dwarf_Files *files = NULL;
	Dwarf_Attribute attr;
	Dwarf_Addr dbias, low;
	Dwarf_Word word;
	size_t n = 0, k, depth, nfiles = 0;
	Dwfl_Line *line;

	cu = dwfl_module_addrdie(mod->dm, addr, &dbias);
	if (cu == NULL)
		return 0;
	*comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	ci = cu_index(mod, cu);
	fn = ci != NULL ? cu_function(ci, addr - dbias) : NULL;
	if (fn == NULL)
		return 0;
	if (max > 32)
		max = 32;
	depth = inline_path(fn, addr - dbias, path, max);
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	memset(frames, 0, max * sizeof(*frames));
	for (k = depth; k-- > 0; n++) {
		frames[n].function = dwarf_diename(&path[k]);
		if (k == 0)
			break;
		/* Where this inlined body was called: the next outer frame's position. */
		if (n + 1 < max && files != NULL &&
		    dwarf_formudata(dwarf_attr(&path[k], DW_AT_call_file, &attr), &word) == 0 &&
		    word < nfiles)
			frames[n + 1].file = dwarf_filesrc(files, word, NULL, NULL);
		if (n + 1 < max &&
		    dwarf_formudata(dwarf_attr(&path[k], DW_AT_call_line, &attr), &word) == 0)
			frames[n + 1].line = (int)word;
	}
	n = depth;
	if (dwarf_entrypc(&path[0], &low) == 0 || dwarf_lowpc(&path[0], &low) == 0)
		*outer_start = low + dbias - mod->bias;
	/* The innermost frame is where the instruction itself is, by the line table. */
	line = dwfl_module_getsrc(mod->dm, addr);
	if (n > 0 && line != NULL) {
		int lineno = 0;

		frames[0].file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		frames[0].line = lineno;
	}
	return n;
}
