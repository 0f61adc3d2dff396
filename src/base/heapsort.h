/*
 * An in-place sort without allocation, where qsort(3) may not be called (it may call malloc):
 * the fatal-signal flush, the recorder's thread.  Inline; its memcpy of an element's size,
 * known where it is inlined, compiles to moves.  Not stable.
 */
#ifndef PROFIL_BASE_HEAPSORT_H
#define PROFIL_BASE_HEAPSORT_H

#include <stddef.h>
#include <string.h>

static inline __attribute__((always_inline)) void
profil_heap_swap(unsigned char *a, unsigned char *b, size_t size)
{
	unsigned char t[32];

	/* Whole elements at once: with size known where it is inlined, a few moves. */
	if (size <= sizeof(t)) {
		memcpy(t, a, size);
		memcpy(a, b, size);
		memcpy(b, t, size);
		return;
	}
	while (size-- > 0) {
		unsigned char c = *a;

		*a++ = *b;
		*b++ = c;
	}
}

static inline __attribute__((always_inline)) void
profil_heap_sift(unsigned char *e, size_t root, size_t n, size_t size,
    int (*before)(const void *, const void *))
{
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && before(e + child * size, e + (child + 1) * size))
			child++;
		if (!before(e + root * size, e + child * size))
			return;
		profil_heap_swap(e + root * size, e + child * size, size);
		root = child;
	}
}

/* Sorts n elements of size bytes at base so that none is before() the one ahead of it. */
static inline __attribute__((always_inline)) void
profil_heapsort(void *base, size_t n, size_t size, int (*before)(const void *, const void *))
{
	unsigned char *e = base;
	size_t i;

	for (i = n / 2; i-- > 0;)
		profil_heap_sift(e, i, n, size, before);
	for (i = n; i-- > 1;) {
		profil_heap_swap(e, e + i * size, size);
		profil_heap_sift(e, 0, i, size, before);
	}
}

#endif /* PROFIL_BASE_HEAPSORT_H */
