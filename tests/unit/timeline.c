/*
 * When ticks were taken: the timeline both recorders keep (src/profile/timeline.c) fed an
 * hour of synthetic ticks at 1 kHz, which it must hold within its bound with every tick
 * counted and the phases of the run still apart; its merging, widening and saturation; and
 * the queue the in-process recorder's adders fill (src/sample/times.c): order, laps, a full
 * queue dropping and counting, and four threads pushing against one consumer.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "format/crc32.c"
#include "format/writer.c"
#include "profile/timeline.c"
#include "sample/stacks.h"

static struct profil_file_time big[PROFIL_TIMELINE_MAX];
static struct profil_writer w;

static uint64_t
rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A key of one phase: of its nkeys stacks, a few hot ones take most ticks, as in a real
 * program (each next stack half as likely, the rest uniform).
 */
static uint32_t
pick(uint64_t *x, uint32_t first, uint32_t nkeys)
{
	uint64_t r = rnd(x);
	uint32_t k = 0;

	while (k < 8 && (r & 1) == 0) {
		k++;
		r >>= 1;
	}
	if (k == 8)
		k = 8 + (uint32_t)((r >> 1) % (nkeys - 8));
	return first + k;
}

/* Bytes of the TIME records of the timeline's n entries, written as the recorders write them. */
static long
time_bytes(const struct profil_timeline *tl)
{
	struct stat st;
	int fd = memfd_create("times", 0);

	profil_writer_init_records(&w, fd);
	w.samples = UINT32_MAX;
	profil_writer_time(&w, profil_timeline_slot_ns(tl), tl->e, tl->n);
	profil_writer_flush(&w);
	fstat(fd, &st);
	close(fd);
	return (long)st.st_size;
}

/* Bytes of nkeys SAMPLE records of depth pcs each: today's file of such a run, its samples. */
static long
sample_bytes(uint32_t nkeys, uint32_t depth)
{
	return (long)nkeys * (12 + 20 + 8 * (long)depth);
}

/*
 * An hour at 1 kHz of one thread: phase A's nkeys stacks for the first half hour, phase B's
 * for the second.  Slot i holds tick i (1 ms slots).
 */
static void
hour(uint32_t nkeys)
{
	struct profil_timeline tl;
	const uint32_t ticks = 3600 * 1000, half = ticks / 2;
	uint64_t x = 88172645463325252ULL, sum = 0, sw;
	uint32_t i, last_a = 0, first_b = UINT32_MAX;
	size_t most = 0;

	profil_timeline_init(&tl, big, PROFIL_TIMELINE_MAX, PROFIL_TIMELINE_MAX, 1000000);
	for (i = 0; i < ticks; i++) {
		uint32_t key = i < half ? pick(&x, 0, nkeys) : pick(&x, nkeys, nkeys);

		if (profil_timeline_add(&tl, key, i, 1) != 0)
			break;
		if (tl.n > most)
			most = tl.n;
	}
	for (i = 0; i < tl.n; i++) {
		sum += tl.e[i].count;
		if (tl.e[i].sample < nkeys && tl.e[i].slot > last_a)
			last_a = tl.e[i].slot;
		if (tl.e[i].sample >= nkeys && tl.e[i].slot < first_b)
			first_b = tl.e[i].slot;
	}
	sw = half >> tl.shift;
	tap_check(most <= PROFIL_TIMELINE_MAX && sum == ticks && tl.untimed == 0,
	    "an hour at 1 kHz over 2 x %u stacks: at most %zu entries of %d, all %" PRIu64
	    " ticks timed (untimed %" PRIu64 ")", nkeys, most, PROFIL_TIMELINE_MAX, sum,
	    tl.untimed);
	tap_check(last_a <= sw && first_b >= sw,
	    "its slots widened to %" PRIu64 " ms; phase A's last slot %u, B's first %u, the switch "
	    "in %" PRIu64, profil_timeline_slot_ns(&tl) / 1000000, last_a, first_b, sw);
	tap_diag("TIME records %ld bytes for %zu entries; SAMPLE records of the same run %ld "
	    "bytes flat, %ld with 30-frame stacks", time_bytes(&tl), tl.n,
	    sample_bytes(2 * nkeys, 1), sample_bytes(2 * nkeys, 30));
}

