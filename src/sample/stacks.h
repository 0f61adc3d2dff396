/*
 * stacks.h - the recorder's aggregation in signal context: a fixed hash table of distinct
 * (thread, mapping epoch, stack) keys with a count each, in memory mapped before arming, and
 * the frame-pointer walker that fills the stacks.  Everything declared here is
 * async-signal-safe and lock-free.
 */
#ifndef PROFIL_STACKS_H
#define PROFIL_STACKS_H

#include "base/clock.h"
#include "sample.h"
#include "unwind.h"

/* entry.state: empty, being filled, dead (pool exhausted), else the published key hash. */
#define PROFIL_STACK_EMPTY	0
#define PROFIL_STACK_BUSY	1
#define PROFIL_STACK_DEAD	2

struct profil_stack_entry {
	atomic_uint_least64_t state;
	atomic_uint_least64_t count;
	uint32_t tid;
	uint32_t epoch;
	uint32_t depth;
	uint32_t pcs;		/* index of the first pc in the pool */
};

struct profil_stack_table {
	struct profil_stack_entry *entries;
	size_t nentries;		/* a power of two */
	uint64_t *pool;			/* pcs of all entries */
	size_t npool;
	atomic_size_t pool_used;
	atomic_size_t used;		/* entries claimed */
	atomic_uint inflight;		/* adders inside this table now */
};

/*
 * The unwind space a tick walks by, published by the control side (src/record/unwind.c), which
 * builds spaces off the signal path and never waits for a handler.  A handler enters the
 * current slot as it enters a stack table (its inflight counter, re-checked against cur with
 * sequentially consistent atomics); the control side publishes a new space in another, empty
 * slot, and frees an old slot's space only when it finds that slot's counter at zero, so a
 * handler stopped inside a walk pins one slot and no more.
 */
#define PROFIL_UNWIND_SLOTS 4
struct profil_unwind_slot {
	_Atomic(const struct profil_unwind_space *) space;	/* NULL: empty */
	atomic_uint inflight;		/* handlers walking this slot's space now */
};

struct profil_unwind_shared {
	atomic_uint cur;		/* the slot new walks enter */
	struct profil_unwind_slot slots[PROFIL_UNWIND_SLOTS];
};

/*
 * When ticks were taken, on their way from the adders (signal handlers, and the recorder's
 * thread for the ring clock and --wall) to the recorder's thread: a bounded multi-producer,
 * single-consumer queue in memory mapped before arming (Vyukov's, with a lap count per cell
 * so that zero pages are an empty queue).  A producer claims a cell with a compare-and-swap on
 * head, fills it and publishes it; the consumer takes cells in order while they are published.
 * A full queue drops the time, never the tick, and counts it.
 */
struct profil_time_cell {
	atomic_uint turn;		/* 2 * lap: free; 2 * lap + 1: published */
	uint32_t key;			/* PROFIL_TIME_KEY(table, row) */
	uint32_t slot;			/* (when - base_ns) / slot_ns */
	uint32_t weight;		/* the tick's weight, at most UINT32_MAX */
};

struct profil_time_queue {
	struct profil_time_cell *cells;
	size_t ncells;			/* a power of two */
	atomic_size_t head;		/* cells claimed */
	size_t tail;			/* cells taken: the consumer's alone */
	atomic_uint_least64_t dropped;	/* ticks whose time found no room */
	uint64_t base_ns;		/* CLOCK_MONOTONIC at slot 0's start */
	uint64_t slot_ns;		/* width of a slot */
	/*
	 * The signal handler's time.  1: CLOCK_MONOTONIC_COARSE from the vDSO, which reads the
	 * kernel's last tick and no counter: CLOCK_MONOTONIC would read the TSC, and seccomp
	 * strict mode turns RDTSC into a SIGSEGV (TIF_NOTSC); CLOCK_MONOTONIC for a perf event's
	 * tick (profil_time_tick).  0 (no vDSO, where clock_gettime
	 * is a system call, which strict mode kills): published, as the recorder's thread
	 * publishes CLOCK_MONOTONIC every 10 ms.
	 */
	int vdso;
	atomic_uint_least64_t published;
};

/* A tick's entry in a table: bit 31 set (the keys below it are other stores' to give). */
#define PROFIL_TIME_KEY(table, row)	(0x80000000u | (uint32_t)(table) << 30 | (uint32_t)(row))
#define PROFIL_TIME_KEY_LIVE(key)	(((key) & 0x80000000u) != 0)
#define PROFIL_TIME_KEY_TABLE(key)	(((key) >> 30) & 1)
#define PROFIL_TIME_KEY_ROW(key)	((key) & 0x3fffffffu)

/*
 * The time a signal handler takes for its tick, CLOCK_MONOTONIC ns (see q->vdso): to the
 * kernel's last tick, except a precise tick's (a perf event's, struct profil_tick), which
 * reads CLOCK_MONOTONIC itself.  The coarse clock ran 4 to 8 ms behind on the machine this
 * was written on (more than a tick most of the time): perf ticks that came after a phase's
 * switch were timed two slots before it (t2130).
 */
uint64_t profil_time_tick(struct profil_time_queue *q, int precise);

/*
 * Queues weight ticks of the entry key taken at when (CLOCK_MONOTONIC ns); a time before
 * base_ns counts in slot 0.  Drops it and counts it when the queue is full.
 */
