/*
 * timeline.h - when ticks were taken, kept by both recorders at a bounded cost: a list of
 * (key, slot, count) entries, where key names the caller's stack entry and a slot is a fixed
 * interval of time.  Slots start a sampling period wide; a list that reaches its bound is
 * compacted (entries of the same key and slot merged), and while that is not enough every
 * slot doubles in width (neighbours merged), as a histogram that coarsens: an hour keeps a
 * timeline of at most PROFIL_TIMELINE_MAX entries.  Allocation-free and async-signal-safe
 * (the in-process recorder's fatal-signal flush reads it); not thread-safe.
 */
#ifndef PROFIL_PROFILE_TIMELINE_H
#define PROFIL_PROFILE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/*
 * Entries a file's timeline holds at most: 1 MiB of TIME records.  A 60 s run at 1 kHz keeps
 * 1 ms slots; an hour at 1 kHz of one thread on a few hundred stacks, about 128 ms.
 */
#define PROFIL_TIMELINE_MAX	65536

struct profil_timeline {
	struct profil_file_time *e;	/* entries; .sample holds the caller's key */
	size_t n;			/* entries in use */
	size_t cap;			/* entries e has room for */
	size_t max;			/* never more than this, cap <= max */
	uint64_t base_ns;		/* the width of a slot before any coarsening */
	unsigned int shift;		/* slots are base_ns << shift wide */
	uint32_t last;			/* the latest slot added, in base_ns slots */
	uint64_t untimed;		/* ticks whose time found no room */
	int saturated;			/* compacting frees too little: new entries untimed */
};

/* An empty timeline in e[0..cap), growing to at most max entries; slots base_ns wide. */
void profil_timeline_init(struct profil_timeline *tl, struct profil_file_time *e, size_t cap,
    size_t max, uint64_t base_ns);

/*
 * count ticks of key taken in slot (base_ns wide, from the caller's start).  Returns 0 (the
 * ticks counted, or, past every remedy, counted in untimed), or 1 when e is full below max:
 * the caller gives e more room (cap) and adds again, or calls profil_timeline_compact().
 */
int profil_timeline_add(struct profil_timeline *tl, uint32_t key, uint32_t slot,
    uint64_t count);

/*
 * Merges the entries of the same key and slot; then, while more than target remain and
 * slots can still widen, doubles their width and merges again.
 */
void profil_timeline_compact(struct profil_timeline *tl, size_t target);

/* The width of a slot now, ns. */
uint64_t profil_timeline_slot_ns(const struct profil_timeline *tl);

#endif /* PROFIL_PROFILE_TIMELINE_H */
