/*
 * jitdump.c - the jitdump format of perf's JIT interface (tools/perf/Documentation/
 * jitdump-specification.txt): a 40-byte header, then records of a 16-byte prefix (id, total
 * size, timestamp) and a body.  Only two kinds name code: CODE_LOAD (pid, tid, vma, code
 * address, code size, index, the NUL-terminated name, then the code itself) and CODE_MOVE
 * (the same code at a new address).  Debug and unwinding records are skipped.  Written by node
 * --perf-prof, the JVM agent libperf-jvmti, and others; the writer maps the file executable,
 * which is how the recorder learns its path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "jit/jit.h"

#define JITDUMP_MAGIC		0x4a695444u	/* "JiTD" in the writer's byte order */
#define JITDUMP_HEADER		40
#define JIT_CODE_LOAD		0
#define JIT_CODE_MOVE		1
#define REC_PREFIX		16
#define LOAD_FIXED		(REC_PREFIX + 40)	/* prefix, pid, tid, vma, addr, size, index */
#define MOVE_FIXED		(REC_PREFIX + 48)
/* A name longer than the table keeps is cut; one longer than this is no name. */
#define MAX_NAME_SCAN		(64u << 10)

static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t
u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The slot of addr: a seeded mix (splitmix64's), so that no file can put all its codes in one
 * slot and make every lookup walk them all. */
static size_t
code_slot(const struct profil_jit_table *t, uint64_t addr)
{
	uint64_t h = addr ^ t->seed;

	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ h >> 27) * 0x94d049bb133111ebull;
	return (size_t)(h ^ h >> 31) & (t->capcodes - 1);
}

/* The code loaded at addr, or NULL: what a move of it names, found in constant time. */
static struct profil_jit_code *
code_at(struct profil_jit_table *t, uint64_t addr)
{
	size_t j;

	if (t->capcodes == 0 || addr == 0)
		return NULL;
	for (j = code_slot(t, addr); t->codes[j].addr != 0; j = (j + 1) & (t->capcodes - 1))
		if (t->codes[j].addr == addr)
			return &t->codes[j];
	return NULL;
}

/*
 * Adds a name for code at addr, and remembers it for a move of that code.  Returns 0 or
 * -ENOMEM.
 */
static int
code_add(struct profil_jit_table *t, uint64_t addr, uint64_t size, const char *name, size_t len)
{
	struct profil_jit_code *c, *old = t->codes;
	const struct profil_jit_sym *s;
	size_t i, j, cap = t->capcodes, before = t->n;

	if (profil_jit_add(t, addr, size, PROFIL_CODE_JITDUMP, name, len) != 0)
		return -ENOMEM;
	if (t->n == before || addr == 0)
		return 0;	/* nothing named: no code there */
	s = &t->syms[t->n - 1];
	c = code_at(t, addr);
	if (c == NULL && 2 * (t->ncodes + 1) > t->capcodes) {
		t->capcodes = cap ? 2 * cap : 256;
		t->codes = calloc(t->capcodes, sizeof(*t->codes));
		if (t->codes == NULL) {
			t->codes = old;
			t->capcodes = cap;
			return -ENOMEM;
		}
		for (i = 0; i < cap; i++) {
			if (old[i].addr == 0)
				continue;
			for (j = code_slot(t, old[i].addr); t->codes[j].addr != 0;
			     j = (j + 1) & (t->capcodes - 1))
				;
			t->codes[j] = old[i];
		}
		free(old);
	}
	if (c == NULL) {
		for (j = code_slot(t, addr); t->codes[j].addr != 0;
		     j = (j + 1) & (t->capcodes - 1))
			;
		c = &t->codes[j];
		c->addr = addr;
		t->ncodes++;
	}
	c->name = s->name;
	c->len = s->len;
	return 0;
}

ssize_t
profil_jit_dump_parse(struct profil_jit_table *t, const uint8_t *p, size_t len, uint64_t at,
    uint64_t *next)
{
	const struct profil_jit_code *c;
	size_t off = 0, n;
	uint32_t id, total;
	ssize_t added = 0;
	const uint8_t *nul;
	char name[PROFIL_JIT_MAX_NAME];

	*next = at;
	if (at == 0) {
		if (len < JITDUMP_HEADER)
			return 0;
		/* Another byte order, or not a jitdump at all. */
		if (u32_at(p) != JITDUMP_MAGIC)
			return -EINVAL;
		total = u32_at(p + 8);
		if (total < JITDUMP_HEADER || total > len)
			return total < JITDUMP_HEADER ? -EINVAL : 0;
		off = total;
		*next = total;
	}
	while (len - off >= REC_PREFIX) {
		const uint8_t *r = p + off;

		id = u32_at(r);
		total = u32_at(r + 4);
		if (total < REC_PREFIX)
			return -EINVAL;
		if (id == JIT_CODE_LOAD) {
			if (total < LOAD_FIXED + 1)
				return -EINVAL;
			if (len - off < LOAD_FIXED)
				break;
			n = len - off - LOAD_FIXED;
			if (n > total - LOAD_FIXED)
				n = total - LOAD_FIXED;
			if (n > MAX_NAME_SCAN)
				n = MAX_NAME_SCAN;
			nul = memchr(r + LOAD_FIXED, '\0', n);
			if (nul == NULL && (n == MAX_NAME_SCAN || n == total - LOAD_FIXED))
				return -EINVAL;	/* too long to be a name, or past its record */
			if (nul == NULL)
				break;	/* the name is not all in the buffer yet */
			n = (size_t)(nul - (r + LOAD_FIXED));
			if (u64_at(r + 40) > total - LOAD_FIXED - n - 1)
				return -EINVAL;	/* code larger than its record */
			if (code_add(t, u64_at(r + 32), u64_at(r + 40), (const char *)r + LOAD_FIXED,
			    n) != 0)
				return -ENOMEM;
			added++;
		} else if (id == JIT_CODE_MOVE) {
			if (total < MOVE_FIXED)
				return -EINVAL;
			if (len - off < MOVE_FIXED)
				break;
			c = code_at(t, u64_at(r + 32));
			if (c != NULL) {
				n = c->len;
				memcpy(name, t->names + c->name, n);
				if (code_add(t, u64_at(r + 40), u64_at(r + 48), name, n) != 0)
					return -ENOMEM;
				added++;
			}
		}
		/* Taken: the next record starts after this one's code, in the buffer or not. */
		*next = at + off + total;
		if (total > len - off)
			break;
		off += total;
	}
	return added;
}
