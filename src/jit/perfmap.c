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
		if (profil_jit_map_line(line, nl, &start, &size, &q, &n)) {
			if (profil_jit_add(t, start, size, PROFIL_CODE_PERF_MAP, q, n) != 0)
				return -ENOMEM;
			added++;
		}
		line = nl + 1;
		*used = (size_t)(line - p);
	}
	return added;
}
