/*
 * The mapping and epoch rule both recorders follow (maps.h).  Async-signal-safe: nothing but
 * stores and strncmp(3).
 */
#include <string.h>

#include "maps.h"

void
profil_mapping_start(struct profil_file_mapping *m, uint64_t start, uint64_t end,
    uint64_t offset, uint32_t prot, uint32_t epoch, uint64_t now)
{
	*m = (struct profil_file_mapping){ .start = start, .end = end, .offset = offset,
	    .load_ns = now, .load_epoch = epoch, .unload_epoch = PROFIL_EPOCH_NEVER, .prot = prot };
}

void
profil_mapping_end(struct profil_file_mapping *m, uint32_t epoch, uint64_t now)
{
	m->unload_epoch = epoch;
	m->unload_ns = now;
}

int
profil_mapping_overlaps(const struct profil_file_mapping *m, uint64_t start, uint64_t end)
{
	return m->start < end && start < m->end;
}

int
profil_mapping_joins(const struct profil_file_mapping *m, uint64_t start, uint64_t end)
{
	/* Not strcmp(3), which is not on the recorder's list of safe symbols. */
	return strncmp(m->path, "[anon]", 6) == 0 && m->path[6] == '\0' && m->start <= end &&
	    start <= m->end;
}

void
profil_mapping_grow(struct profil_file_mapping *m, uint64_t start, uint64_t end)
{
	if (start < m->start)
		m->start = start;
	if (end > m->end)
		m->end = end;
}
