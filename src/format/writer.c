/*
 * The one writer of the profile format (docs/FORMAT.md).  Async-signal-safe: it serializes
 * field by field into the caller's fixed buffer and empties it with write(2), so the recorder
 * can flush from a fatal-signal handler.  No allocation, no stdio, no locks.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/write.h"
#include "format.h"

static void
flush_buf(struct profil_writer *w, size_t upto)
{
	if (w->error == 0)
		w->error = profil_write_all(w->fd, w->buf, upto);
	memmove(w->buf, w->buf + upto, w->len - upto);
	w->len -= upto;
}

static void
put(struct profil_writer *w, const void *p, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		w->error = w->error ? w->error : -E2BIG;
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
put_u32(struct profil_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	put(w, b, sizeof(b));
}

static void
put_u64(struct profil_writer *w, uint64_t v)
{
	put_u32(w, (uint32_t)v);
	put_u32(w, (uint32_t)(v >> 32));
}

static size_t
bounded_strlen(const char *s, size_t max)
{
	size_t n = 0;

	if (s == NULL)
		return 0;
	while (n < max && s[n] != '\0')
		n++;
	return n;
}

/*
 * Opens a record whose payload will take at most `need` bytes: what is buffered goes out first
 * if the record might not fit behind it.
 */
static void
record_begin(struct profil_writer *w, uint32_t type, size_t need)
{
	if (w->len + 12 + need > sizeof(w->buf))
		flush_buf(w, w->len);
	w->rec = w->len;
	put_u32(w, type);
	put_u32(w, 0);		/* the length, filled in by record_end() */
}

static void
record_end(struct profil_writer *w)
{
	size_t plen = w->len - w->rec - 8;
	uint8_t *p = w->buf + w->rec;

	if (w->error)
		return;
	p[4] = (uint8_t)plen;
	p[5] = (uint8_t)(plen >> 8);
	p[6] = (uint8_t)(plen >> 16);
	p[7] = (uint8_t)(plen >> 24);
	put_u32(w, profil_crc32(0, p, plen + 8));
	w->records++;
}

void
profil_writer_init(struct profil_writer *w, int fd)
{
	profil_writer_init_records(w, fd);
	put(w, PROFIL_FORMAT_MAGIC, 8);
	put_u32(w, PROFIL_FORMAT_VERSION);
	put_u32(w, 0);
}

void
profil_writer_init_records(struct profil_writer *w, int fd)
{
	w->fd = fd;
	w->error = 0;
	w->len = 0;
	w->rec = 0;
	w->records = 0;
	w->samples = 0;
}

int
profil_writer_flush(struct profil_writer *w)
{
	flush_buf(w, w->len);
	return w->error;
}

void
profil_writer_header(struct profil_writer *w, const struct profil_file_header *h)
{
	size_t pl = bounded_strlen(h->progname, PROFIL_FORMAT_MAX_NAME);
	size_t el = bounded_strlen(h->exe, PROFIL_FORMAT_MAX_PATH);

	record_begin(w, PROFIL_REC_HEADER, 104 + pl + el + 8);
	put_u32(w, h->pid);
	put_u32(w, h->ppid);
	put_u32(w, h->requested_hz);
	put_u32(w, h->clock);
	put_u64(w, h->achieved_mhz);
	put_u64(w, h->start_ns);
	put_u64(w, h->end_ns);
	put_u64(w, h->cpu_ns);
	put_u64(w, h->samples);
	put_u64(w, h->ticks);
	put_u64(w, h->dropped);
	put_u32(w, h->exit_kind);
	put_u32(w, (uint32_t)h->exit_code);
	put_u32(w, h->flags);
	put_u32(w, h->max_depth);
	put_u32(w, h->threads);
	put_u32(w, h->thread_failures);
	put_u32(w, (uint32_t)pl);
	put_u32(w, (uint32_t)el);
	put(w, h->progname, pl);
	put(w, h->exe, el);
	put_u64(w, h->system_ns);
	record_end(w);
}

