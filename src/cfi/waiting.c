/*
 * waiting.c - a waiting thread as /proc shows it (its run count, time waiting for a CPU, state
 * and system call), the periods of its waits for a CPU, and the walk of its stack from the
 * registers /proc gives (sp and pc, without the frame pointer) by the unwind tables.  Shared
 * by the outside recorder (src/outside/wall.c) and the in-process one's recorder thread
 * (src/record/wall.c), neither in signal context.  Allocation-free.
 *
 * The frame pointer such a walk lacks is proved from the function's code in fpproof.c.
 */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "cfi.h"
#include "cfi/fpproof.h"
#include "format/format.h"

int
profil_wait_runs(const char *schedstat, uint64_t *runs, uint64_t *delay)
{
	unsigned long long a, b, c;

	if (sscanf(schedstat, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	*runs = c;
	*delay = b;
	return 0;
}

/*
 * The kernel adds a wait on a runqueue to run_delay when the thread gets the CPU, and counts
 * that arrival in the run count: the time between two reads is whole.  A tick that counted the
 * thread's wait again because its run count had not moved (a recount) may have come after
 * the wake-up, while it waited for a CPU: that time would be counted twice.  A tick that read
 * the wait afresh saw it waiting, and is right.  So when the thread has run after recounts,
 * the recounts that fell in the wait for a CPU that ended them are taken off that wait's
 * periods: with the wake-up at any phase of the period, as many as its length over the
 * period, in expectation (frac carries the fractions from one wake-up to the next), and never
 * more than there were recounts.  The first run's share of the delay is that wait's, when the
 * thread ran more than once since the last tick.
 */
uint64_t
profil_wait_cpu_periods(struct profil_wait_cpu *c, uint64_t delay, uint64_t runs_before,
    uint64_t runs, uint64_t period_ns)
{
	uint64_t d, x = 0, n;

	if (!c->known || delay < c->delay || period_ns == 0) {
		c->known = 1;
		c->delay = delay;
		c->recounts = 0;
		return 0;
	}
	d = delay - c->delay;
	c->delay = delay;
	if (runs > runs_before && c->recounts > 0) {
		c->frac += d / (runs - runs_before);
		x = c->frac / period_ns;
		if (x > c->recounts)
			x = c->recounts;
		c->frac = (c->frac - x * period_ns) % period_ns;
	}
	if (runs > runs_before)
		c->recounts = 0;
	c->owed += (int64_t)d - (int64_t)(x * period_ns);
	if (c->owed < (int64_t)period_ns)
		return 0;
	n = (uint64_t)c->owed / period_ns;
	c->owed -= (int64_t)(n * period_ns);
	return n;
}

size_t
profil_wait_cpu_place(struct profil_wait_cpu *c, uint64_t *pcs, size_t depth, size_t max,
    uint64_t *n, uint64_t hold)
{
	pcs[0] = PROFIL_PC_WAIT_CPU;
	if (max > 1) {
		/*
		 * Not seen on a CPU yet (its first samples may still be on their way): held back
		 * for hold periods at most, then counted with a stack that says none is known.
		 */
		if (depth == 1 && c->unplaced < hold) {
			c->unplaced += *n;
			return 0;
		}
		if (depth == 1)
			pcs[depth++] = PROFIL_PC_CUT_STACK;
		/* One frame less than the walk's limit: the outermost is cut. */
		else if (depth == max && pcs[max - 1] < PROFIL_PC_WAIT_MIN)
			pcs[max - 1] = PROFIL_PC_CUT_DEPTH;
	} else {
		depth = 1;
	}
	*n += c->unplaced;
	c->unplaced = 0;
	return depth;
}

/* The state letter comes after the name, which may hold spaces and parentheses. */
int
profil_wait_state(const char *stat)
{
	const char *p = strrchr(stat, ')');

	if (p == NULL || p[1] != ' ')
		return -1;
	switch (p[2]) {
	case 'S':
		return PROFIL_WAIT_SLEEPING;
	case 'D':
		return PROFIL_WAIT_DISK;
	case 'T':
	case 't':
		return PROFIL_WAIT_STOPPED;
	case 'R':
	case 'Z':
	case 'X':
	case 'x':
		return -1;	/* on a CPU (a CPU sample), or ended */
	default:
		return PROFIL_WAIT_OTHER;
	}
}

int
profil_wait_syscall(const char *text, long *nr, uint64_t *sp, uint64_t *pc)
{
	unsigned long long a[6], usp, upc;

	if (strncmp(text, "running", 7) == 0)
		return -1;
	if (sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", nr, &a[0], &a[1], &a[2],
	    &a[3], &a[4], &a[5], &usp, &upc) == 9) {
		*sp = usp;
		*pc = upc;
		return 0;
	}
	/* Blocked outside a system call (a page fault): "-1 sp pc". */
	if (sscanf(text, "%ld %llx %llx", nr, &usp, &upc) == 3 && *nr == -1) {
		*sp = usp;
		*pc = upc;
		return 0;
	}
	return -1;
}

uint64_t
profil_wait_leaf(int state, long nr)
{
	return PROFIL_PC_WAIT(state, nr >= 0 && nr < PROFIL_WAIT_NO_SYSCALL ? (unsigned long)nr :
	    PROFIL_WAIT_NO_SYSCALL);
}

ssize_t
profil_wait_copy(pid_t pid, struct profil_unwind_regs *regs, uint8_t *copy, size_t len)
{
	struct iovec local = { copy, len }, remote = { (void *)(uintptr_t)regs->sp, len };

	/* /proc gives sp and pc alone. */
	regs->fp = PROFIL_UNWIND_FP_UNKNOWN;
	regs->bx = PROFIL_UNWIND_FP_UNKNOWN;
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

int
profil_wait_goes_on(struct profil_wait_cpu *c, uint64_t *runs_before, uint64_t runs, int known,
    uint64_t weight)
{
	/* A kernel without schedstats prints zeros: no wait can be known to go on. */
	if (!known || runs != *runs_before || runs == 0) {
		*runs_before = runs;
		c->recounts = 0;
		return 0;
	}
	/* Counted again on its run count alone: it may be waiting for a CPU by now. */
	c->recounts += weight;
	return 1;
}

size_t
profil_unwind_waiting(const struct profil_unwind_space *space,
    const struct profil_unwind_regs *regs, const struct profil_unwind_memory *mem, pid_t pid,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end)
{
	struct profil_unwind_stop f = { *regs, 1 };
	const struct profil_unwind_module *mod;
	const struct profil_unwind_row *row;
	size_t n = 0;

	*end = PROFIL_UNWIND_COMPLETE;
	while (n < max) {
		n += profil_unwind_cfi_at(space, &f, mem, pcs + n, max - n, end, &f);
		if (*end != PROFIL_UNWIND_NORULE || f.regs.fp != PROFIL_UNWIND_FP_UNKNOWN ||
		    !profil_unwind_fp_needed(space, &f, &mod, &row))
			break;
		if (profil_unwind_fp_prove(pid, mod, row, mem, &f, &f.regs.fp) < 0) {
			pcs[n - 1] = PROFIL_PC_CUT_FP;
			break;
		}
		/* On from f, pcs[n - 2], with its frame pointer, over the marker. */
		n -= 2;
	}
	return n;
}
