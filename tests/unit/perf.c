/*
 * The perf piece (src/perf): a ring buffer made by hand, read one record at a time (a record
 * wrapping the ring's end comes back whole, one too long for the caller's buffer is skipped
 * and counted, a header that lies ends the read, data_tail is given back once); and the
 * decoders fed hand-made samples and side-band records, whole, cut short at every length and
 * with sizes that lie.  Records are laid against a page that cannot be read: the decoder
 * reading one byte past a record ends this test with SIGSEGV.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../bytes.h"
#include "../tap.h"
#include "perf/perf.h"

#define RING_SIZE	256

static long page;
static uint8_t *guard_end;	/* the first byte of an unreadable page */

/* rec copied so that it ends where the guard page begins. */
static const uint8_t *
at_guard(const void *rec, size_t len)
{
	uint8_t *p = guard_end - len;

	memcpy(p, rec, len);
	return p;
}

static void
guard_init(void)
{
	uint8_t *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE) != 0) {
		perror("mmap");
		exit(1);
	}
	guard_end = m + page;
}

/* Two u32 fields in one u64 (pid and tid), as the kernel writes them. */
static void
put32s(struct test_bytes *w, uint32_t a, uint32_t b)
{
	bytes_put32(w, a);
	bytes_put32(w, b);
}

static void
header(struct test_bytes *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	w->n = 0;
	bytes_put(w, &h, sizeof(h));
}

static void
finish(struct test_bytes *w)
{
	struct perf_event_header h;

	memcpy(&h, w->b, sizeof(h));
	h.size = (uint16_t)w->n;
	memcpy(w->b, &h, sizeof(h));
}

/* sample_id_all's trailer (pid, tid, time), and the record's size in its header. */
static void
trailer(struct test_bytes *w, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32s(w, pid, tid);
	bytes_put64(w, time);
	finish(w);
}

/* The ring: the metadata page, then RING_SIZE bytes. */
static uint8_t *ring_map;

static void
ring_write(uint64_t at, const void *rec, size_t n)
{
	uint8_t *data = ring_map + page;
	size_t i;

	for (i = 0; i < n; i++)
		data[(at + i) % RING_SIZE] = ((const uint8_t *)rec)[i];
}

static void
record_of(struct test_bytes *w, uint32_t type, size_t size, uint8_t fill)
{
	header(w, type, 0);
	while (w->n < size)
		w->b[w->n++] = fill;
	finish(w);
}

