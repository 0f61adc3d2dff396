/*
 * module_elf.c - the module kind for mapped files: ELF symbols, DWARF lines and inline chains
 * through elfutils' libdwfl, one Dwfl per binary, found again through the debug store by
 * build-id when the file changed or went away.  See symbols.h for why modules are per binary
 * rather than per address space.
 */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi/cfi.h"
#include "format/format.h"
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

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    GElf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name);

static void
session_release(void *p)
{
	struct elf_session *es = p;

	free(es->debuginfo_path);
	free(es);
}

/*
 * The module's own directory, its .debug/ and the debug store (/usr/lib/debug, where Debian's
 * -dbg and -dbgsym packages put build-id files): eu-addr2line's default search.  NULL only
 * without memory.
 */
static struct elf_session *
session_of(struct profil_symbolizer *sym)
{
	struct elf_session *es = sym->elf;

	if (es != NULL)
		return es;
	es = calloc(1, sizeof(*es));
	if (es == NULL)
		return NULL;
	if (sym->debug_dir != NULL) {
		/* libdwfl's list: the binary's own directory, its .debug/, then the store. */
		if (asprintf(&es->debuginfo_path, ":.debug:%s", sym->debug_dir) < 0) {
			free(es);
			return NULL;
		}
	}
	es->callbacks.find_elf = dwfl_build_id_find_elf;
	es->callbacks.find_debuginfo = find_debuginfo;
	es->callbacks.section_address = dwfl_offline_section_address;
	es->callbacks.debuginfo_path = &es->debuginfo_path;
	sym->elf = es;
	sym->elf_release = session_release;
	return es;
}

/*
 * Opens a binary named by a profile file.  The path is input like any other: a FIFO or a device
 * there must neither block the report nor be read, so only regular files are accepted.
 */
static int
open_regular(const char *path)
{
	int fd = profil_file_open_regular(path, NULL);

	return fd < 0 ? -1 : fd;
}

/*
 * Whether the separate debug file open as fd belongs to the module: the same build-id when the
 * module has one, else the CRC-32 its .gnu_debuglink names (computed over the whole file,
 * which open_regular made sure is a regular file).
 */
static int
debug_file_matches(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *bits;
	const void *dbits;
	uint8_t buf[65536];
	GElf_Addr vaddr;
	uint32_t c = 0;
	ssize_t n, dlen;
	int len, ok = 0;
	Elf *elf;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf == NULL)
			return 0;
		dlen = dwelf_elf_gnu_build_id(elf, &dbits);
		ok = dlen == len && memcmp(dbits, bits, (size_t)len) == 0;
		elf_end(elf);
		return ok;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = profil_crc32(c, buf, (size_t)n);
	ok = n == 0 && c == crc;
	return lseek(fd, 0, SEEK_SET) == 0 && ok;
}

/* Opens dir/name (dir may be "") if it is a regular file other than the module's own. */
static int
open_debug_candidate(const char *dir, const char *sub, const char *name, const char *self,
    char **found)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s%s%s", dir, sub, name) < 0)
		return -1;
	if (self != NULL && strcmp(path, self) == 0) {
		free(path);
		return -1;
	}
	fd = open_regular(path);
	if (fd < 0)
		free(path);
	else
		*found = path;
	return fd;
}

