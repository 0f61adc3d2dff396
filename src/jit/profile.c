/*
 * profile.c - JIT names for a profile the inside recorder wrote without them.  The recorder
 * names the code of a process's perf map itself as it writes its last profile
 * (src/record/jitnames.c); what it leaves without names (a program killed before that write,
 * a process that mapped a jitdump file, tables spilled to disk, a map it could not open) profil
 * record names here when the program has ended, from the files perf's JIT interface names: the
 * perf map of the profile's pid and the jitdump files the process mapped, which its mappings
 * list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/write.h"
#include "format/format.h"
#include "jit/jit.h"

/* The names from the process's files; a refusal in why. */
static void
names_read(const struct profil_file *f, struct profil_jit_table *t, char *why, size_t cap)
{
	struct profil_jit_source src;
	char map[64];
	size_t i;

	snprintf(map, sizeof(map), "/tmp/perf-%u.map", f->hdr.pid);
	for (i = 0; i <= f->nmaps; i++) {
		memset(&src, 0, sizeof(src));
		if (i == f->nmaps) {
			src.path = map;
			src.kind = PROFIL_CODE_PERF_MAP;
		} else if (profil_jit_is_dump_path(f->maps[i].path, strlen(f->maps[i].path))) {
			src.path = f->maps[i].path;
			src.kind = PROFIL_CODE_JITDUMP;
		} else {
			continue;
		}
		(void)profil_jit_source_read(t, &src);
		if (src.why != NULL && why[0] == '\0')
			snprintf(why, cap, "%.500s: %s", src.path, src.why);
	}
}

ssize_t
profil_jit_name_profile(int dirfd, const char *name, const struct profil_file *f, char *why,
    size_t cap)
{
	struct profil_jit_table t;
	struct profil_writer *w = NULL;
	char tmp[PROFIL_FORMAT_MAX_NAME + 64];
	ssize_t n = 0;
	size_t i;
	int fd, r;

	if (cap > 0)
		why[0] = '\0';
	profil_jit_table_init(&t);
	if (f->ncodes == 0)
		names_read(f, &t, why, cap);
	for (i = 0; i < f->nsamples; i++)
		n += (ssize_t)profil_jit_mark(&t, f->samples[i].pcs, f->samples[i].depth);
	if (n == 0)
		goto out;
	w = malloc(sizeof(*w));
	/* Ours alone: a run killed before its rename leaves no name that stops the next. */
	snprintf(tmp, sizeof(tmp), ".%.*s.%d.jit.tmp", PROFIL_FORMAT_MAX_NAME, name, (int)getpid());
	fd = w == NULL ? -ENOMEM : profil_tmp_create(dirfd, tmp);
	if (fd < 0) {
		n = fd;
		goto out;
	}
	profil_writer_init(w, fd);
	profil_writer_file(w, f);
	profil_jit_write_marked(&t, w);
	r = profil_tmp_commit(dirfd, tmp, name, fd, profil_writer_finish(w));
	if (r < 0)
		n = r;
out:
	free(w);
	profil_jit_table_free(&t);
	return n;
}
