/*
 * symbolize.c - the symbolizer on real code of a live process: the main PIE (with an inlined
 * call), a linked shared library, a dlopen'ed library that is closed again before the lookup,
 * libc, a library deleted after it ran, and a build-id that no longer matches.  Mappings come
 * from /proc/self/maps, as the recorder takes them, and every place is looked up afterwards.
 *
 * usage: symbolize PLUGIN.so GONE.so [DEBUGDIR BUILDID]
 * GONE.so is a copy this program deletes; DEBUGDIR/.build-id/ holds a copy under its BUILDID (hex).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "report/symbols.h"

int shared_call(int (*cb)(int line));

/* The last call of probe(): where it returned to and the source line that called it. */
static uintptr_t probe_ret;
static int probe_line;

__attribute__((noinline)) static int
probe(int line)
{
	probe_ret = (uintptr_t)__builtin_return_address(0);
	probe_line = line;
	__asm__ volatile("" ::: "memory");
	return line;
}

static inline __attribute__((always_inline)) int
inlined_body(int (*cb)(int line))
{
	int r = cb(__LINE__);

	return r * 3;
}

/* Keeps the compiler from specializing the calls away (constprop, isra, tail calls). */
static int (*volatile probe_ptr)(int line) = probe;
static volatile int sink;

static const int outer_call_line = __LINE__ + 5;

__attribute__((noinline)) static int
outer_function(int (*cb)(int line))
{
	int r = inlined_body(cb);

	return r + 2;
}

/* A snapshot of /proc/self/maps: what the recorder writes at start and after each dlopen. */
struct map {
	uintptr_t start, end;
	uint64_t offset;
	char path[512];
};
static struct map maps[512];
static size_t nmaps;

static void
maps_snapshot(void)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end, off;
	int pos;

	nmaps = 0;
	while (f != NULL && fgets(line, sizeof(line), f) != NULL && nmaps < 512) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off, &pos) < 3)
			continue;
		if (line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		maps[nmaps].start = start;
		maps[nmaps].end = end;
		maps[nmaps].offset = off;
		snprintf(maps[nmaps].path, sizeof(maps[nmaps].path), "%s", line + pos);
		nmaps++;
	}
	if (f != NULL)
		fclose(f);
}

static const struct map *
maps_find(uintptr_t pc)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (pc >= maps[i].start && pc < maps[i].end)
			return &maps[i];
	return NULL;
}

static const char *
base(const char *path)
{
	const char *s = path != NULL ? strrchr(path, '/') : NULL;

	return s != NULL ? s + 1 : path != NULL ? path : "(null)";
}

/* Looks pc up through the snapshot; NULL (and a failed check) when no mapping holds it. */
static const struct profil_location *
lookup(struct profil_symbolizer *sym, uintptr_t pc, const uint8_t *bid, size_t bidlen,
    const char *what)
{
	const struct profil_location *loc = NULL;
	struct profil_module *mod;
	const struct map *m = maps_find(pc);

	if (!tap_check(m != NULL, "%s: 0x%jx is in a recorded mapping", what, (uintmax_t)pc))
		return NULL;
	mod = profil_symbolizer_module(sym, m->path, bid, bidlen);
	if (!tap_check(mod != NULL &&
	    profil_module_lookup(mod, pc - m->start + m->offset, &loc) == 0, "%s: lookup", what))
		return NULL;
	return loc;
}

static void
expect(const struct profil_location *loc, size_t frame, const char *function, const char *module,
    const char *file, int line, const char *what)
{
	const struct profil_frame *f;

	if (loc == NULL || !tap_check(frame < loc->nframes, "%s: has frame %zu", what, frame))
		return;
	f = &loc->frames[frame];
	tap_check(f->function != NULL && strcmp(f->function, function) == 0,
	    "%s: function %s (got %s)", what, function, f->function ? f->function : "(null)");
	if (module != NULL)
		tap_check(strcmp(profil_module_name(loc->module), module) == 0,
		    "%s: module %s (got %s)", what, module, profil_module_name(loc->module));
	tap_check(strcmp(base(f->file), file) == 0 && f->line == line,
	    "%s: at %s:%d (got %s:%d)", what, file, line, base(f->file), f->line);
}

