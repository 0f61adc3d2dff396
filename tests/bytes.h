/*
 * bytes.h - a buffer test programs write binary input into field by field, as the producer
 * would (an .eh_frame section, perf records).  Header-only, as tap.h.
 */
#ifndef PROFIL_TEST_BYTES_H
#define PROFIL_TEST_BYTES_H

#include <stdint.h>
#include <string.h>

struct test_bytes {
	uint8_t b[1024];
	size_t n;
};

static __attribute__((unused)) void
bytes_put(struct test_bytes *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static __attribute__((unused)) void
bytes_put32(struct test_bytes *w, uint32_t v)
{
	bytes_put(w, &v, 4);
}

static __attribute__((unused)) void
bytes_put64(struct test_bytes *w, uint64_t v)
{
	bytes_put(w, &v, 8);
}

#endif /* PROFIL_TEST_BYTES_H */
