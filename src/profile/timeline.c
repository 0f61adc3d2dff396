/*
 * The timeline both recorders keep (timeline.h).  New ticks are appended; merging waits for
 * the list to fill, when one sort puts the entries of a key in slot order, so that merging and
 * every doubling after it are a pass over neighbours.  Ticks come about in time order, so an
 * entry is mostly new only when its slot is: at the first width, a list fills at the rate
 * ticks come, and a compaction (a heapsort of at most max entries, about 5 ms for 64K) runs
 * every max / 2 new entries at most.
 */
#include "base/heapsort.h"
#include "timeline.h"

void
profil_timeline_init(struct profil_timeline *tl, struct profil_file_time *e, size_t cap,
    size_t max, uint64_t base_ns)
{
	tl->e = e;
	tl->n = 0;
	tl->cap = cap < max ? cap : max;
	tl->max = max;
	tl->base_ns = base_ns < PROFIL_TIME_MIN_SLOT_NS ? PROFIL_TIME_MIN_SLOT_NS : base_ns;
	tl->shift = 0;
	tl->last = 0;
	tl->untimed = 0;
	tl->saturated = 0;
}

uint64_t
profil_timeline_slot_ns(const struct profil_timeline *tl)
{
	return tl->base_ns << tl->shift;
}

static int
before(const void *x, const void *y)
{
	const struct profil_file_time *a = x, *b = y;

	return a->sample != b->sample ? a->sample < b->sample : a->slot < b->slot;
}

/* Sorted entries, slots shifted right by `by`, neighbours of one key and slot merged. */
static void
merge(struct profil_timeline *tl, unsigned int by)
{
	size_t i, n = 0;

	for (i = 0; i < tl->n; i++) {
		struct profil_file_time t = tl->e[i];

		t.slot >>= by;
		if (n > 0 && tl->e[n - 1].sample == t.sample && tl->e[n - 1].slot == t.slot) {
			/* Saturates, never wraps: the reader refuses a count beyond the sample's. */
			tl->e[n - 1].count = tl->e[n - 1].count + t.count < t.count ? UINT64_MAX :
			    tl->e[n - 1].count + t.count;
		} else {
			tl->e[n++] = t;
		}
	}
	tl->n = n;
}

void
profil_timeline_compact(struct profil_timeline *tl, size_t target)
{
	profil_heapsort(tl->e, tl->n, sizeof(*tl->e), before);
	merge(tl, 0);
	/* Once every slot is 0 nothing widens further: each key has one entry left. */
	while (tl->n > target && (tl->last >> tl->shift) > 0 && tl->shift < 32) {
		tl->shift++;
		merge(tl, 1);
	}
}

int
profil_timeline_add(struct profil_timeline *tl, uint32_t key, uint32_t slot0, uint64_t count)
{
	struct profil_file_time *t;
	uint32_t slot;

	if (count == 0)
		return 0;
	if (slot0 > tl->last)
		tl->last = slot0;
	slot = tl->shift < 32 ? slot0 >> tl->shift : 0;
	/* The entry before is most often the same (a tick of the same stack just before). */
	if (tl->n > 0) {
		t = &tl->e[tl->n - 1];
		if (t->sample == key && t->slot == slot && t->count + count > t->count) {
			t->count += count;
			return 0;
		}
	}
	if (tl->n == tl->cap && !tl->saturated) {
		if (tl->cap < tl->max)
			return 1;
		profil_timeline_compact(tl, tl->max / 2);
		slot = tl->shift < 32 ? slot0 >> tl->shift : 0;
		/*
		 * More keys than fit even in the widest slots: a compaction that frees little
		 * would run again and again, so new entries go untimed from now on.
		 */
		if (tl->n > tl->max - tl->max / 8)
			tl->saturated = 1;
	}
	if (tl->n == tl->cap) {
		tl->untimed += count;
		return 0;
	}
	t = &tl->e[tl->n++];
	t->sample = key;
	t->slot = slot;
	t->count = count;
	return 0;
}
