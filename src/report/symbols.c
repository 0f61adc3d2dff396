/*
 * symbols.c - the symbolizer on elfutils' libdwfl: one Dwfl per binary, a cache of answers per
 * module.  See symbols.h for why modules are per binary rather than per address space.
 */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "report/demangle.h"
#include "report/index.h"
#include "report/symbols.h"

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

struct profil_module {
	struct profil_module *next;
	struct profil_symbolizer *sym;
	char *path;
	const char *name;
	uint8_t *build_id;
	size_t build_id_len;
	enum profil_module_status status;
	Dwfl *dwfl;			/* NULL when the binary gives no names */
	Dwfl_Module *dm;
	GElf_Addr bias;			/* Dwfl address = ELF address + bias */
	struct profil_segment *segs;
	size_t nsegs;
	struct profil_alias *aliases;	/* sorted by address, one per address */
	size_t naliases;
	/* Open addressing on the file offset; the table is a power of two, at most half full. */
	struct profil_location **cache;
	size_t cache_size;
	size_t cache_used;
	struct profil_cu_index *cus;	/* the units looked into */
	size_t ncus;
	struct profil_sym_range *syms;	/* sorted by start, disjoint */
	size_t nsyms, syms_cap;
};

struct profil_symbolizer {
	struct profil_module *modules;
	/* The same modules by path and build-id: a report of 20,000 mappings (or of hundreds of
	 * processes) finds each in constant time, not by walking the list. */
	struct profil_module **bykey;
	size_t nbykey, capbykey;
	struct profil_index index;
	char *debuginfo_path;		/* libdwfl's search list, NULL for its default */
	char *debug_dir;		/* the build-id store's root, NULL for /usr/lib/debug */
	Dwfl_Callbacks callbacks;
	int raw_names;			/* names as the symbol tables spell them */
};

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

struct profil_symbolizer *
profil_symbolizer_new(void)
{
	struct profil_symbolizer *sym = calloc(1, sizeof(*sym));

	if (sym == NULL)
		return NULL;
	/*
	 * The module's own directory, its .debug/ and /usr/lib/debug (where Debian's -dbg and
	 * -dbgsym packages put build-id files): eu-addr2line's default search.
	 */
	sym->callbacks.find_elf = dwfl_build_id_find_elf;
	sym->callbacks.find_debuginfo = find_debuginfo;
	sym->callbacks.section_address = dwfl_offline_section_address;
	sym->callbacks.debuginfo_path = &sym->debuginfo_path;
	return sym;
}

static void
module_free(struct profil_module *mod)
{
	size_t i;

	for (i = 0; mod->cache != NULL && i < mod->cache_size; i++)
		free(mod->cache[i]);
	free(mod->cache);
	for (i = 0; i < mod->ncus; i++)
		free(mod->cus[i].fns);
	free(mod->cus);
	free(mod->syms);
	free(mod->segs);
	free(mod->aliases);
	if (mod->dwfl != NULL)
		dwfl_end(mod->dwfl);
	free(mod->build_id);
	free(mod->path);
	free(mod);
}

void
profil_symbolizer_free(struct profil_symbolizer *sym)
{
	struct profil_module *mod, *next;

	if (sym == NULL)
		return;
	for (mod = sym->modules; mod != NULL; mod = next) {
		next = mod->next;
		module_free(mod);
	}
	free(sym->bykey);
	profil_index_release(&sym->index);
	free(sym->debuginfo_path);
	free(sym->debug_dir);
	free(sym);
}

void
profil_symbolizer_set_demangle(struct profil_symbolizer *sym, int demangle)
{
	sym->raw_names = !demangle;
}

int
profil_symbolizer_set_debug_dir(struct profil_symbolizer *sym, const char *dir)
{
	char *copy = strdup(dir), *path = malloc(strlen(dir) + sizeof(":.debug:"));

	if (copy == NULL || path == NULL) {
		free(copy);
		free(path);
		return -ENOMEM;
	}
	/* libdwfl's list: the binary's own directory, its .debug/, then the store. */
	sprintf(path, ":.debug:%s", dir);
	free(sym->debug_dir);
	free(sym->debuginfo_path);
	sym->debug_dir = copy;
	sym->debuginfo_path = path;
	return 0;
}

/* Reports the ELF file at path (fd consumed) as the session's only module, at its own
 * addresses: a bias of 0 for shared objects and PIEs, nothing to move for executables. */
