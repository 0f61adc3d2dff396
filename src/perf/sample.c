/*
 * The records of a perf ring decoded: a sample as its event's sample_type lays it out
 * (perf_event_open(2), PERF_RECORD_SAMPLE), and the side-band records both recorders read.
 * Every field is read with memcpy at an offset checked against the record's length first: a
 * ring can be cut short and a fuzzer writes whatever it likes.  Async-signal-safe (memcpy and
 * arithmetic alone): the in-process recorder decodes in a fatal signal's flush.
 */
#include <errno.h>
#include <string.h>

#include "perf.h"

uint64_t
profil_perf_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A reader of a record: where it is, where it ends; a read past the end fails, and stays failed. */
struct cursor {
	const uint8_t *p;
	size_t off, len;
	int bad;
};

static const uint8_t *
take(struct cursor *c, size_t n)
{
	const uint8_t *at = c->p + c->off;

	if (c->bad || n > c->len - c->off) {
		c->bad = 1;
		return NULL;
	}
	c->off += n;
	return at;
}

static uint64_t
take_u64(struct cursor *c)
{
	const uint8_t *at = take(c, 8);

	return at != NULL ? profil_perf_u64(at) : 0;
}

/* Two u32 in one u64 (pid and tid, cpu and reserved), in memory order. */
static void
take_u32s(struct cursor *c, uint32_t *a, uint32_t *b)
{
	const uint8_t *at = take(c, 8);

	if (at == NULL)
		return;
	memcpy(a, at, 4);
	if (b != NULL)
		memcpy(b, at + 4, 4);
}

/*
 * The ids a sample has after its ip and sample_id_all's trailer holds, in the kernel's order:
 * tid, time, (a sample's addr), id, stream_id, cpu.
 */
static void
take_ids(struct cursor *c, uint64_t type, struct profil_perf_id *id, uint64_t *addr)
{
	if (type & PERF_SAMPLE_TID)
		take_u32s(c, &id->pid, &id->tid);
	if (type & PERF_SAMPLE_TIME)
		id->time = take_u64(c);
	if (addr != NULL && (type & PERF_SAMPLE_ADDR))
		*addr = take_u64(c);
	if (type & PERF_SAMPLE_ID)
		id->id = take_u64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		take_u64(c);
	if (type & PERF_SAMPLE_CPU)
		take_u32s(c, &id->cpu, NULL);
}

int
profil_perf_sample_parse(uint64_t sample_type, uint64_t regs_user, const uint8_t *rec,
    size_t len, struct profil_perf_sample *s)
{
	struct perf_event_header h;
	struct cursor c = { rec, sizeof(h), len, 0 };
	struct profil_perf_id id = { 0, 0, 0, 0, 0 };
	uint32_t raw;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	/* A header that says less than the caller holds bounds the read. */
	if (h.size < c.len)
		c.len = h.size < sizeof(h) ? sizeof(h) : h.size;
	/* Not decoded: the layouts of these depend on more of the attribute than sample_type. */
	if (sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		id.id = take_u64(&c);
	if (sample_type & PERF_SAMPLE_IP)
		s->ip = take_u64(&c);
	take_ids(&c, sample_type, &id, &s->addr);
	s->pid = id.pid;
	s->tid = id.tid;
	s->time = id.time;
	s->id = id.id;
	s->cpu = id.cpu;
	if (sample_type & PERF_SAMPLE_PERIOD)
		s->period = take_u64(&c);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take_u64(&c);

		if (c.bad || nr > (c.len - c.off) / 8)
			return -EINVAL;
		s->nchain = (size_t)nr;
		s->chain = take(&c, s->nchain * 8);
	}
	if (sample_type & PERF_SAMPLE_RAW) {
		const uint8_t *at = take(&c, 4);

		if (at == NULL)
			return -EINVAL;
		memcpy(&raw, at, 4);
		take(&c, raw);
	}
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = take_u64(&c);
		if (!c.bad && s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			uint64_t m;

			for (m = regs_user; m != 0 && !c.bad; m &= m - 1) {
				uint64_t v = take_u64(&c);

				if (s->nregs < PROFIL_PERF_MAX_REGS)
					s->regs[s->nregs++] = v;
			}
		}
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		s->stack_off = c.off;
		s->stack_size = take_u64(&c);
		s->stack = c.p + c.off;
		/* The kernel writes no copy and no dyn_size where it had no registers. */
		if (!c.bad && s->stack_size > 0) {
			if (s->stack_size > c.len - c.off)
				return -EINVAL;
			take(&c, (size_t)s->stack_size);
			s->stack_dyn = take_u64(&c);
			if (s->stack_dyn > s->stack_size)
				s->stack_dyn = s->stack_size;
		}
	}
	return c.bad ? -EINVAL : 0;
}

