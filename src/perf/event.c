/*
 * A perf event from a small description: the engine's perf clock (a signal per sample), the
 * in-process recorder's rings and the outside recorder's per-CPU events all set their
 * attributes here.  A raw system call: the engine arms its clock from pcsample(), which may be
 * called in a signal handler.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

void
profil_perf_attr(const struct profil_perf_desc *d, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = d->cpu_clock ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = d->period_ns;
	a->sample_type = d->sample_type;
	a->sample_regs_user = d->regs_user;
	a->sample_stack_user = d->stack_user;
	a->sample_max_stack = d->max_stack;
	a->disabled = d->disabled;
	a->enable_on_exec = d->enable_on_exec;
	a->inherit = d->inherit;
	/* perf_event_paranoid 2 allows user-space-only sampling to everybody. */
	a->exclude_kernel = !d->kernel;
	a->exclude_idle = d->exclude_idle;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = d->sample_type != 0 && !d->kernel;
	a->exclude_callchain_user = d->exclude_callchain_user;
	/* Mappings, names (and exec), forks and exits, each with sample_id_all's trailer. */
	a->mmap = a->mmap2 = d->sideband;
	a->comm = a->comm_exec = d->sideband;
	a->task = a->sample_id_all = d->sideband;
	a->build_id = d->build_id;
	if (d->monotonic) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	if (d->wakeup_bytes != 0) {
		a->watermark = 1;
		a->wakeup_watermark = d->wakeup_bytes;
	}
}

int
profil_perf_open(const struct profil_perf_desc *d, pid_t pid, int cpu)
{
	struct perf_event_attr a;
	long fd;

	profil_perf_attr(d, &a);
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}
