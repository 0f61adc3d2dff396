/*
 * escape.c - names made safe to print (escape.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/escape.h"

/*
 * The length of the valid UTF-8 sequence at p that is not a C1 control, or 0: bytes of an
 * invalid sequence, an overlong form, a surrogate or a C1 control are escaped one by one.
 */
static size_t
utf8_ok(const unsigned char *p)
{
	uint32_t c;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c <= 0x9f))
		return 0;
	return n;
}

/* What escape() escapes for: a name shown, a line of source text, a JSON string. */
enum escape_mode {
	ESCAPE_NAME,
	ESCAPE_TEXT,
	ESCAPE_JSON,
};

static int
needs_escape(const unsigned char *p, size_t *n, enum escape_mode mode)
{
	if (mode == ESCAPE_TEXT && *p == '\t') {
		*n = 1;
		return 0;
	}
	if ((mode != ESCAPE_TEXT && *p == '\\') || (mode == ESCAPE_JSON && *p == '"') ||
	    *p < 0x20 || *p == 0x7f) {
		*n = 1;
		return 1;
	}
	*n = utf8_ok(p);
	if (*n == 0) {
		*n = 1;
		return 1;
	}
	return 0;
}

static const char *
escape(const char *s, char *buf, size_t len, enum escape_mode mode)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, at = 0;

	for (; *p != '\0'; p += n)
		if (needs_escape(p, &n, mode))
			break;
	if (*p == '\0')
		return s;
	if (len == 0)
		return "";
	for (p = (const unsigned char *)s; *p != '\0'; p += n) {
		char esc[8];
		const char *add = esc;
		size_t k;

		if (!needs_escape(p, &n, mode)) {
			add = (const char *)p;
			k = n;
		} else if (*p == '\\' || *p == '"' || *p == '\t' || *p == '\n' || *p == '\r') {
			esc[0] = '\\';
			esc[1] = *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : (char)*p;
			k = 2;
		} else if (mode == ESCAPE_JSON && *p < 0x80) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			k = 6;
		} else if (mode == ESCAPE_JSON) {
			/* JSON is UTF-8 text: a byte that is none stands as U+FFFD. */
			memcpy(esc, "\\ufffd", 6);
			k = 6;
		} else {
			snprintf(esc, sizeof(esc), "\\%03o", *p);
			k = 4;
		}
		if (at + k >= len)
			break;
		memcpy(buf + at, add, k);
		at += k;
	}
	buf[at] = '\0';
	return buf;
}

const char *
profil_escape(const char *s, char *buf, size_t len)
{
	return escape(s, buf, len, ESCAPE_NAME);
}

const char *
profil_escape_text(const char *s, char *buf, size_t len)
{
	return escape(s, buf, len, ESCAPE_TEXT);
}

const char *
profil_escape_json(const char *s, char *buf, size_t len)
{
	return escape(s, buf, len, ESCAPE_JSON);
}
