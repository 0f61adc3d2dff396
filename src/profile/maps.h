/*
 * maps.h - the mapping and epoch rule of docs/FORMAT.md, in one place for both recorders: a
 * mapping starts in the current epoch, ends in the epoch it was last seen in (its samples
 * taken later are told apart by the next), and pieces of anonymous code that touch are one
 * "[anon]" mapping that grows, since their code is named by address.  Pure functions over a
 * mapping the caller owns: no allocation, no lock, async-signal-safe (the in-process
 * recorder's maps.c runs in fatal-signal handlers).  The callers keep their own tables: a
 * fixed array inside the program, a grown one outside.
 */
#ifndef PROFIL_PROFILE_MAPS_H
#define PROFIL_PROFILE_MAPS_H

#include <stdint.h>

#include "profile/profile.h"

/*
 * m becomes [start, end) of the file at offset, with prot (PROT_*), from epoch on and seen
 * first at now (CLOCK_REALTIME ns): mapped still.  The rest is cleared: the caller sets its
 * path and build-id after.
 */
void profil_mapping_start(struct profil_file_mapping *m, uint64_t start, uint64_t end,
    uint64_t offset, uint32_t prot, uint32_t epoch, uint64_t now);

/* m is gone: epoch is the last that may hold its samples, now when it was seen gone. */
void profil_mapping_end(struct profil_file_mapping *m, uint32_t epoch, uint64_t now);

/* Whether m and [start, end) share an address. */
int profil_mapping_overlaps(const struct profil_file_mapping *m, uint64_t start, uint64_t end);

/* Whether m is anonymous code that [start, end) overlaps or touches: the code joins it. */
int profil_mapping_joins(const struct profil_file_mapping *m, uint64_t start, uint64_t end);

/* m grows to hold [start, end) too. */
void profil_mapping_grow(struct profil_file_mapping *m, uint64_t start, uint64_t end);

#endif /* PROFIL_PROFILE_MAPS_H */
