/*
 * module_elf.c - the module kind for mapped files: ELF symbols, DWARF lines and inline chains
 * through elfutils' libdwfl, one Dwfl per binary, found again through the debug store by
 * build-id when the file changed or went away.  See symbols.h for why modules are per binary
 * rather than per address space.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/module_elf.h"

static int
module_load_segments(struct elf_module *mod)
{
	GElf_Phdr phdr;
	size_t i, n;
	Elf *elf;

	elf = dwfl_module_getelf(mod->dm, &mod->bias);
	if (elf == NULL || elf_getphdrnum(elf, &n) != 0)
		return -ENOEXEC;
	mod->segs = calloc(n ? n : 1, sizeof(*mod->segs));
	if (mod->segs == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &phdr) == NULL || phdr.p_type != PT_LOAD)
			continue;
		mod->segs[mod->nsegs].offset = phdr.p_offset;
		mod->segs[mod->nsegs].filesz = phdr.p_filesz;
		mod->segs[mod->nsegs].vaddr = phdr.p_vaddr;
		mod->nsegs++;
	}
	return mod->nsegs > 0 ? 0 : -ENOEXEC;
}

static void
elf_open_in(struct profil_symbolizer *sym, struct elf_module *mod)
{
	Dwarf_Addr dbias;
	int fd, err;

	fd = module_elf_open_regular(mod->base->path);
	if (fd < 0) {
		/* Deleted or on another machine: the debug store may still hold it by build-id. */
		mod->base->status = PROFIL_MODULE_MISSING;
		fd = module_elf_open_by_build_id(sym, mod);
		if (fd >= 0 && module_elf_report(sym, mod, mod->base->path, fd) == 0 &&
		    module_load_segments(mod) == 0) {
			(void)module_elf_load_aliases(mod);
			mod->base->status = PROFIL_MODULE_OK;
		} else if (mod->dwfl != NULL) {
			dwfl_end(mod->dwfl);
			mod->dwfl = NULL;
			mod->dm = NULL;
		}
		return;
	}
	err = module_elf_report(sym, mod, mod->base->path, fd);
	if (err == -ENOMEM) {
		mod->base->status = PROFIL_MODULE_MISSING;
		return;
	}
	if (err != 0) {
		mod->base->status = PROFIL_MODULE_NOT_ELF;
		return;
	}
	if (!module_elf_build_id_matches(mod)) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->dm = NULL;
		mod->base->status = PROFIL_MODULE_CHANGED;
		fd = module_elf_open_by_build_id(sym, mod);
		if (fd < 0 || module_elf_report(sym, mod, mod->base->path, fd) != 0)
			return;
	}
	if (module_load_segments(mod) != 0) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->dm = NULL;
		if (mod->base->status == PROFIL_MODULE_OK)
			mod->base->status = PROFIL_MODULE_NOT_ELF;
		return;
	}
	/* Without the table names are still right, only perhaps another alias. */
	(void)module_elf_load_aliases(mod);
	if (mod->base->status == PROFIL_MODULE_CHANGED)
		mod->base->status = PROFIL_MODULE_OK;	/* the debug store had the code that ran */
	else if (dwfl_module_getdwarf(mod->dm, &dbias) == NULL)
		mod->base->status = PROFIL_MODULE_NO_DEBUG;
}

/* The ELF address of a file offset, through the PT_LOAD segment that holds it. */
static int
module_vaddr(const struct elf_module *mod, uint64_t offset, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < mod->nsegs; i++) {
		if (offset >= mod->segs[i].offset &&
		    offset - mod->segs[i].offset < mod->segs[i].filesz) {
			*vaddr = offset - mod->segs[i].offset + mod->segs[i].vaddr;
			return 0;
		}
	}
	return -ERANGE;
}

/*
 * A location for offset (at vaddr) in code no symbol names, by the unwind entry that holds
 * it: one function per entry, so a stripped binary's hot function is one row, not one per
 * address.  Its name is made here, not read from a symbol table, so it is neither demangled
 * nor cut at an '@'.  1 when no entry holds the code; else 0 or -ENOMEM.
 */
static int
unwind_location(struct elf_module *mod, uint64_t offset, uint64_t vaddr,
    struct profil_frame *chain, size_t n, const char *comp_dir, struct profil_location **out)
{
	const struct profil_cfi_entry *fde = module_elf_fde(mod, vaddr);
	size_t at;
	int err;

	if (fde == NULL)
		return 1;
	at = (size_t)(fde - mod->fdes.v);
	if (mod->fde_names[at] == NULL &&
	    asprintf(&mod->fde_names[at], "%s+0x%" PRIx64, mod->base->name,
	    offset - (vaddr - fde->start)) < 0) {
		mod->fde_names[at] = NULL;
		return -ENOMEM;
	}
	err = profil_location_make(mod->base, offset, fde->start, NULL, chain, n, comp_dir, out);
	if (err == 0) {
		(*out)->known = PROFIL_LOCATION_UNWIND;
		(*out)->frames[n - 1].function = mod->fde_names[at];
	}
	return err;
}

