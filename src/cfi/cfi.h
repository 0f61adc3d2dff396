/*
 * cfi.h - unwind tables (src/sample/unwind.h) built from an object's DWARF call frame
 * information: .eh_frame (found through .eh_frame_hdr when the section headers are gone), and
 * .debug_frame for the code .eh_frame leaves out.  Built once per object, outside signal
 * context (the outside recorder, and the in-process recorder's own thread), from a file
 * descriptor or an image in memory (the vDSO).  Links against libc alone: a compressed
 * section is read only through an inflater its caller gives (the profil command's, zlib).
 * Hostile input ends in -errno, in time and memory bounded by the size of the sections read
 * (or, compressed, by what they may inflate to: 64 MiB at most).
 */
#ifndef PROFIL_CFI_H
#define PROFIL_CFI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample/unwind.h"

/* A loadable segment: file bytes [offset, offset + filesz) at image address vaddr. */
struct profil_cfi_load {
	uint64_t offset, vaddr, filesz;
	uint32_t flags;			/* PF_X, PF_W, PF_R */
};

/* The code one entry (FDE) describes: image addresses [start, end). */
struct profil_cfi_entry {
	uint64_t start, end;
};

/* Entries sorted by start and disjoint (profil_cfi_entries_finish); v allocated. */
struct profil_cfi_entries {
	struct profil_cfi_entry *v;
	size_t n;
};

/* An object's table and what is needed to place it in a process. */
struct profil_cfi_object {
	struct profil_unwind_table table;	/* rows owned */
	struct profil_cfi_load *loads;
	size_t nloads;
	uint8_t build_id[20];
	size_t build_id_len;
	struct profil_cfi_entries entries;	/* profil_cfi_object_load_entries only */
};

/*
 * Inflates the zlib stream src[0..len) into exactly out[0..size): 0, or -errno (-EINVAL: a
 * stream that is not that).  Compressed sections (SHF_COMPRESSED, ELFCOMPRESS_ZLIB: every
 * Go binary's .debug_frame) are read through one; without, they are left out.
 */
typedef int profil_cfi_inflate_fn(const uint8_t *src, size_t len, uint8_t *out, size_t size);

/* zlib's (src/cfi/zlib.c): in the profil command, never in the in-process recorder. */
profil_cfi_inflate_fn profil_cfi_inflate_zlib;

/*
 * Reads the ELF file fd (its offset is not used).  The table holds the rows of .eh_frame and,
 * for code it does not cover, of .debug_frame (a Go program linked with C has both).  Returns
 * 0 or -errno (-ENOEXEC: not an x86-64 ELF object; -EFBIG: sections beyond the limit).
 */
int profil_cfi_object_load(struct profil_cfi_object *o, int fd, profil_cfi_inflate_fn *inflate);

/*
 * The same, but instead of rows the code ranges of the entries (FDEs) of .eh_frame and
 * .debug_frame, in o->entries, sorted and disjoint, and no table: where a stripped binary's
 * functions begin and end, which is all the report needs of them to name code no symbol
 * covers.  Cheaper than the rows: no entry's instructions are run.
 */
int profil_cfi_object_load_entries(struct profil_cfi_object *o, int fd,
    profil_cfi_inflate_fn *inflate);

/* The same from an ELF image in memory laid out as its file (the vDSO). */
int profil_cfi_object_load_image(struct profil_cfi_object *o, const void *image, size_t len,
    profil_cfi_inflate_fn *inflate);

/*
 * The vDSO of this process, from the image the kernel maps (getauxval(AT_SYSINFO_EHDR)): the
 * same image in every process of this kernel.  -ENOENT without one.
 */
int profil_cfi_object_load_vdso(struct profil_cfi_object *o);

void profil_cfi_object_release(struct profil_cfi_object *o);

/*
 * The bias of an executable mapping of o's file bytes from pgoff at run-time address start:
 * run-time address = image address + bias.  Segments may share a file page (lld's layout):
 * an executable one is taken first.  Returns 0, or -ENOENT when pgoff is in no segment.
 */
int profil_cfi_object_bias(const struct profil_cfi_object *o, uint64_t start, uint64_t pgoff,
    uint64_t *bias);

/*
 * profil_cfi_rows - the table of the call frame information section sec[0..len) whose first
 * byte is at image address vaddr; eh: .eh_frame rules (pc-relative pointers, CIE pointers
 * relative), else .debug_frame.  Rows of entries that cannot be read are left out.  Returns
 * 0 or -errno (-ENOMEM; -E2BIG beyond the row limit).  For the fuzzers and the loaders.
 */
int profil_cfi_rows(const uint8_t *sec, size_t len, uint64_t vaddr, int eh,
    struct profil_unwind_table *out);

/*
 * profil_cfi_entries - appends the ranges of the entries of the section (as profil_cfi_rows
 * reads it) to out, unsorted; profil_cfi_entries_finish then sorts them and leaves out each
 * one that overlaps the one before it.  0 or -errno (-ENOMEM; -E2BIG beyond the row limit),
 * out keeping what was appended either way.
 */
int profil_cfi_entries(const uint8_t *sec, size_t len, uint64_t vaddr, int eh,
    struct profil_cfi_entries *out);
