/*
 * samples.h - a profile's samples outside signal context: the table of distinct (thread, epoch,
 * stack) with their counts, in the order first seen (row i is SAMPLE record i of the file
 * written from it), and when they were taken (a timeline keyed by row).  The outside recorder
 * fills one per process image; the in-process recorder keeps its own, lock-free and
 * signal-safe (src/sample/stacks.c).  Internal to the profil command; not thread-safe.
 */
#ifndef PROFIL_PROFILE_SAMPLES_H
#define PROFIL_PROFILE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/format.h"
#include "profile/timeline.h"
#include "report/index.h"

/* A distinct (thread, epoch, stack) with its count; its pcs are pool[pcs..pcs + depth). */
struct profil_sample_row {
	uint64_t count;
	uint32_t tid;
	uint32_t epoch;
	uint32_t depth;
	size_t pcs;
};

/* A zeroed table is an empty one; its timeline is set up by the caller before the first time. */
struct profil_samples {
	struct profil_sample_row *rows;
	size_t n, cap;
	struct profil_index index;	/* (tid, epoch, stack) -> row */
	uint64_t *pool;			/* every row's pcs, leaf first */
	size_t npool, poolcap;
	struct profil_timeline times;	/* keys are rows */
};

/* Frees what the table holds; it is empty (and usable, timeline unset) again. */
void profil_samples_release(struct profil_samples *t);

/* Adds weight (saturating) to the row of (tid, epoch, stack): its number, or -ENOMEM. */
ssize_t profil_samples_add(struct profil_samples *t, uint32_t tid, uint32_t epoch,
    const uint64_t *pcs, uint32_t depth, uint64_t weight);

/*
 * weight samples of row taken in slot (of the timeline's first width).  The timeline grows to
 * its bound as it fills; out of memory, the bound becomes what it has.  A slot past 2^32 - 1
 * is untimed.
 */
void profil_samples_time(struct profil_samples *t, size_t row, uint64_t slot, uint64_t weight);

/* The pcs of row, leaf first. */
const uint64_t *profil_samples_pcs(const struct profil_samples *t, size_t row);

/* A SAMPLE record for each row, in order, then the TIME records. */
void profil_samples_write(const struct profil_samples *t, struct profil_writer *w);

#endif /* PROFIL_PROFILE_SAMPLES_H */
