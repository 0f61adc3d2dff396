/*
 * symbols.c - the symbolizer's session: its modules by path and build-id, each answered by its
 * kind (module.h), the cache of answers per module, and names as views show them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report/demangle.h"
#include "report/module.h"

struct profil_symbolizer *
profil_symbolizer_new(void)
{
	return calloc(1, sizeof(struct profil_symbolizer));
}

static void
module_free(struct profil_module *mod)
{
	size_t i;

	for (i = 0; mod->cache != NULL && i < mod->cache_size; i++)
		free(mod->cache[i]);
	free(mod->cache);
	free(mod->unnamed);
	free(mod->unnamed_seen);
	if (mod->kind != NULL)
		mod->kind->release(mod);
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
	if (sym->elf != NULL)
		sym->elf_release(sym->elf);
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
	char *copy = strdup(dir);

	if (copy == NULL)
		return -ENOMEM;
	free(sym->debug_dir);
	sym->debug_dir = copy;
	return 0;
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

/* A module not yet opened, or NULL with errno ENOMEM. */
static struct profil_module *
module_new(const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct profil_module *mod = calloc(1, sizeof(*mod));
	const char *slash;

	if (mod == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mod->path = strdup(path);
	mod->build_id = malloc(build_id_len ? build_id_len : 1);
	mod->cache_size = 64;
	mod->cache = calloc(mod->cache_size, sizeof(*mod->cache));
	if (mod->path == NULL || mod->build_id == NULL || mod->cache == NULL) {
		module_free(mod);
		errno = ENOMEM;
		return NULL;
	}
	if (build_id_len > 0)
		memcpy(mod->build_id, build_id, build_id_len);
	mod->build_id_len = build_id_len;
	slash = strrchr(mod->path, '/');
	mod->name = slash != NULL && slash[1] != '\0' ? slash + 1 : mod->path;
	return mod;
}

/* Opens mod as a module of kind, and makes it the session's. */
static void
module_open(struct profil_symbolizer *sym, struct profil_module *mod,
    const struct profil_module_kind *kind)
{
	mod->sym = sym;
	mod->kind = kind;
	kind->open(mod);
	mod->next = sym->modules;
	sym->modules = mod;
}

struct profil_module *
profil_symbolizer_module(struct profil_symbolizer *sym, const char *path, const uint8_t *build_id,
    size_t build_id_len)
{
	const struct module_key k = { sym, path, build_id, build_id_len };
	struct profil_module *mod, **grown;
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
	mod = module_new(path, build_id, build_id_len);
	if (mod == NULL)
		return NULL;
	row = profil_index_get(&sym->index, module_hash(path, build_id, build_id_len),
	    module_same, &k, sym->nbykey);
	if (row < 0 || (size_t)row < sym->nbykey) {
		module_free(mod);
		if (row < 0)
			errno = ENOMEM;
		return row < 0 ? NULL : sym->bykey[row];
	}
	/* Anonymous and kernel code is named by address, from the profile; files by their ELF. */
	module_open(sym, mod, strcmp(path, PROFIL_MODULE_ANON) == 0 ||
	    strcmp(path, PROFIL_KERNEL_PATH) == 0 ? &profil_module_code : &profil_module_elf);
	sym->bykey[sym->nbykey++] = mod;
	return mod;
}

struct profil_module *
profil_symbolizer_code_module(struct profil_symbolizer *sym, const struct profil_file *f)
{
	struct profil_module *mod = module_new(PROFIL_MODULE_JIT, NULL, 0);

	if (mod == NULL)
		return NULL;
	mod->file = f;
	module_open(sym, mod, &profil_module_code);
	return mod;
}

void
profil_module_set_file(struct profil_module *mod, const struct profil_file *f)
{
	mod->file = f;
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
		return "code without a file (vDSO, JIT, anonymous memory, the kernel)";
	}
	return "unknown";
}

int
profil_module_vaddr(const struct profil_module *mod, uint64_t offset, uint64_t *vaddr)
{
	if (mod->kind->vaddr == NULL)
		return -ERANGE;
	return mod->kind->vaddr(mod, offset, vaddr);
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

int
profil_location_make(struct profil_module *mod, uint64_t offset, uint64_t start,
    const char *name, struct profil_frame *chain, size_t n, const char *comp_dir,
    struct profil_location **out)
{
	struct profil_location *loc;
	char *shown = NULL;
	size_t extra;

	chain[n - 1].function = name;
	/* Names a JIT wrote are shown as written: only an ELF symbol has a version suffix. */
	if (name != NULL && mod->kind == &profil_module_elf)
		shown = display_name(mod->sym, name);
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
	loc->known = name != NULL ? PROFIL_LOCATION_SYMBOL : PROFIL_LOCATION_UNNAMED;
	loc->nframes = n;
	loc->comp_dir = comp_dir;
	loc->frames = (struct profil_frame *)(loc + 1);
	memcpy(loc->frames, chain, n * sizeof(chain[0]));
	*out = loc;
	return 0;
}

/*
 * Whether loc says nothing but that nothing names its code: no function, no file or line, no
 * inline chain.  Such answers differ only in their offset, which the caller knows, and a file
 * of deep distinct stacks is almost nothing else: they share one location per module instead
 * of costing some 110 bytes per distinct pc (issue 19).
 */
static int
location_is_bare(const struct profil_location *loc)
{
	return loc->known == PROFIL_LOCATION_UNNAMED && loc->nframes == 1 &&
	    loc->frames[0].function == NULL && loc->frames[0].file == NULL &&
	    loc->frames[0].line == 0 && loc->comp_dir == NULL;
}

#define UNNAMED_SEEN	1024

static size_t
unnamed_slot(uint64_t offset)
{
	return (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 54) & (UNNAMED_SEEN - 1);
}

/* found, bare, becomes the module's shared location (offset 0), or is freed for it. */
static int
share_unnamed(struct profil_module *mod, struct profil_location *found, uint64_t offset,
    const struct profil_location **loc)
{
	if (mod->unnamed_seen == NULL)
		mod->unnamed_seen = calloc(UNNAMED_SEEN, sizeof(*mod->unnamed_seen));
	if (mod->unnamed_seen == NULL) {
		free(found);
		return -ENOMEM;
	}
	if (mod->unnamed == NULL) {
		found->offset = 0;
		mod->unnamed = found;
	} else {
		free(found);
	}
	mod->unnamed_seen[unnamed_slot(offset)] = offset + 1;
	*loc = mod->unnamed;
	return 0;
}

int
profil_module_lookup(struct profil_module *mod, uint64_t offset,
    const struct profil_location **loc)
{
	struct profil_location *found;
	size_t j;
	int err;

	/* offset + 1 wraps to 0, a free slot, only for an offset no mapping can hold. */
	if (mod->unnamed_seen != NULL && offset != UINT64_MAX &&
	    mod->unnamed_seen[unnamed_slot(offset)] == offset + 1) {
		*loc = mod->unnamed;
		return 0;
	}
	for (j = cache_slot(offset, mod->cache_size); mod->cache[j] != NULL;
	     j = (j + 1) & (mod->cache_size - 1)) {
		if (mod->cache[j]->offset == offset) {
			*loc = mod->cache[j];
			return 0;
		}
	}
	err = mod->kind->resolve(mod, offset, &found);
	if (err != 0)
		return err;
	if (location_is_bare(found))
		return share_unnamed(mod, found, offset, loc);
	err = cache_insert(mod, found);
	if (err != 0) {
		free(found);
		return err;
	}
	*loc = found;
	return 0;
}