static void
small(void)
{
	struct profil_file_time e[8];
	struct profil_timeline tl;
	uint64_t sum = 0;
	size_t i;

	/* Room for 4, bound 8: the caller is asked for more, then compaction merges. */
	profil_timeline_init(&tl, e, 4, 8, 1000);
	profil_timeline_add(&tl, 1, 0, 1);
	profil_timeline_add(&tl, 1, 0, 2);	/* the entry before: merged at once */
	profil_timeline_add(&tl, 2, 0, 1);
	profil_timeline_add(&tl, 1, 1, 1);
	profil_timeline_add(&tl, 2, 1, 1);
	tap_check(tl.n == 4 && e[0].count == 3 && profil_timeline_add(&tl, 3, 1, 1) == 1,
	    "a repeat of the last entry adds to it; a full list below its bound asks for room");
	tl.cap = 8;
	for (i = 0; i < 4; i++)
		profil_timeline_add(&tl, 1 + (uint32_t)(i & 1), (uint32_t)i, 1);
	/* 8 entries, of keys 1 and 2 in slots 0..3: a ninth compacts, widening to 2 per key. */
	profil_timeline_add(&tl, 3, 6, 5);
	for (i = 0; i < tl.n; i++)
		sum += e[i].count;
	tap_check(tl.n <= 5 && tl.shift >= 1 && sum == 3 + 1 + 1 + 1 + 4 + 5 && tl.untimed == 0,
	    "a full list compacts and widens: %zu entries, slots %" PRIu64 " ns, %" PRIu64
	    " ticks kept", tl.n, profil_timeline_slot_ns(&tl), sum);

	/* More keys than the bound holds, all in one slot: untimed, counted, never a loop. */
	profil_timeline_init(&tl, e, 8, 8, 1000);
	for (i = 0; i < 100; i++)
		profil_timeline_add(&tl, (uint32_t)i, 0, 2);
	for (i = 0, sum = 0; i < tl.n; i++)
		sum += e[i].count;
	tap_check(tl.n == 8 && sum + tl.untimed == 200 && tl.saturated,
	    "more keys than the bound: %zu kept (%" PRIu64 " ticks), %" PRIu64 " untimed", tl.n,
	    sum, tl.untimed);
}

#define CELLS 64

static struct profil_time_queue q;

static void
queue_alone(void)
{
	struct profil_time_cell c;
	uint64_t got = 0, weights = 0;
	int order = 1, i;

	q.cells = calloc(CELLS, sizeof(*q.cells));
	q.ncells = CELLS;
	q.base_ns = 1000000;
	q.slot_ns = 1000;
	/* Ten laps of the queue, pushed and taken in turn. */
	for (i = 0; i < 10 * CELLS; i++) {
		profil_time_push(&q, (uint32_t)i, 1000000 + 1000 * (uint64_t)i + 999, 1);
		if (!profil_time_pop(&q, &c) || c.key != (uint32_t)i || c.slot != (uint32_t)i)
			order = 0;
	}
	tap_check(order && !profil_time_pop(&q, &c),
	    "ten laps of the queue: each time taken as pushed, in its slot; then empty");
	profil_time_push(&q, 7, 0, 1);
	tap_check(profil_time_pop(&q, &c) && c.slot == 0, "a time before the start is slot 0");
	for (i = 0; i < CELLS + 5; i++)
		profil_time_push(&q, 1, 2000000, 3);
	while (profil_time_pop(&q, &c)) {
		got++;
		weights += c.weight;
	}
	tap_check(got == CELLS && weights == 3 * CELLS && atomic_load(&q.dropped) == 15,
	    "a full queue drops the time and counts its ticks: %" PRIu64 " kept, %" PRIu64
	    " dropped", got, (uint64_t)atomic_load(&q.dropped));
	free(q.cells);
}

#define PRODUCERS 4
#define PUSHES 200000

static atomic_int going;

static void *
producer(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;

	while (!atomic_load(&going))
		;
	for (uint32_t i = 0; i < PUSHES; i++) {
		/* A tick's worth of other work between pushes, so the consumer keeps up. */
		for (volatile int spin = 0; spin < 100; spin++)
			;
		profil_time_push(&q, me, 0, 1);
	}
	return NULL;
}

static void
queue_threads(void)
{
	pthread_t t[PRODUCERS];
	struct profil_time_cell c;
	uint64_t per[PRODUCERS] = { 0 }, taken = 0, dropped;
	int i, bad = 0, done = 0;

	memset(&q, 0, sizeof(q));
	q.cells = calloc(1024, sizeof(*q.cells));
	q.ncells = 1024;
	q.slot_ns = 1000;
	for (i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, producer, (void *)(uintptr_t)i);
	atomic_store(&going, 1);
	for (;;) {
		while (profil_time_pop(&q, &c)) {
			if (c.key >= PRODUCERS || c.weight != 1)
				bad++;
			else
				per[c.key]++;
			taken++;
		}
		if (done)
			break;
		dropped = atomic_load(&q.dropped);
		if (taken + dropped == (uint64_t)PRODUCERS * PUSHES) {
			for (i = 0; i < PRODUCERS; i++)
				pthread_join(t[i], NULL);
			done = 1;
		}
	}
	dropped = atomic_load(&q.dropped);
	tap_check(bad == 0 && taken + dropped == (uint64_t)PRODUCERS * PUSHES,
	    "%d threads pushing %d each against one consumer: %" PRIu64 " taken, %" PRIu64
	    " dropped and counted, none torn", PRODUCERS, PUSHES, taken, dropped);
	free(q.cells);
}

int
main(void)
{
	small();
	hour(100);
	hour(1000);
	queue_alone();
	queue_threads();
	return tap_failures != 0;
}
