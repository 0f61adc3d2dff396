/*
 * module.h - inside the symbolizer: a module and the kinds of module it has, each a file of
 * its own.  symbols.c owns the session, the modules by key, the cache of answers and the
 * shape of names; a kind opens a module and answers for one offset:
 *
 *   module_elf.c   a mapped file: ELF symbols and DWARF through elfutils' libdwfl (its parts:
 *                  module_elf_debug.c, _symbols.c, _dwarf.c; module_elf.h)
 *   module_code.c  code no file names: JIT functions named in the profile (perf maps and
 *                  jitdump files, copied when recording ended), and anonymous code
 *
 * Only the report's own files include this header.
 */
#ifndef PROFIL_REPORT_MODULE_H
#define PROFIL_REPORT_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "report/index.h"
#include "report/symbols.h"

struct profil_file;

struct profil_module_kind {
	/* Opens the module: sets mod->status and mod->data. */
	void (*open)(struct profil_module *mod);
	/* What is known of offset: a new location (profil_location_make). 0 or -ENOMEM. */
	int (*resolve)(struct profil_module *mod, uint64_t offset, struct profil_location **out);
	/* The ELF address of a file offset: 0, or -ERANGE; NULL where offsets are addresses. */
	int (*vaddr)(const struct profil_module *mod, uint64_t offset, uint64_t *vaddr);
	/* Frees mod->data. */
	void (*release)(struct profil_module *mod);
};

extern const struct profil_module_kind profil_module_elf;
extern const struct profil_module_kind profil_module_code;

struct profil_module {
	struct profil_module *next;
	struct profil_symbolizer *sym;
	const struct profil_module_kind *kind;
	char *path;
	const char *name;
	uint8_t *build_id;
	size_t build_id_len;
	enum profil_module_status status;
	void *data;			/* the kind's */
	const struct profil_file *file;	/* module_code: the profile whose names it shows */
	/* Open addressing on the file offset; the table is a power of two, at most half full. */
	struct profil_location **cache;
	size_t cache_size;
	size_t cache_used;
	/*
	 * What nothing names is not cached per offset (symbols.c): the one location every such
	 * offset shares, and the last offsets answered so, direct-mapped (offset + 1; 0 free),
	 * so a hot unnamed pc is not resolved again at every frame.  Both made on first use.
	 */
	struct profil_location *unnamed;
	uint64_t *unnamed_seen;
};

struct profil_symbolizer {
	struct profil_module *modules;
	/* The same modules by path and build-id: a report of 20,000 mappings (or of hundreds of
	 * processes) finds each in constant time, not by walking the list. */
	struct profil_module **bykey;
	size_t nbykey, capbykey;
	struct profil_index index;
	char *debug_dir;		/* the build-id store's root, NULL for /usr/lib/debug */
	void *elf;			/* module_elf.c's state for the session */
	void (*elf_release)(void *elf);
	int raw_names;			/* names as the symbol tables spell them */
};

/*
 * A location for offset of mod, whose owning function starts at start and is named name (NULL
 * when nothing names it; shown demangled), with the inline chain chain[0 .. n) (n >= 1; its
 * last function is replaced by name) in the compilation directory comp_dir.  One allocation.
 * Returns 0 or -ENOMEM.
 */
int profil_location_make(struct profil_module *mod, uint64_t offset, uint64_t start,
    const char *name, struct profil_frame *chain, size_t n, const char *comp_dir,
    struct profil_location **out);

#endif /* PROFIL_REPORT_MODULE_H */
