/*
 * unwind.h - walking a thread's user stack from its registers and a view of its stack memory:
 * the frame-pointer walk, and the walk driven by unwind tables (src/cfi builds them from each
 * object's DWARF call frame information).  The walks run in signal context (the in-process
 * recorder) and in the outside recorder on a copy of the stack the kernel took with a sample:
 * everything declared here is async-signal-safe, allocates nothing and reads memory only
 * through struct profil_unwind_memory, after checking its bounds.  x86-64.
 */
#ifndef PROFIL_UNWIND_H
#define PROFIL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"	/* PROFIL_PC_CUT_*: the frames that end a cut stack */

/* How a row finds the canonical frame address (CFA: the caller's sp). */
enum profil_cfa_kind {
	PROFIL_CFA_NONE = 0,	/* no call frame information here: follow frame pointers */
	PROFIL_CFA_SP,		/* sp + cfa_off */
	PROFIL_CFA_FP,		/* fp + cfa_off */
	PROFIL_CFA_FP_DEREF,	/* *(fp + cfa_off): functions that realign their stack */
	PROFIL_CFA_PLT,		/* sp + cfa_off, + 8 when (pc & 15) >= fp_off: a lazy PLT entry */
	PROFIL_CFA_SIGNAL,	/* a signal return trampoline: the ucontext is at sp */
	PROFIL_CFA_END,		/* the return address is undefined: the outermost frame */
	PROFIL_CFA_BAD,		/* rules a walk cannot follow (another register, an expression) */
	PROFIL_CFA_BX		/* rbx + cfa_off: ld.so's lazy-binding trampoline, which realigns */
};

/* Where the caller's frame pointer (rbp) is, and likewise its rbx. */
enum profil_fp_rule {
	PROFIL_FP_SAME = 0,	/* unchanged */
	PROFIL_FP_AT_CFA,	/* saved at cfa + off */
	PROFIL_FP_AT_FP,	/* saved at fp + off */
	PROFIL_FP_LOST		/* not recoverable */
};

/*
 * One row of an object's unwind table: from base + addr (an address of the object's ELF
 * image) up to the next row, how to find the caller.  The return address is always at
 * cfa - 8 (rows where it is not are PROFIL_CFA_BAD).  rbx is followed besides rbp because
 * a CFA may be kept in it (PROFIL_CFA_BX), so callees' saves of it matter.
 */
struct profil_unwind_row {
	uint32_t addr;
	int32_t cfa_off;
	int16_t fp_off;
	uint8_t cfa;		/* enum profil_cfa_kind */
	uint8_t fp;		/* enum profil_fp_rule */
	int16_t bx_off;
	uint8_t bx;		/* enum profil_fp_rule, for rbx */
	uint8_t unused;
};

/* An object's table, rows sorted by addr.  Read-only once built. */
struct profil_unwind_table {
	uint64_t base;
	const struct profil_unwind_row *rows;
	size_t nrows;
};

/*
 * A mapping of code: run-time addresses [start, end) are the object's image addresses plus
 * bias.  table NULL: code without tables (JIT code), walked by frame pointers; or, with cut
 * set, code of an object whose tables could not be read (a deleted or replaced file): a walk
 * stops there, as frame pointers would give wrong parents in code built without them.
 */
struct profil_unwind_module {
	uint64_t start, end;
	uint64_t bias;
	const struct profil_unwind_table *table;
	int cut;
};

/* The modules of a process, sorted by start and disjoint. */
struct profil_unwind_space {
	const struct profil_unwind_module *mods;
	size_t nmods;
};

/* Readable stack memory: the bytes of addresses [lo, hi) are at data. */
struct profil_unwind_memory {
	uint64_t lo, hi;
	const uint8_t *data;
};

/*
 * The registers a walk starts from; fp or bx PROFIL_UNWIND_FP_UNKNOWN when it is not known
 * (a waiting thread's, read from /proc).
 */
struct profil_unwind_regs {
	uint64_t pc, sp, fp, bx;
};
#define PROFIL_UNWIND_FP_UNKNOWN	UINT64_MAX

/* Walk outcomes, for counting. */
enum profil_unwind_end {
	PROFIL_UNWIND_COMPLETE = 0,	/* reached the outermost frame */
	PROFIL_UNWIND_DEPTH,		/* cut at the depth limit */
	PROFIL_UNWIND_SHORT,		/* cut: the stack copy ended */
	PROFIL_UNWIND_NORULE		/* cut: no rule to follow */
};

/* The row of table for image address a, or NULL when a is before the first row. */
const struct profil_unwind_row *profil_unwind_row_find(const struct profil_unwind_table *t,
    uint64_t a);

/*
 * profil_unwind_cfi - fills pcs[0..max) with regs->pc and the return addresses of its callers,
 * leaf first, and returns how many.  Each step finds the module of the pc and the row of its
 * table (a return address is looked up one byte back, inside its call); code without a table
 * is walked by frame pointer.  Every read goes through mem.  A walk that stops early ends
 * with one marker frame (PROFIL_PC_CUT_*), within max; *end says why it stopped.
 */
size_t profil_unwind_cfi(const struct profil_unwind_space *space,
    const struct profil_unwind_regs *regs, const struct profil_unwind_memory *mem,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end);

/*
 * A frame a walk starts from, or stopped at: its registers (fp, bx PROFIL_UNWIND_FP_UNKNOWN
 * where not known) and whether regs.pc is where the frame is (exact: an interrupted pc) or a
 * return address, looked up one byte back.
 */
struct profil_unwind_stop {
	struct profil_unwind_regs regs;
	int exact;
};

/*
 * profil_unwind_cfi_at - the same walk from the frame *from; when stop is not NULL, *stop is
 * the frame it ended at: with a cut, the one it could not step from (pcs[n - 2]), so that a
 * caller who learns more of its registers (src/cfi/waiting.c) can walk on from it.
 */
size_t profil_unwind_cfi_at(const struct profil_unwind_space *space,
    const struct profil_unwind_stop *from, const struct profil_unwind_memory *mem,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end, struct profil_unwind_stop *stop);

#endif /* PROFIL_UNWIND_H */