static void
test_ring(void)
{
	struct perf_event_mmap_page *meta;
	struct profil_perf_ring r;
	struct test_bytes a, b, c;
	uint64_t copy[64], skipped = 0;
	const uint8_t *rec;
	size_t len;
	uint64_t start = 3 * RING_SIZE + 160;	/* laps done: positions are taken modulo */

	ring_map = aligned_alloc((size_t)page, 2 * (size_t)page);
	memset(ring_map, 0, (size_t)page + RING_SIZE);
	meta = (void *)ring_map;
	profil_perf_ring_init(&r, ring_map, (size_t)page, RING_SIZE);
	/* 64 bytes whole, then 48 that wrap the end (96 .. 144 modulo 256 is 224 .. 16). */
	record_of(&a, PERF_RECORD_SAMPLE, 64, 0xaa);
	record_of(&b, PERF_RECORD_COMM, 48, 0xbb);
	ring_write(start, a.b, a.n);
	ring_write(start + 64, b.b, b.n);
	meta->data_tail = start;
	meta->data_head = start + 112;
	profil_perf_ring_begin(&r);
	rec = profil_perf_ring_next(&r, copy, sizeof(copy), &len, &skipped);
	tap_check(rec == ring_map + page + start % RING_SIZE && len == 64 &&
	    memcmp(rec, a.b, 64) == 0, "ring: a record that does not wrap comes back in place");
	rec = profil_perf_ring_next(&r, copy, sizeof(copy), &len, &skipped);
	tap_check(rec == (const uint8_t *)copy && len == 48 && memcmp(rec, b.b, 48) == 0,
	    "ring: a record wrapping the ring's end comes back whole, in the caller's buffer");
	tap_check(profil_perf_ring_next(&r, copy, sizeof(copy), &len, &skipped) == NULL,
	    "ring: the read ends at data_head");
	tap_check(meta->data_tail == start, "ring: data_tail is left alone until the end");
	profil_perf_ring_end(&r);
	tap_check(meta->data_tail == start + 112, "ring: the end gives the bytes back");

	/* A wrapping record longer than the caller's buffer: skipped, counted, the next read. */
	start = (meta->data_tail / RING_SIZE + 1) * RING_SIZE + 128;
	meta->data_tail = start;
	record_of(&a, PERF_RECORD_SAMPLE, 200, 0xcc);
	record_of(&c, PERF_RECORD_LOST, 24, 0xdd);
	ring_write(start, a.b, a.n);
	ring_write(start + 200, c.b, c.n);
	meta->data_head = start + 224;
	profil_perf_ring_begin(&r);
	rec = profil_perf_ring_next(&r, copy, 64, &len, &skipped);
	tap_check(rec != NULL && len == 24 && memcmp(rec, c.b, 24) == 0 && skipped == 1,
	    "ring: a wrapping record too long for the buffer is skipped and counted");
	profil_perf_ring_end(&r);

	/* Headers that lie: longer than what was written, or shorter than a header. */
	start = meta->data_tail;
	record_of(&a, PERF_RECORD_SAMPLE, 64, 0xee);
	ring_write(start, a.b, a.n);
	meta->data_head = start + 40;
	profil_perf_ring_begin(&r);
	tap_check(profil_perf_ring_next(&r, copy, sizeof(copy), &len, NULL) == NULL,
	    "ring: a size past data_head ends the read");
	profil_perf_ring_end(&r);
	tap_check(meta->data_tail == start, "ring: ... and the record is not stepped over");
	{
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 4 };

		ring_write(start, &h, sizeof(h));
	}
	meta->data_head = start + 64;
	profil_perf_ring_begin(&r);
	tap_check(profil_perf_ring_next(&r, copy, sizeof(copy), &len, NULL) == NULL &&
	    r.tail == start, "ring: a size shorter than a header ends the read");
	free(ring_map);
}

#define ST_ALL	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
	PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define REGS	0xf0ULL		/* four registers */

/* A sample of ST_ALL: three frames, four registers, a copy of 32 bytes of which 20 filled. */
static void
sample_of(struct test_bytes *w, uint64_t nchain, uint64_t abi, uint64_t copy, uint64_t dyn)
{
	uint64_t i;

	header(w, PERF_RECORD_SAMPLE, 0);
	bytes_put64(w, 0x401000);
	put32s(w, 100, 101);
	bytes_put64(w, 123456789);
	bytes_put64(w, nchain);
	for (i = 0; i < 3; i++)
		bytes_put64(w, 0x500000 + i);
	bytes_put64(w, abi);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE)
		for (i = 0; i < 4; i++)
			bytes_put64(w, 0x1000 * (i + 1));
	bytes_put64(w, copy);
	if (copy > 0) {
		for (i = 0; i < 32; i++)
			w->b[w->n++] = (uint8_t)i;
		bytes_put64(w, dyn);
	}
	finish(w);
}

