/*
 * jitnames.c - names for the JIT code of the last profile a process writes, from its perf
 * map (/tmp/perf-PID.map), so that the profile is whole when it is made and `profil record`
 * rewrites nothing.  Runs in the final flush, which a fatal-signal handler may make: no
 * allocation (scratch pages from mmap), no lock, system calls alone.  Only the names whose code
 * holds a sampled pc are written, as the pass after the program did.
 *
 * Left to that pass, which names a file without CODE records: a periodic snapshot (the map
 * grows while the program runs, and each read would cost the whole map); a process that
 * mapped a jitdump file (a binary log of its own, read there); a recording whose tables
 * spilled to disk (their pcs are in the file, not in memory); a map that cannot be opened
 * (a seccomp filter, another owner).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/append.h"
#include "format/format.h"
#include "jit/jit.h"
#include "record.h"

/* Static like the writer: the recorder lock makes the final flush its only user. */
static char map_buf[64 * 1024];

/* Whether pc lies in a file's mapping (a path, not "[anon]"): code a file names, never a
 * JIT's. */
static int
in_file(uint64_t pc)
{
	size_t i;

	for (i = 0; i < profil_rec.nmaps; i++) {
		const struct profil_file_mapping *m = &profil_rec.maps[i].m;

		if (pc >= m->start && pc < m->end && m->path != NULL && m->path[0] == '/')
			return 1;
	}
	return 0;
}

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

/* The pcs of the tables' samples in no file (return addresses one byte back): how many went
 * into out (at most cap), or how many there are when out is NULL. */
static size_t
anon_pcs(uint64_t *out, size_t cap)
{
	size_t n = 0, i, d;
	int k;

	for (k = 0; k < 2; k++) {
		const struct profil_stack_table *t = &profil_rec.stacks.tables[k];

		for (i = 0; i < t->nentries; i++) {
			const struct profil_stack_entry *e = &t->entries[i];
			const uint64_t *pcs = t->pool + e->pcs;

			if (atomic_load_explicit(&e->state, memory_order_acquire) <=
			    PROFIL_STACK_DEAD ||
			    atomic_load_explicit(&e->count, memory_order_relaxed) == 0)
				continue;
			for (d = 0; d < e->depth; d++) {
				uint64_t pc = d > 0 && pcs[d] > 0 ? pcs[d] - 1 : pcs[d];

				if (pc >= PROFIL_PC_MARKER_MIN || in_file(pc))
					continue;
				if (out != NULL && n < cap)
					out[n] = pc;
				n++;
			}
		}
	}
	return out != NULL && n > cap ? cap : n;
}

static void
sift(uint64_t *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		uint64_t x;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		x = a[i];
		a[i] = a[c];
		a[c] = x;
		i = c;
	}
}

/* Heapsort, then duplicates dropped: how many are left. */
static size_t
sort_unique(uint64_t *a, size_t n)
{
	size_t i, m = 0;

	for (i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (i = n; i-- > 1;) {
		uint64_t x = a[0];

		a[0] = a[i];
		a[i] = x;
		sift(a, 0, i);
	}
	for (i = 0; i < n; i++)
		if (m == 0 || a[i] != a[m - 1])
			a[m++] = a[i];
	return m;
}

/* Whether a pc of a[0..n) lies in [start, start + size). */
static int
holds_pc(const uint64_t *a, size_t n, uint64_t start, uint64_t size)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] - start < size;
}

/* The perf map's lines whose code holds one of the n pcs, as CODE records: how many. */
static size_t
map_write(struct profil_writer *w, int fd, const uint64_t *pcs, size_t n)
{
	size_t have = 0, written = 0;
	int skipping = 0;

	for (;;) {
		ssize_t r = read(fd, map_buf + have, sizeof(map_buf) - have);
		const char *line = map_buf, *end, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return written;
		end = map_buf + have + (size_t)r;
		while ((nl = memchr(line, '\n', (size_t)(end - line))) != NULL) {
			uint64_t start, size;
			const char *name;
			size_t len;

			if (!skipping && profil_jit_map_line(line, nl, &start, &size, &name, &len) &&
			    size > 0 && holds_pc(pcs, n, start, size)) {
				profil_writer_code(w, start, size, PROFIL_CODE_PERF_MAP, name, len);
				written++;
			}
			skipping = 0;
			line = nl + 1;
		}
		have = (size_t)(end - line);
		if (have == sizeof(map_buf)) {
			/* A line longer than the buffer: not one a JIT writes; its rest skipped. */
			have = 0;
			skipping = 1;
		}
		memmove(map_buf, line, have);
	}
}

size_t
profil_record_jit_names(struct profil_writer *w)
{
	char path[64];
	struct stat st;
	uint64_t *pcs;
	size_t n, len, bytes, written = 0;
	int fd;

	if (profil_rec.spill_records > 0 || jitdump_mapped())
		return 0;
	n = anon_pcs(NULL, 0);
	if (n == 0)
		return 0;
	len = profil_append(path, 0, sizeof(path), "/tmp/perf-");
	len = profil_append_uint(path, len, sizeof(path), (unsigned long)profil_rec.pid);
	profil_append(path, len, sizeof(path), ".map");
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* perf's rule: a regular file of the user the process runs as, or of root. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		close(fd);
		return 0;
	}
	bytes = n * sizeof(*pcs);
	pcs = profil_record_map_zero(bytes);
	if (pcs != NULL) {
		n = sort_unique(pcs, anon_pcs(pcs, n));
		written = map_write(w, fd, pcs, n);
		munmap(pcs, bytes);
	}
	close(fd);
	return written;
}
