/*
 * The end of a profile: the threads' tables are merged into one table of arcs, written with the
 * histogram to a new file that replaces the profile by rename(2), as OpenBSD's _mcleanup merges
 * its per-thread tables.  This runs at exit,
 * at _exit and from a fatal signal's handler, so only async-signal-safe system calls; and if
 * some thread cannot be proven out of mcount, nothing is moved at all: the file is already a
 * complete profile (gprof sums an arc that several tables hold), only longer.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/write.h"
#include "gmon.h"

#define QUIESCE_NS 200000000ULL	/* a thread preempted inside mcount gets this long */

int
profil_gmon_quiesce(void)
{
	struct profil_gmon *g = &profil_gmon_rt;
	uint64_t deadline;
	size_t i, n;
	int busy;

	atomic_store(&g->state, PROFIL_GMON_OFF);
	/*
	 * mcount stores its inside flag and then reads the state with no fence of its own (it is
	 * on every function call); membarrier(2) runs a full barrier on every running thread, so
	 * after it each thread has either published its flag or will see the state off.
	 */
	if (!g->membarrier || syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		return -EBUSY;
	deadline = profil_monotonic_ns() + QUIESCE_NS;
	do {
		busy = atomic_load(&profil_gmon_claiming) != 0;
		n = atomic_load(&g->ntables);
		for (i = 0; i < n && i < PROFIL_GMON_TABLES; i++)
			if (atomic_load(&g->tables[i].inside) && !profil_gmon_table_is_mine(i))
				busy = 1;
		if (!busy)
			return 0;
		sched_yield();
	} while (profil_monotonic_ns() < deadline);
	return -EBUSY;
}

/*
 * Merges in place: every record read is copied out before anything is written, and the merged
 * table never runs ahead of the reading position, so one pass over the slots suffices.  The
 * index from (from_pc, self_pc) to merged record is an anonymous mapping (mmap is a system
 * call; malloc would not be safe here).  Returns the number of merged records, or -errno.
 */
long
profil_gmon_merge(struct profil_gmon_arc *arcs, size_t nslots)
{
	struct profil_gmon_arc rec;
	size_t i, j, used = 0, w = 0, nidx = 16, mask;
	uint32_t *idx;

	for (i = 0; i < nslots; i++)
		if (arcs[i].self_pc != 0)
			used++;
	while (nidx < 2 * used)
		nidx <<= 1;
	mask = nidx - 1;
	idx = mmap(NULL, nidx * sizeof(*idx), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (idx == MAP_FAILED)
		return -errno;
	for (i = 0; i < nslots; i++) {
		rec = arcs[i];
		if (rec.self_pc == 0)
			continue;
		for (j = profil_gmon_arc_hash(rec.from_pc, rec.self_pc, mask);; j = (j + 1) & mask) {
			struct profil_gmon_arc *m;

			if (idx[j] == 0) {
				idx[j] = (uint32_t)(w + 1);
				arcs[w] = rec;
				arcs[w].tag = PROFIL_GMON_TAG_ARC;
				w++;
				break;
			}
			m = &arcs[idx[j] - 1];
			if (m->from_pc == rec.from_pc && m->self_pc == rec.self_pc) {
				uint64_t sum = (uint64_t)m->count + rec.count;

				m->count = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
				break;
			}
		}
	}
	munmap(idx, nidx * sizeof(*idx));
	return (long)w;
}

/*
 * The merged profile goes to a new file, <name>.tmp, renamed over the name once complete: the
 * name holds either the whole unmerged profile or the merged one, whatever ends the process
 * meanwhile (SIGKILL, exit_group from another thread, a second fatal signal).  Merging in
 * place could be cut between the merged copies and the end of the file, and gprof would then
 * add the originals behind them a second time.  Returns 0 or -errno; on failure the file at
 * the name is left as it was.
 */
static int
publish(struct profil_gmon *g, const struct profil_gmon_arc *arcs, size_t narcs)
{
	char tmp[sizeof(g->name) + 8];
	size_t at = 0;
	const char *s;
	int fd, r;

	for (s = g->name; *s != '\0' && at < sizeof(g->name); s++)
		tmp[at++] = *s;
	for (s = ".tmp"; *s != '\0'; s++)
		tmp[at++] = *s;
	tmp[at] = '\0';
	/* A leftover of an earlier process of this pid, killed while it merged. */
	unlinkat(g->dirfd, tmp, 0);
	fd = profil_tmp_create(g->dirfd, tmp);
	if (fd < 0)
		return fd;
	r = profil_write_all(fd, g->buf, g->arcs_off);
	if (r == 0)
		r = profil_write_all(fd, arcs, narcs * sizeof(*arcs));
	return profil_tmp_commit(g->dirfd, tmp, g->name, fd, r);
}

void
profil_gmon_finish(void)
{
	struct profil_gmon *g = &profil_gmon_rt;
	struct profil_gmon_arc *arcs, *copy;
	size_t i, n, end, used = 0, k = 0, len;
	long merged;

	if (!atomic_load(&g->setup) || atomic_exchange(&g->finished, 1))
		return;
	if (profil_gmon_quiesce() < 0)
		return;
	n = atomic_load(&g->ntables);
	if (n > PROFIL_GMON_TABLES)
		n = PROFIL_GMON_TABLES;
	/* A table the file could not grow to cover lies past its end: reading it is SIGBUS. */
	end = profil_gmon_file_length();
	if (end < g->arcs_off + n * g->nslots * sizeof(*arcs))
		n = (end - g->arcs_off) / (g->nslots * sizeof(*arcs));
	arcs = (struct profil_gmon_arc *)(g->buf + g->arcs_off);
	/* The file's tables are only read: the arcs in use are merged in a copy. */
	for (i = 0; i < n * g->nslots; i++)
		if (arcs[i].self_pc != 0)
			used++;
	len = (used > 0 ? used : 1) * sizeof(*copy);
	copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return;
	for (i = 0; i < n * g->nslots && k < used; i++)
		if (arcs[i].self_pc != 0)
			copy[k++] = arcs[i];
	merged = profil_gmon_merge(copy, k);
	if (merged >= 0 && publish(g, copy, (size_t)merged) == 0)
		profil_gmon_file_set_length(g->arcs_off + (size_t)merged * sizeof(*copy));
	munmap(copy, len);
}
