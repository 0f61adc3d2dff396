/*
 * Formatting into a fixed buffer where snprintf(3) may not be called: signal handlers, the
 * fatal-signal flush, a fork child, mcount.  Inline, no library call at all, so the
 * signal-safety check (tools/check-signal-safe.sh) has nothing to allow.
 */
#ifndef PROFIL_BASE_APPEND_H
#define PROFIL_BASE_APPEND_H

#include <stddef.h>

/*
 * Appends s (NULL: nothing) to out, a buffer of cap bytes holding at of them, cutting where it
 * is full, and ends it with a NUL.  Returns the new length, at most cap - 1.
 */
static inline size_t
profil_append(char *out, size_t at, size_t cap, const char *s)
{
	while (s != NULL && *s != '\0' && at + 1 < cap)
		out[at++] = *s++;
	if (at < cap)
		out[at] = '\0';
	return at;
}

/* The same with v in decimal. */
static inline size_t
profil_append_uint(char *out, size_t at, size_t cap, unsigned long v)
{
	char digits[24], *d = digits + sizeof(digits);

	*--d = '\0';
	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	return profil_append(out, at, cap, d);
}

#endif