void
profil_writer_mapping(struct profil_writer *w, const struct profil_file_mapping *m)
{
	size_t pl = bounded_strlen(m->path, PROFIL_FORMAT_MAX_PATH);
	uint32_t bl = m->build_id_len <= PROFIL_FORMAT_MAX_BUILD_ID ? m->build_id_len : 0;

	record_begin(w, PROFIL_REC_MAPPING, 60 + bl + pl);
	put_u64(w, m->start);
	put_u64(w, m->end);
	put_u64(w, m->offset);
	put_u64(w, m->load_ns);
	put_u64(w, m->unload_ns);
	put_u32(w, m->load_epoch);
	put_u32(w, m->unload_epoch);
	put_u32(w, m->prot);
	put_u32(w, bl);
	put_u32(w, (uint32_t)pl);
	put(w, m->build_id, bl);
	put(w, m->path, pl);
	record_end(w);
}

void
profil_writer_thread(struct profil_writer *w, uint32_t tid, const char *name)
{
	size_t nl = bounded_strlen(name, PROFIL_FORMAT_MAX_NAME);

	record_begin(w, PROFIL_REC_THREAD, 8 + nl);
	put_u32(w, tid);
	put_u32(w, (uint32_t)nl);
	put(w, name, nl);
	record_end(w);
}

void
profil_writer_processes(struct profil_writer *w, uint64_t seen)
{
	record_begin(w, PROFIL_REC_PROCESSES, 8);
	put_u64(w, seen);
	record_end(w);
}

void
profil_writer_code(struct profil_writer *w, uint64_t start, uint64_t size, uint32_t source,
    const char *name, size_t len)
{
	if (len > PROFIL_FORMAT_MAX_PATH)
		len = PROFIL_FORMAT_MAX_PATH;
	record_begin(w, PROFIL_REC_CODE, 24 + len);
	put_u64(w, start);
	put_u64(w, size);
	put_u32(w, source);
	put_u32(w, (uint32_t)len);
	put(w, name, len);
	record_end(w);
}

void
profil_writer_file(struct profil_writer *w, const struct profil_file *f)
{
	size_t i;

	profil_writer_header(w, &f->hdr);
	for (i = 0; i < f->nmaps; i++)
		profil_writer_mapping(w, &f->maps[i]);
	for (i = 0; i < f->nthreads; i++)
		profil_writer_thread(w, f->threads[i].tid, f->threads[i].name);
	if (f->processes_seen > 0)
		profil_writer_processes(w, f->processes_seen);
	for (i = 0; i < f->ncodes; i++)
		profil_writer_code(w, f->codes[i].start, f->codes[i].size, f->codes[i].source,
		    f->codes[i].name, bounded_strlen(f->codes[i].name, PROFIL_FORMAT_MAX_PATH));
	for (i = 0; i < f->nsamples; i++)
		profil_writer_sample(w, f->samples[i].count, f->samples[i].tid, f->samples[i].epoch,
		    f->samples[i].depth, f->samples[i].pcs);
	if (f->ntimes > 0)
		profil_writer_time(w, f->slot_ns, f->times, f->ntimes);
}

void
profil_writer_sample(struct profil_writer *w, uint64_t count, uint32_t tid, uint32_t epoch,
    uint32_t depth, const uint64_t *pcs)
{
	uint32_t i;

	if (depth == 0)
		return;
	if (depth > PROFIL_FORMAT_MAX_DEPTH)
		depth = PROFIL_FORMAT_MAX_DEPTH;
	record_begin(w, PROFIL_REC_SAMPLE, 20 + 8 * (size_t)depth);
	put_u64(w, count);
	put_u32(w, tid);
	put_u32(w, epoch);
	put_u32(w, depth);
	for (i = 0; i < depth; i++)
		put_u64(w, pcs[i]);
	record_end(w);
	w->samples++;
}

/* Entries of a TIME record: as many as fit the buffer with room for the frame. */
#define TIME_PER_RECORD	((PROFIL_WRITER_BUF - 64) / 16)

void
profil_writer_time(struct profil_writer *w, uint64_t slot_ns, const struct profil_file_time *t,
    size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i += k) {
		k = n - i < TIME_PER_RECORD ? n - i : TIME_PER_RECORD;
		record_begin(w, PROFIL_REC_TIME, 12 + 16 * k);
		put_u64(w, slot_ns);
		put_u32(w, (uint32_t)k);
		for (size_t j = i; j < i + k; j++) {
			put_u32(w, t[j].sample);
			put_u32(w, t[j].slot);
			put_u64(w, t[j].count);
		}
		record_end(w);
	}
}

int
profil_writer_finish(struct profil_writer *w)
{
	uint64_t n = w->records;

	record_begin(w, PROFIL_REC_END, 8);
	put_u64(w, n);
	record_end(w);
	flush_buf(w, w->len);
	return w->error;
}
