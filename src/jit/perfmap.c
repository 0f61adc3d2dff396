/*
 * perfmap.c - the perf map: text lines "START SIZE name", START and SIZE in hexadecimal, the
 * name the rest of the line (it may hold spaces: "LazyCompile:~f file.js:1").  Written by node
 * --perf-basic-prof, the JVM (-XX:+DumpPerfMapAtExit, jcmd Compiler.perfmap), CPython -X perf,
 * .NET, LuaJIT and others to /tmp/perf-PID.map.
 */
#include <errno.h>
#include <string.h>

#include "format/format.h"
#include "jit/jit.h"

/* A hexadecimal number with an optional 0x, then at least one space.  NULL when not one. */
static const char *
hex_field(const char *p, const char *end, uint64_t *v)
{
	const char *start;
	int d;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (start = p; p < end; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (p - start >= 16)
			return NULL;	/* more than 64 bits */
		*v = *v << 4 | (uint64_t)d;
	}
	if (p == start || p == end || *p != ' ')
		return NULL;
	while (p < end && *p == ' ')
		p++;
	return p;
}

ssize_t
profil_jit_map_parse(struct profil_jit_table *t, const char *p, size_t len, size_t *used)
{
	const char *line = p, *end = p + len, *nl, *q;
	uint64_t start, size;
	ssize_t added = 0;
	size_t n;

	*used = 0;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL) {
			if ((size_t)(end - line) > PROFIL_JIT_MAX_LINE)
				return -EINVAL;
			break;	/* incomplete: the writer is in the middle of it */
		}
		if ((size_t)(nl - line) > PROFIL_JIT_MAX_LINE)
			return -EINVAL;
		q = hex_field(line, nl, &start);
		if (q != NULL)
			q = hex_field(q, nl, &size);
		if (q != NULL && q < nl) {
			n = (size_t)(nl - q);
			if (n > 0 && q[n - 1] == '\r')
				n--;
			if (n > 0 && memchr(q, '\0', n) == NULL) {
				if (profil_jit_add(t, start, size, PROFIL_CODE_PERF_MAP, q, n) != 0)
					return -ENOMEM;
				added++;
			}
		}
		line = nl + 1;
		*used = (size_t)(line - p);
	}
	return added;
}
