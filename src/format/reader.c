/*
 * The one reader of the profile format (docs/FORMAT.md).  Files come from anywhere, so every
 * length is checked against what is left before it is used, and every count against the
 * format's limits before anything is allocated from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

__attribute__((format(printf, 3, 4))) static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* A string of n bytes at p, copied and NUL-terminated; NULL for embedded NULs or no memory. */
static char *
dup_string(const uint8_t *p, size_t n, int *nomem)
{
	char *s;

	if (memchr(p, '\0', n) != NULL)
		return NULL;
	s = malloc(n + 1);
	if (s == NULL) {
		*nomem = 1;
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* Grows *arr (of *n elements of size sz) by one, returning the new element zeroed. */
static void *
grow(void **arr, size_t *n, size_t *cap, size_t sz)
{
	void *a;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;

		a = realloc(*arr, ncap * sz);
		if (a == NULL)
			return NULL;
		*arr = a;
		*cap = ncap;
	}
	a = (char *)*arr + *n * sz;
	memset(a, 0, sz);
	(*n)++;
	return a;
}

struct parse {
	struct profil_file *f;
	size_t cap_maps, cap_threads, cap_samples, cap_codes, cap_times;
	uint64_t *timed;		/* per sample: the counts of its TIME entries so far */
	size_t ntimed;
	char *err;
	size_t errlen;
	int nomem;
	uint64_t ticks;			/* the sum of the samples' counts so far */
};

/* A read error, or no memory for the record: its text and where. */
static int
fail_read(struct parse *ps, int r, size_t off)
{
	if (r == -ENOMEM)
		fail(ps->err, ps->errlen, "out of memory");
	else
		fail(ps->err, ps->errlen, "%s at offset %zu", strerror(-r), off);
	return r;
}

static int
parse_header(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file_header *h = &ps->f->hdr;
	uint32_t pl, el;

	if (len < 104)
		return fail(ps->err, ps->errlen,
		    "header record too short (%zu bytes) at offset %zu", len, at);
	h->pid = get_u32(p);
	h->ppid = get_u32(p + 4);
	h->requested_hz = get_u32(p + 8);
	h->clock = get_u32(p + 12);
	h->achieved_mhz = get_u64(p + 16);
	h->start_ns = get_u64(p + 24);
	h->end_ns = get_u64(p + 32);
	h->cpu_ns = get_u64(p + 40);
	h->samples = get_u64(p + 48);
	h->ticks = get_u64(p + 56);
	h->dropped = get_u64(p + 64);
	h->exit_kind = get_u32(p + 72);
	h->exit_code = (int32_t)get_u32(p + 76);
	h->flags = get_u32(p + 80);
	h->max_depth = get_u32(p + 84);
	h->threads = get_u32(p + 88);
	h->thread_failures = get_u32(p + 92);
	pl = get_u32(p + 96);
	el = get_u32(p + 100);
	if (pl > PROFIL_FORMAT_MAX_NAME || el > PROFIL_FORMAT_MAX_PATH ||
	    104 + (size_t)pl + el > len)
		return fail(ps->err, ps->errlen, "header strings overrun the record at offset %zu",
		    at);
	h->progname = dup_string(p + 104, pl, &ps->nomem);
	h->exe = dup_string(p + 104 + pl, el, &ps->nomem);
	/* Appended later: a file written before has no such field, and says nothing of it. */
	if (104 + (size_t)pl + el + 8 <= len)
		h->system_ns = get_u64(p + 104 + pl + el);
	else
		h->flags &= ~(uint32_t)PROFIL_HDR_SYSTEM_NS;
	if (h->progname == NULL || h->exe == NULL)
		return ps->nomem ? -ENOMEM :
		    fail(ps->err, ps->errlen, "NUL inside a header string at offset %zu", at);
	return 0;
}

static int
parse_mapping(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file *f = ps->f;
	struct profil_file_mapping *m;
	uint32_t bl, pl;

	if (len < 60)
		return fail(ps->err, ps->errlen, "mapping record too short at offset %zu", at);
	bl = get_u32(p + 52);
	pl = get_u32(p + 56);
	if (bl > PROFIL_FORMAT_MAX_BUILD_ID || pl > PROFIL_FORMAT_MAX_PATH ||
	    60 + (size_t)bl + pl > len)
		return fail(ps->err, ps->errlen, "mapping fields overrun the record at offset %zu",
		    at);
	if (get_u64(p) >= get_u64(p + 8))
		return fail(ps->err, ps->errlen, "mapping ends before it starts at offset %zu", at);
	if (get_u32(p + 40) > get_u32(p + 44))
		return fail(ps->err, ps->errlen, "mapping unloaded before loaded at offset %zu",
		    at);
	m = grow((void **)&f->maps, &f->nmaps, &ps->cap_maps, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->start = get_u64(p);
	m->end = get_u64(p + 8);
	m->offset = get_u64(p + 16);
	m->load_ns = get_u64(p + 24);
	m->unload_ns = get_u64(p + 32);
	m->load_epoch = get_u32(p + 40);
	m->unload_epoch = get_u32(p + 44);
	m->prot = get_u32(p + 48);
	m->build_id_len = bl;
	memcpy(m->build_id, p + 60, bl);
	m->path = dup_string(p + 60 + bl, pl, &ps->nomem);
	if (m->path == NULL)
		return ps->nomem ? -ENOMEM :
		    fail(ps->err, ps->errlen, "NUL inside a mapping path at offset %zu", at);
	return 0;
}

static int
parse_thread(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file *f = ps->f;
	struct profil_file_thread *t;
	uint32_t nl;

	if (len < 8)
		return fail(ps->err, ps->errlen, "thread record too short at offset %zu", at);
	nl = get_u32(p + 4);
	if (nl > PROFIL_FORMAT_MAX_NAME || 8 + (size_t)nl > len)
		return fail(ps->err, ps->errlen, "thread name overruns the record at offset %zu",
		    at);
	t = grow((void **)&f->threads, &f->nthreads, &ps->cap_threads, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->tid = get_u32(p);
	t->name = dup_string(p + 8, nl, &ps->nomem);
	if (t->name == NULL)
		return ps->nomem ? -ENOMEM :
		    fail(ps->err, ps->errlen, "NUL inside a thread name at offset %zu", at);
	return 0;
}

static int
parse_code(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file *f = ps->f;
	struct profil_file_code *c;
	uint32_t nl;

	if (len < 24)
		return fail(ps->err, ps->errlen, "code record too short at offset %zu", at);
	nl = get_u32(p + 20);
	if (nl > PROFIL_FORMAT_MAX_PATH || 24 + (size_t)nl > len)
		return fail(ps->err, ps->errlen, "code name overruns the record at offset %zu", at);
	if (get_u64(p + 8) == 0 || get_u64(p) + get_u64(p + 8) < get_u64(p))
		return fail(ps->err, ps->errlen, "code range invalid at offset %zu", at);
	c = grow((void **)&f->codes, &f->ncodes, &ps->cap_codes, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->start = get_u64(p);
	c->size = get_u64(p + 8);
	c->source = get_u32(p + 16);
	c->name = dup_string(p + 24, nl, &ps->nomem);
	if (c->name == NULL)
		return ps->nomem ? -ENOMEM :
		    fail(ps->err, ps->errlen, "NUL inside a code name at offset %zu", at);
	return 0;
}

static int
parse_sample(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file *f = ps->f;
	struct profil_file_sample *s;
	uint32_t depth, i;

	if (len < 20)
		return fail(ps->err, ps->errlen, "sample record too short at offset %zu", at);
	depth = get_u32(p + 16);
	if (depth == 0 || depth > PROFIL_FORMAT_MAX_DEPTH || 20 + 8 * (size_t)depth > len)
		return fail(ps->err, ps->errlen, "sample depth %u invalid at offset %zu", depth,
		    at);
	if (get_u64(p) == 0)
		return fail(ps->err, ps->errlen, "sample with a zero count at offset %zu", at);
	/* Every sum of counts a view makes stays exact: a file whose ticks overflow is refused. */
	if (get_u64(p) > UINT64_MAX - ps->ticks)
		return fail(ps->err, ps->errlen,
		    "sample counts overflow 64 bits at offset %zu", at);
	ps->ticks += get_u64(p);
	s = grow((void **)&f->samples, &f->nsamples, &ps->cap_samples, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->pcs = malloc(8 * (size_t)depth);
	if (s->pcs == NULL)
		return -ENOMEM;
	s->count = get_u64(p);
	s->tid = get_u32(p + 8);
	s->epoch = get_u32(p + 12);
	s->depth = depth;
	for (i = 0; i < depth; i++)
		s->pcs[i] = get_u64(p + 20 + 8 * (size_t)i);
	return 0;
}

static int
parse_time(struct parse *ps, const uint8_t *p, size_t len, size_t at)
{
	struct profil_file *f = ps->f;
	uint64_t slot_ns;
	uint32_t n, i;

	if (len < 12)
		return fail(ps->err, ps->errlen, "time record too short at offset %zu", at);
	slot_ns = get_u64(p);
	n = get_u32(p + 8);
	if ((len - 12) / 16 < n)
		return fail(ps->err, ps->errlen, "time entries overrun the record at offset %zu",
		    at);
	if (slot_ns < PROFIL_TIME_MIN_SLOT_NS || (f->slot_ns != 0 && slot_ns != f->slot_ns))
		return fail(ps->err, ps->errlen, "time slot of %llu ns invalid at offset %zu",
		    (unsigned long long)slot_ns, at);
	f->slot_ns = slot_ns;
	if (ps->ntimed < f->nsamples) {
		uint64_t *t = realloc(ps->timed, f->nsamples * sizeof(*t));

		if (t == NULL)
			return -ENOMEM;
		memset(t + ps->ntimed, 0, (f->nsamples - ps->ntimed) * sizeof(*t));
		ps->timed = t;
		ps->ntimed = f->nsamples;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *e = p + 12 + 16 * (size_t)i;
		struct profil_file_time *t;
		uint32_t sample = get_u32(e);
		uint64_t count = get_u64(e + 8);

		if (sample >= f->nsamples)
			return fail(ps->err, ps->errlen,
			    "time entry names sample %u of %zu at offset %zu", sample, f->nsamples,
			    at);
		/* Counts never exceed their sample's, so every sum over times stays exact. */
		if (count == 0 || count > f->samples[sample].count - ps->timed[sample])
			return fail(ps->err, ps->errlen,
			    "time counts of sample %u exceed its count at offset %zu", sample, at);
		ps->timed[sample] += count;
		t = grow((void **)&f->times, &f->ntimes, &ps->cap_times, sizeof(*t));
		if (t == NULL)
			return -ENOMEM;
		t->sample = sample;
		t->slot = get_u32(e + 4);
		t->count = count;
	}
	return 0;
}

/*
 * Where the bytes come from: a buffer, or a file read one record at a time.  A file is never
 * read whole before it is checked: a sparse 4 GiB file with a profile's name is refused at its
 * first bad record, and memory stays within one record (PROFIL_FORMAT_MAX_RECORD) plus the
 * model of what was read.
 */
struct source {
	const uint8_t *mem;		/* a buffer of len bytes, or NULL for fd */
	size_t len;
	int fd;
	uint8_t *buf;			/* fd: the current record */
	size_t cap;
	size_t off;			/* offset of the next byte not yet taken */
};

/*
 * Takes up to n bytes at the current offset, pointed to by *p (valid until the next call).
 * Returns how many there were (fewer than n only at the end of the input), or -errno.
 */
static ssize_t
source_take(struct source *src, size_t n, const uint8_t **p)
{
	size_t got = 0;
	ssize_t r;

	if (src->mem != NULL) {
		if (n > src->len - src->off)
			n = src->len - src->off;
		*p = src->mem + src->off;
		src->off += n;
		return (ssize_t)n;
	}
	if (n > src->cap) {
		uint8_t *b = realloc(src->buf, n);

		if (b == NULL)
			return -ENOMEM;
		src->buf = b;
		src->cap = n;
	}
	while (got < n) {
		r = read(src->fd, src->buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*p = src->buf;
	src->off += got;
	return (ssize_t)got;
}

static int
parse_all(struct parse *ps, struct source *src)
{
	uint64_t records = 0;
	int have_header = 0, r;
	const uint8_t *pre;
	uint8_t frame[8];
	ssize_t got;
	size_t off;

	got = source_take(src, 16, &pre);
	if (got < 0)
		return fail_read(ps, (int)got, 0);
	if (got < 16 || memcmp(pre, PROFIL_FORMAT_MAGIC, 8) != 0)
		return fail(ps->err, ps->errlen, "not a profil profile (bad magic)");
	ps->f->version = get_u32(pre + 8);
	if (ps->f->version != PROFIL_FORMAT_VERSION)
		return fail(ps->err, ps->errlen, "unsupported version %u (this reader knows %u)",
		    ps->f->version, PROFIL_FORMAT_VERSION);
	for (;;) {
		uint32_t type, plen;
		const uint8_t *p;

		off = src->off;
		got = source_take(src, 8, &p);
		if (got < 0)
			return fail_read(ps, (int)got, off);
		if (got == 0)
			return fail(ps->err, ps->errlen,
			    "truncated: no end record after %llu records (%zu bytes)",
			    (unsigned long long)records, off);
		if (got < 8)
			return fail(ps->err, ps->errlen, "truncated record frame at offset %zu",
			    off);
		memcpy(frame, p, 8);
		type = get_u32(frame);
		plen = get_u32(frame + 4);
		if (plen > PROFIL_FORMAT_MAX_RECORD)
			return fail(ps->err, ps->errlen, "record length %u too large at offset %zu",
			    plen, off);
		got = source_take(src, (size_t)plen + 4, &p);
		if (got < 0)
			return fail_read(ps, (int)got, off);
		if ((size_t)got < 4)
			return fail(ps->err, ps->errlen, "truncated record frame at offset %zu",
			    off);
		if ((size_t)got < (size_t)plen + 4)
			return fail(ps->err, ps->errlen,
			    "truncated: record of %u bytes at offset %zu runs past the end", plen,
			    off);
		if (profil_crc32(profil_crc32(0, frame, 8), p, plen) != get_u32(p + plen))
			return fail(ps->err, ps->errlen,
			    "checksum mismatch in record at offset %zu", off);
		if (!have_header && type != PROFIL_REC_HEADER)
			return fail(ps->err, ps->errlen,
			    "first record is not a header (offset %zu)", off);
		switch (type) {
		case PROFIL_REC_HEADER:
			if (have_header)
				return fail(ps->err, ps->errlen, "second header at offset %zu",
				    off);
			have_header = 1;
			r = parse_header(ps, p, plen, off);
			break;
		case PROFIL_REC_MAPPING:
			r = parse_mapping(ps, p, plen, off);
			break;
		case PROFIL_REC_THREAD:
			r = parse_thread(ps, p, plen, off);
			break;
		case PROFIL_REC_SAMPLE:
			r = parse_sample(ps, p, plen, off);
			break;
		case PROFIL_REC_CODE:
			r = parse_code(ps, p, plen, off);
			break;
		case PROFIL_REC_TIME:
			r = parse_time(ps, p, plen, off);
			break;
		case PROFIL_REC_PROCESSES:
			if (plen < 8)
				return fail(ps->err, ps->errlen,
				    "processes record too short at offset %zu", off);
			ps->f->processes_seen = get_u64(p);
			r = 0;
			break;
		case PROFIL_REC_END:
			if (plen < 8)
				return fail(ps->err, ps->errlen,
				    "end record too short at offset %zu", off);
			if (get_u64(p) != records)
				return fail(ps->err, ps->errlen,
				    "end record counts %llu records, file has %llu",
				    (unsigned long long)get_u64(p), (unsigned long long)records);
			off = src->off;
			got = source_take(src, 1, &p);
			if (got != 0)
				return fail(ps->err, ps->errlen,
				    "data after the end record at offset %zu", off);
			return 0;
		default:
			r = 0;	/* a newer record type: skipped */
			break;
		}
		if (r == -ENOMEM) {
			fail(ps->err, ps->errlen, "out of memory");
			return -ENOMEM;
		}
		if (r < 0)
			return r;
		records++;
	}
}

static int
parse_source(struct source *src, struct profil_file **out, char *err, size_t errlen)
{
	struct parse ps;
	int r;

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	ps.f = calloc(1, sizeof(*ps.f));
	if (ps.f == NULL) {
		fail(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = parse_all(&ps, src);
	free(ps.timed);
	if (r == 0 && profil_file_index(ps.f) != 0) {
		fail(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	if (r < 0) {
		profil_file_free(ps.f);
		return r;
	}
	*out = ps.f;
	return 0;
}

int
profil_file_parse(const void *data, size_t len, struct profil_file **out, char *err,
    size_t errlen)
{
	struct source src = { .mem = data, .len = len, .fd = -1 };

	/* A buffer is never NULL to the source: an empty one is simply empty. */
	if (src.mem == NULL)
		src.mem = (const uint8_t *)"", src.len = 0;
	return parse_source(&src, out, err, errlen);
}

int
profil_file_read(const char *path, struct profil_file **out, char *err, size_t errlen)
{
	struct source src = { .fd = -1 };
	struct stat st;
	int r;

	*out = NULL;
	/*
	 * Non-blocking, so that a FIFO or a terminal with a profile's name cannot block the open;
	 * only a regular file is read, and that never blocks, so the flag is cleared again.
	 */
	src.fd = profil_file_open_regular(path, &st);
	if (src.fd == -EINVAL)
		return fail(err, errlen, "not a regular file");
	if (src.fd < 0) {
		if (errlen > 0)
			snprintf(err, errlen, "%s", strerror(-src.fd));
		return src.fd;
	}
	r = parse_source(&src, out, err, errlen);
	free(src.buf);
	close(src.fd);
	return r;
}