void profil_cfi_entries_finish(struct profil_cfi_entries *e);

/*
 * profil_cfi_merge - the rows of a, and of b for the code where a has none (PROFIL_CFA_NONE):
 * one table out, owning its rows; b's rows below a's only as far as a table's window of 4 GiB
 * still holds all of a's.  0 or -ENOMEM.
 */
int profil_cfi_merge(const struct profil_unwind_table *a, const struct profil_unwind_table *b,
    struct profil_unwind_table *out);

/*
 * profil_unwind_waiting - profil_unwind_cfi for a thread of process pid that waits, whose
 * registers come from /proc: with regs->fp PROFIL_UNWIND_FP_UNKNOWN, a frame whose rule
 * needs the frame pointer gets it where its function's code, read from pid
 * (process_vm_readv(2)), proves where it is (src/cfi/waiting.c); otherwise the stack ends
 * there with PROFIL_PC_CUT_FP.  Not for signal context; allocation-free and thread-safe.
 */
size_t profil_unwind_waiting(const struct profil_unwind_space *space,
    const struct profil_unwind_regs *regs, const struct profil_unwind_memory *mem, pid_t pid,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end);

/*
 * What /proc/PID/task/TID says of a waiting thread, parsed for both recorders' --wall
 * (src/cfi/waiting.c), from text each reads its own way:
 *   profil_wait_runs   schedstat: the times the thread was put on a CPU and the ns it waited
 *                      on a runqueue for one (run_delay); 0 or -1
 *   profil_wait_state  stat: PROFIL_WAIT_* of its state letter, or -1 when it runs or ended
 *   profil_wait_syscall syscall: the call it waits in (nr, -1 for a page fault) with its sp
 *                      and pc; 0, or -1 when it runs again or the text is not that
 */
int profil_wait_runs(const char *schedstat, uint64_t *runs, uint64_t *delay);
int profil_wait_state(const char *stat);
int profil_wait_syscall(const char *text, long *nr, uint64_t *sp, uint64_t *pc);

/*
 * A thread's waits for a CPU (runnable, on no CPU), for both recorders' --wall: run_delay at
 * the last tick, the ns of it not yet counted as a whole period (less what recounts took),
 * and the periods the caller counted its wait again on an unchanged run count since it last
 * read the wait afresh or the thread ran (recounts, the caller's to add to and to zero).
 */
struct profil_wait_cpu {
	uint64_t delay;
	int64_t owed;
	uint64_t frac;		/* ns of waits for a CPU after recounts, not yet a period */
	uint64_t recounts;
	uint64_t unplaced;	/* periods held back until a CPU sample gives them a stack */
	int known;		/* delay read once: the time before the first read is not ours */
};

/*
 * profil_wait_cpu_periods - the periods of period_ns the thread waited for a CPU since the
 * last tick, given its run_delay and run count now (delay, runs) and its run count at the
 * last tick (runs_before): what the recounts since it last ran counted already is taken off,
 * the remainder is owed to the next tick.  Allocation-free; not thread-safe on one c.
 */
uint64_t profil_wait_cpu_periods(struct profil_wait_cpu *c, uint64_t delay, uint64_t runs_before,
    uint64_t runs, uint64_t period_ns);

/*
 * profil_wait_cpu_place - the sample of *n periods of waits for a CPU, in pcs: pcs[1..depth)
 * hold the stack of the thread's last CPU sample (depth 1: none known), max is the walk's
 * limit.  Puts the leaf PROFIL_PC_WAIT_CPU in pcs[0], marks a stack cut at the limit, and
 * returns the depth to count with *n periods, those held back before included; or 0 when no
 * stack is known and fewer than hold periods are held back: *n is then held for a later one.
 */
size_t profil_wait_cpu_place(struct profil_wait_cpu *c, uint64_t *pcs, size_t depth, size_t max,
    uint64_t *n, uint64_t hold);

/*
 * The rest of a tick of --wall that both recorders do alike:
 *   profil_wait_goes_on  whether the wait read at an earlier tick (known: a stack of it is
 *                        kept) goes on, its thread not put on a CPU since (runs, from its
 *                        schedstat, equal to *runs_before and not 0): then it is counted again
 *                        on that alone (c->recounts += weight), 1.  Else *runs_before becomes
 *                        runs, the recounts restart, and 0: the caller reads the wait afresh.
 *   profil_wait_leaf     the leaf pc of a waiting sample: its state (profil_wait_state) and the
 *                        system call it waits in (profil_wait_syscall's nr; -1 or one out of
 *                        range: none)
 *   profil_wait_copy     the top of the waiting stack from regs->sp, len bytes into copy
 *                        (process_vm_readv(2)): the bytes read, fewer where the stack's
 *                        mapping ends, or -1 (refused without ptrace access); regs' frame
 *                        registers set unknown, as /proc gives sp and pc alone
 */
int profil_wait_goes_on(struct profil_wait_cpu *c, uint64_t *runs_before, uint64_t runs, int known,
    uint64_t weight);
uint64_t profil_wait_leaf(int state, long nr);
ssize_t profil_wait_copy(pid_t pid, struct profil_unwind_regs *regs, uint8_t *copy, size_t len);

#endif /* PROFIL_CFI_H */
