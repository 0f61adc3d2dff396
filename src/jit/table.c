/*
 * table.c - the table of JIT names, and the files it is fed from (see jit.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "jit/jit.h"

void
profil_jit_table_init(struct profil_jit_table *t)
{
	memset(t, 0, sizeof(*t));
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != (ssize_t)sizeof(t->seed))
		t->seed = (uint64_t)(uintptr_t)t ^ 0x2545f4914f6cdd1dull;
}

void
profil_jit_table_free(struct profil_jit_table *t)
{
	free(t->syms);
	free(t->names);
	free(t->maxend);
	free(t->codes);
	profil_jit_table_init(t);
}

int
profil_jit_add(struct profil_jit_table *t, uint64_t start, uint64_t size, uint32_t source,
    const char *name, size_t len)
{
	struct profil_jit_sym *s;

	if (size == 0 || start + size < start)
		return 0;	/* nothing to name */
	if (len > PROFIL_JIT_MAX_NAME)
		len = PROFIL_JIT_MAX_NAME;
	if (t->n == PROFIL_JIT_MAX_SYMS || t->nbytes + len > PROFIL_JIT_MAX_NAMES) {
		t->dropped++;
		return -ENOMEM;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		s = realloc(t->syms, cap * sizeof(*s));
		if (s == NULL) {
			t->dropped++;
			return -ENOMEM;
		}
		t->syms = s;
		t->cap = cap;
	}
	/* Allocated with the first name, empty or not: names + offset is never NULL + 0. */
	if (t->names == NULL || t->nbytes + len > t->capbytes) {
		size_t cap = t->capbytes ? 2 * t->capbytes : 4096;
		char *p;

		while (cap < t->nbytes + len)
			cap *= 2;
		p = realloc(t->names, cap);
		if (p == NULL) {
			t->dropped++;
			return -ENOMEM;
		}
		t->names = p;
		t->capbytes = cap;
	}
	memcpy(t->names + t->nbytes, name, len);
	s = &t->syms[t->n++];
	s->start = start;
	s->size = size;
	s->seq = t->seq++;
	s->name = (uint32_t)t->nbytes;
	s->len = (uint32_t)len;
	s->source = source;
	s->used = 0;
	t->nbytes += len;
	return 0;
}

static int
sym_cmp(const void *a, const void *b)
{
	const struct profil_jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* How far back from the last start at or below pc a lookup looks for a longer, older range
 * that holds pc, at most: names of a JIT rarely nest, and a lookup must stay cheap. */
#define FIND_BACK	64

/* Sorts what was added since the last lookup, and the ends that bound how far back to look. */
static int
table_sort(struct profil_jit_table *t)
{
	uint64_t *m, end = 0;
	size_t i;

	m = realloc(t->maxend, (t->n ? t->n : 1) * sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	t->maxend = m;
	qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	for (i = 0; i < t->n; i++) {
		if (t->syms[i].start + t->syms[i].size > end)
			end = t->syms[i].start + t->syms[i].size;
		m[i] = end;
	}
	t->sorted = t->n;
	return 0;
}

struct profil_jit_sym *
profil_jit_find(struct profil_jit_table *t, uint64_t pc)
{
	struct profil_jit_sym *best = NULL;
	size_t lo = 0, hi, mid, i;

	if (t->sorted != t->n && table_sort(t) != 0)
		return NULL;
	hi = t->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Down from there, while some range further down still reaches past pc. */
	for (i = lo; i > 0 && lo - i < FIND_BACK && t->maxend[i - 1] > pc; i--) {
		struct profil_jit_sym *s = &t->syms[i - 1];

		if (pc - s->start < s->size && (best == NULL || s->seq > best->seq))
			best = s;
	}
	return best;
}

size_t
profil_jit_mark(struct profil_jit_table *t, const uint64_t *pcs, size_t depth)
{
	struct profil_jit_sym *sym;
	size_t d, n = 0;

	if (t->n == 0)
		return 0;
	for (d = 0; d < depth; d++) {
		if (pcs[d] >= PROFIL_PC_WAIT_MIN || (d > 0 && pcs[d] == 0))
			continue;
		sym = profil_jit_find(t, d > 0 ? pcs[d] - 1 : pcs[d]);
		if (sym != NULL && !sym->used) {
			sym->used = 1;
			n++;
		}
	}
	return n;
}

size_t
profil_jit_write_marked(struct profil_jit_table *t, struct profil_writer *w)
{
	size_t i, n = 0;

	/* Where a JIT reused memory both names may be needed; the reader takes the one that
	 * starts last for a pc both hold, the newest nearly always. */
	for (i = 0; i < t->n; i++) {
		struct profil_jit_sym *sym = &t->syms[i];

		if (!sym->used)
			continue;
		sym->used = 0;
		profil_writer_code(w, sym->start, sym->size, sym->source, profil_jit_name(t, sym),
		    sym->len);
		n++;
	}
	return n;
}


/* Bytes read from a source at a time; a jitdump's records are skipped past their code. */
#define CHUNK	(1u << 20)

ssize_t
profil_jit_source_read(struct profil_jit_table *t, struct profil_jit_source *src)
{
	ssize_t added = 0, r;
	struct stat st;
	uint64_t next;
	size_t used;
	char *buf;
	int fd;

	if (src->done)
		return 0;
	fd = profil_jit_source_open(src->path, &st, &src->why);
	if (fd == -ENOENT || fd == -EACCES)
		return 0;	/* not written yet, or not ours to read */
	if (fd < 0) {
		src->done = 1;
		return fd;
	}
	buf = malloc(CHUNK);
	if (buf == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while ((uint64_t)st.st_size > src->off) {
		r = pread(fd, buf, CHUNK, (off_t)src->off);
		if (r <= 0)
			break;
		if (src->kind == PROFIL_CODE_PERF_MAP) {
			r = profil_jit_map_parse(t, buf, (size_t)r, &used);
			next = src->off + used;
		} else {
			r = profil_jit_dump_parse(t, (const uint8_t *)buf, (size_t)r, src->off,
			    &next);
		}
		if (r < 0) {
			if (r == -EINVAL) {
				src->done = 1;
				src->why = src->kind == PROFIL_CODE_PERF_MAP ?
				    "not a perf map" : "not a jitdump file";
			}
			added = r;
			break;
		}
		added += r;
		if (next == src->off)
			break;	/* the rest is an incomplete line or record: later */
		src->off = next;
	}
	free(buf);
	close(fd);
	return added;
}
