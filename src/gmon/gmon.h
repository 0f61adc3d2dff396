/*
 * gmon.h - the -pg runtime: monstartup(3), moncontrol(3), _mcleanup and mcount, and the
 * OpenBSD-style profil_gmon() call they are built on.
 *
 * The profile buffer *is* a MAP_SHARED mapping of the output file, created at start in the
 * directory fixed then (OpenBSD profil(2): "the kernel writes out the profiling information on
 * behalf of the terminating process"; glibc's LD_PROFILE does the same for sprof).  The file is
 * a complete GNU gmon file at every moment, so whatever ends the process (exit, _exit, a fatal
 * signal, SIGKILL, a seccomp kill) the kernel leaves a profile gprof reads.  Its layout:
 *
 *	gmon header (20)  "gmon", version 1, 12 spare bytes
 *	empty arc (21)    tag 1, zeros: gprof drops an arc without symbols; it puts the bins
 *	                  at an even offset so that threads can add to them atomically
 *	histogram (1+40)  tag 0, low_pc, high_pc, bins, rate in Hz, "seconds", 's'
 *	bins              2 bytes each, one per 4 bytes of text (scale 32768, as glibc)
 *	arc tables        one per thread that called mcount, each a hash table whose slots are
 *	                  gmon arc records (tag 1, from_pc, self_pc, count); empty slots are zero
 *	                  arcs, and gprof sums the same arc found in several tables
 *
 * At exit the tables are merged into one, as OpenBSD's gmon.c merges its per-thread tables, in a
 * new file renamed over the name: whatever ends the merge, the name holds a whole profile.
 */
#ifndef PROFIL_GMON_H
#define PROFIL_GMON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "engine/engine.h"

/* gmon_out.h */
#define PROFIL_GMON_HDR_SIZE	20
#define PROFIL_GMON_TAG_HIST	0
#define PROFIL_GMON_TAG_ARC	1
#define PROFIL_GMON_HIST_SIZE	40

/* One u_short bin per 4 bytes of text: glibc's HISTFRACTION 2, so scale 32768. */
#define PROFIL_GMON_BIN_BYTES	4
#define PROFIL_GMON_SCALE	32768

/* Threads with a table of their own; later threads reuse the tables of threads that ended. */
#define PROFIL_GMON_TABLES	256

/* An arc as the file holds it: 21 bytes, no padding, native byte order. */
struct profil_gmon_arc {
	uint8_t tag;
	uint64_t from_pc;
	uint64_t self_pc;
	uint32_t count;
} __attribute__((packed));

/* A thread's arc table: a window of the file's slots, written by that thread only. */
struct profil_gmon_table {
	struct profil_gmon_arc *slots;
	atomic_int owned;	/* a live thread writes here */
	atomic_int inside;	/* that thread is in mcount now (exit waits for 0) */
	size_t used;
};

enum profil_gmon_state {
	PROFIL_GMON_OFF = 0,	/* not set up, stopped by moncontrol(0), or after exit */
	PROFIL_GMON_ON = 1,
};

struct profil_gmon {
	atomic_int setup;		/* __monstartup ran: profil_gmon() is allowed (EPERM) */
	atomic_int state;		/* enum profil_gmon_state, read by every mcount */
	atomic_int finished;		/* tables merged, file final */

	/* The buffer: the whole file, mapped shared. */
	unsigned char *buf;
	size_t buflen;			/* bytes mapped (reserved); the file may be shorter */
	int fd;				/* the file, to grow it as threads claim tables */
	int dirfd;			/* the directory fixed at start */
	char name[256];			/* gmon.<progname>.<pid>.out */

	/* Histogram: the engine ticks into the file's bins. */
	uintptr_t lowpc, highpc;	/* run-time addresses */
	uintptr_t bias;			/* the executable's load bias (file addresses: pc - bias) */
	size_t samplesize;		/* bytes of bins */
	unsigned int hz;
	struct profil_bins bins;
	struct profil_sink sink;

	/* Arcs. */
	size_t arcs_off;		/* file offset of table 0 */
	size_t nslots;			/* per table, a power of two */
	size_t maxarcs;			/* per table: a new arc beyond this is dropped */
	atomic_size_t ntables;		/* tables handed out so far (the file covers them) */
	struct profil_gmon_table tables[PROFIL_GMON_TABLES];
	atomic_uint_least64_t dropped;	/* calls not recorded because a table was full */
	atomic_int reported;		/* the full table was reported on stderr */
	int membarrier;			/* exit can prove every mcount has left */
};

extern struct profil_gmon profil_gmon_rt;

/* The slot of the arc from -> to in a table of mask + 1 slots (mcount's and the merge's). */
static inline size_t
profil_gmon_arc_hash(uint64_t from, uint64_t to, size_t mask)
{
	return (size_t)(profil_hash_spread(from, to, 0) >> 29) & mask;
}

/* src/gmon/mcount.c: the C half of mcount, and a thread's end. */
void profil_gmon_mcount(uintptr_t frompc, uintptr_t selfpc);
int profil_gmon_tables_init(void);
void profil_gmon_thread_forget_all(void);
int profil_gmon_table_is_mine(size_t i);
/* Tables being handed out right now: exit waits for 0 before it merges. */
extern atomic_int profil_gmon_claiming;

/* src/gmon/file.c */
int profil_gmon_file_create(int dirfd, const char *name, size_t len);
int profil_gmon_file_map(int fd, size_t filelen, size_t maplen, void *at, unsigned char **out);
int profil_gmon_file_grow(size_t end);
size_t profil_gmon_file_length(void);
void profil_gmon_file_set_length(size_t len);
int profil_gmon_file_relocate(int dirfd);
void profil_gmon_name(char *out, size_t len, pid_t pid);

/*
 * src/gmon/merge.c: the tables become one and the file its final size.  AS-safe.
 * quiesce: mcount is off and no thread is inside it any more (0), or -EBUSY.
 */
void profil_gmon_finish(void);
int profil_gmon_quiesce(void);
/* Merges nslots slots in place into one record per arc; returns how many, or -errno. */
long profil_gmon_merge(struct profil_gmon_arc *arcs, size_t nslots);

/* src/gmon/control.c: start and stop, engine lock held. */
int profil_gmon_start_locked(void);
void profil_gmon_stop_locked(void);

/* One line on stderr with write(2): "profil: gmon: <what>: '<subject>'".  AS-safe. */
void profil_gmon_warn(const char *what, const char *subject);

#endif /* PROFIL_GMON_H */
