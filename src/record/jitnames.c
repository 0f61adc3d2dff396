/*
 * jitnames.c - names for the JIT code of the last profile a process writes, from its perf
 * map (/tmp/perf-PID.map), so that the profile is whole when it is made and `profil record`
 * rewrites nothing.  Runs in the final flush, which a fatal-signal handler may make: no
 * allocation (scratch pages from mmap), no lock, system calls alone.  Only the names whose code
 * holds a sampled pc are written, the newest where a JIT reused memory, as the pass after the
 * program does.
 *
 * Left to that pass, which names a file without CODE records: a periodic snapshot (the map
 * grows while the program runs, and each read would cost the whole map); a process that
 * mapped a jitdump file (a binary log of its own, read there); a recording whose tables
 * spilled to disk (their pcs are in the file, not in memory) or hold more than JIT_PCS_MAX
 * pcs; a map that cannot be opened (a seccomp filter, another owner).
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/append.h"
#include "base/heapsort.h"
#include "format/format.h"
#include "jit/jit.h"
#include "record.h"

/* Static like the writer: the recorder lock makes the final flush its only user. */
static char map_buf[64 * 1024];

static int
jitdump_mapped(void)
{
	size_t i;

	for (i = 0; i < profil_rec.nmaps; i++) {
		const char *p = profil_rec.maps[i].m.path;

		if (p != NULL && profil_jit_is_dump_path(p, strlen(p)))
			return 1;
	}
	return 0;
}

/* The pcs of the tables' samples (return addresses one byte back): how many went into out
 * (at most cap), or how many there are when out is NULL.  As the pass after the program, every
 * pc: a perf map names JIT code alone. */
static size_t
sampled_pcs(uint64_t *out, size_t cap)
{
	size_t n = 0, i, d;
	int k;

	for (k = 0; k < 2; k++) {
		const struct profil_stack_table *t = &profil_rec.stacks.tables[k];

		for (i = 0; i < t->nentries; i++) {
			const struct profil_stack_entry *e = &t->entries[i];
			const uint64_t *pcs;

			if (atomic_load_explicit(&e->state, memory_order_acquire) <=
			    PROFIL_STACK_DEAD ||
			    atomic_load_explicit(&e->count, memory_order_relaxed) == 0)
				continue;
			pcs = t->pool + e->pcs;
			for (d = 0; d < e->depth; d++) {
				uint64_t pc = d > 0 && pcs[d] > 0 ? pcs[d] - 1 : pcs[d];

				if (pc >= PROFIL_PC_WAIT_MIN)
					continue;
				if (out != NULL && n < cap)
					out[n] = pc;
				n++;
			}
		}
	}
	return out != NULL && n > cap ? cap : n;
}

static int
u64_before(const void *x, const void *y)
{
	return *(const uint64_t *)x < *(const uint64_t *)y;
}

/* Sorted, duplicates dropped: how many are left. */
static size_t
sort_unique(uint64_t *a, size_t n)
{
	size_t i, m = 0;

	profil_heapsort(a, n, sizeof(*a), u64_before);
	for (i = 0; i < n; i++)
		if (m == 0 || a[i] != a[m - 1])
			a[m++] = a[i];
	return m;
}

/* The first of a[0..n) at or above x: n when none is. */
static size_t
lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The perf map's first len bytes, line by line: each pc of pcs[0..n) gets in best[] the offset
 * of the last line whose code holds it, as the pass after the program keeps the newest name
 * where a JIT reused memory.  Lines longer than the buffer are not a JIT's, and skipped.
 */
static void
map_scan(int fd, uint64_t len, const uint64_t *pcs, uint64_t *best, size_t n)
{
	uint64_t off = 0;
	size_t have = 0;
	int skipping = 0;

	while (off + have < len) {
		size_t want = sizeof(map_buf) - have;
		ssize_t r;
		const char *line = map_buf, *end, *nl;

		if (want > len - off - have)
			want = (size_t)(len - off - have);
		r = pread(fd, map_buf + have, want, (off_t)(off + have));
		if (r <= 0)
			return;
		end = map_buf + have + (size_t)r;
		while ((nl = memchr(line, '\n', (size_t)(end - line))) != NULL) {
			uint64_t start, size;
			const char *name;
			size_t k, namelen;

			if (!skipping && profil_jit_map_line(line, nl, &start, &size, &name,
			    &namelen) && size > 0 && size <= UINT64_MAX - start)
				for (k = lower_bound(pcs, n, start); k < n && pcs[k] - start < size;
				    k++)
					best[k] = off + (uint64_t)(line - map_buf);
			skipping = 0;
			line = nl + 1;
		}
		off += (uint64_t)(line - map_buf);
		have = (size_t)(end - line);
		if (have == sizeof(map_buf)) {
			off += have;
			have = 0;
			skipping = 1;
		}
		memmove(map_buf, line, have);
	}
}

/* The lines at the offsets best[0..n) (sorted and distinct, UINT64_MAX for none) as CODE
 * records. */
static size_t
map_write(struct profil_writer *w, int fd, const uint64_t *best, size_t n)
{
	size_t i, written = 0;

	for (i = 0; i < n && best[i] != UINT64_MAX && w->error == 0; i++) {
		ssize_t r;
		const char *nl, *name;
		uint64_t start, size;
		size_t namelen;

		r = pread(fd, map_buf, sizeof(map_buf), (off_t)best[i]);
		if (r <= 0 || (nl = memchr(map_buf, '\n', (size_t)r)) == NULL ||
		    !profil_jit_map_line(map_buf, nl, &start, &size, &name, &namelen))
			continue;
		profil_writer_code(w, start, size, PROFIL_CODE_PERF_MAP, name, namelen);
		written++;
	}
	return written;
}

/* Past this many pcs the scratch pages (16 bytes a pc) are left unspent, and the pass after
 * the program names the file. */
#define JIT_PCS_MAX	(1u << 20)

size_t
profil_record_jit_names(struct profil_writer *w)
{
	char path[64];
	const char *why;
	struct stat st;
	uint64_t *pcs, *best;
	size_t n, i, len, bytes, written = 0;
	int fd;

	if (profil_rec.spill_records > 0 || jitdump_mapped())
		return 0;
	n = sampled_pcs(NULL, 0);
	if (n == 0 || n > JIT_PCS_MAX)
		return 0;
	len = profil_append(path, 0, sizeof(path), "/tmp/perf-");
	len = profil_append_uint(path, len, sizeof(path), (unsigned long)profil_rec.pid);
	profil_append(path, len, sizeof(path), ".map");
	fd = profil_jit_source_open(path, &st, &why);
	if (fd < 0)
		return 0;
	bytes = 2 * n * sizeof(*pcs);
	pcs = profil_record_map_zero(bytes);
	if (pcs != NULL) {
		best = pcs + n;
		n = sort_unique(pcs, sampled_pcs(pcs, n));
		for (i = 0; i < n; i++)
			best[i] = UINT64_MAX;
		/* What the map held as the program ended: a JIT still writing is not chased. */
		map_scan(fd, (uint64_t)st.st_size, pcs, best, n);
		written = map_write(w, fd, best, sort_unique(best, n));
		munmap(pcs, bytes);
	}
	close(fd);
	return written;
}