/*
 * libdwfl's find_debuginfo callback, in place of dwfl_standard_find_debuginfo, which opens the
 * candidates blocking: a FIFO named <bin>.debug, .debug/<bin>.debug or what .gnu_debuglink says
 * (with ../ in it) hung the report.  The same places, in the same order, each only when it is
 * a regular file: the build-id store, then the debug link next to the binary, in its .debug/
 * and under the store by the binary's directory.  No network: debuginfod is used only when
 * PROFIL_DEBUGINFOD is set (then libdwfl's own search, with DEBUGINFOD_URLS, comes last).
 */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
    char **debuginfo_file_name)
{
	const struct profil_symbolizer *sym = *userdata;
	const char *store = "/usr/lib/debug", *slash;
	static const char *const sub[2] = { "", ".debug/" };
	char *dir, *found = NULL, *under = NULL;
	char bpath[4096 + 2 * 64 + 32];
	const unsigned char *bits;
	GElf_Addr vaddr;
	size_t i, n;
	int len, fd = -1;

	/* module_report() made the session the module's userdata. */
	if (sym != NULL && sym->debug_dir != NULL)
		store = sym->debug_dir;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len >= 2 && len <= 64) {
		n = (size_t)snprintf(bpath, sizeof(bpath), "%.4096s/.build-id/%02x/", store,
		    bits[0]);
		for (i = 1; i < (size_t)len; i++)
			n += (size_t)snprintf(bpath + n, sizeof(bpath) - n, "%02x", bits[i]);
		snprintf(bpath + n, sizeof(bpath) - n, ".debug");
		fd = open_regular(bpath);
		if (fd >= 0 && debug_file_matches(mod, fd, 0)) {
			*debuginfo_file_name = strdup(bpath);
			return fd;
		}
		if (fd >= 0)
			close(fd);
	}
	if (debuglink_file != NULL && file_name != NULL) {
		slash = strrchr(file_name, '/');
		dir = slash != NULL ? strndup(file_name, (size_t)(slash - file_name + 1)) :
		    strdup("");
		if (dir == NULL)
			return -1;
		for (i = 0; i < 3 && fd < 0; i++) {
			if (i < 2)
				fd = open_debug_candidate(dir, sub[i], debuglink_file, file_name,
				    &found);
			else if (dir[0] == '/' && asprintf(&under, "%s%s", store, dir) >= 0)
				fd = open_debug_candidate(under, "", debuglink_file, file_name,
				    &found);
			if (fd >= 0 && !debug_file_matches(mod, fd, debuglink_crc)) {
				close(fd);
				free(found);
				found = NULL;
				fd = -1;
			}
		}
		free(under);
		free(dir);
		if (fd >= 0) {
			*debuginfo_file_name = found;
			return fd;
		}
	}
	if (getenv("PROFIL_DEBUGINFOD") != NULL)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
		    debuglink_file, debuglink_crc, debuginfo_file_name);
	return -1;
}

/* Reports the ELF file at path (fd consumed) as the session's only module, at its own
 * addresses: a bias of 0 for shared objects and PIEs, nothing to move for executables. */
static int
module_report(struct profil_symbolizer *sym, struct elf_module *mod, const char *path, int fd)
{
	mod->dwfl = dwfl_begin(&session_of(sym)->callbacks);
	if (mod->dwfl == NULL) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(mod->dwfl);
	mod->dm = dwfl_report_elf(mod->dwfl, mod->base->name, path, fd, 0, true);
	if (mod->dm == NULL)
		close(fd);
	else {
		void **userdata;

		if (dwfl_module_info(mod->dm, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) !=
		    NULL)
			*userdata = sym;
	}
	dwfl_report_end(mod->dwfl, NULL, NULL);
	if (mod->dm == NULL) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		return -ENOEXEC;
	}
	return 0;
}

/* The file's build-id equals the recorded one, or one of them is unknown. */
static int
module_build_id_matches(struct elf_module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (mod->base->build_id_len == 0)
		return 1;
	len = dwfl_module_build_id(mod->dm, &bits, &vaddr);
	if (len <= 0)
		return 1;
	return (size_t)len == mod->base->build_id_len && memcmp(bits, mod->base->build_id, (size_t)len) == 0;
}

/*
 * A binary rebuilt or deleted since the recording may still have its old self in the debug
 * store, as /usr/lib/debug/.build-id/xx/yyyy.debug; such a file keeps the program headers,
 * symbols and DWARF of the code that ran.
 */