size_t
profil_perf_id_size(uint64_t sample_type)
{
	static const uint64_t fields[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	size_t i, n = 0;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		n += (sample_type & fields[i]) != 0 ? 8 : 0;
	return n;
}

int
profil_perf_id_parse(uint64_t sample_type, const uint8_t *rec, size_t len, size_t body,
    struct profil_perf_id *id)
{
	size_t n = profil_perf_id_size(sample_type);
	struct cursor c = { rec, 0, len, 0 };

	memset(id, 0, sizeof(*id));
	if (len < sizeof(struct perf_event_header) || body > len - sizeof(struct perf_event_header) ||
	    n > len - sizeof(struct perf_event_header) - body)
		return -EINVAL;
	c.off = len - n;
	take_ids(&c, sample_type, id, NULL);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		id->id = take_u64(&c);
	return c.bad ? -EINVAL : 0;
}

/* The record's header, if it is one of type. */
static int
is_type(const uint8_t *rec, size_t len, uint32_t type, struct perf_event_header *h)
{
	if (len < sizeof(*h))
		return 0;
	memcpy(h, rec, sizeof(*h));
	return h->type == type;
}

/* A string of the body: up to its NUL, never past max bytes. */
static size_t
text_len(const uint8_t *p, size_t max)
{
	const uint8_t *nul = memchr(p, '\0', max);

	return nul != NULL ? (size_t)(nul - p) : max;
}

int
profil_perf_mmap2_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_mmap *m)
{
	/* pid/tid, addr/len/pgoff, maj/min/ino/ino_generation or the build-id, prot/flags. */
	const size_t fixed = 8 + 24 + 24 + 8, hdr = sizeof(struct perf_event_header);
	struct perf_event_header h;
	struct cursor c = { rec, hdr, len, 0 };

	memset(m, 0, sizeof(*m));
	if (!is_type(rec, len, PERF_RECORD_MMAP2, &h) ||
	    profil_perf_id_parse(sample_type, rec, len, fixed, &m->id) < 0)
		return -EINVAL;
	take_u32s(&c, &m->pid, &m->tid);
	m->addr = take_u64(&c);
	m->len = take_u64(&c);
	m->pgoff = take_u64(&c);
	if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->build_id_len = rec[c.off];
		m->build_id = rec + c.off + 4;
		if (m->build_id_len > 20) {
			m->build_id_len = 0;
			m->build_id = NULL;
		}
	}
	take(&c, 24);
	take_u32s(&c, &m->prot, &m->flags);
	m->path = (const char *)rec + c.off;
	m->path_len = text_len(rec + c.off, len - c.off - profil_perf_id_size(sample_type));
	return c.bad ? -EINVAL : 0;
}

int
profil_perf_comm_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_comm *cm)
{
	const size_t hdr = sizeof(struct perf_event_header);
	struct perf_event_header h;
	struct cursor c = { rec, hdr, len, 0 };

	memset(cm, 0, sizeof(*cm));
	if (!is_type(rec, len, PERF_RECORD_COMM, &h) ||
	    profil_perf_id_parse(sample_type, rec, len, 8, &cm->id) < 0)
		return -EINVAL;
	take_u32s(&c, &cm->pid, &cm->tid);
	cm->exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	cm->comm = (const char *)rec + c.off;
	cm->comm_len = text_len(rec + c.off, len - c.off - profil_perf_id_size(sample_type));
	return c.bad ? -EINVAL : 0;
}

int
profil_perf_task_parse(const uint8_t *rec, size_t len, struct profil_perf_task *t)
{
	struct perf_event_header h;
	struct cursor c = { rec, sizeof(h), len, 0 };

	memset(t, 0, sizeof(*t));
	if (!is_type(rec, len, PERF_RECORD_FORK, &h) && !is_type(rec, len, PERF_RECORD_EXIT, &h))
		return -EINVAL;
	take_u32s(&c, &t->pid, &t->ppid);
	take_u32s(&c, &t->tid, &t->ptid);
	t->time = take_u64(&c);
	return c.bad ? -EINVAL : 0;
}

int
profil_perf_lost_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_lost *l)
{
	struct perf_event_header h;
	struct cursor c = { rec, sizeof(h), len, 0 };

	memset(l, 0, sizeof(*l));
	if (!is_type(rec, len, PERF_RECORD_LOST, &h))
		return -EINVAL;
	l->id = take_u64(&c);
	l->lost = take_u64(&c);
	if (c.bad)
		return -EINVAL;
	l->has_id = profil_perf_id_parse(sample_type, rec, len, 16, &l->id_all) == 0;
	return 0;
}