static void
test_sample(void)
{
	struct profil_perf_sample s;
	struct test_bytes w;
	const uint8_t *rec;
	size_t n, bad = 0;
	int r;

	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_64, 32, 20);
	rec = at_guard(w.b, w.n);
	r = profil_perf_sample_parse(ST_ALL, REGS, rec, w.n, &s);
	tap_check(r == 0 && s.ip == 0x401000 && s.pid == 100 && s.tid == 101 &&
	    s.time == 123456789, "sample: ip, pid, tid and time");
	tap_check(r == 0 && s.nchain == 3 && profil_perf_u64(s.chain) == 0x500000 &&
	    profil_perf_u64(s.chain + 16) == 0x500002, "sample: the callchain, pointer and count");
	tap_check(r == 0 && s.regs_abi == PERF_SAMPLE_REGS_ABI_64 && s.nregs == 4 &&
	    s.regs[0] == 0x1000 && s.regs[3] == 0x4000, "sample: the user registers in order");
	tap_check(r == 0 && s.stack_size == 32 && s.stack_dyn == 20 && s.stack[0] == 0 &&
	    s.stack[31] == 31 && profil_perf_u64(rec + s.stack_off) == 32,
	    "sample: the stack copy, its size, what the kernel filled, where it sits");

	/* Every shorter length: rejected, and never a byte past it read (the guard page). */
	for (n = 0; n < w.n; n++)
		if (profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, n), n, &s) != -EINVAL)
			bad++;
	tap_check(bad == 0, "sample: cut short at each of %zu lengths, rejected", w.n);

	/* Sizes that lie. */
	sample_of(&w, 1000, PERF_SAMPLE_REGS_ABI_64, 32, 20);
	tap_check(profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s) == -EINVAL,
	    "sample: a callchain longer than the record is rejected");
	sample_of(&w, (uint64_t)1 << 61, PERF_SAMPLE_REGS_ABI_64, 32, 20);
	tap_check(profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s) == -EINVAL,
	    "sample: a callchain count that overflows a size is rejected");
	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_64, 40, 20);
	tap_check(profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s) == -EINVAL,
	    "sample: a stack copy longer than the record is rejected");
	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_64, UINT64_MAX, 20);
	tap_check(profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s) == -EINVAL,
	    "sample: a stack copy size of 2^64-1 is rejected");
	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_64, 32, 4000);
	r = profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s);
	tap_check(r == 0 && s.stack_dyn == 32, "sample: a dyn_size over the copy is cut to it");
	/* A header that says less than the caller holds: the record ends where it says. */
	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_64, 32, 20);
	{
		struct perf_event_header h;

		memcpy(&h, w.b, sizeof(h));
		h.size = 40;
		memcpy(w.b, &h, sizeof(h));
	}
	tap_check(profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s) == -EINVAL,
	    "sample: a header shorter than the record bounds the read");

	/* No registers (a kernel thread's context): no regs, a copy of size 0 and no dyn_size. */
	sample_of(&w, 3, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	r = profil_perf_sample_parse(ST_ALL, REGS, at_guard(w.b, w.n), w.n, &s);
	tap_check(r == 0 && s.nregs == 0 && s.stack_size == 0 && s.stack_dyn == 0,
	    "sample: without user registers, neither registers nor copy");

	/* Flat samples, as the engine's rings ask for them; and types the decoder refuses. */
	header(&w, PERF_RECORD_SAMPLE, 0);
	bytes_put64(&w, 0x402000);
	put32s(&w, 7, 8);
	finish(&w);
	r = profil_perf_sample_parse(PERF_SAMPLE_IP | PERF_SAMPLE_TID, 0, at_guard(w.b, w.n), w.n,
	    &s);
	tap_check(r == 0 && s.ip == 0x402000 && s.tid == 8 && s.time == 0,
	    "sample: ip and tid alone");
	tap_check(profil_perf_sample_parse(PERF_SAMPLE_IP | PERF_SAMPLE_READ, 0, w.b, w.n, &s) ==
	    -EINVAL && profil_perf_sample_parse(PERF_SAMPLE_IP, 0, w.b, 4, &s) == -EINVAL,
	    "sample: PERF_SAMPLE_READ and a record shorter than its header are refused");
	header(&w, PERF_RECORD_MMAP2, 0);
	bytes_put64(&w, 0);
	finish(&w);
	tap_check(profil_perf_sample_parse(PERF_SAMPLE_IP, 0, w.b, w.n, &s) == -EINVAL,
	    "sample: a record of another type is refused");
}

#define ST_ID	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* Every length of w below upto is rejected by call, without a read past it. */
#define CUTS_REJECTED(w, upto, call) ({ \
	size_t n_, bad_ = 0; \
	for (n_ = 0; n_ < (upto); n_++) { \
		const uint8_t *rec = at_guard((w).b, n_); \
		size_t len = n_; \
		if ((call) == 0) \
			bad_++; \
	} \
	bad_ == 0; \
})