static int
module_open_by_build_id(struct profil_symbolizer *sym, struct elf_module *mod)
{
	char path[4096 + 2 * 64 + 32];
	size_t i, n;
	int fd;

	if (mod->base->build_id_len < 2 || mod->base->build_id_len > 64)
		return -1;
	n = (size_t)snprintf(path, sizeof(path), "%.4096s/.build-id/%02x/",
	    sym->debug_dir != NULL ? sym->debug_dir : "/usr/lib/debug", mod->base->build_id[0]);
	for (i = 1; i < mod->base->build_id_len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", mod->base->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	fd = open_regular(path);
	if (fd >= 0) {
		free(mod->opened);
		/* Without memory the unwind entries are read from the module's path, or not. */
		mod->opened = strdup(path);
	}
	return fd;
}

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

/*
 * How many elements of the array base[0 .. n) (each size bytes, sorted by the uint64_t at byte
 * offset off) have that key <= key: the index after the last one at or below key.
 */
static size_t
count_at_or_below(const void *base, size_t n, size_t size, size_t off, uint64_t key)
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
static int
module_load_aliases(struct elf_module *mod)
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
static int
module_unnamed(const struct elf_module *mod, uint64_t addr)
{
	size_t at = count_at_or_below(mod->starts, mod->nstarts, sizeof(*mod->starts),
	    offsetof(struct profil_sym_start, addr), addr);

	if (at == 0)
		return mod->starts != NULL;
	return mod->starts[at - 1].reach <= addr &&
	    mod->starts[at - 1].reach > mod->starts[at - 1].addr;
}

static const char *
module_alias(const struct elf_module *mod, uint64_t addr)
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
static const char *
module_function(const struct elf_module *mod, uint64_t addr, uint64_t *start)
{
	size_t lo = count_at_or_below(mod->aliases, mod->naliases, sizeof(*mod->aliases),
	    offsetof(struct profil_alias, addr), addr);

	if (lo == 0 || addr - mod->aliases[lo - 1].addr >= mod->aliases[lo - 1].size)
		return NULL;
	*start = mod->aliases[lo - 1].addr;
	return mod->aliases[lo - 1].name;
}

static void
elf_open_in(struct profil_symbolizer *sym, struct elf_module *mod)
{
	Dwarf_Addr dbias;
	int fd, err;

	fd = open_regular(mod->base->path);
	if (fd < 0) {
		/* Deleted or on another machine: the debug store may still hold it by build-id. */
		mod->base->status = PROFIL_MODULE_MISSING;
		fd = module_open_by_build_id(sym, mod);
		if (fd >= 0 && module_report(sym, mod, mod->base->path, fd) == 0 &&
		    module_load_segments(mod) == 0) {
			(void)module_load_aliases(mod);
			mod->base->status = PROFIL_MODULE_OK;
		} else if (mod->dwfl != NULL) {
			dwfl_end(mod->dwfl);
			mod->dwfl = NULL;
			mod->dm = NULL;
		}
		return;
	}
	err = module_report(sym, mod, mod->base->path, fd);
	if (err == -ENOMEM) {
		mod->base->status = PROFIL_MODULE_MISSING;
		return;
	}
	if (err != 0) {
		mod->base->status = PROFIL_MODULE_NOT_ELF;
		return;
	}
	if (!module_build_id_matches(mod)) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->dm = NULL;
		mod->base->status = PROFIL_MODULE_CHANGED;
		fd = module_open_by_build_id(sym, mod);
		if (fd < 0 || module_report(sym, mod, mod->base->path, fd) != 0)
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
	(void)module_load_aliases(mod);
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
	size_t lo = count_at_or_below(ci->fns, ci->n, sizeof(*ci->fns),
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
static size_t
module_inline_chain(struct elf_module *mod, Dwarf_Addr addr, struct profil_frame *frames,
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

/* The symbol range holding vaddr, from the symbols named so far; NULL if none. */
static const struct profil_sym_range *
sym_range_find(const struct elf_module *mod, uint64_t vaddr, size_t *at)
{
	size_t lo = count_at_or_below(mod->syms, mod->nsyms, sizeof(*mod->syms),
	    offsetof(struct profil_sym_range, start), vaddr);

	*at = lo;
	return lo > 0 && vaddr < mod->syms[lo - 1].end ? &mod->syms[lo - 1] : NULL;
}

/*
 * Remembers that [start, end) is named name.  A range that would overlap one already kept is
 * not kept (nested symbols: dwfl_module_addrinfo keeps answering those).  Out of memory only
 * costs speed.
 */
static void
sym_range_add(struct elf_module *mod, uint64_t start, uint64_t end, const char *name)
{
	struct profil_sym_range *v;
	size_t at;

	if (end <= start || sym_range_find(mod, start, &at) != NULL ||
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
static const struct profil_cfi_entry *
module_fde(struct elf_module *mod, uint64_t vaddr)
{
	struct profil_cfi_object o;
	size_t lo;
	int fd;

	if (!mod->fdes_read) {
		mod->fdes_read = 1;
		fd = open_regular(mod->opened != NULL ? mod->opened : mod->base->path);
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
	lo = count_at_or_below(mod->fdes.v, mod->fdes.n, sizeof(*mod->fdes.v),
	    offsetof(struct profil_cfi_entry, start), vaddr);
	return lo > 0 && vaddr < mod->fdes.v[lo - 1].end ? &mod->fdes.v[lo - 1] : NULL;
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
	const struct profil_cfi_entry *fde = module_fde(mod, vaddr);
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
		name = module_function(mod, vaddr, &start);
		if (name == NULL && (range = sym_range_find(mod, vaddr, &at)) != NULL) {
			name = range->name;
			start = range->start;
		} else if (name == NULL && !module_unnamed(mod, vaddr)) {
			name = dwfl_module_addrinfo(mod->dm, vaddr + mod->bias, &symoff, &symbol,
			    NULL, NULL, NULL);
			if (name != NULL) {
				start = vaddr - symoff;
				alias = module_alias(mod, start);
				if (alias != NULL)
					name = alias;
				if (symbol.st_size > symoff)
					sym_range_add(mod, start, start + symbol.st_size, name);
			}
		}
		n = module_inline_chain(mod, vaddr + mod->bias, chain, 32, &dstart, &comp_dir);
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
	if (mod == NULL || session_of(base->sym) == NULL) {
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
