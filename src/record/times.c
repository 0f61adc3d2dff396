/*
 * When the in-process recorder's ticks were taken (docs/FORMAT.md, TIME).  Every adder queues
 * (entry, slot, weight) as it counts a tick (src/sample/times.c): the signal handler with the
 * time it read first, the ring clock with the kernel's time of the sample, --wall with the
 * time of its tick.  The recorder's thread empties the queue into the timeline
 * (src/profile/timeline.c) at each drain, every 10 ms; a spill turns the keys of the table it
 * writes out into the numbers its SAMPLE records get, and a flush those of the live tables,
 * from the ranks write_table() notes.  Everything here runs under the recorder lock, in
 * memory mapped at start, and is async-signal-safe (the fatal-signal flush).
 */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "profile/timeline.h"
#include "record.h"

/*
 * Cells of the queue: 256 KiB, 10 ms of 1.6 million ticks a second, so that a drain late by
 * a few periods on a busy machine still finds room.
 */
#define QUEUE_CELLS	16384
/* Entries written per TIME record; static, as the writer (the lock is held). */
#define CHUNK		1024

static struct profil_time_queue queue;
static struct profil_timeline timeline;
static struct profil_file_time *entries;
/* Per row of each table: the number of the SAMPLE record it was last written as, or NONE. */
static uint32_t *ranks[2];
static size_t nranks;
static struct profil_file_time chunk[CHUNK];

#define NONE	UINT32_MAX

static void
start(void)
{
	uint64_t real = profil_clock_ns(CLOCK_REALTIME), mono = profil_monotonic_ns();

	/* Slot 0 starts at the header's start_ns, read a little before, on the other clock. */
	queue.base_ns = mono - (real > profil_rec.start_ns ? real - profil_rec.start_ns : 0);
	profil_timeline_init(&timeline, entries, PROFIL_TIMELINE_MAX, PROFIL_TIMELINE_MAX,
	    queue.slot_ns);
}

void
profil_record_times_release(void)
{
	profil_rec.stacks.times = NULL;
	if (queue.cells != NULL)
		munmap(queue.cells, QUEUE_CELLS * sizeof(*queue.cells));
	if (entries != NULL)
		munmap(entries, PROFIL_TIMELINE_MAX * sizeof(*entries));
	if (ranks[0] != NULL)
		munmap(ranks[0], 2 * nranks * sizeof(*ranks[0]));
	queue.cells = NULL;
	entries = NULL;
	ranks[0] = ranks[1] = NULL;
}

void
profil_record_times_clock(void)
{
	if (queue.cells != NULL)
		atomic_store_explicit(&queue.published, profil_monotonic_ns(), memory_order_relaxed);
}

int
profil_record_times_init(int vdso)
{
	struct profil_stacks *s = &profil_rec.stacks;

	nranks = s->tables[0].nentries;
	queue.cells = profil_record_map_zero(QUEUE_CELLS * sizeof(*queue.cells));
	entries = profil_record_map_zero(PROFIL_TIMELINE_MAX * sizeof(*entries));
	ranks[0] = profil_record_map_zero(2 * nranks * sizeof(*ranks[0]));
	if (queue.cells == NULL || entries == NULL || ranks[0] == NULL) {
		profil_record_times_release();
		return -1;
	}
	ranks[1] = ranks[0] + nranks;
	queue.ncells = QUEUE_CELLS;
	/* A slot starts one sampling period wide. */
	queue.slot_ns = 1000000000ULL / profil_rec.hz;
	if (queue.slot_ns < PROFIL_TIME_MIN_SLOT_NS)
		queue.slot_ns = PROFIL_TIME_MIN_SLOT_NS;
	queue.vdso = vdso;
	start();
	profil_record_times_clock();
	s->times = &queue;
	return 0;
}

/*
 * The timer clock: a slot is no narrower than what the handler's time can tell apart, or
 * without the vDSO the recorder thread's drain period.  CLOCK_MONOTONIC_COARSE moves by whole
 * kernel ticks (coarse_ns) and is read up to two of them late: the kernel advances it at a
 * tick only once a whole tick has passed since the last advance, so a tick that comes a little
 * early leaves it behind until the next (measured: more than one tick behind 94% of the time
 * on a loaded 2-CPU VM, 7.8 ms at 4 ms ticks; t2130 saw ticks timed two 4 ms slots before the
 * switch they came after).  Two ticks wide, then.
 */
