/*
 * A perf ring buffer read one record at a time, as libperf's perf_mmap__read_event: data_head
 * loaded with acquire order (the kernel's writes before it are seen), each record handed back
 * where it lies or copied out when it wraps around the end, and data_tail stored with release
 * order once the caller is done (the kernel may overwrite nothing read before that).  Plain
 * loads and memcpy: the in-process recorder drains from a fatal signal's flush.
 */
#include <string.h>

#include "perf.h"

void
profil_perf_ring_init(struct profil_perf_ring *r, void *map, size_t page, size_t size)
{
	r->meta = map;
	r->data = (const uint8_t *)map + page;
	r->size = size;
	r->head = r->tail = 0;
}

void
profil_perf_ring_begin(struct profil_perf_ring *r)
{
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	r->tail = r->meta->data_tail;
}

static void
copy_out(const struct profil_perf_ring *r, uint64_t from, void *dst, size_t n)
{
	size_t off = (size_t)(from & (r->size - 1));
	size_t first = r->size - off < n ? r->size - off : n;

	memcpy(dst, r->data + off, first);
	memcpy((uint8_t *)dst + first, r->data, n - first);
}

const uint8_t *
profil_perf_ring_next(struct profil_perf_ring *r, void *buf, size_t cap, size_t *len,
    uint64_t *skipped)
{
	while (r->tail < r->head) {
		struct perf_event_header h;
		size_t off = (size_t)(r->tail & (r->size - 1));
		uint64_t at = r->tail;

		copy_out(r, at, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > r->head - r->tail)
			return NULL;
		r->tail += h.size;
		*len = h.size;
		if (off + h.size <= r->size)
			return r->data + off;
		if (h.size <= cap) {
			copy_out(r, at, buf, h.size);
			return buf;
		}
		if (skipped != NULL)
			(*skipped)++;
	}
	return NULL;
}

void
profil_perf_ring_end(struct profil_perf_ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}
