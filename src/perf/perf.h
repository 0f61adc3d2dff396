/*
 * perf.h - perf events, one piece for both recorders and the engine's perf clock: an event
 * opened from a small description (event.c), its ring buffer read one record at a time
 * (ring.c, as libperf's perf_mmap__read_event), and the records decoded (sample.c), every
 * length checked against the record's own.  Everything here is async-signal-safe: raw system
 * calls, no allocation, no stdio; the in-process recorder drains rings from the exit hook of a
 * fatal signal, and the engine arms its clock from pcsample(), callable in a signal handler.
 * Internal; hidden in the libraries.
 */
#ifndef PROFIL_PERF_H
#define PROFIL_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What an event samples and says; everything not named is off (exclude_hv always on). */
struct profil_perf_desc {
	int cpu_clock;			/* PERF_COUNT_SW_CPU_CLOCK, else the task clock */
	uint64_t period_ns;		/* sample_period, on the clock's nanoseconds */
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t regs_user;		/* with PERF_SAMPLE_REGS_USER */
	uint32_t stack_user;		/* with PERF_SAMPLE_STACK_USER: bytes copied */
	uint16_t max_stack;		/* sample_max_stack; 0: the kernel's default */
	uint32_t wakeup_bytes;		/* watermark: woken when this many are written; 0: off */
	unsigned int disabled : 1;
	unsigned int enable_on_exec : 1;
	unsigned int inherit : 1;
	unsigned int kernel : 1;	/* the kernel sampled too, with its frames in chains */
	unsigned int exclude_idle : 1;
	unsigned int exclude_callchain_user : 1;
	unsigned int sideband : 1;	/* mmap, mmap2, comm (exec), task; sample_id_all */
	unsigned int build_id : 1;	/* build-ids in mmap2 records (Linux 5.12) */
	unsigned int monotonic : 1;	/* times on CLOCK_MONOTONIC (use_clockid, Linux 4.1) */
};

/*
 * profil_perf_attr - the attribute a description stands for.  A sampling event (sample_type
 * not 0) of user space alone leaves the kernel's frames out of its call chains too.
 */
void profil_perf_attr(const struct profil_perf_desc *d, struct perf_event_attr *a);

/*
 * profil_perf_open - opens the event of d on pid (0: the caller; -1: every process) and cpu
 * (-1: any), close-on-exec.  Returns the descriptor or -errno (EACCES/EPERM: paranoid or
 * ptrace, EINVAL: an attribute the kernel does not know, ENOSYS: seccomp...).
 */
int profil_perf_open(const struct profil_perf_desc *d, pid_t pid, int cpu);

/*
 * A ring buffer as mmapped: the metadata page, then size bytes of data (a power of two).  A
 * read is begin, next until it returns NULL, end: only end gives the bytes back to the kernel,
 * so what next returned stays valid until then.
 */
struct profil_perf_ring {
	struct perf_event_mmap_page *meta;
	const uint8_t *data;
	size_t size;
	uint64_t head, tail;		/* of the read under way */
};

/* The ring of a mapping of page + size bytes made at map. */
void profil_perf_ring_init(struct profil_perf_ring *r, void *map, size_t page, size_t size);

/* profil_perf_ring_begin - starts a read of what the kernel has written (an acquire load). */
void profil_perf_ring_begin(struct profil_perf_ring *r);

/*
 * profil_perf_ring_next - the next record, header first, and its length in *len; NULL when
 * the read is done.  A record is returned where it lies in the ring, or copied into buf (cap
 * bytes) when it wraps around the ring's end; one that wraps and is longer than cap is
 * skipped, and counted in *skipped (when not NULL).  A header that lies (shorter than itself,
 * longer than what was written) ends the read there, as it cannot be stepped over.
 */
const uint8_t *profil_perf_ring_next(struct profil_perf_ring *r, void *buf, size_t cap,
    size_t *len, uint64_t *skipped);

/* profil_perf_ring_end - hands what was read back to the kernel (a release store). */
void profil_perf_ring_end(struct profil_perf_ring *r);

/*
 * A PERF_RECORD_SAMPLE, decoded.  Pointers are into the record (unaligned: read them with
 * memcpy or profil_perf_u64).  Fields the sample_type does not have are 0.
 */
#define PROFIL_PERF_MAX_REGS	64

struct profil_perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint32_t cpu;
	uint64_t period;
	const uint8_t *chain;		/* nchain u64: the kernel's walk, context markers too */
	size_t nchain;
	uint64_t regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; NONE: no registers */
	uint64_t regs[PROFIL_PERF_MAX_REGS];	/* in the order of the mask's bits */
	size_t nregs;
	const uint8_t *stack;		/* stack_size bytes from the sp of the registers */
	uint64_t stack_size;
	uint64_t stack_dyn;		/* what the kernel filled, at most stack_size */
	size_t stack_off;		/* where stack_size sits in the record */
};

/*
 * profil_perf_sample_parse - decodes the sample record rec of len bytes (header included) as
 * an event of sample_type and regs_user (the attribute's) wrote it.  Returns 0, or -EINVAL for
 * a record that is not a sample, is cut short or says lengths it does not hold, or a
 * sample_type this decoder does not know (READ, BRANCH_STACK); nothing past len is read.
 */
int profil_perf_sample_parse(uint64_t sample_type, uint64_t regs_user, const uint8_t *rec,
    size_t len, struct profil_perf_sample *s);

/* The u64 at p, which need not be aligned. */
uint64_t profil_perf_u64(const uint8_t *p);

/* sample_id_all: the trailer of every record but samples. */
struct profil_perf_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint32_t cpu;
};

/*
 * profil_perf_id_parse - the trailer of a non-sample record of len bytes whose fixed body is
 * body bytes (header excluded), as events of sample_type write it.  0, or -EINVAL when the
 * record cannot hold body and trailer.
 */
int profil_perf_id_parse(uint64_t sample_type, const uint8_t *rec, size_t len, size_t body,
    struct profil_perf_id *id);

/* The bytes of the trailer events of sample_type add (sample_id_all). */
size_t profil_perf_id_size(uint64_t sample_type);

/* PERF_RECORD_MMAP2, with the build-id of PERF_RECORD_MISC_MMAP_BUILD_ID when it has one. */
struct profil_perf_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	const uint8_t *build_id;	/* NULL: none, or a size over 20 */
	uint32_t build_id_len;
	uint32_t prot, flags;
	const char *path;		/* path_len bytes, not NUL-terminated */
	size_t path_len;
	struct profil_perf_id id;
};

/* PERF_RECORD_COMM. */
struct profil_perf_comm {
	uint32_t pid, tid;
	const char *comm;		/* comm_len bytes, not NUL-terminated */
	size_t comm_len;
	int exec;			/* PERF_RECORD_MISC_COMM_EXEC */
	struct profil_perf_id id;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct profil_perf_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_LOST. */
struct profil_perf_lost {
	uint64_t id, lost;
	struct profil_perf_id id_all;	/* valid when has_id */
	int has_id;
};

/*
 * The side-band decoders: rec of len bytes, header included, written by events of sample_type
 * with sample_id_all.  0, or -EINVAL for a record of another type or one cut short.
 */
int profil_perf_mmap2_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_mmap *m);
int profil_perf_comm_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_comm *c);
int profil_perf_task_parse(const uint8_t *rec, size_t len, struct profil_perf_task *t);
int profil_perf_lost_parse(uint64_t sample_type, const uint8_t *rec, size_t len,
    struct profil_perf_lost *l);

#endif /* PROFIL_PERF_H */
