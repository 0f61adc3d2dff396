/*
 * mapline.c - the allocation-free pieces of perf's JIT interface: one line of a perf map
 * (perfmap.c says whose), the name of a jitdump file, and the opening of either.  The in-process recorder uses them as
 * it writes its last profile, in signal context too (src/record/jitnames.c); the readers of
 * the profil command use them as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int
profil_jit_map_line(const char *line, const char *nl, uint64_t *start, uint64_t *size,
    const char **name, size_t *n)
{
	const char *q = hex_field(line, nl, start);

	if (q != NULL)
		q = hex_field(q, nl, size);
	if (q == NULL || q >= nl)
		return 0;
	*n = (size_t)(nl - q);
	if (*n > 0 && q[*n - 1] == '\r')
		(*n)--;
	*name = q;
	return *n > 0 && memchr(q, '\0', *n) == NULL;
}

int
profil_jit_is_dump_path(const char *path, size_t len)
{
	const char *base = path, *p;
	size_t i, n;

	for (i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	n = len - (size_t)(base - path);
	if (n < 10 || memcmp(base, "jit-", 4) != 0 || memcmp(base + n - 5, ".dump", 5) != 0)
		return 0;
	for (p = base + 4; p < base + n - 5; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

int
profil_jit_source_open(const char *path, struct stat *st, const char **why)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		*why = errno == ENOENT || errno == EACCES ? NULL : errno == ELOOP ?
		    "a symbolic link" : "cannot be opened";
		return -errno;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		*why = "not a regular file";
		return -EINVAL;
	}
	/* perf's rule: anyone can create files in /tmp. */
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		close(fd);
		*why = "owned by another user";
		return -EPERM;
	}
	return fd;
}