void profil_time_push(struct profil_time_queue *q, uint32_t key, uint64_t when,
    uint64_t weight);

/*
 * The consumer: the next published cell into *out, and 1; 0 when the next one is not
 * published yet (empty, or a producer between its claim and its publication).
 */
int profil_time_pop(struct profil_time_queue *q, struct profil_time_cell *out);

/*
 * Two tables: adders use the current one; the control side spills a filling table by making
 * the other current, waiting until no adder is left inside the old one (inflight, checked
 * Dekker-style against cur with sequentially consistent atomics), writing it out and clearing
 * it.  So memory stays bounded however many distinct stacks a long run meets.
 */
struct profil_stacks {
	_Atomic(struct profil_stack_table *) cur;
	struct profil_stack_table tables[2];
	atomic_uint epoch;		/* the mapping generation, bumped by the control side */
	unsigned int max_depth;		/* 1: flat profile, the pc alone */
	/* NULL: stacks by frame pointers; else by the unwind tables published here. */
	struct profil_unwind_shared *unwind;
	atomic_uint_least64_t dropped;	/* ticks that found no room */
	/*
	 * The recorder's own code, [self_lo, self_hi) (0, 0: none), set before arming and never
	 * changed: its frames are not the program's (profil_stacks_drop_self).
	 */
	uint64_t self_lo, self_hi;
	/*
	 * --wall: the entry of each thread's last CPU sample, where it waits for a CPU when it
	 * does, by tid modulo nlast (a power of two); NULL: not kept.  0, or 1 + the table's
	 * index << 32 | the entry's index: stored by profil_stacks_add, read by the recorder's
	 * thread (src/record/wall.c), which checks the entry's tid.  Mapped before arming.
	 */
	atomic_uint_least64_t *last;
	size_t nlast;
	/*
	 * When each tick was taken (NULL: not kept).  Pushed inside the table's inflight
	 * window, so that a spill that waited for the adders finds their times queued.
	 */
	struct profil_time_queue *times;
};

/* The sink: adds tick->weight to the entry of this thread's stack.  arg: struct profil_stacks. */
void profil_stacks_tick(const struct profil_tick *tick, void *arg);

/*
 * Removes from the callers pcs[1..depth) the frames whose call lies in the recorder's own code,
 * and returns the new depth.  Every thread pthread_create starts begins in the recorder's
 * wrapper, and the program's handlers of the signals it catches run under its dispatcher: a
 * walk goes on through those frames (their unwind tables, or frame pointers, lead on to the
 * program's callers) but they are not shown, as the program never called them.  pcs[0], the
 * sampled pc, stays whatever it is: time spent in the recorder is the recorder's.
 */
size_t profil_stacks_drop_self(const struct profil_stacks *s, uint64_t *pcs, size_t depth);

/*
 * Adds weight to the entry of (tid, current epoch, pcs[0..depth)), leaf first; a CPU sample's
 * (pcs[0] no marker) is then tid's last (s->last).  when: the ticks' time, CLOCK_MONOTONIC ns,
 * queued to s->times.
 */
void profil_stacks_add(struct profil_stacks *s, uint32_t tid, const uint64_t *pcs, size_t depth,
    uint64_t weight, uint64_t when);

/*
 * The calling thread's id, set by the control side when the thread starts (and in a fork
 * child): the tick then makes no system call of its own, so a thread in seccomp strict mode, or
 * under a filter without gettid(2), is not killed by its next tick.  0: not set, ask the kernel.
 */
extern __thread uint32_t profil_sample_tid __attribute__((tls_model("initial-exec")));

/* Stack bounds of the calling thread, set by the control side when the thread starts. */
struct profil_stack_bounds {
	uintptr_t lo;
	uintptr_t hi;
};
extern __thread struct profil_stack_bounds profil_stack_bounds
    __attribute__((tls_model("initial-exec")));

/*
 * Fills pcs[0..max) with the interrupted pc and the return addresses found by following frame
 * pointers from the ucontext, and returns how many.  Every read is checked first against
 * [interrupted sp, thread's stack top), frames must move strictly up the stack, so the walk
 * can neither fault nor loop; without bounds for this thread (or off its stack, e.g. on a
 * sigaltstack) only pcs[0] is stored.  Code built without frame pointers gives short stacks.
 */
size_t profil_unwind_fp(const void *uc, uint64_t *pcs, size_t max);

/*
 * The space published in u, entered: the control side frees nothing until profil_unwind_leave
 * (slot).  NULL: none published yet.  For walks outside the handler (the ring clock's drain).
 */
const struct profil_unwind_space *profil_unwind_enter(struct profil_unwind_shared *u,
    struct profil_unwind_slot **slot);
void profil_unwind_leave(struct profil_unwind_slot *slot);

/*
 * The same walk by the unwind tables of the space published in u (profil_unwind_cfi), over
 * the memory [interrupted sp, thread's stack top) read in place; code without tables is walked
 * by frame pointers, and a cut stack ends in a PROFIL_PC_CUT_* marker.  Off the thread's
 * known stack: pcs[0] alone.  Never waits: the control side frees nothing a walk is in.
 */
size_t profil_unwind_context(const void *uc, struct profil_unwind_shared *u, uint64_t *pcs,
    size_t max);

#endif /* PROFIL_STACKS_H */
