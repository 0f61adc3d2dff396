/*
 * The perf ring-buffer clock: one task-clock event per thread whose samples (IP, TID and, with
 * -g, the kernel's walk of the user call chain by frame pointers, or with --call-graph cfi the
 * user registers and a copy of the top of the stack, walked here by the unwind tables) the
 * kernel writes into a ring buffer mapped here, with wakeups off.  No signal reaches the
 * program: the cost per sample is the timer interrupt and the kernel's write, as for
 * `perf record`.  The flusher thread drains the rings into the aggregation table every few
 * milliseconds, off the program's threads.
 *
 * Draining is plain memory reads and the lock-free table, so it is also done from the exit
 * hook on a fatal signal.  Callers hold the recorder lock.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf/perf.h"
#include "record.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* What the walk by unwind tables starts from, in this order: bx, bp, sp, ip (walk_copy). */
#define REGS_USER	(1u << PERF_REG_X86_BX | 1u << PERF_REG_X86_BP | \
	1u << PERF_REG_X86_SP | 1u << PERF_REG_X86_IP)
#else
#define REGS_USER	0	/* the walk by unwind tables is x86-64's: never asked for */
#endif

#define MAX_RINGS	4096
/*
 * Bytes of the stack the kernel copies with each sample, for the walk by unwind tables: at most
 * STACK_COPY, less in rings too small for two drain periods of such samples (copy_for).
 */
#define STACK_COPY	8192
#define MIN_COPY	512
#define REGS_BYTES	96	/* the rest of a sample with registers: header, ip, tid, ... */
#define RECORD_MAX	(STACK_COPY + 256)	/* bytes of one sample record we copy out */

/*
 * No descriptor is kept: the mapping holds the event, which samples its thread until the thread
 * ends or the ring is unmapped.  A descriptor per thread would take the program's lowest numbers
 * (its next open(2) would not get 3) and count against its RLIMIT_NOFILE.
 */
struct ring {
	pid_t tid;			/* 0: free */
	uint64_t sample_type;		/* PERF_SAMPLE_TIME: the kernel's CLOCK_MONOTONIC time */
	struct profil_perf_ring ring;
	size_t map_len;
};

static struct ring rings[MAX_RINGS];
static size_t ring_pages;		/* data pages per ring */
static long page = 4096;		/* set by profil_ring_init() */

/* The page size, asked once at start: sysconf(3) is not async-signal-safe. */
void
profil_ring_init(long pagesize)
{
	if (pagesize > 0)
		page = pagesize;
}

struct profil_ring_stats profil_ring_stats;

/* The stack copy that a ring of size bytes holds two drain periods of, at hz. */
static size_t
copy_for(size_t size, unsigned int hz)
{
	size_t n = (size_t)hz * PROFIL_RECORD_DRAIN_MS * 2 / 1000, per;

	per = size / (n > 0 ? n : 1);
	if (per < REGS_BYTES + MIN_COPY)
		return MIN_COPY;
	per = (per - REGS_BYTES) & ~(size_t)7;
	return per < STACK_COPY ? per : STACK_COPY;
}

static void
ring_desc(struct profil_perf_desc *d, unsigned int hz, int stacks, size_t size, int timed)
{
	memset(d, 0, sizeof(*d));
	d->period_ns = 1000000000ULL / hz;
	d->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	/*
	 * When each sample was taken, on the clock the signal handler reads (use_clockid, Linux
	 * 4.1): a drain 10 ms later would blur the times by as much.
	 */
	if (timed) {
		d->sample_type |= PERF_SAMPLE_TIME;
		d->monotonic = 1;
	}
	if (stacks && profil_rec.stacks.unwind != NULL) {
		d->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		d->regs_user = REGS_USER;
		d->stack_user = (uint32_t)copy_for(size, hz);
	} else if (stacks) {
		d->sample_type |= PERF_SAMPLE_CALLCHAIN;
		d->max_stack = 127;
	}
	/*
	 * User space alone (perf_event_paranoid 2 allows it for one's own threads).  Wakeups
	 * off: nobody sleeps on these fds, the flusher polls on its own clock.
	 */
	d->wakeup_bytes = (uint32_t)size;
}

