/*
 * jit.h - names for code that JIT compilers write into anonymous memory, read from the files
 * perf's JIT interface defines: the perf map (/tmp/perf-PID.map, a line "START SIZE name" per
 * function) and the jitdump file (jit-PID.dump, binary records of code loaded and moved, which
 * the JIT maps executable so that a profiler sees where it is).
 *
 * Both files only grow while the program runs, so a table is fed incrementally: a source
 * remembers how far it read and takes only complete lines or records on the next call.  Names
 * of the same address later in a file replace earlier ones (code freed and the memory reused).
 * The parsers take bytes, not files, so they are fuzzed directly; the sources hold the only
 * system calls.  Not thread-safe; not for signal context.
 */
#ifndef PROFIL_JIT_H
#define PROFIL_JIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One named range of code; name is an offset into the table's names. */
struct profil_jit_sym {
	uint64_t start;
	uint64_t size;
	uint64_t seq;			/* order of appearance: the newest name wins */
	uint32_t name;
	uint32_t len;
	uint32_t source;		/* PROFIL_CODE_PERF_MAP or PROFIL_CODE_JITDUMP */
	uint32_t used;			/* set by the caller: to be written */
};

/* Where a jitdump's code starts, and its name in the table's names. */
struct profil_jit_code {
	uint64_t addr;			/* 0: a free slot */
	uint32_t name;
	uint32_t len;
};

/* Bounds that keep a hostile or runaway file from taking the recorder's memory. */
#define PROFIL_JIT_MAX_SYMS	(4u << 20)
#define PROFIL_JIT_MAX_NAMES	(256u << 20)	/* bytes of names */
#define PROFIL_JIT_MAX_NAME	4096		/* a longer name is cut */

struct profil_jit_table {
	struct profil_jit_sym *syms;
	size_t n, cap;
	size_t sorted;			/* syms[0, sorted) are in start order */
	uint64_t *maxend;		/* the largest end among syms[0 .. i], when sorted */
	char *names;
	size_t nbytes, capbytes;
	uint64_t seq;
	uint64_t dropped;		/* names refused by the bounds */
	/* jitdump: the newest code loaded at each address, which a move names (open addressing,
	 * a power of two, at most half full). */
	struct profil_jit_code *codes;
	size_t ncodes, capcodes;
	uint64_t seed;			/* of the hash: a file cannot choose where its codes land */
};

void profil_jit_table_init(struct profil_jit_table *t);
void profil_jit_table_free(struct profil_jit_table *t);

/* Adds a name for [start, start + size).  Returns 0, or -ENOMEM (counted in dropped). */
int profil_jit_add(struct profil_jit_table *t, uint64_t start, uint64_t size, uint32_t source,
    const char *name, size_t len);

/*
 * The newest name whose range holds pc, or NULL.  Sorts what was added since the last call.
 * The pointer is valid until the next add.
 */
struct profil_jit_sym *profil_jit_find(struct profil_jit_table *t, uint64_t pc);

/* The name of a symbol (not NUL-terminated: sym->len bytes). */
static inline const char *
profil_jit_name(const struct profil_jit_table *t, const struct profil_jit_sym *sym)
{
	return t->names + sym->name;
}

/*
 * Parses the complete lines of a perf map in p[0, len) into t; *used is set to the bytes
 * taken (up to the last newline).  Lines that are not "START SIZE name" (hexadecimal, with or
 * without 0x) are skipped.  Returns the names added, or -EINVAL for a line longer than
 * PROFIL_JIT_MAX_LINE (not a perf map), or -ENOMEM.
 */
#define PROFIL_JIT_MAX_LINE	(64u << 10)
ssize_t profil_jit_map_parse(struct profil_jit_table *t, const char *p, size_t len,
    size_t *used);

/*
 * Parses the jitdump records in p[0, len), which start at offset at of the file (0 for its
 * header).  *next is set to the file offset of the first record not taken: it may lie past
 * len when a record's code bytes, which are not needed, were not in the buffer.  Returns the
 * names added, or -EINVAL for a file that is not a jitdump of this machine's byte order, or a
 * record whose sizes do not hold, or -ENOMEM.
 */
ssize_t profil_jit_dump_parse(struct profil_jit_table *t, const uint8_t *p, size_t len,
    uint64_t at, uint64_t *next);

/*
 * Marks the names a stack needs: pcs[0] the interrupted pc, the others return addresses (looked
 * up at pc - 1); marker frames are skipped.  Returns the names newly marked.
 */
size_t profil_jit_mark(struct profil_jit_table *t, const uint64_t *pcs, size_t depth);

/* Writes a CODE record for each marked name, and unmarks it.  Returns the records written. */
struct profil_writer;
size_t profil_jit_write_marked(struct profil_jit_table *t, struct profil_writer *w);

/*
 * Adds the names a profile of the inside recorder needs to it, from the perf map of its pid
 * and the jitdump files it mapped: f, the file dir/name as its caller read it (once: this
 * reads nothing more of it), is written under a temporary name renamed over dir/name.  A
 * refused source is said in why (cap bytes; "" when none).  Returns the names added (0: the
 * file is left as it was), or -errno.
 */
ssize_t profil_jit_name_profile(int dirfd, const char *name, const struct profil_file *f,
    char *why, size_t cap);

/* One file a table is fed from. */
struct profil_jit_source {
	char *path;
	uint32_t kind;			/* PROFIL_CODE_PERF_MAP or PROFIL_CODE_JITDUMP */
	uint64_t off;			/* where the next read starts */
	int done;			/* refused or broken: not read again */
	const char *why;		/* why done, for one warning; NULL when not */
};

/*
 * Reads what was added to the source's file since the last call.  The file is opened without
 * following a symbolic link or blocking, and used only when it is a regular file owned by
 * root or by the user profil runs as (perf's rule for these files, which anyone can create in
 * /tmp).  A file that does not exist (yet) is not an error.  Returns the names added, 0, or
 * -errno; on a refusal or a bad file, src->done and src->why are set.
 */
ssize_t profil_jit_source_read(struct profil_jit_table *t, struct profil_jit_source *src);

/* Whether a mapped file's path names a jitdump file (jit-<pid>.dump). */
int profil_jit_is_dump_path(const char *path, size_t len);

/*
 * profil_jit_map_line - the perf-map line [line, nl) (nl at its newline): 1 with its start,
 * size and name (*n bytes, not NUL-terminated, no carriage return), or 0 when it is not one.
 * Allocation-free and async-signal-safe.
 */
int profil_jit_map_line(const char *line, const char *nl, uint64_t *start, uint64_t *size,
    const char **name, size_t *n);

/*
 * profil_jit_source_open - opens a perf map or jitdump file to read as perf does: a regular
 * file (no symbolic link followed, no FIFO waited on) owned by root or by the effective user.
 * Returns the descriptor (close-on-exec) with its stat in *st, or -errno and in *why what is
 * wrong with it (NULL for -ENOENT and -EACCES: not written yet, or not ours).  Async-signal-safe.
 */
struct stat;
int profil_jit_source_open(const char *path, struct stat *st, const char **why);

#endif /* PROFIL_JIT_H */
