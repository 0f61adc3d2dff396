/*
 * format.h - the profile file written by the recorder (src/record) and read by everything else
 * (profil report, the exporters).  docs/FORMAT.md is the byte-level description; this header is
 * the one reader and the one writer of it.  What a file holds, as they hand it over, is the
 * profile model: profile/profile.h.
 *
 * A file is an 16-byte preamble and a sequence of length-framed records, each with a CRC-32,
 * ending with an END record.  All integers are little-endian and fixed-width.  A reader that
 * meets a record type it does not know skips it (the frame says how long it is); a record longer
 * than the fields a reader knows has its tail ignored.  So fields and record types are only ever
 * added, and PROFIL_FORMAT_VERSION changes only when an old reader would misread a new file.
 */
#ifndef PROFIL_FORMAT_H
#define PROFIL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* 8 bytes; the file holds no terminating NUL. */
#define PROFIL_FORMAT_MAGIC	"\x89PROFIL\n"
#define PROFIL_FORMAT_VERSION	1

/* Record types. */
enum profil_record_type {
	PROFIL_REC_HEADER = 1,	/* exactly one, first */
	PROFIL_REC_MAPPING = 2,
	PROFIL_REC_THREAD = 3,
	PROFIL_REC_SAMPLE = 4,
	PROFIL_REC_PROCESSES = 0x50524f43, /* "PROC": the processes the recording had seen */
	PROFIL_REC_CODE = 0x434f4445,	/* "CODE": a name for code in anonymous memory (JIT) */
	PROFIL_REC_TIME = 0x54494d45,	/* "TIME": when the samples' ticks were taken */
	PROFIL_REC_END = 0x454e44,	/* "END": last; the file is complete */
};

/*
 * profil_file_read - reads and checks a whole profile file into *out.
 *
 * Rejects a file that is not a profile, has another major version, is truncated (no END
 * record), or has a record whose checksum, length or contents do not hold; a message naming
 * the problem and the byte offset goes to err (always NUL-terminated when errlen > 0).
 * Duplicate samples (same tid, epoch and stack) are kept as written; readers sum them.
 * Returns 0, or -errno (-EINVAL for a bad file, -ENOMEM, or the error of open/read).
 * Thread-safe; not async-signal-safe (allocates).
 */
int profil_file_read(const char *path, struct profil_file **out, char *err, size_t errlen);

/* The same from a buffer in memory (the reader's core; used by tests and fuzzing). */
int profil_file_parse(const void *data, size_t len, struct profil_file **out, char *err,
    size_t errlen);

/*
 * profil_file_open_regular - opens path for reading without blocking on a FIFO, terminal or
 * device, and keeps it only if it is a regular file (its stat in *st when st is not NULL).
 * Returns the descriptor (close-on-exec, blocking again), or -errno: -EINVAL when the path
 * names something other than a regular file.
 */
struct stat;
int profil_file_open_regular(const char *path, struct stat *st);


/*
 * The writer: serializes field by field into a fixed buffer and writes it out with write(2).
 * Async-signal-safe (no allocation, no locks, no stdio), so the recorder can flush from a
 * fatal-signal handler.  Errors are sticky: check profil_writer_finish().
 */
#define PROFIL_WRITER_BUF	(64 * 1024)

struct profil_writer {
	int fd;
	int error;			/* first -errno, or 0 */
	size_t len;			/* bytes in buf */
	size_t rec;			/* where the open record's frame starts in buf */
	uint64_t records;		/* records written, END excluded */
	uint64_t samples;		/* SAMPLE records written: the index the next one gets */
	uint8_t buf[PROFIL_WRITER_BUF];
};

/* Starts a file on fd: writes the preamble. */
void profil_writer_init(struct profil_writer *w, int fd);
void profil_writer_header(struct profil_writer *w, const struct profil_file_header *h);
void profil_writer_mapping(struct profil_writer *w, const struct profil_file_mapping *m);
void profil_writer_thread(struct profil_writer *w, uint32_t tid, const char *name);
/* The process images the recording had seen when the file was written, with samples or not. */
void profil_writer_processes(struct profil_writer *w, uint64_t seen);
/* A name for code in anonymous memory; names longer than PROFIL_FORMAT_MAX_PATH are cut. */
void profil_writer_code(struct profil_writer *w, uint64_t start, uint64_t size, uint32_t source,
    const char *name, size_t len);
void profil_writer_sample(struct profil_writer *w, uint64_t count, uint32_t tid, uint32_t epoch,
    uint32_t depth, const uint64_t *pcs);
/*
 * When the samples' ticks were taken: n entries whose sample fields index the SAMPLE records
 * written before (w->samples of them), as as many TIME records as they need.  slot_ns is the
 * same for every call on a file (PROFIL_TIME_MIN_SLOT_NS at least).
 */
void profil_writer_time(struct profil_writer *w, uint64_t slot_ns,
    const struct profil_file_time *t, size_t n);
/* A whole file read before, records in the reader's order, CODE records before the samples;
 * TIME records after them; the caller adds any more records, then finishes. */
void profil_writer_file(struct profil_writer *w, const struct profil_file *f);
/* Writes the END record and whatever is buffered.  Returns 0 or the first -errno. */
int profil_writer_finish(struct profil_writer *w);
/*
 * For side files of records (the recorder's spill): init without the preamble, and write out
 * what is buffered without an END.  Returns 0 or the first -errno.
 */
void profil_writer_init_records(struct profil_writer *w, int fd);
int profil_writer_flush(struct profil_writer *w);

/* CRC-32 (IEEE 802.3, as zlib's crc32) of len bytes, continuing from crc (0 to start). */
uint32_t profil_crc32(uint32_t crc, const void *data, size_t len);


#endif /* PROFIL_FORMAT_H */