void
profil_record_times_signals(uint64_t coarse_ns)
{
	uint64_t r = queue.vdso ? 2 * coarse_ns : PROFIL_RECORD_DRAIN_MS * 1000000ULL;

	if (queue.cells == NULL)
		return;
	if (r > queue.slot_ns) {
		queue.slot_ns = r;
		start();
	}
}

void
profil_record_times_fork_child(void)
{
	if (queue.cells == NULL)
		return;
	/* Fresh zero pages: an empty queue, whatever the parent's threads had claimed. */
	mmap(queue.cells, QUEUE_CELLS * sizeof(*queue.cells), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	atomic_store(&queue.head, 0);
	queue.tail = 0;
	atomic_store(&queue.dropped, 0);
	start();
	profil_record_times_clock();
}

static void
take(const struct profil_time_cell *c)
{
	/* cap == max: the timeline never asks for more room. */
	(void)profil_timeline_add(&timeline, c->key, c->slot, c->weight);
}

void
profil_record_times_drain(void)
{
	struct profil_time_cell c;

	if (queue.cells == NULL)
		return;
	while (profil_time_pop(&queue, &c))
		take(&c);
}

uint32_t *
profil_record_times_ranks(const struct profil_stack_table *t)
{
	if (queue.cells == NULL)
		return NULL;
	return ranks[t == &profil_rec.stacks.tables[1]];
}

/*
 * A spill is about to write table `which` out: every tick counted in it has its time queued
 * (the spill waited for its adders), and all of them are taken now.  A producer between its
 * claim and its publication is one of the other table's: waited for all the same, as the
 * spill waits for adders, since its cell may come before theirs.
 */
void
profil_record_times_spill_begin(void)
{
	size_t head;
	struct profil_time_cell c;

	if (queue.cells == NULL)
		return;
	head = atomic_load(&queue.head);
	while ((long)(head - queue.tail) > 0) {
		if (profil_time_pop(&queue, &c))
			take(&c);
		else
			sched_yield();
	}
}

/* The SAMPLE record a live key's row was last written as, or NONE. */
static uint32_t
rank(uint32_t key)
{
	if (PROFIL_TIME_KEY_ROW(key) >= nranks)
		return NONE;
	return ranks[PROFIL_TIME_KEY_TABLE(key)][PROFIL_TIME_KEY_ROW(key)];
}

/*
 * The spill of table `which` is over: its keys become the numbers of the SAMPLE records it was
 * written as (the spill file's first is base), or, where it could not be written, go.
 */
void
profil_record_times_spill_end(int which, uint64_t base, int written)
{
	size_t i, n = 0;

	if (queue.cells == NULL)
		return;
	for (i = 0; i < timeline.n; i++) {
		struct profil_file_time t = timeline.e[i];
		uint64_t at;

		if (PROFIL_TIME_KEY_LIVE(t.sample) && PROFIL_TIME_KEY_TABLE(t.sample) ==
		    (uint32_t)which) {
			at = rank(t.sample);
			/* Spilled keys lie below bit 31, where live keys start. */
			if (!written || at == NONE || base + at >= 0x80000000u) {
				timeline.untimed += t.count;
				continue;
			}
			t.sample = (uint32_t)(base + at);
		}
		timeline.e[n++] = t;
	}
	timeline.n = n;
}

void
profil_record_times_write(struct profil_writer *w, uint64_t spill_base, int spilled)
{
	size_t i, k = 0;

	if (queue.cells == NULL)
		return;
	for (i = 0; i < timeline.n; i++) {
		struct profil_file_time t = timeline.e[i];
		uint64_t at;

		if (PROFIL_TIME_KEY_LIVE(t.sample)) {
			if ((at = rank(t.sample)) == NONE)
				continue;
		} else if (spilled) {
			at = spill_base + t.sample;
		} else {
			continue;
		}
		if (at >= w->samples)
			continue;
		chunk[k] = t;
		chunk[k].sample = (uint32_t)at;
		if (++k == CHUNK) {
			profil_writer_time(w, profil_timeline_slot_ns(&timeline), chunk, k);
			k = 0;
		}
	}
	if (k > 0)
		profil_writer_time(w, profil_timeline_slot_ns(&timeline), chunk, k);
}

uint64_t
profil_record_times_untimed(void)
{
	return timeline.untimed + atomic_load(&queue.dropped);
}
