/* Signal context: pcsample(2)'s store of raw program counters. */
#include "sample.h"

void
profil_pcstore_tick(const struct profil_tick *tick, void *arg)
{
	struct profil_pcstore *s = arg;
	uint32_t w;

	/*
	 * pcsample(2): "storing unadulterated values in the array on each clock tick"; a tick
	 * the kernel coalesced (weight > 1) is owed once per expiration, as illumos does.
	 */
	for (w = 0; w < tick->weight; w++) {
		size_t n = atomic_load_explicit(&s->count, memory_order_relaxed);

		do {
			/* "The kernel stops writing to the array when it is full." */
			if (n >= s->size)
				return;
		} while (!atomic_compare_exchange_weak_explicit(&s->count, &n, n + 1,
		    memory_order_relaxed, memory_order_relaxed));
		s->samples[n] = tick->pc;
	}
}