static int
module_report(struct profil_symbolizer *sym, struct profil_module *mod, const char *path, int fd)
{
	mod->dwfl = dwfl_begin(&sym->callbacks);
	if (mod->dwfl == NULL) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(mod->dwfl);
	mod->dm = dwfl_report_elf(mod->dwfl, mod->name, path, fd, 0, true);
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
module_build_id_matches(struct profil_module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (mod->build_id_len == 0)
		return 1;
	len = dwfl_module_build_id(mod->dm, &bits, &vaddr);
	if (len <= 0)
		return 1;
	return (size_t)len == mod->build_id_len && memcmp(bits, mod->build_id, (size_t)len) == 0;
}

/*
 * A binary rebuilt or deleted since the recording may still have its old self in the debug
 * store, as /usr/lib/debug/.build-id/xx/yyyy.debug; such a file keeps the program headers,
 * symbols and DWARF of the code that ran.
 */
static int
module_open_by_build_id(struct profil_symbolizer *sym, struct profil_module *mod)
{
	char path[4096 + 2 * 64 + 32];
	size_t i, n;
	int fd;

	if (mod->build_id_len < 2 || mod->build_id_len > 64)
		return -1;
	n = (size_t)snprintf(path, sizeof(path), "%.4096s/.build-id/%02x/",
	    sym->debug_dir != NULL ? sym->debug_dir : "/usr/lib/debug", mod->build_id[0]);
	for (i = 1; i < mod->build_id_len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", mod->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	fd = open_regular(path);
	return fd;
}

static int
module_load_segments(struct profil_module *mod)
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
alias_cmp(const void *a, const void *b)
{
	const struct profil_alias *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank;	/* the best first */
}

/* The function symbols of the module, the best name per address kept. */
static int
module_load_aliases(struct profil_module *mod)
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
	if (mod->aliases == NULL)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		name = dwfl_module_getsym_info(mod->dm, k, &sym, &addr, &shndx, NULL, NULL);
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
	return 0;
}

static const char *
module_alias(const struct profil_module *mod, uint64_t addr)
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
module_function(const struct profil_module *mod, uint64_t addr, uint64_t *start)
{
	size_t lo = count_at_or_below(mod->aliases, mod->naliases, sizeof(*mod->aliases),
	    offsetof(struct profil_alias, addr), addr);

	if (lo == 0 || addr - mod->aliases[lo - 1].addr >= mod->aliases[lo - 1].size)
		return NULL;
	*start = mod->aliases[lo - 1].addr;
	return mod->aliases[lo - 1].name;
}

static void
module_open(struct profil_symbolizer *sym, struct profil_module *mod)
{
	Dwarf_Addr dbias;
	int fd, err;

	/* /proc/<pid>/maps names the kernel's own mappings in brackets: [vdso], [vsyscall]. */
	if (mod->path[0] == '[') {
		mod->status = PROFIL_MODULE_PSEUDO;
		return;
	}
	fd = open_regular(mod->path);
	if (fd < 0) {
		/* Deleted or on another machine: the debug store may still hold it by build-id. */
		mod->status = PROFIL_MODULE_MISSING;
		fd = module_open_by_build_id(sym, mod);
		if (fd >= 0 && module_report(sym, mod, mod->path, fd) == 0 &&
		    module_load_segments(mod) == 0) {
			(void)module_load_aliases(mod);
			mod->status = PROFIL_MODULE_OK;
		} else if (mod->dwfl != NULL) {
			dwfl_end(mod->dwfl);
			mod->dwfl = NULL;
			mod->dm = NULL;
		}
		return;
	}
	err = module_report(sym, mod, mod->path, fd);
	if (err == -ENOMEM) {
		mod->status = PROFIL_MODULE_MISSING;
		return;
	}
	if (err != 0) {
		mod->status = PROFIL_MODULE_NOT_ELF;
		return;
	}
	if (!module_build_id_matches(mod)) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->dm = NULL;
		mod->status = PROFIL_MODULE_CHANGED;
		fd = module_open_by_build_id(sym, mod);
		if (fd < 0 || module_report(sym, mod, mod->path, fd) != 0)
			return;
	}
	if (module_load_segments(mod) != 0) {
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->dm = NULL;
		if (mod->status == PROFIL_MODULE_OK)
			mod->status = PROFIL_MODULE_NOT_ELF;
		return;
	}
	/* Without the table names are still right, only perhaps another alias. */
	(void)module_load_aliases(mod);
	if (mod->status == PROFIL_MODULE_CHANGED)
		mod->status = PROFIL_MODULE_OK;	/* the debug store had the code that ran */
	else if (dwfl_module_getdwarf(mod->dm, &dbias) == NULL)
		mod->status = PROFIL_MODULE_NO_DEBUG;
}

