/*
 * symbols.h - the symbolizer: turns a place in a mapped file into function, module, source file,
 * line and the chain of inlined calls.  Its ELF kind (module_elf*.c) is the only part of profil
 * that includes elfutils.
 *
 * A session (struct profil_symbolizer) owns one module per distinct binary, named by its path
 * and build-id, and answers queries in the binary's own terms: a file offset, which is what a
 * recorded mapping (start, end, offset) turns every sampled PC into.  Working per binary rather
 * than per address space is deliberate: one report merges many processes, each with its own
 * load addresses (ASLR, dlopen order, ASLR off and two programs at the same place), and every
 * process running /usr/bin/python3 shares the same opened ELF, DWARF and answer cache.
 *
 * Each kind of module is a file of its own (module.h): module_elf.c reads a mapped file through
 * elfutils, module_code.c names code from the profile itself (JIT functions, anonymous code).
 *
 * Nothing here prints: a module that cannot be symbolized says why in its status, and the
 * caller warns once per module.  Not thread-safe (like a Dwfl); one session per thread.
 */
#ifndef PROFIL_REPORT_SYMBOLS_H
#define PROFIL_REPORT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct profil_symbolizer;
struct profil_module;

/* One level of the inline chain. */
struct profil_frame {
	const char *function;	/* NULL when nothing names the code */
	const char *file;	/* source file, NULL without line information */
	int line;		/* 0 without line information */
};

/*
 * What is known about one file offset.  frames[0] is the innermost (inlined) code, with the
 * file and line of the instruction; frames[nframes - 1] is the function that owns the machine
 * code, its file:line being where it called the next inner one.  The flat view attributes to
 * that outermost frame, as perf and gprof do.
 */
struct profil_location {
	const struct profil_module *module;
	uint64_t offset;	/* file offset in the module; 0 in a module's shared bare
				   location (profil_module_lookup) */
	uint64_t function_start;	/* ELF address of the owning function; its identity */
	int known;		/* PROFIL_LOCATION_* */
	size_t nframes;		/* at least 1 */
	struct profil_frame *frames;
	const char *comp_dir;	/* the compilation directory, that relative file names are in;
				   NULL when unknown */
};

/*
 * What names the code of a location (its known):
 *   UNNAMED  nothing: shown as module+0xoffset, one row per address
 *   SYMBOL   a symbol (or DWARF): function_start is its address
 *   UNWIND   no symbol, but an entry of the unwind tables (an FDE of .eh_frame or
 *            .debug_frame) holds it, and stripped binaries keep those: one function per
 *            entry, named module+0xSTART with START the file offset where the entry begins
 *            (offsets as module+0xoffset names use them); function_start is the entry's ELF
 *            address.  Its own kind of identity, so that it never merges with a symbol.
 */
#define PROFIL_LOCATION_UNNAMED	0
#define PROFIL_LOCATION_SYMBOL	1
#define PROFIL_LOCATION_UNWIND	2

/* Why a module is only partly symbolized; the caller warns once per module. */
enum profil_module_status {
	PROFIL_MODULE_OK = 0,
	PROFIL_MODULE_MISSING,		/* the binary could not be opened */
	PROFIL_MODULE_CHANGED,		/* its build-id differs from the recorded one */
	PROFIL_MODULE_NOT_ELF,		/* not an ELF file libdwfl can read */
	PROFIL_MODULE_NO_DEBUG,		/* symbols but no DWARF: no file:line, no inlines */
	PROFIL_MODULE_PSEUDO,		/* [vdso] and the like: no file to read, nothing lost */
};

/* A new session with the standard debug-file search (build-id and debuglink under
 * /usr/lib/debug, as eu-addr2line).  Returns NULL with errno ENOMEM. */
struct profil_symbolizer *profil_symbolizer_new(void);

/*
 * Looks for separate debug files and for binaries by build-id under dir instead of
 * /usr/lib/debug (dir/.build-id/xx/yyyy.debug, and debug links in dir).  Call it before the
 * first module.  Returns 0 or -ENOMEM.
 */
int profil_symbolizer_set_debug_dir(struct profil_symbolizer *sym, const char *dir);

/*
 * Whether C++ and Rust names are demangled (the default, 1) or shown as the symbol tables spell
 * them (0; perf report --no-demangle), for --no-demangle.  Symbol versions are dropped either
 * way.  Call it before the first lookup: answers are cached.
 */
void profil_symbolizer_set_demangle(struct profil_symbolizer *sym, int demangle);

/* Frees the session, its modules and every location it returned. */
void profil_symbolizer_free(struct profil_symbolizer *sym);

/*
 * Returns the module for a binary, opening it on first use.  build_id (len bytes, len 0 when
 * unknown) is compared with the file's: a binary rebuilt since the recording is not used for
 * names (PROFIL_MODULE_CHANGED).  A module that cannot be opened is still returned, so its
 * addresses show as module+0xoffset.  Returns NULL only with errno ENOMEM.
 */
struct profil_module *profil_symbolizer_module(struct profil_symbolizer *sym, const char *path,
    const uint8_t *build_id, size_t build_id_len);

/*
 * Code that no file names (module_code.c).  PROFIL_MODULE_ANON, the path the recorders give
 * anonymous executable memory, is one module for every profile: its code is shown as one
 * function, "[anon]".  A profile's JIT names (struct profil_file_code) are a module of each
 * profile, named PROFIL_MODULE_JIT, made by profil_symbolizer_code_module(): its offsets are
 * the addresses themselves.  Returns NULL only with errno ENOMEM.
 */
#define PROFIL_MODULE_ANON	"[anon]"
#define PROFIL_MODULE_JIT	"[jit]"
struct profil_file;
struct profil_module *profil_symbolizer_code_module(struct profil_symbolizer *sym,
    const struct profil_file *f);

/*
 * The kernel's code (PROFIL_KERNEL_PATH) is one module per boot (the mapping's build-id is the
 * boot's id), named from the CODE records of whichever profile asks: set the profile before a
 * lookup.  Addresses of one boot name the same function in every profile of it.
 */
void profil_module_set_file(struct profil_module *mod, const struct profil_file *f);

/* The ELF address of a file offset of the module, through its loadable segments (what gprof's
 * files count in): 0, or -ERANGE where none holds it or the module has no ELF. */
int profil_module_vaddr(const struct profil_module *mod, uint64_t offset, uint64_t *vaddr);

/* The module's status, its path as recorded, and a short name for views (the base name). */
enum profil_module_status profil_module_status(const struct profil_module *mod);
const char *profil_module_path(const struct profil_module *mod);
const char *profil_module_name(const struct profil_module *mod);

/* A sentence for a status, for the caller's one warning. */
const char *profil_module_status_str(enum profil_module_status status);

/*
 * Looks up a file offset of the module.  For a return address (a caller's frame) pass the
 * offset of the call, i.e. the return address minus one.  *loc stays valid until the session
 * is freed; the same offset returns the same location (cached).  A bare answer, code nothing
 * names (PROFIL_LOCATION_UNNAMED, one frame without file or line), is not kept per offset:
 * every such offset of the module returns the module's one shared location, whose offset is
 * 0, so the caller keeps the offset it asked for (struct profil_stack_frame's).  A file of deep
 * distinct stacks is mostly such offsets (issue 19).  Returns 0 or -ENOMEM.
 */
int profil_module_lookup(struct profil_module *mod, uint64_t offset,
    const struct profil_location **loc);

#endif /* PROFIL_REPORT_SYMBOLS_H */
