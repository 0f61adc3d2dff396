/*
 * module_elf_symbols.c - names from an ELF module's symbol table, chosen among aliases as perf
 * chooses, searched without libdwfl's scan of every symbol where possible; and for code no
 * symbol names, the unwind entry that holds it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/module_elf.h"

/*
 * How many elements of the array base[0 .. n) (each size bytes, sorted by the uint64_t at byte
 * offset off) have that key <= key: the index after the last one at or below key.
 */
size_t
module_elf_count_at_or_below(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n, mid;
	uint64_t v;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * How good a name is among aliases of one address, as perf chooses (util/symbol.c,
 * choose_best_symbol): sized over sizeless, strong over weak, global over local, fewer leading
 * underscores, then the longer name.  So malloc, not __libc_malloc, and both tools agree.
 */
static int
alias_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info), under = 0;

	while (under < 15 && name[under] == '_')
		under++;
	return (sym->st_size > 0) << 30 | (bind != STB_WEAK) << 29 | (bind == STB_GLOBAL) << 28 |
	    (15 - under) << 24 | (int)(strlen(name) < 0xffffff ? strlen(name) : 0xffffff);
}

static int
start_cmp(const void *a, const void *b)
{
	const struct profil_sym_start *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
alias_cmp(const void *a, const void *b)
{
	const struct profil_alias *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank;	/* the best first */
}

/* The function symbols of the module, the best name per address kept. */
int
module_elf_load_aliases(struct elf_module *mod)
{
	GElf_Word shndx;
	GElf_Addr addr;
	GElf_Sym sym;
	const char *name;
	size_t i, j;
	int n, k;

	n = dwfl_module_getsymtab(mod->dm);
	if (n <= 0)
		return 0;
	mod->aliases = calloc((size_t)n, sizeof(*mod->aliases));
	mod->starts = calloc((size_t)n, sizeof(*mod->starts));
	if (mod->aliases == NULL || mod->starts == NULL)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		name = dwfl_module_getsym_info(mod->dm, k, &sym, &addr, &shndx, NULL, NULL);
		if (name != NULL) {
			/* Every address; the reach of those libdwfl chooses among. */
			mod->starts[mod->nstarts].addr = addr - mod->bias;
			mod->starts[mod->nstarts++].reach = name[0] != '\0' &&
			    sym.st_shndx != SHN_UNDEF && GELF_ST_TYPE(sym.st_info) != STT_SECTION &&
			    GELF_ST_TYPE(sym.st_info) != STT_FILE &&
			    GELF_ST_TYPE(sym.st_info) != STT_TLS ? addr - mod->bias + sym.st_size : 0;
		}
		if (name == NULL || name[0] == '\0' || shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		mod->aliases[mod->naliases].addr = addr - mod->bias;
		mod->aliases[mod->naliases].size = sym.st_size;
		mod->aliases[mod->naliases].name = name;
		mod->aliases[mod->naliases].rank = alias_rank(&sym, name);
		mod->naliases++;
	}
	qsort(mod->aliases, mod->naliases, sizeof(*mod->aliases), alias_cmp);
	for (i = 0, j = 0; i < mod->naliases; i++) {
		if (j > 0 && mod->aliases[i].addr == mod->aliases[j - 1].addr) {
			if (mod->aliases[i].size > mod->aliases[j - 1].size)
				mod->aliases[j - 1].size = mod->aliases[i].size;
			continue;
		}
		mod->aliases[j++] = mod->aliases[i];
	}
	mod->naliases = j;
	qsort(mod->starts, mod->nstarts, sizeof(*mod->starts), start_cmp);
	for (i = 0, j = 0; i < mod->nstarts; i++) {
		if (j > 0 && mod->starts[i].reach < mod->starts[j - 1].reach)
			mod->starts[i].reach = mod->starts[j - 1].reach;
		if (j > 0 && mod->starts[i].addr == mod->starts[j - 1].addr)
			mod->starts[j - 1].reach = mod->starts[i].reach;
		else
			mod->starts[j++] = mod->starts[i];
	}
	mod->nstarts = j;
	return 0;
}

/*
 * Whether dwfl_module_addrinfo, which scans every symbol, can only answer NULL for addr: no
 * symbol it chooses among holds addr (they all end at or below it), and the symbols that end
 * highest reach past the last address at or below addr, where a sizeless symbol (an assembly
 * label) would have to be for it to be chosen (libdwfl: "its existence excludes any sizeless
 * symbol that is below its upper bound").  So the code of a stripped binary between the
 * symbols it kept costs a binary search, not a scan of all of them for each pc.
 */
int
module_elf_unnamed(const struct elf_module *mod, uint64_t addr)
{
	size_t at = module_elf_count_at_or_below(mod->starts, mod->nstarts, sizeof(*mod->starts),
	    offsetof(struct profil_sym_start, addr), addr);

	if (at == 0)
		return mod->starts != NULL;
	return mod->starts[at - 1].reach <= addr &&
	    mod->starts[at - 1].reach > mod->starts[at - 1].addr;
}

const char *
module_elf_alias(const struct elf_module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->naliases, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (mod->aliases[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mod->naliases && mod->aliases[lo].addr == addr ? mod->aliases[lo].name : NULL;
}

/*
 * The function symbol whose sized range holds addr, by the alias table: its best name, and its
 * start in *start.  NULL when the closest function below addr does not reach it (sizeless or
 * nested symbols): dwfl_module_addrinfo, which scans every symbol, answers those.
 */
const char *
module_elf_function(const struct elf_module *mod, uint64_t addr, uint64_t *start)
{
	size_t lo = module_elf_count_at_or_below(mod->aliases, mod->naliases, sizeof(*mod->aliases),
	    offsetof(struct profil_alias, addr), addr);

	if (lo == 0 || addr - mod->aliases[lo - 1].addr >= mod->aliases[lo - 1].size)
		return NULL;
	*start = mod->aliases[lo - 1].addr;
	return mod->aliases[lo - 1].name;
}

/* The symbol range holding vaddr, from the symbols named so far; NULL if none. */
const struct profil_sym_range *
module_elf_sym_range_find(const struct elf_module *mod, uint64_t vaddr, size_t *at)
{
	size_t lo = module_elf_count_at_or_below(mod->syms, mod->nsyms, sizeof(*mod->syms),
	    offsetof(struct profil_sym_range, start), vaddr);

	*at = lo;
	return lo > 0 && vaddr < mod->syms[lo - 1].end ? &mod->syms[lo - 1] : NULL;
}

/*
 * Remembers that [start, end) is named name.  A range that would overlap one already kept is
 * not kept (nested symbols: dwfl_module_addrinfo keeps answering those).  Out of memory only
 * costs speed.
 */
void
module_elf_sym_range_add(struct elf_module *mod, uint64_t start, uint64_t end, const char *name)
{
	struct profil_sym_range *v;
	size_t at;

	if (end <= start || module_elf_sym_range_find(mod, start, &at) != NULL ||
	    (at < mod->nsyms && mod->syms[at].start < end))
		return;
	if (mod->nsyms == mod->syms_cap) {
		size_t cap = mod->syms_cap ? 2 * mod->syms_cap : 64;

		v = realloc(mod->syms, cap * sizeof(*v));
		if (v == NULL)
			return;
		mod->syms = v;
		mod->syms_cap = cap;
	}
	memmove(&mod->syms[at + 1], &mod->syms[at], (mod->nsyms - at) * sizeof(*mod->syms));
	mod->syms[at].start = start;
	mod->syms[at].end = end;
	mod->syms[at].name = name;
	mod->nsyms++;
}

/*
 * The unwind entry (FDE) holding vaddr, reading the file's entries on first use: once per
 * module, and only for a module with code no symbol names.  The file read is the one libdwfl
 * was given, checked by build-id; a file that cannot be read has no entries, and its
 * unnamed code keeps a name per address.  NULL when no entry holds vaddr.
 */
const struct profil_cfi_entry *
module_elf_fde(struct elf_module *mod, uint64_t vaddr)
{
	struct profil_cfi_object o;
	size_t lo;
	int fd;

	if (!mod->fdes_read) {
		mod->fdes_read = 1;
		fd = module_elf_open_regular(mod->opened != NULL ? mod->opened : mod->base->path);
		if (fd >= 0 && profil_cfi_object_load_entries(&o, fd, profil_cfi_inflate_zlib) == 0) {
			if (o.entries.n > 0 && (mod->base->build_id_len == 0 ||
			    o.build_id_len == 0 || (o.build_id_len == mod->base->build_id_len &&
			    memcmp(o.build_id, mod->base->build_id, o.build_id_len) == 0)))
				mod->fde_names = calloc(o.entries.n, sizeof(*mod->fde_names));
			if (mod->fde_names != NULL) {
				mod->fdes = o.entries;
				o.entries.v = NULL;
				o.entries.n = 0;
			}
			profil_cfi_object_release(&o);
		}
		if (fd >= 0)
			close(fd);
	}
	lo = module_elf_count_at_or_below(mod->fdes.v, mod->fdes.n, sizeof(*mod->fdes.v),
	    offsetof(struct profil_cfi_entry, start), vaddr);
	return lo > 0 && vaddr < mod->fdes.v[lo - 1].end ? &mod->fdes.v[lo - 1] : NULL;
}
