/*
 * Signal context: the queue of tick times (struct profil_time_queue).  A cell's turn counts
 * its laps: 2 * lap while it is free for the producer of that lap, 2 * lap + 1 once published
 * for the consumer, so memory of zeros is an empty queue and no cell is ever read half
 * written.  Unsigned 32-bit laps wrap after 2^31 laps of the queue: the comparisons are of
 * differences, which stay exact while no producer is 2^30 laps behind.
 */
#include <time.h>

#include "stacks.h"

uint64_t
profil_time_tick(struct profil_time_queue *q, int precise)
{
	if (!q->vdso)
		return atomic_load_explicit(&q->published, memory_order_relaxed);
	return profil_clock_ns(precise ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_COARSE);
}

void
profil_time_push(struct profil_time_queue *q, uint32_t key, uint64_t when, uint64_t weight)
{
	size_t mask = q->ncells - 1, pos;
	uint64_t slot = when > q->base_ns ? (when - q->base_ns) / q->slot_ns : 0;
	struct profil_time_cell *c;

	if (slot >= UINT32_MAX)
		goto drop;	/* 49 days at 1 ms: past what a slot number holds */
	pos = atomic_load_explicit(&q->head, memory_order_relaxed);
	for (;;) {
		unsigned int want = (unsigned int)(pos / q->ncells) * 2;
		int d;

		c = &q->cells[pos & mask];
		d = (int)(atomic_load_explicit(&c->turn, memory_order_acquire) - want);
		if (d == 0) {
			if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
			    memory_order_relaxed, memory_order_relaxed))
				break;
		} else if (d < 0) {
			goto drop;	/* the consumer has not taken this cell's last lap */
		} else {
			pos = atomic_load_explicit(&q->head, memory_order_relaxed);
		}
	}
	c->key = key;
	c->slot = (uint32_t)slot;
	c->weight = weight < UINT32_MAX ? (uint32_t)weight : UINT32_MAX;
	atomic_store_explicit(&c->turn, (unsigned int)(pos / q->ncells) * 2 + 1,
	    memory_order_release);
	return;
drop:
	atomic_fetch_add_explicit(&q->dropped, weight, memory_order_relaxed);
}

int
profil_time_pop(struct profil_time_queue *q, struct profil_time_cell *out)
{
	struct profil_time_cell *c = &q->cells[q->tail & (q->ncells - 1)];
	unsigned int lap = (unsigned int)(q->tail / q->ncells) * 2;

	if (atomic_load_explicit(&c->turn, memory_order_acquire) != lap + 1)
		return 0;
	out->key = c->key;
	out->slot = c->slot;
	out->weight = c->weight;
	atomic_store_explicit(&c->turn, lap + 2, memory_order_release);
	q->tail++;
	return 1;
}