int
main(int argc, char **argv)
{
	static const uint8_t wrong_id[20] = { 0xde, 0xad, 0xbe, 0xef };
	const char *names[] = { "getpid", "sysconf", "strtod" };
	uintptr_t pie_ret, shared_ret, plugin_ret, gone_ret, pc;
	int pie_line, inner_line, shared_line, plugin_line;
	const struct profil_location *loc, *other;
	int (*call)(int (*)(int));
	struct profil_symbolizer *sym;
	struct profil_module *mod;
	const struct map *m;
	void *plugin, *gone;
	size_t i;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: symbolize PLUGIN.so GONE.so [DEBUGDIR BUILDID]\n");
		return 2;
	}
	sink = outer_function(probe_ptr);
	pie_ret = probe_ret;
	inner_line = probe_line;
	pie_line = outer_call_line;
	sink = shared_call(probe_ptr);
	shared_ret = probe_ret;
	shared_line = probe_line;

	plugin = dlopen(argv[1], RTLD_NOW);
	gone = dlopen(argv[2], RTLD_NOW);
	if (!tap_check(plugin != NULL && gone != NULL, "dlopen %s and %s", argv[1], argv[2]))
		return tap_done();
	call = (int (*)(int (*)(int)))dlsym(plugin, "plugin_call");
	sink = call(probe_ptr);
	plugin_ret = probe_ret;
	plugin_line = probe_line;
	call = (int (*)(int (*)(int)))dlsym(gone, "plugin_call");
	sink = call(probe_ptr);
	gone_ret = probe_ret;
	/* The recorder snapshots the mappings before each dlclose; after it, only files remain. */
	maps_snapshot();
	dlclose(plugin);
	dlclose(gone);
	tap_check(unlink(argv[2]) == 0, "the second plugin's file is deleted");

	sym = profil_symbolizer_new();
	if (!tap_check(sym != NULL, "a symbolizer session"))
		return tap_done();

	/* A return address points after the call; the call itself is one byte before. */
	loc = lookup(sym, pie_ret - 1, NULL, 0, "main PIE, inlined call");
	expect(loc, 0, "inlined_body", "symbolize", "symbolize.c", inner_line, "main PIE inner");
	expect(loc, 1, "outer_function", "symbolize", "symbolize.c", pie_line, "main PIE outer");
	if (loc != NULL)
		tap_check(loc->nframes == 2 && loc->known, "main PIE: two frames, outermost known");

	loc = lookup(sym, shared_ret - 1, NULL, 0, "shared library");
	expect(loc, 0, "shared_call", "libshared.so", "shared.c", shared_line, "shared library");

	loc = lookup(sym, plugin_ret - 1, NULL, 0, "dlopen'ed, closed library");
	expect(loc, 0, "plugin_call", "libplugin.so", "plugin.c", plugin_line, "closed plugin");

	/* The same answer twice is the cache's, and identical. */
	tap_check(loc != NULL && lookup(sym, plugin_ret - 1, NULL, 0, "again") == loc,
	    "a repeated lookup returns the cached location");

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *got;

		pc = (uintptr_t)dlsym(RTLD_DEFAULT, names[i]);
		loc = lookup(sym, pc, NULL, 0, names[i]);
		if (loc == NULL)
			continue;
		got = loc->frames[loc->nframes - 1].function;
		/* libc has aliases (getpid, __getpid): any name that dlsym maps back is right. */
		tap_check(loc->known && got != NULL && (uintptr_t)dlsym(RTLD_DEFAULT, got) == pc,
		    "libc %s: named %s", names[i], got != NULL ? got : "(null)");
		tap_check(strncmp(profil_module_name(loc->module), "libc.so", 7) == 0,
		    "libc %s: module %s", names[i], profil_module_name(loc->module));
	}

	/*
	 * A deleted binary: no name, but the module and the reason.  Its offsets are bare answers,
	 * one location shared by all (offset 0): the caller keeps the offset (t3002 checks the
	 * module+0xoffset the views show).
	 */
	m = maps_find(gone_ret - 1);
	loc = lookup(sym, gone_ret - 1, NULL, 0, "deleted library");
	if (loc != NULL && m != NULL) {
		tap_check(!loc->known && loc->frames[loc->nframes - 1].function == NULL,
		    "deleted library: no function name");
		tap_check(profil_module_status(loc->module) == PROFIL_MODULE_MISSING,
		    "deleted library: status says the binary is missing");
		tap_check(loc->offset == 0 && profil_module_lookup((struct profil_module *)
		    (uintptr_t)loc->module, gone_ret - m->start + m->offset, &other) == 0 &&
		    other == loc, "deleted library: two offsets share one bare location");
	}

	/* A build-id that is not the file's: the file is not trusted for names. */
	m = maps_find(shared_ret - 1);
	mod = m != NULL ? profil_symbolizer_module(sym, m->path, wrong_id, sizeof(wrong_id)) : NULL;
	if (tap_check(mod != NULL, "a module with a stale build-id")) {
		tap_check(profil_module_status(mod) == PROFIL_MODULE_CHANGED,
		    "stale build-id: status says the binary changed");
		tap_check(profil_module_lookup(mod, shared_ret - 1 - m->start + m->offset,
		    &loc) == 0 && !loc->known, "stale build-id: no function name");
	}
	/* A mapping of a file that is no ELF: kept, its offsets shown, the reason given. */
	mod = profil_symbolizer_module(sym, "/etc/passwd", NULL, 0);
	if (tap_check(mod != NULL, "a module that is no ELF file")) {
		tap_check(profil_module_status(mod) == PROFIL_MODULE_NOT_ELF,
		    "no ELF: status says so");
		tap_check(profil_module_lookup(mod, 0x10, &loc) == 0 && !loc->known &&
		    profil_module_lookup(mod, 0x20, &other) == 0 && other == loc,
		    "no ELF: offsets 0x10 and 0x20 share one bare location, no name");
	}
	profil_symbolizer_free(sym);

	/* The deleted library again, with its build-id and a debug store that has it. */
	if (argc == 5) {
		uint8_t bid[64];
		size_t len = 0;
		unsigned int byte;

		while (len < sizeof(bid) && sscanf(argv[4] + 2 * len, "%2x", &byte) == 1)
			bid[len++] = (uint8_t)byte;
		sym = profil_symbolizer_new();
		if (!tap_check(sym != NULL && profil_symbolizer_set_debug_dir(sym, argv[3]) == 0,
		    "a session with the debug store %s", argv[3]))
			return tap_done();
		loc = lookup(sym, gone_ret - 1, bid, len, "deleted library, by build-id");
		expect(loc, 0, "plugin_call", "gone.so", "plugin.c", plugin_line,
		    "deleted library found in the debug store");
		if (loc != NULL)
			tap_check(profil_module_status(loc->module) == PROFIL_MODULE_OK,
			    "deleted library, by build-id: status OK");
		/*
		 * A path whose file was replaced since (this program now, the plugin then): the
		 * recorded build-id is the plugin's, and the store has the code that ran.
		 */
		m = maps_find(gone_ret - 1);
		mod = profil_symbolizer_module(sym, "/proc/self/exe", bid, len);
		if (tap_check(m != NULL && mod != NULL &&
		    profil_module_lookup(mod, gone_ret - 1 - m->start + m->offset, &loc) == 0,
		    "replaced binary, by build-id: lookup"))
			expect(loc, 0, "plugin_call", "exe", "plugin.c", plugin_line,
			    "replaced binary found in the debug store");
		profil_symbolizer_free(sym);
	}
	return tap_done();
}
