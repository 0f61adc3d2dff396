/*
 * wall.c - PROFIL_RECORD_WALL: the in-process `profil record --wall`, as src/outside/wall.c
 * does it from outside.  At each tick of the wall clock the recorder's thread reads every
 * other thread of the process that is not on a CPU: its state (stat), the system call it waits
 * in with its sp and pc (syscall), and the top of its user stack, which does not move while it
 * waits (process_vm_readv, which a page gone meanwhile cannot fault), walked by the unwind
 * tables the CPU samples are walked by.  Threads on a CPU are the clock's CPU samples, at the
 * same rate.  Nothing reaches the waiting thread: no signal, so no system call of it gets
 * EINTR.  A thread that has not been put on a CPU since the last tick (schedstat, kept open
 * and read with pread) is still in the same wait: its stack is counted again, nothing more
 * read.  Time a thread was runnable but on no CPU is the kernel's run_delay in the same
 * schedstat: each whole period of it a sample whose leaf is PROFIL_PC_WAIT_CPU over the stack
 * of the thread's last CPU sample (profil_stacks.last), as src/outside/wall.c does.
 *
 * Only the recorder's thread runs this, in its own descriptor table (unshare(CLONE_FILES)),
 * so the descriptors it keeps are invisible to the program; never in signal context.  It
 * allocates nothing (the first malloc of that thread would make glibc reserve an arena): its
 * memory is mapped once, at start.  Its state is its own: no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/read.h"
#include "cfi/cfi.h"
#include "record.h"

/* Threads followed; more are not sampled while they wait (counted in profil_wall_stats). */
#define MAX_WAITERS	4096
/* Bytes of a waiting stack read, as the outside recorder's default copy. */
#define STACK_COPY	16384
/* schedstat files kept open at most; others are opened at each tick. */
#define MAX_KEPT	512
/* Threads' last CPU samples kept (profil_stacks.last), by tid modulo this. */
#define MAX_LAST	4096

struct waiter {
	uint32_t tid;
	int fd;			/* its schedstat, kept open; -1 */
	int seen;		/* listed at this tick */
	uint64_t runs;		/* times put on a CPU, at the last tick */
	uint32_t depth;		/* of the wait in pcs; 0: none known (on a CPU, or unreadable) */
	uint64_t *pcs;		/* its own room of profil_rec.depth pcs, wait frame first */
	struct profil_wait_cpu cpu;	/* its waits for a CPU */
};

static struct waiter *waiters;	/* MAX_WAITERS, with the rooms of their stacks after them */
static size_t nwaiters, kept, max_kept;
static uint32_t skip[2];	/* the recorder's own threads: this one and the keeper */
static uint64_t weight_now;
static uint64_t tick_when;	/* the tick's time, CLOCK_MONOTONIC ns: its samples' */
struct profil_wall_stats profil_wall_stats;

int
profil_record_wall_init(void)
{
	size_t bytes = MAX_WAITERS * (sizeof(*waiters) + profil_rec.depth * sizeof(uint64_t));
	struct rlimit rl;
	void *p;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	    -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	waiters = p;
	p = mmap(NULL, MAX_LAST * sizeof(*profil_rec.stacks.last), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		profil_rec.stacks.last = p;
		profil_rec.stacks.nlast = MAX_LAST;
	}
	for (size_t i = 0; i < MAX_WAITERS; i++)
		waiters[i].pcs = (uint64_t *)(waiters + MAX_WAITERS) + i * profil_rec.depth;
	/* The flushes open files too: room is left for them under the descriptor limit. */
	max_kept = MAX_KEPT;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MAX_KEPT + 64)
		max_kept = rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 0;
	return 0;
}

/* fork child: the threads and descriptors were the parent's recorder thread's. */
void
profil_record_wall_fork_child(void)
{
	nwaiters = 0;
	kept = 0;
	memset(&profil_wall_stats, 0, sizeof(profil_wall_stats));
	if (profil_rec.stacks.last != NULL)
		memset(profil_rec.stacks.last, 0, MAX_LAST * sizeof(*profil_rec.stacks.last));
}

static void
task_path(char *buf, size_t cap, uint32_t tid, const char *file)
{
	snprintf(buf, cap, "/proc/self/task/%u/%s", tid, file);
}

/* The whole of a small /proc file of the thread, NUL-terminated; its length or -1. */
static ssize_t
read_text(uint32_t tid, const char *file, char *buf, size_t cap)
{
	char path[64];

	task_path(path, sizeof(path), tid, file);
	return profil_read_text(path, buf, cap);
}

