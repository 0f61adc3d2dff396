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
	int timed;			/* samples carry the kernel's CLOCK_MONOTONIC time */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;			/* data bytes, a power of two */
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

static int
ring_attr(struct perf_event_attr *attr, unsigned int hz, int stacks, size_t size, int timed)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = sizeof(*attr);
	attr->config = PERF_COUNT_SW_TASK_CLOCK;
	attr->sample_period = 1000000000ULL / hz;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	/*
	 * When each sample was taken, on the clock the signal handler reads (use_clockid, Linux
	 * 4.1): a drain 10 ms later would blur the times by as much.
	 */
	if (timed) {
		attr->sample_type |= PERF_SAMPLE_TIME;
		attr->use_clockid = 1;
		attr->clockid = CLOCK_MONOTONIC;
	}
	if (stacks && profil_rec.stacks.unwind != NULL) {
		attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->sample_regs_user = REGS_USER;
		attr->sample_stack_user = (uint32_t)copy_for(size, hz);
	} else if (stacks) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->sample_max_stack = 127;
	}
	/* perf_event_paranoid 2 allows user-space-only sampling of one's own threads. */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_callchain_kernel = 1;
	/* Wakeups off: nobody sleeps on these fds, the flusher polls on its own clock. */
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)size;
	return 0;
}

/*
 * Opens the event and ring of thread tid.  Returns 0 or -errno (EACCES/EPERM when perf events
 * are not allowed here, ENOSYS under seccomp, EMFILE...).
 */
int
profil_ring_open(pid_t tid, unsigned int hz, int stacks)
{
	struct perf_event_attr attr;
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
		ring_attr(&attr, hz, stacks, size, timed);
		profil_seccomp_step("perf_event_open");
		fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		/* A kernel without use_clockid: times are then the drain's. */
		if (fd < 0 && errno == EINVAL && timed) {
			timed = 0;
			continue;
		}
		if (fd < 0)
			return -errno;
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
		if (!cfi || copy_for(size, hz) == attr.sample_stack_user)
			break;
		munmap(m, size + (size_t)page);
		close(fd);
	}
	close(fd);
	r->meta = m;
	r->data = (uint8_t *)m + page;
	r->size = size;
	r->map_len = size + (size_t)page;
	r->timed = timed;
	r->tid = tid;
	profil_ring_stats.threads++;
	return 0;
}

static void
copy_out(const struct ring *r, uint64_t from, void *dst, size_t n)
{
	size_t off = (size_t)(from & (r->size - 1));
	size_t first = r->size - off < n ? r->size - off : n;

	memcpy(dst, r->data + off, first);
	memcpy((uint8_t *)dst + first, r->data, n - first);
}

/*
 * The walk by unwind tables of a sample's registers and stack copy: rec[2..] holds the
 * registers' ABI, bx, bp, sp, ip, the copy's size, the copy and the size the kernel filled
 * (rec[0] and rec[1] are the caller's).  The space is entered as the signal handler enters it:
 * builders do not take the recorder lock while they free.
 */
static size_t
walk_copy(const uint64_t *rec, size_t words, uint64_t *pcs, size_t max)
{
	struct profil_unwind_shared *u = profil_rec.stacks.unwind;
	struct profil_unwind_slot *slot;
	size_t n;
	const struct profil_unwind_space *space;
	struct profil_unwind_space none = { NULL, 0 };
	struct profil_unwind_regs regs;
	struct profil_unwind_memory mem;
	enum profil_unwind_end end;
	uint64_t size, dyn;

	if (words < 9 || rec[2] == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	regs.bx = rec[3];
	regs.fp = rec[4];
	regs.sp = rec[5];
	regs.pc = rec[6];
	size = rec[7];
	if (size % 8 != 0 || size / 8 > words - 8)
		return 0;
	dyn = size > 0 && size / 8 < words - 8 ? rec[8 + size / 8] : 0;
	mem.lo = regs.sp;
	mem.hi = regs.sp + (dyn < size ? dyn : size);
	mem.data = (const uint8_t *)(rec + 8);
	if (mem.hi < mem.lo)
		mem.hi = mem.lo;
	space = profil_unwind_enter(u, &slot);
	n = profil_unwind_cfi(space != NULL ? space : &none, &regs, &mem, pcs, max, &end);
	profil_unwind_leave(slot);
	return n;
}

/* A sample: ip, pid and tid, the time if timed, then the call chain or the registers. */
static void
take_sample(const uint64_t *rec, size_t words, int stacks, int timed)
{
	/* 8 KiB: static, not on the stack of a fatal signal's flush; the lock is held. */
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	uint64_t ip, nr, i, when;
	size_t depth = 0;
	uint32_t tid;

	if (words < 2 + (size_t)timed)
		return;
	ip = rec[0];
	tid = (uint32_t)(rec[1] >> 32);
	when = timed ? rec[2] : profil_monotonic_ns();
	/* What follows the time is read as if it came right after the tid. */
	rec += timed;
	words -= (size_t)timed;
	if (stacks && profil_rec.stacks.unwind != NULL) {
		depth = walk_copy(rec, words, pcs, profil_rec.depth);
	} else if (stacks && words >= 3) {
		nr = rec[2];
		if (nr > words - 3)
			nr = words - 3;
		/* Context markers (PERF_CONTEXT_USER...) sit at the top of the address space. */
		for (i = 0; i < nr && depth < profil_rec.depth; i++)
			if (rec[3 + i] < (uint64_t)PERF_CONTEXT_MAX)
				pcs[depth++] = rec[3 + i];
	}
	if (depth == 0 || pcs[0] != ip) {
		/* The interrupted pc leads, as in the signal path. */
		if (depth == profil_rec.depth)
			depth--;
		memmove(pcs + 1, pcs, depth * sizeof(pcs[0]));
		pcs[0] = ip;
		depth++;
	}
	depth = profil_stacks_drop_self(&profil_rec.stacks, pcs, depth);
	profil_stacks_add(&profil_rec.stacks, tid, pcs, depth, 1, when);
	profil_ring_stats.samples++;
}

static void
drain(struct ring *r)
{
	static uint64_t rec[RECORD_MAX / 8];	/* as pcs in take_sample() */
	uint64_t head, tail;
	int stacks = profil_rec.depth > 1;

	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;

		copy_out(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size <= sizeof(rec)) {
			copy_out(r, tail, rec, h.size);
			if (h.type == PERF_RECORD_SAMPLE)
				take_sample(rec + 1, (h.size - sizeof(h)) / 8, stacks, r->timed);
			else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
				profil_ring_stats.lost += rec[2];
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
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
	munmap(r->meta, r->map_len);
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
