/*
 * wall.c - profil record --wall: at each tick of the wall clock, every thread that is not on
 * a CPU is sampled from /proc and from its memory: its state (stat), the system call it waits
 * in with its sp and pc (syscall), and the top of its user stack, which does not move while it
 * waits (process_vm_readv), walked by the unwind tables like a CPU sample's copy.  Threads on
 * a CPU are the perf events' CPU samples, at the same rate.  No signal, ptrace stop or
 * descriptor reaches the program, so no system call of its is interrupted.  A thread that has
 * not been put on a CPU since the last tick (schedstat) is still in the same wait: its stack
 * is counted again without reading anything more.
 *
 * A thread that is runnable but on no CPU (preempted, or woken and not yet run) is neither: its
 * state is R and /proc hides its registers.  The kernel counts that time itself, run_delay in
 * schedstat, read at each tick with the run count: each whole period of it is a sample whose
 * leaf is PROFIL_PC_WAIT_CPU over the stack of the thread's last CPU sample, where a preempted
 * thread was running (profil_wait_cpu_periods, src/cfi/waiting.c, takes off what ticks that
 * counted a wait again on its run count alone counted of it already).  So a thread's samples
 * are its wall time, however loaded the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

/*
 * Times the thread was put on a CPU and ns it waited for one: the third and second fields of
 * its schedstat, which is kept open and read again from the start at each tick (one system
 * call a waiting thread).
 */
static int
thread_runs(pid_t pid, struct profil_outside_thread *t, uint64_t *runs, uint64_t *delay)
{
	char path[64], buf[128];
	ssize_t n;

	if (t->wall_fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%u/schedstat", (int)pid, t->tid);
		t->wall_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->wall_fd < 0)
			return -1;
	}
	n = pread(t->wall_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		/* Gone, or its tid about to be another thread's: opened again if it lives. */
		close(t->wall_fd);
		t->wall_fd = -1;
		return -1;
	}
	buf[n] = '\0';
	return profil_wait_runs(buf, runs, delay);
}

/* The thread's state, PROFIL_WAIT_*, or -1 when it runs or ended. */
static int
thread_state(pid_t pid, uint32_t tid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%u/stat", (int)pid, tid);
	if (profil_read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	return profil_wait_state(buf);
}

/*
 * The system call the thread waits in, and its sp and pc: 0, -EAGAIN when it runs again, or
 * -EACCES without ptrace access to it (the file, like its memory, needs it).
 */
static int
thread_syscall(pid_t pid, uint32_t tid, long *nr, uint64_t *sp, uint64_t *pc)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", (int)pid, tid);
	if (profil_read_text(path, buf, sizeof(buf)) <= 0)
		return errno == EACCES || errno == EPERM ? -EACCES : -EAGAIN;
	return profil_wait_syscall(buf, nr, sp, pc) == 0 ? 0 : -EAGAIN;
}

/* The waiting stack of a thread, wait frame first, into t->wall_pcs; 0 or -1. */
static int
wait_stack(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_outside_thread *t)
{
	static uint8_t copy[PROFIL_OUTSIDE_STACK_COPY_MAX];
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	struct profil_unwind_regs regs;
	uint32_t depth = 1;
	ssize_t n;
	long nr;
	int state = thread_state(im->pid, t->tid), r;
	uint64_t runs, delay;

	if (state < 0)
		return -1;
	r = thread_syscall(im->pid, t->tid, &nr, &regs.sp, &regs.pc);
	if (r == -EACCES) {
		/* It waits, but where is not ours to read: said at the end, and counted. */
		s->stats.wall_unread++;
		pcs[0] = PROFIL_PC_WAIT(state, PROFIL_WAIT_NO_SYSCALL);
		pcs[depth++] = PROFIL_PC_CUT_STACK;
		goto keep;
	}
	if (r < 0)
		return -1;
	pcs[0] = profil_wait_leaf(state, nr);
	/* Refused without ptrace access: the pc alone. */
	n = profil_wait_copy(im->pid, &regs, copy, s->opts.stack_copy);
	if (n < 0) {
		s->stats.wall_unread++;
		n = 0;
	}
	/* Ran between the reads: the registers and the stack may be of two moments. */
	if (thread_runs(im->pid, t, &runs, &delay) < 0 || runs != t->wall_runs)
		return -1;
	depth += (uint32_t)profil_outside_unwind(s, im, &regs, copy, (size_t)n, pcs + 1,
	    s->opts.depth - 1);
keep:
	t->wall_pcs = malloc(depth * sizeof(*pcs));
	if (t->wall_pcs == NULL)
		return -1;
	memcpy(t->wall_pcs, pcs, depth * sizeof(*pcs));
	t->wall_depth = depth;
	return 0;
}

/* n periods of the thread's waits for a CPU, over the stack of its last CPU sample. */
static void
cpu_wait(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_outside_thread *t, uint64_t n)
{
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	uint32_t max = s->opts.depth < PROFIL_FORMAT_MAX_DEPTH ? s->opts.depth :
	    PROFIL_FORMAT_MAX_DEPTH, depth = 1;

	if (max > 1)
		depth += profil_outside_image_cpu_stack(im, t, pcs + 1, max - 1);
	depth = (uint32_t)profil_wait_cpu_place(&t->wall_cpu, pcs, depth, max, &n, s->opts.hz);
	if (depth == 0)
		return;
	if (profil_outside_image_count(s, im, t->tid, pcs, depth, n, s->wall_now) < 0)
		im->lost += n;
	else
		s->stats.cpu_waits += n;
}

static void
wall_thread(struct profil_outside *s, struct profil_outside_image *im,
    struct profil_outside_thread *t, uint64_t weight)
{
	uint64_t runs, delay, n;

	if (thread_runs(im->pid, t, &runs, &delay) < 0)
		return;
	n = profil_wait_cpu_periods(&t->wall_cpu, delay, t->wall_runs, runs,
	    1000000000ULL / s->opts.hz);
	if (n > 0)
		cpu_wait(s, im, t, n);
	if (!profil_wait_goes_on(&t->wall_cpu, &t->wall_runs, runs, t->wall_pcs != NULL,
	    weight)) {
		free(t->wall_pcs);
		t->wall_pcs = NULL;
		if (wait_stack(s, im, t) < 0)
			return;
	}
	if (profil_outside_image_count(s, im, t->tid, t->wall_pcs, t->wall_depth, weight,
	    s->wall_now) < 0)
		im->lost += weight;
	else
		s->stats.waits += weight;
}

void
profil_outside_wall_tick(struct profil_outside *s, uint64_t weight)
{
	s->wall_now = profil_monotonic_ns();
	for (size_t i = 0; i < s->npids; i++) {
		struct profil_outside_image *im = s->pids[i].image;

		if (im == NULL || im->skip || im->pid == s->self)
			continue;
		for (size_t j = 0; j < im->nthreads; j++) {
			struct profil_outside_thread *t = &im->threads[j];

			if (t->alive) {
				wall_thread(s, im, t, weight);
			} else if (t->wall_fd >= 0) {
				close(t->wall_fd);
				t->wall_fd = -1;
			}
		}
	}
}
