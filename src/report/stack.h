/*
 * stack.h - walks every sample of a report session as a symbolized stack: the one way exporters
 * (src/export) and call-graph views turn recorded PCs into frames, with the session's symbolizer
 * and the same attribution through each file's own mappings as the flat view.
 *
 * The leaf PC is looked up as recorded; a caller's PC is a return address, so the lookup uses
 * pc - 1, which lands in the call instruction and gives the call's line (and the right function
 * when the call is the last instruction of a noreturn path).  Not thread-safe (the session
 * is not).
 */
#ifndef PROFIL_REPORT_STACK_H
#define PROFIL_REPORT_STACK_H

#include <stddef.h>
#include <stdint.h>

struct profil_file;
struct profil_file_mapping;
struct profil_file_sample;
struct profil_location;
struct profil_module;
struct profil_report;

/* One machine frame; its inline chain is loc->frames[0 .. loc->nframes), innermost first. */
struct profil_stack_frame {
	const struct profil_file_mapping *map;	/* NULL: the PC was in no recorded mapping */
	struct profil_module *module;		/* NULL when map is */
	uint64_t pc;			/* as recorded: interrupted PC or return address */
	uint64_t lookup;		/* pc for the leaf, pc - 1 for callers */
	uint64_t offset;		/* lookup as the module's offset; 0 when map is NULL */
	const struct profil_location *loc;	/* NULL when map is; a bare one is shared by
						   every offset of its module: offset says
						   where (profil_module_lookup) */
};

/*
 * The one path from a recorded PC to a function, for the flat view, the stack views and every
 * exporter: a locator of one file finds the modules of its mappings once each, and names a PC
 * by the mapping holding it: a file's ELF, or, for anonymous memory, no mapping or a memfd
 * (where JITs put code), the profile's JIT names first; else it is unmapped or a marker.  A
 * stale perf map (a pid reused) never renames a library's code.
 */
struct profil_locator {
	struct profil_symbolizer *sym;
	const struct profil_file *f;
	struct profil_module **mods;	/* per mapping of f, found on first use */
	struct profil_module *jit;	/* f's JIT names, made on first use */
	int fresh;			/* set when a lookup met a module first: the caller clears */
};

/* Returns 0 or -ENOMEM. */
int profil_locator_init(struct profil_locator *l, struct profil_symbolizer *sym,
    const struct profil_file *f);
void profil_locator_release(struct profil_locator *l);

/*
 * Fills fr (map, module, loc) for pc of a sample taken in epoch; caller: pc is a return address,
 * looked up at pc - 1.  Returns 0 or -ENOMEM.
 */
int profil_locate(struct profil_locator *l, uint64_t pc, int caller, uint32_t epoch,
    struct profil_stack_frame *fr);

/* One sample of one file, with its frames leaf first. */
struct profil_stack {
	const struct profil_file *file;
	const char *file_name;		/* as the session names it */
	size_t file_index;
	const struct profil_file_sample *sample;	/* count, tid, epoch, pcs */
	double seconds;			/* what sample stands for (a wait's at its own rate) */
	size_t nframes;			/* sample->depth */
	const struct profil_stack_frame *frames;
};

/*
 * profil_report_stacks - calls fn(arg, stack) for every sample of every file of the session, in
 * file order and then in the file's order.  The stack and everything it points to are valid
 * during the call; locations stay valid until the session is freed.  A non-zero return from fn
 * stops the walk and is returned.  Returns 0, -ENOMEM, or what fn returned.
 */
int profil_report_stacks(struct profil_report *r,
    int (*fn)(void *arg, const struct profil_stack *stack), void *arg);

/*
 * The name of inline level i (0 innermost) of a frame, as the flat view shows names: the
 * function, or module+0xoffset when nothing names it, or [unmapped].  buf (len bytes) holds the
 * name when it has to be made.
 */
const char *profil_stack_frame_name(const struct profil_stack_frame *fr, size_t i, char *buf,
    size_t len);

/* Inline levels of a frame: loc->nframes, or 1 for a PC in no mapping. */
size_t profil_stack_frame_levels(const struct profil_stack_frame *fr);

/* Whether pc is a marker frame: a cut stack's (PROFIL_PC_CUT_*) or a wait's (PROFIL_PC_WAIT). */
int profil_pc_is_marker(uint64_t pc);

/*
 * Whether pc is a wait frame (PROFIL_PC_WAIT): the leaf of a sample of a thread that waited
 * (--wall), whose ticks are wall time and no CPU time.  The one test every view and exporter
 * makes to tell the two apart.
 */
int profil_pc_is_wait(uint64_t pc);

/*
 * The name of a marker pc: "[stack cut: ...]", or "[wait: read, sleeping]" naming the system
 * call and the thread's state, or "[wait: CPU, runnable]" for time a thread waited for a CPU
 * (PROFIL_PC_WAIT_CPU); NULL when pc is not a marker.  The name lives as long as the
 * process.
 */
const char *profil_pc_marker_name(uint64_t pc);

/* The name of x86-64 system call nr, or NULL (syscalls.c). */
const char *profil_syscall_name(unsigned int nr);

#endif /* PROFIL_REPORT_STACK_H */