static void
test_sideband(void)
{
	struct profil_perf_mmap m;
	struct profil_perf_comm c;
	struct profil_perf_task t;
	struct profil_perf_lost l;
	struct profil_perf_id id;
	uint8_t bid[24] = { 20, 0, 0, 0, 0xde, 0xad };
	struct test_bytes w;
	int r;

	header(&w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put32s(&w, 10, 11);
	bytes_put64(&w, 0x7f0000);
	bytes_put64(&w, 0x2000);
	bytes_put64(&w, 0x1000);
	bytes_put(&w, bid, sizeof(bid));
	put32s(&w, 5, 2);
	bytes_put(&w, "/lib/x.so\0\0\0\0\0\0\0", 16);
	trailer(&w, 10, 11, 999);
	r = profil_perf_mmap2_parse(ST_ID, at_guard(w.b, w.n), w.n, &m);
	tap_check(r == 0 && m.pid == 10 && m.addr == 0x7f0000 && m.len == 0x2000 &&
	    m.pgoff == 0x1000 && m.prot == 5 && m.build_id_len == 20 && m.build_id[0] == 0xde &&
	    m.path_len == 9 && memcmp(m.path, "/lib/x.so", 9) == 0 && m.id.time == 999,
	    "mmap2: range, build-id, prot, path and the sample_id trailer");
	tap_check(CUTS_REJECTED(w, 8 + 64 + 16, profil_perf_mmap2_parse(ST_ID, rec, len, &m)),
	    "mmap2: shorter than its body and trailer, rejected");
	CUTS_REJECTED(w, w.n, profil_perf_mmap2_parse(ST_ID, rec, len, &m));
	tap_check(1, "mmap2: cut at each of %zu lengths, never read past", w.n);
	/* A build-id size over 20 is none; a path without its NUL stops at the trailer. */
	w.b[40] = 200;
	memset(w.b + 72, 'a', 16);
	r = profil_perf_mmap2_parse(ST_ID, at_guard(w.b, w.n), w.n, &m);
	tap_check(r == 0 && m.build_id == NULL && m.build_id_len == 0 && m.path_len == 16,
	    "mmap2: a build-id size that lies, a path without an end");

	header(&w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32s(&w, 20, 21);
	bytes_put(&w, "worker\0\0", 8);
	trailer(&w, 20, 21, 555);
	r = profil_perf_comm_parse(ST_ID, at_guard(w.b, w.n), w.n, &c);
	tap_check(r == 0 && c.pid == 20 && c.tid == 21 && c.exec && c.comm_len == 6 &&
	    memcmp(c.comm, "worker", 6) == 0 && c.id.time == 555,
	    "comm: ids, name, exec and time");
	tap_check(CUTS_REJECTED(w, 8 + 8 + 16, profil_perf_comm_parse(ST_ID, rec, len, &c)),
	    "comm: shorter than its ids and trailer, rejected");
	CUTS_REJECTED(w, w.n, profil_perf_comm_parse(ST_ID, rec, len, &c));
	tap_check(1, "comm: cut at each of %zu lengths, never read past", w.n);

	header(&w, PERF_RECORD_EXIT, 0);
	put32s(&w, 30, 1);
	put32s(&w, 31, 1);
	bytes_put64(&w, 777);
	trailer(&w, 30, 31, 777);
	r = profil_perf_task_parse(at_guard(w.b, w.n), w.n, &t);
	tap_check(r == 0 && t.pid == 30 && t.ppid == 1 && t.tid == 31 && t.ptid == 1 &&
	    t.time == 777, "exit: pid, ppid, tid, ptid and time");
	tap_check(CUTS_REJECTED(w, 32, profil_perf_task_parse(rec, len, &t)),
	    "exit: cut short of its time, rejected");

	header(&w, PERF_RECORD_LOST, 0);
	bytes_put64(&w, 1);
	bytes_put64(&w, 42);
	trailer(&w, 40, 41, 888);
	r = profil_perf_lost_parse(ST_ID, at_guard(w.b, w.n), w.n, &l);
	tap_check(r == 0 && l.lost == 42 && l.has_id && l.id_all.pid == 40 &&
	    l.id_all.time == 888, "lost: the count and whose it is");
	r = profil_perf_lost_parse(ST_ID, at_guard(w.b, 24), 24, &l);
	tap_check(r == 0 && l.lost == 42 && !l.has_id,
	    "lost: the count without a trailer, as the in-process rings read it");
	tap_check(CUTS_REJECTED(w, 24, profil_perf_lost_parse(ST_ID, rec, len, &l)),
	    "lost: shorter than its count, rejected");

	tap_check(profil_perf_id_size(ST_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER) == 32 &&
	    profil_perf_id_parse(ST_ID, w.b, 8 + 15, 0, &id) == -EINVAL,
	    "sample_id: its size from sample_type, and a record too short for it");
}

int
main(void)
{
	page = sysconf(_SC_PAGESIZE);
	guard_init();
	test_ring();
	test_sample();
	test_sideband();
	return tap_failures != 0;
}
