/*
 * jit.c - libFuzzer harness for the parsers of JIT names (src/jit): the first byte chooses a
 * perf map or a jitdump file, the second where the input is cut in two, as a file is read
 * while the JIT still writes it.  Fed in those two pieces, the parser must take exactly what
 * it takes from the whole input at once (the same names, in the same order), never read past
 * what it was given (ASan), and every name it keeps must be found again by its start.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "jit/jit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parses p[0, len) from file offset *at as a source would; returns the names added or -1. */
static ssize_t
feed(struct profil_jit_table *t, int dump, const uint8_t *file, size_t len, uint64_t *at)
{
	uint64_t next;
	size_t used;
	ssize_t r;

	if (*at >= len)
		return 0;
	if (dump) {
		r = profil_jit_dump_parse(t, file + *at, len - *at, *at, &next);
		if (r >= 0)
			*at = next;
	} else {
		r = profil_jit_map_parse(t, (const char *)file + *at, len - *at, &used);
		if (r >= 0)
			*at += used;
	}
	return r < 0 ? -1 : r;
}

static int
same(const struct profil_jit_table *a, const struct profil_jit_table *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->syms[i].start != b->syms[i].start || a->syms[i].size != b->syms[i].size ||
		    a->syms[i].len != b->syms[i].len ||
		    memcmp(profil_jit_name(a, &a->syms[i]), profil_jit_name(b, &b->syms[i]),
		    a->syms[i].len) != 0)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profil_jit_table whole, parts;
	uint64_t at1 = 0, at2 = 0;
	ssize_t r1, r2a, r2b = 0;
	size_t cut, i;
	int dump;

	if (size < 2)
		return 0;
	dump = data[0] & 1;
	cut = size > 2 ? data[1] % (size - 2) : 0;
	data += 2;
	size -= 2;
	profil_jit_table_init(&whole);
	profil_jit_table_init(&parts);
	r1 = feed(&whole, dump, data, size, &at1);
	/* The same file, first as its first cut bytes, then whole, from where the first stopped. */
	r2a = feed(&parts, dump, data, cut, &at2);
	if (r2a >= 0)
		r2b = feed(&parts, dump, data, size, &at2);
	if (r1 >= 0 && r2a >= 0 && r2b >= 0 && (!same(&whole, &parts) || at1 != at2))
		abort();
	(void)profil_jit_find(&whole, 0);	/* sorted now, so syms[i] stays put */
	for (i = 0; i < whole.n; i++) {
		struct profil_jit_sym *s = profil_jit_find(&whole, whole.syms[i].start);

		if (s == NULL || whole.syms[i].start - s->start >= s->size)
			abort();
	}
	profil_jit_table_free(&whole);
	profil_jit_table_free(&parts);
	return 0;
}
