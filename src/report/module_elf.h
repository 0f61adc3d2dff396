/*
 * module_elf.h - what the files of the ELF module kind share (module_elf.c and its parts: the
 * debug files' search, the symbol tables, the DWARF units).  Only these files include elfutils
 * (symbols.h).
 */
#ifndef PROFIL_REPORT_MODULE_ELF_H
#define PROFIL_REPORT_MODULE_ELF_H

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi/cfi.h"
#include "report/module.h"

/* A PT_LOAD segment: how file offsets, which mappings record, become ELF addresses. */
struct profil_segment {
	uint64_t offset;
	uint64_t filesz;
	uint64_t vaddr;
};

/* The name a function's address shows as, chosen once among the symbols that share it. */
struct profil_alias {
	uint64_t addr;			/* ELF address */
	uint64_t size;			/* the largest size of the symbols at addr */
	const char *name;
	int rank;
};

/* A function's address range in a compilation unit, and its DIE. */
struct profil_fn_range {
	Dwarf_Addr low, high;		/* DWARF addresses, [low, high) */
	Dwarf_Die die;
};

/*
 * The functions of one compilation unit, sorted by address: found by binary search rather than
 * by dwarf_getscopes, which walks the whole unit for every address (with 2,000 functions in a
 * unit, most of the time of a report went there).
 */
struct profil_cu_index {
	Dwarf_Off off;			/* the unit's DIE offset */
	struct profil_fn_range *fns;
	size_t n, cap;
};

/* A symbol's range, once named: addresses in it skip dwfl_module_addrinfo's symbol search. */
struct profil_sym_range {
	uint64_t start, end;		/* ELF addresses */
	const char *name;
};

/*
 * A symbol's address, and how far the symbols at or below it that dwfl_module_addrinfo could
 * choose reach (their largest address + size): where no sized symbol holds an address, whether
 * it may still name it.
 */
struct profil_sym_start {
	uint64_t addr;
	uint64_t reach;
};

/* A module's ELF side (mod->data). */
struct elf_module {
	struct profil_module *base;
	Dwfl *dwfl;			/* NULL when the binary gives no names */
	Dwfl_Module *dm;
	GElf_Addr bias;			/* Dwfl address = ELF address + bias */
	struct profil_segment *segs;
	size_t nsegs;
	struct profil_alias *aliases;	/* sorted by address, one per address */
	size_t naliases;
	struct profil_sym_start *starts; /* every symbol's address, sorted, once each */
	size_t nstarts;
	struct profil_cu_index *cus;	/* the units looked into */
	size_t ncus;
	struct profil_sym_range *syms;	/* sorted by start, disjoint */
	size_t nsyms, syms_cap;
	char *opened;			/* the debug store's copy, when that is what was read */
	/*
	 * The unwind tables' entries (ELF addresses), which a stripped binary keeps: where the
	 * code no symbol names begins and ends.  Read once, at the first such pc, and their
	 * names made as they are met.
	 */
	struct profil_cfi_entries fdes;
	char **fde_names;
	int fdes_read;
};

/* The session's libdwfl set-up (sym->elf), made at its first ELF module. */
struct elf_session {
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;		/* libdwfl's search list, NULL for its default */
};

/* module_elf_debug.c: the session's libdwfl set-up and the files behind a module. */
struct elf_session *module_elf_session(struct profil_symbolizer *sym);
int module_elf_open_regular(const char *path);
int module_elf_report(struct profil_symbolizer *sym, struct elf_module *mod, const char *path,
    int fd);
int module_elf_build_id_matches(struct elf_module *mod);
int module_elf_open_by_build_id(struct profil_symbolizer *sym, struct elf_module *mod);

/* module_elf_symbols.c: names by the symbol table and the unwind entries. */
size_t module_elf_count_at_or_below(const void *base, size_t n, size_t size, size_t off,
    uint64_t key);
int module_elf_load_aliases(struct elf_module *mod);
int module_elf_unnamed(const struct elf_module *mod, uint64_t addr);
const char *module_elf_alias(const struct elf_module *mod, uint64_t addr);
const char *module_elf_function(const struct elf_module *mod, uint64_t addr, uint64_t *start);
const struct profil_sym_range *module_elf_sym_range_find(const struct elf_module *mod,
    uint64_t vaddr, size_t *at);
void module_elf_sym_range_add(struct elf_module *mod, uint64_t start, uint64_t end,
    const char *name);
const struct profil_cfi_entry *module_elf_fde(struct elf_module *mod, uint64_t vaddr);

/* module_elf_dwarf.c: the inline chain at an address. */
size_t module_elf_inline_chain(struct elf_module *mod, Dwarf_Addr addr,
    struct profil_frame *frames, size_t max, uint64_t *outer_start, const char **comp_dir);

#endif