/*
 * Opens the event and ring of thread tid.  Returns 0 or -errno (EACCES/EPERM when perf events
 * are not allowed here, ENOSYS under seccomp, EMFILE...).
 */
int
profil_ring_open(pid_t tid, unsigned int hz, int stacks)
{
	struct profil_perf_desc d;
	struct ring *r = NULL;
	size_t i, size;
	void *m;
	int fd, cfi = stacks && profil_rec.stacks.unwind != NULL, timed = 1;

	for (i = 0; i < MAX_RINGS; i++) {
		if (rings[i].tid == tid)
			return 0;
		if (r == NULL && rings[i].tid == 0)
			r = &rings[i];
	}
	if (r == NULL)
		return -ENOSPC;
	if (ring_pages == 0) {
		/*
		 * Four drain periods of samples at this rate (about 32 bytes each flat, 512 with
		 * a call chain), in a power of two of pages: small rings leave the locked-memory
		 * allowance of unprivileged users to many threads.  Stack copies: two periods,
		 * in at most 32 pages, so that 64 threads of an unprivileged user still fit.
		 */
		size_t one = !stacks ? 32 : cfi ? STACK_COPY + REGS_BYTES : 512;
		size_t want = (size_t)hz * PROFIL_RECORD_DRAIN_MS * (cfi ? 2 : 4) / 1000 * one;

		for (ring_pages = stacks ? 4 : 2; ring_pages * (size_t)page < want &&
		    ring_pages < (cfi ? 32u : 256u); ring_pages *= 2)
			;
	}
	size = ring_pages * (size_t)page;
	for (;;) {
		ring_desc(&d, hz, stacks, size, timed);
		profil_seccomp_step("perf_event_open");
		fd = profil_perf_open(&d, tid, -1);
		/* A kernel without use_clockid: times are then the drain's. */
		if (fd == -EINVAL && timed) {
			timed = 0;
			continue;
		}
		if (fd < 0)
			return fd;
		/*
		 * Unprivileged, ring pages count against perf_event_mlock_kb and then
		 * RLIMIT_MEMLOCK: with many threads, smaller rings (drained as often) beat
		 * unsampled threads.
		 */
		profil_seccomp_step("mmap");
		for (;;) {
			m = mmap(NULL, size + (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    0);
			if (m != MAP_FAILED || (errno != EPERM && errno != ENOMEM) ||
			    size == (size_t)page)
				break;
			size /= 2;
		}
		if (m == MAP_FAILED) {
			int e = -errno;

			close(fd);
			return e;
		}
		/* A smaller ring than asked for: a smaller stack copy, so that samples fit. */
		if (!cfi || copy_for(size, hz) == d.stack_user)
			break;
		munmap(m, size + (size_t)page);
		close(fd);
	}
	close(fd);
	profil_perf_ring_init(&r->ring, m, (size_t)page, size);
	r->map_len = size + (size_t)page;
	r->sample_type = d.sample_type;
	r->tid = tid;
	profil_ring_stats.threads++;
	return 0;
}

/*
 * The walk by unwind tables of a sample's registers (bx, bp, sp, ip: REGS_USER's bits in
 * order) and stack copy.  The space is entered as the signal handler enters it: builders do
 * not take the recorder lock while they free.
 */
static size_t
walk_copy(const struct profil_perf_sample *smp, uint64_t *pcs, size_t max)
{
	struct profil_unwind_shared *u = profil_rec.stacks.unwind;
	struct profil_unwind_slot *slot;
	size_t n;
	const struct profil_unwind_space *space;
	struct profil_unwind_space none = { NULL, 0 };
	struct profil_unwind_regs regs;
	struct profil_unwind_memory mem;
	enum profil_unwind_end end;

	if (smp->regs_abi == PERF_SAMPLE_REGS_ABI_NONE || smp->nregs < 4 ||
	    smp->stack_size % 8 != 0)
		return 0;
	regs.bx = smp->regs[0];
	regs.fp = smp->regs[1];
	regs.sp = smp->regs[2];
	regs.pc = smp->regs[3];
	mem.lo = regs.sp;
	mem.hi = regs.sp + smp->stack_dyn;
	mem.data = smp->stack;
	if (mem.hi < mem.lo)
		mem.hi = mem.lo;
	space = profil_unwind_enter(u, &slot);
	n = profil_unwind_cfi(space != NULL ? space : &none, &regs, &mem, pcs, max, &end);
	profil_unwind_leave(slot);
	return n;
}

/* A sample: ip, pid and tid, the time if timed, then the call chain or the registers. */
static void
take_sample(const struct ring *r, const uint8_t *rec, size_t len, int stacks)
{
	/* 8 KiB: static, not on the stack of a fatal signal's flush; the lock is held. */
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	struct profil_perf_sample smp;
	uint64_t when, pc;
	size_t depth = 0, i;

	if (profil_perf_sample_parse(r->sample_type, REGS_USER, rec, len, &smp) < 0)
		return;
	when = r->sample_type & PERF_SAMPLE_TIME ? smp.time : profil_monotonic_ns();
	if (stacks && profil_rec.stacks.unwind != NULL) {
		depth = walk_copy(&smp, pcs, profil_rec.depth);
	} else if (stacks) {
		/* Context markers (PERF_CONTEXT_USER...) sit at the top of the address space. */
		for (i = 0; i < smp.nchain && depth < profil_rec.depth; i++) {
			pc = profil_perf_u64(smp.chain + 8 * i);
			if (pc < (uint64_t)PERF_CONTEXT_MAX)
				pcs[depth++] = pc;
		}
	}
	if (depth == 0 || pcs[0] != smp.ip) {
		/* The interrupted pc leads, as in the signal path. */
		if (depth == profil_rec.depth)
			depth--;
		memmove(pcs + 1, pcs, depth * sizeof(pcs[0]));
		pcs[0] = smp.ip;
		depth++;
	}
	depth = profil_stacks_drop_self(&profil_rec.stacks, pcs, depth);
	profil_stacks_add(&profil_rec.stacks, smp.tid, pcs, depth, 1, when);
	profil_ring_stats.samples++;
}

static void
drain(struct ring *r)
{
	static uint64_t buf[RECORD_MAX / 8];	/* as pcs in take_sample() */
	struct profil_perf_lost lost;
	const uint8_t *rec;
	size_t len;
	int stacks = profil_rec.depth > 1;

	profil_perf_ring_begin(&r->ring);
	while ((rec = profil_perf_ring_next(&r->ring, buf, sizeof(buf), &len, NULL)) != NULL) {
		if (((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE)
			take_sample(r, rec, len, stacks);
		else if (profil_perf_lost_parse(r->sample_type, rec, len, &lost) == 0)
			profil_ring_stats.lost += lost.lost;
	}
	profil_perf_ring_end(&r->ring);
	/* A ring holds more samples than the queue of times: emptied after each. */
	profil_record_times_drain();
}

void
profil_ring_drain_all(void)
{
	size_t i;

	for (i = 0; i < MAX_RINGS; i++)
		if (rings[i].tid != 0)
			drain(&rings[i]);
}

/*
 * Unmapping the ring ends the event.  The thread that ends drains its own ring, so the few
 * samples the kernel may still write after the drain are of its last instructions.
 */
static void
release(struct ring *r, int do_drain)
{
	if (do_drain)
		drain(r);
	/* Unpublished before it is unmapped: no drain may ever read a ring that is gone. */
	r->tid = 0;
	atomic_signal_fence(memory_order_seq_cst);
	munmap(r->ring.meta, r->map_len);
}

/* A thread ends: what its ring holds goes to the table, then the event is closed. */
void
profil_ring_close(pid_t tid)
{
	size_t i;

	for (i = 0; i < MAX_RINGS; i++)
		if (rings[i].tid == tid)
			release(&rings[i], 1);
}

/* fork child: the events measure the parent's threads; drop them without reading. */
void
profil_ring_forget_all(void)
{
	size_t i;

	for (i = 0; i < MAX_RINGS; i++)
		if (rings[i].tid != 0)
			release(&rings[i], 0);
	memset(&profil_ring_stats, 0, sizeof(profil_ring_stats));
}
