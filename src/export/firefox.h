/*
 * firefox.h - the tables of a Gecko profile made from a session's stacks (firefox_tables.c),
 * which firefox.c writes.  Internal to src/export.
 */
#ifndef PROFIL_EXPORT_FIREFOX_H
#define PROFIL_EXPORT_FIREFOX_H

#include <stddef.h>
#include <stdint.h>

#include "export/threads.h"
#include "report/index.h"

struct profil_stack;

/* meta.categories: the colours are the profiler's names (src/utils/colors.ts).  "Other" in
 * grey is the default category the profiler looks for (selectors/profile.ts
 * getDefaultCategory); "Idle" is the name it leaves out of the CPU graph (HeightGraph.tsx,
 * tracks.ts): a thread off the CPU. */
enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_IDLE };
#define SUB_WAIT_CPU	1		/* Idle's second subcategory: runnable, waiting for a CPU */

/* The root frame of ticks the recording did not time (PROFIL_REC_TIME): shown as such. */
#define UNTIMED_FRAME	"[no time recorded]"

/*
 * A frame of code nothing names (bare) is module+0xoffset: it keeps its module's string and
 * the offset, and its name is written after the thread's other strings rather than interned,
 * as a file of deep distinct stacks is mostly such frames (issue 19).  16 bytes a frame.
 */
struct ff_frame {
	uint64_t line;			/* 0: none; bare: the offset in the module */
	uint32_t location;		/* string row; bare: the module's */
	uint8_t category, subcategory;
	uint8_t bare;
};

struct ff_stack {
	uint32_t prefix;		/* UINT32_MAX: a root */
	uint32_t frame;
};

/* One thread of one file (process image), with its own tables as the format has them. */
struct ff_thread {
	size_t file;
	uint32_t tid;
	struct profil_strtab strs;
	struct ff_frame *frames;
	size_t nframes, frames_cap;
	struct profil_index_rows frame_index;	/* rows alone: the rows hold their keys */
	struct ff_stack *stacks;
	size_t nstacks, stacks_cap;
	struct profil_index_rows stack_index;
	uint32_t untimed_root;		/* stack of UNTIMED_FRAME alone, UINT32_MAX until made */
};

/* What each SAMPLE record of the file being walked became. */
struct ff_sample {
	uint32_t thread;
	uint32_t stack;
	uint32_t untimed_stack;		/* the stack under UNTIMED_FRAME, if it has such ticks */
	uint64_t timed;			/* ticks the TIME records place */
};

struct ff {
	struct ff_thread *threads;
	size_t nthreads, threads_cap;
	struct profil_thread_table ids;	/* (file, tid) -> thread, as threads[] */
	struct ff_sample **samples;	/* per file */
	size_t nfiles;
	uint64_t ticks;
};

/*
 * profil_firefox_add_stack - a profil_report_stacks() walker: the stack of one sample into
 * the tables of its thread of ff (a struct ff, zeroed but for nfiles and samples, an array of
 * nfiles NULL pointers), made on first use.  Returns 0 or -ENOMEM.
 */
int profil_firefox_add_stack(void *ff, const struct profil_stack *st);

#endif /* PROFIL_EXPORT_FIREFOX_H */