struct module_key {
	const struct profil_symbolizer *sym;
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
};

static int
module_same(const void *arg, size_t row)
{
	const struct module_key *k = arg;
	const struct profil_module *mod = k->sym->bykey[row];

	return strcmp(mod->path, k->path) == 0 && mod->build_id_len == k->build_id_len &&
	    (k->build_id_len == 0 || memcmp(mod->build_id, k->build_id, k->build_id_len) == 0);
}

/* FNV-1a over the path and the build-id. */
static uint64_t
module_hash(const char *path, const uint8_t *build_id, size_t build_id_len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (; *path != '\0'; path++)
		h = (h ^ (uint8_t)*path) * 0x100000001b3ull;
	for (i = 0; i < build_id_len; i++)
		h = (h ^ build_id[i]) * 0x100000001b3ull;
	return h ^ h >> 31;
}

struct profil_module *
profil_symbolizer_module(struct profil_symbolizer *sym, const char *path, const uint8_t *build_id,
    size_t build_id_len)
{
	const struct module_key k = { sym, path, build_id, build_id_len };
	struct profil_module *mod, **grown;
	const char *slash;
	ssize_t row;

	if (sym->nbykey == sym->capbykey) {
		size_t cap = sym->capbykey ? 2 * sym->capbykey : 16;

		grown = realloc(sym->bykey, cap * sizeof(*grown));
		if (grown == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		sym->bykey = grown;
		sym->capbykey = cap;
	}
	/* Made before it is looked for, so that the row the index may add always gets one. */
	mod = calloc(1, sizeof(*mod));
	if (mod == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mod->path = strdup(path);
	mod->build_id = malloc(build_id_len ? build_id_len : 1);
	mod->cache_size = 64;
	mod->cache = calloc(mod->cache_size, sizeof(*mod->cache));
	row = -ENOMEM;
	if (mod->path != NULL && mod->build_id != NULL && mod->cache != NULL)
		row = profil_index_get(&sym->index, module_hash(path, build_id, build_id_len),
		    module_same, &k, sym->nbykey);
	if (row < 0 || (size_t)row < sym->nbykey) {
		module_free(mod);
		if (row < 0)
			errno = ENOMEM;
		return row < 0 ? NULL : sym->bykey[row];
	}
	if (build_id_len > 0)
		memcpy(mod->build_id, build_id, build_id_len);
	mod->build_id_len = build_id_len;
	mod->sym = sym;
	slash = strrchr(mod->path, '/');
	mod->name = slash != NULL && slash[1] != '\0' ? slash + 1 : mod->path;
	module_open(sym, mod);
	mod->next = sym->modules;
	sym->modules = mod;
	sym->bykey[sym->nbykey++] = mod;
	return mod;
}

enum profil_module_status
profil_module_status(const struct profil_module *mod)
{
	return mod->status;
}

const char *
profil_module_path(const struct profil_module *mod)
{
	return mod->path;
}

const char *
profil_module_name(const struct profil_module *mod)
{
	return mod->name;
}

const char *
profil_module_status_str(enum profil_module_status status)
{
	switch (status) {
	case PROFIL_MODULE_OK:
		return "symbolized";
	case PROFIL_MODULE_MISSING:
		return "cannot open binary, showing module+offset";
	case PROFIL_MODULE_CHANGED:
		return "binary changed since recording (build-id differs), showing module+offset";
	case PROFIL_MODULE_NOT_ELF:
		return "not a readable ELF file, showing module+offset";
	case PROFIL_MODULE_NO_DEBUG:
		return "no debug information, functions without file:line";
	case PROFIL_MODULE_PSEUDO:
		return "kernel-provided code, showing module+offset";
	}
	return "unknown";
}

static size_t
cache_slot(uint64_t offset, size_t size)
{
	/* Fibonacci hashing: offsets are clustered, the high product bits are not. */
	return (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 32) & (size - 1);
}

static int
cache_insert(struct profil_module *mod, struct profil_location *loc)
{
	struct profil_location **old = mod->cache;
	size_t i, j, oldsize = mod->cache_size;

	if (2 * (mod->cache_used + 1) > mod->cache_size) {
		mod->cache = calloc(2 * oldsize, sizeof(*mod->cache));
		if (mod->cache == NULL) {
			mod->cache = old;
			return -ENOMEM;
		}
		mod->cache_size = 2 * oldsize;
		for (i = 0; i < oldsize; i++) {
			if (old[i] == NULL)
				continue;
			j = cache_slot(old[i]->offset, mod->cache_size);
			while (mod->cache[j] != NULL)
				j = (j + 1) & (mod->cache_size - 1);
			mod->cache[j] = old[i];
		}
		free(old);
	}
	j = cache_slot(loc->offset, mod->cache_size);
	while (mod->cache[j] != NULL)
		j = (j + 1) & (mod->cache_size - 1);
	mod->cache[j] = loc;
	mod->cache_used++;
	return 0;
}

/* The ELF address of a file offset, through the PT_LOAD segment that holds it. */
static int
module_vaddr(const struct profil_module *mod, uint64_t offset, uint64_t *vaddr)
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
cu_index(struct profil_module *mod, Dwarf_Die *cu)
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
module_inline_chain(struct profil_module *mod, Dwarf_Addr addr, struct profil_frame *frames,
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
sym_range_find(const struct profil_module *mod, uint64_t vaddr, size_t *at)
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
sym_range_add(struct profil_module *mod, uint64_t start, uint64_t end, const char *name)
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
 * The name of a function as views show it: without a symbol version (debug files' symbol tables
 * say pthread_mutex_lock@@GLIBC_2.2.5; it is one function whichever version a caller bound to),
 * and demangled when it is a C++ or Rust name, as perf and rustfilt show them.  Returns an
 * allocated name, or NULL to show name as it is.
 */
static char *
display_name(const struct profil_symbolizer *sym, const char *name)
{
	const char *at = strchr(name, '@');
	char *plain = at != NULL ? strndup(name, (size_t)(at - name)) : NULL, *d;

	if (sym->raw_names)
		return plain;
	d = profil_demangle(plain != NULL ? plain : name);
	if (d == NULL)
		return plain;
	free(plain);
	return d;
}

static int
module_resolve(struct profil_module *mod, uint64_t offset, struct profil_location **out)
{
	struct profil_frame chain[32];
	struct profil_location *loc;
	const char *name = NULL, *comp_dir = NULL;
	uint64_t vaddr, start = 0, dstart = 0;
	GElf_Off symoff = 0;
	const struct profil_sym_range *range;
	const char *alias;
	char *shown;
	GElf_Sym symbol;
	size_t n = 0, extra, at;

	if (mod->dwfl != NULL && module_vaddr(mod, offset, &vaddr) == 0) {
		/*
		 * dwfl_module_addrinfo scans every symbol: the sorted alias table answers first,
		 * then the ranges it answered before, and it only for what is left.
		 */
		name = module_function(mod, vaddr, &start);
		if (name == NULL && (range = sym_range_find(mod, vaddr, &at)) != NULL) {
			name = range->name;
			start = range->start;
		} else if (name == NULL) {
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
	/*
	 * The owning function is named by its ELF symbol, as perf names it: the symbol covers the
	 * machine code (foo.cold, foo.isra.0 are separate pieces), DWARF names the source function.
	 */
	chain[n - 1].function = name;
	shown = name != NULL ? display_name(mod->sym, name) : NULL;
	extra = shown != NULL ? strlen(shown) + 1 : 0;
	loc = malloc(sizeof(*loc) + n * sizeof(loc->frames[0]) + extra);
	if (loc == NULL) {
		free(shown);
		return -ENOMEM;
	}
	if (shown != NULL) {
		char *copy = (char *)loc + sizeof(*loc) + n * sizeof(loc->frames[0]);

		memcpy(copy, shown, extra);
		chain[n - 1].function = copy;
		free(shown);
	}
	loc->module = mod;
	loc->offset = offset;
	loc->function_start = start;
	loc->known = name != NULL;
	loc->nframes = n;
	loc->comp_dir = comp_dir;
	loc->frames = (struct profil_frame *)(loc + 1);
	memcpy(loc->frames, chain, n * sizeof(chain[0]));
	*out = loc;
	return 0;
}

int
profil_module_lookup(struct profil_module *mod, uint64_t offset,
    const struct profil_location **loc)
{
	struct profil_location *found;
	size_t j;
	int err;

	for (j = cache_slot(offset, mod->cache_size); mod->cache[j] != NULL;
	     j = (j + 1) & (mod->cache_size - 1)) {
		if (mod->cache[j]->offset == offset) {
			*loc = mod->cache[j];
			return 0;
		}
	}
	err = module_resolve(mod, offset, &found);
	if (err != 0)
		return err;
	err = cache_insert(mod, found);
	if (err != 0) {
		free(found);
		return err;
	}
	*loc = found;
	return 0;
}