static int
elf_resolve_in(struct elf_module *mod, uint64_t offset, struct profil_location **out)
{
	struct profil_frame chain[32];
	const char *name = NULL, *comp_dir = NULL;
	uint64_t vaddr, start = 0, dstart = 0;
	GElf_Off symoff = 0;
	const struct profil_sym_range *range;
	const char *alias;
	GElf_Sym symbol;
	size_t n = 0, at;
	int err, placed = 0;

	if (mod->dwfl != NULL && module_vaddr(mod, offset, &vaddr) == 0) {
		placed = 1;
		/*
		 * dwfl_module_addrinfo scans every symbol: the sorted alias table answers first,
		 * then the ranges it answered before, and it only for what is left.
		 */
		name = module_elf_function(mod, vaddr, &start);
		if (name == NULL && (range = module_elf_sym_range_find(mod, vaddr, &at)) != NULL) {
			name = range->name;
			start = range->start;
		} else if (name == NULL && !module_elf_unnamed(mod, vaddr)) {
			name = dwfl_module_addrinfo(mod->dm, vaddr + mod->bias, &symoff, &symbol,
			    NULL, NULL, NULL);
			if (name != NULL) {
				start = vaddr - symoff;
				alias = module_elf_alias(mod, start);
				if (alias != NULL)
					name = alias;
				if (symbol.st_size > symoff)
					module_elf_sym_range_add(mod, start, start + symbol.st_size, name);
			}
		}
		n = module_elf_inline_chain(mod, vaddr + mod->bias, chain, 32, &dstart, &comp_dir);
		if (name == NULL && n > 0 && chain[n - 1].function != NULL) {
			name = chain[n - 1].function;
			start = dstart;
		}
	}
	if (n == 0) {
		chain[0].file = NULL;
		chain[0].line = 0;
		n = 1;
	}
	if (name == NULL && placed) {
		err = unwind_location(mod, offset, vaddr, chain, n, comp_dir, out);
		if (err <= 0)
			return err;
	}
	/*
	 * The owning function is named by its ELF symbol, as perf names it: the symbol covers the
	 * machine code (foo.cold, foo.isra.0 are separate pieces), DWARF names the source function.
	 */
	return profil_location_make(mod->base, offset, start, name, chain, n, comp_dir, out);
}

static void
elf_open(struct profil_module *base)
{
	struct elf_module *mod;

	/* /proc/<pid>/maps names the kernel's own mappings in brackets: [vdso], [vsyscall]. */
	if (base->path[0] == '[') {
		base->status = PROFIL_MODULE_PSEUDO;
		return;
	}
	mod = calloc(1, sizeof(*mod));
	if (mod == NULL || module_elf_session(base->sym) == NULL) {
		free(mod);
		base->status = PROFIL_MODULE_MISSING;
		return;
	}
	mod->base = base;
	base->data = mod;
	elf_open_in(base->sym, mod);
}

static int
elf_resolve(struct profil_module *base, uint64_t offset, struct profil_location **out)
{
	struct elf_module *mod = base->data;
	struct profil_frame chain[1] = { { NULL, NULL, 0 } };

	if (mod == NULL)
		return profil_location_make(base, offset, 0, NULL, chain, 1, NULL, out);
	return elf_resolve_in(mod, offset, out);
}

static int
elf_vaddr(const struct profil_module *base, uint64_t offset, uint64_t *vaddr)
{
	const struct elf_module *mod = base->data;

	if (mod == NULL || mod->dwfl == NULL)
		return -ERANGE;
	return module_vaddr(mod, offset, vaddr);
}

static void
elf_release(struct profil_module *base)
{
	struct elf_module *mod = base->data;
	size_t i;

	if (mod == NULL)
		return;
	for (i = 0; i < mod->ncus; i++)
		free(mod->cus[i].fns);
	free(mod->cus);
	free(mod->syms);
	free(mod->segs);
	free(mod->aliases);
	free(mod->starts);
	for (i = 0; i < mod->fdes.n; i++)
		free(mod->fde_names[i]);
	free(mod->fde_names);
	free(mod->fdes.v);
	free(mod->opened);
	if (mod->dwfl != NULL)
		dwfl_end(mod->dwfl);
	free(mod);
	base->data = NULL;
}

const struct profil_module_kind profil_module_elf = {
	.open = elf_open,
	.resolve = elf_resolve,
	.vaddr = elf_vaddr,
	.release = elf_release,
};