/*
 * Times the thread was put on a CPU and ns it waited for one: the third and second fields of
 * its schedstat, kept open and read again from the start at each tick (one system call a
 * waiting thread).
 */
static int
thread_runs(struct waiter *w, uint64_t *runs, uint64_t *delay)
{
	char path[64], buf[128];
	ssize_t n;

	if (w->fd < 0 && kept < max_kept) {
		task_path(path, sizeof(path), w->tid, "schedstat");
		w->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (w->fd >= 0)
			kept++;
	}
	if (w->fd >= 0) {
		n = pread(w->fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0) {
			/* Gone, or its tid about to be another thread's. */
			close(w->fd);
			w->fd = -1;
			kept--;
			return -1;
		}
		buf[n] = '\0';
	} else if (read_text(w->tid, "schedstat", buf, sizeof(buf)) <= 0) {
		return -1;
	}
	return profil_wait_runs(buf, runs, delay);
}

/* The thread's state, PROFIL_WAIT_*, or -1 when it runs or ended. */
static int
thread_state(uint32_t tid)
{
	char buf[512];

	return read_text(tid, "stat", buf, sizeof(buf)) <= 0 ? -1 : profil_wait_state(buf);
}

/* The system call the thread waits in, and its sp and pc; -1 when it runs again. */
static int
thread_syscall(uint32_t tid, long *nr, uint64_t *sp, uint64_t *pc)
{
	char buf[256];

	if (read_text(tid, "syscall", buf, sizeof(buf)) <= 0)
		return -1;
	return profil_wait_syscall(buf, nr, sp, pc);
}

/*
 * The walk of ring.c's copies, entered the same way: builders free no space a walk is in.
 * Without tables (--call-graph fp, or none published yet) the pc alone, cut.
 */
static size_t
walk(const struct profil_unwind_regs *regs, const uint8_t *stack, size_t len, uint64_t *pcs,
    size_t max)
{
	struct profil_unwind_shared *u = profil_rec.stacks.unwind;
	struct profil_unwind_slot *slot = NULL;
	const struct profil_unwind_space *space = NULL;
	struct profil_unwind_space none = { NULL, 0 };
	struct profil_unwind_memory mem = { regs->sp, regs->sp + len, stack };
	enum profil_unwind_end end;
	size_t n;

	if (max == 0)
		return 0;
	if (u != NULL)
		space = profil_unwind_enter(u, &slot);
	n = profil_unwind_waiting(space != NULL ? space : &none, regs, &mem, profil_rec.pid, pcs,
	    max, &end);
	if (slot != NULL)
		profil_unwind_leave(slot);
	return n;
}

/* The waiting stack of a thread, wait frame first, into w->pcs; 0 or -1. */
static int
wait_stack(struct waiter *w)
{
	static uint8_t copy[STACK_COPY];
	struct profil_unwind_regs regs;
	uint32_t depth = 1;
	ssize_t n;
	long nr;
	int state = thread_state(w->tid);
	uint64_t runs, delay;

	if (state < 0 || thread_syscall(w->tid, &nr, &regs.sp, &regs.pc) < 0)
		return -1;
	w->pcs[0] = profil_wait_leaf(state, nr);
	n = profil_wait_copy(profil_rec.pid, &regs, copy, sizeof(copy));
	if (n < 0) {
		profil_wall_stats.unread++;
		n = 0;
	}
	/* Ran between the reads: the registers and the stack may be of two moments. */
	if (thread_runs(w, &runs, &delay) < 0 || runs != w->runs)
		return -1;
	depth += (uint32_t)walk(&regs, copy, (size_t)n, w->pcs + 1, profil_rec.depth - 1);
	/* The recorder's pthread_create wrapper is walked through, not shown. */
	w->depth = (uint32_t)profil_stacks_drop_self(&profil_rec.stacks, w->pcs, depth);
	return 0;
}

/*
 * The stack of the thread's last CPU sample into pcs, at most max; its depth, 0 when none is
 * known.  The entry is read as a spill may clear it: kept only if it was the thread's before
 * and after the copy.
 */
static size_t
last_cpu_stack(uint32_t tid, uint64_t *pcs, size_t max)
{
	struct profil_stacks *s = &profil_rec.stacks;
	struct profil_stack_table *t;
	struct profil_stack_entry *e;
	uint64_t v, st;
	size_t depth;

	if (s->last == NULL)
		return 0;
	v = atomic_load_explicit(&s->last[tid & (s->nlast - 1)], memory_order_acquire);
	if (v == 0)
		return 0;
	v--;
	t = &s->tables[(v >> 32) & 1];
	if ((v & 0xffffffff) >= t->nentries)
		return 0;
	e = &t->entries[v & 0xffffffff];
	st = atomic_load_explicit(&e->state, memory_order_acquire);
	if (st <= PROFIL_STACK_DEAD || e->tid != tid || e->depth == 0 ||
	    e->pcs > t->npool || e->depth > t->npool - e->pcs)
		return 0;
	depth = e->depth < max ? e->depth : max;
	memcpy(pcs, t->pool + e->pcs, depth * sizeof(*pcs));
	if (atomic_load_explicit(&e->state, memory_order_acquire) != st || e->tid != tid)
		return 0;
	return depth;
}

/* n periods of the thread's waits for a CPU, over the stack of its last CPU sample. */
static void
cpu_wait(struct waiter *w, uint64_t n)
{
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	size_t max = profil_rec.depth < PROFIL_FORMAT_MAX_DEPTH ? profil_rec.depth :
	    PROFIL_FORMAT_MAX_DEPTH, depth = 1;

	if (max > 1)
		depth += last_cpu_stack(w->tid, pcs + 1, max - 1);
	depth = profil_wait_cpu_place(&w->cpu, pcs, depth, max, &n, profil_rec.hz);
	if (depth == 0)
		return;
	profil_stacks_add(&profil_rec.stacks, w->tid, pcs, depth, n, tick_when);
	profil_wall_stats.cpu_waits += n;
}

static void
wall_thread(struct waiter *w)
{
	uint64_t runs, delay, n;

	if (thread_runs(w, &runs, &delay) < 0)
		return;
	n = profil_wait_cpu_periods(&w->cpu, delay, w->runs, runs, 1000000000ULL / profil_rec.hz);
	if (n > 0)
		cpu_wait(w, n);
	if (!profil_wait_goes_on(&w->cpu, &w->runs, runs, w->depth != 0, weight_now)) {
		w->depth = 0;
		if (wait_stack(w) < 0) {
			w->depth = 0;
			return;
		}
	}
	profil_stacks_add(&profil_rec.stacks, w->tid, w->pcs, w->depth, weight_now, tick_when);
	profil_wall_stats.waits += weight_now;
}

/*
 * Each listed thread in turn.  The listing keeps its order from tick to tick (threads are
 * added at its end), and so does the table: a thread is found where the last tick left it.
 */
static void
visit(pid_t tid, void *cursor)
{
	size_t *at = cursor, i;
	struct waiter *w = NULL;

	if ((uint32_t)tid == skip[0] || (uint32_t)tid == skip[1])
		return;
	if (*at < nwaiters && waiters[*at].tid == (uint32_t)tid) {
		w = &waiters[(*at)++];
	} else {
		for (i = 0; i < nwaiters; i++) {
			if (waiters[i].tid == (uint32_t)tid) {
				w = &waiters[i];
				*at = i + 1;
				break;
			}
		}
	}
	if (w == NULL) {
		if (nwaiters == MAX_WAITERS) {
			profil_wall_stats.unfollowed++;
			return;
		}
		w = &waiters[nwaiters++];
		w->tid = (uint32_t)tid;
		w->fd = -1;
		w->runs = 0;
		w->depth = 0;
		memset(&w->cpu, 0, sizeof(w->cpu));
	}
	w->seen = 1;
	wall_thread(w);
}

void
profil_record_wall_tick(uint64_t weight, uint32_t self, uint32_t keeper)
{
	size_t at = 0, i, n = 0;

	if (waiters == NULL)
		return;
	skip[0] = self;
	skip[1] = keeper;
	weight_now = weight;
	tick_when = profil_monotonic_ns();
	for (i = 0; i < nwaiters; i++)
		waiters[i].seen = 0;
	profil_threads_foreach(visit, &at);
	/* The threads gone leave the table; their rooms of pcs go to its end, swapped. */
	for (i = 0; i < nwaiters; i++) {
		struct waiter t;

		if (!waiters[i].seen) {
			/* Waits for a CPU held back for a stack no CPU sample gave: without. */
			if (waiters[i].cpu.unplaced > 0) {
				const uint64_t cut[2] = { PROFIL_PC_WAIT_CPU, PROFIL_PC_CUT_STACK };

				profil_stacks_add(&profil_rec.stacks, waiters[i].tid, cut, 2,
				    waiters[i].cpu.unplaced, tick_when);
				profil_wall_stats.cpu_waits += waiters[i].cpu.unplaced;
			}
			if (waiters[i].fd >= 0) {
				close(waiters[i].fd);
				kept--;
			}
			continue;
		}
		if (i != n) {
			t = waiters[n];
			waiters[n] = waiters[i];
			waiters[i] = t;
		}
		n++;
	}
	nwaiters = n;
}
