/*
 * records.c - the outside recorder's records as they come from the kernel's rings: a sample
 * (its stack from the kernel's callchain, the unwind tables over the stack copy, or both), a
 * process's name (exec), fork, exit and a new mapping, applied to the images of images.c.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buildid.h"
#include "session.h"

/* The kernel's callchain: frame pointers, walked by the kernel. */
static uint32_t
sample_chain(const struct profil_outside *s, const struct profil_perf_sample *smp,
    uint64_t *pcs)
{
	uint32_t depth = 0;
	size_t i;

	pcs[depth++] = smp->ip;
	if (s->opts.depth <= 1)
		return depth;
	for (i = 0; i < smp->nchain && depth < s->opts.depth; i++) {
		uint64_t pc = profil_perf_u64(smp->chain + i * 8);

		/* Context markers (PERF_CONTEXT_USER...) sit at the top of the space. */
		if (pc >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		/* The chain starts with the interrupted pc itself. */
		if (depth == 1 && pc == smp->ip)
			continue;
		pcs[depth++] = pc;
	}
	return depth;
}

/*
 * The kernel's frames of a sample taken in the kernel, from its callchain (kernel frames only:
 * the user's are walked by unwind tables), into pcs[0..max): ip first.  0 for a sample taken
 * in user space.
 */
static uint32_t
sample_kernel(const struct profil_perf_sample *smp, uint64_t *pcs, size_t max)
{
	uint64_t pc;
	uint32_t depth = 0;
	size_t i;

	if (smp->ip < PROFIL_PC_KERNEL_MIN || smp->ip >= PROFIL_PC_WAIT_MIN)
		return 0;
	pcs[depth++] = smp->ip;
	for (i = 0; i < smp->nchain && depth < max; i++) {
		pc = profil_perf_u64(smp->chain + i * 8);
		if (pc >= (uint64_t)PERF_CONTEXT_MAX || (depth == 1 && pc == smp->ip))
			continue;
		pcs[depth++] = pc;
	}
	return depth;
}

/*
 * The user registers (rbx, rbp, rsp, rip: the order of their bits) and the stack copy,
 * walked by unwind tables into pcs[0..max).  Without registers (a sample in a kernel thread's
 * context) nothing; a 32-bit program, a cut.
 */
static uint32_t
sample_walk(struct profil_outside *s, struct profil_outside_image *im,
    const struct profil_perf_sample *smp, uint64_t *pcs, size_t max)
{
	struct profil_unwind_regs regs;

	if (max == 0 || smp->regs_abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	/* A 32-bit program: its objects and frames are not what the tables describe. */
	if (smp->regs_abi != PERF_SAMPLE_REGS_ABI_64) {
		pcs[0] = PROFIL_PC_CUT_RULE;
		return 1;
	}
	if (smp->nregs < 4)
		return 0;
	regs.bx = smp->regs[0];
	regs.fp = smp->regs[1];
	regs.sp = smp->regs[2];
	regs.pc = smp->regs[3];
	return (uint32_t)profil_outside_unwind(s, im, &regs, smp->stack, (size_t)smp->stack_dyn,
	    pcs, max);
}

/* A sample's stack walked by unwind tables, below the kernel's frames when it has them. */
static uint32_t
sample_stack(struct profil_outside *s, struct profil_outside_image *im,
    const struct profil_perf_sample *smp, uint64_t *pcs)
{
	uint64_t ip = smp->ip;
	uint32_t k = 0, u;

	if (s->kernel)
		k = sample_kernel(smp, pcs, s->opts.depth);
	u = sample_walk(s, im, smp, pcs + k, s->opts.depth - k);
	if (k > 0)
		return k + u;
	/* In user space: the walk starts at ip, unless it could not (then ip, and its cut). */
	if (u == 0 || pcs[0] == PROFIL_PC_CUT_RULE) {
		pcs[1] = pcs[0];
		pcs[0] = ip;
		return u + 1;
	}
	return u;
}

static void
on_sample(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	static uint64_t pcs[PROFIL_FORMAT_MAX_DEPTH];
	struct profil_perf_sample smp;
	struct profil_outside_image *im;
	struct profil_outside_thread *th;
	uint64_t t;
	uint32_t pid, tid, depth;
	int row;

	if (profil_perf_sample_parse(profil_outside_sample_type(s), PROFIL_OUTSIDE_REGS_USER, rec,
	    len, &smp) < 0)
		return;
	pid = smp.pid;
	tid = smp.tid;
	t = smp.time;
	s->stats.samples++;
	if ((pid_t)pid == s->self)
		return;		/* -a: profil itself */
	im = profil_outside_image_of(s, (pid_t)pid, 1);
	if (im == NULL || im->skip)
		return;
	if (s->opts.depth > 1 && !s->opts.frame_pointers)
		depth = sample_stack(s, im, &smp, pcs);
	else
		depth = sample_chain(s, &smp, pcs);
	row = profil_outside_sample_add(im, tid, pcs, depth, 1);
	if (row < 0) {
		im->lost++;
		return;
	}
	th = profil_outside_thread_of(im, tid);
	if (th == NULL) {
		im->lost++;
		return;
	}
	th->cpu_row = row;
	profil_outside_image_time(s, im, row, t, 1);
	im->samples++;
	im->end_ns = t + (uint64_t)s->realtime_offset;
}

static void
on_comm(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct profil_outside_image *old, *im;
	struct profil_perf_comm c;
	uint32_t pid, tid;
	const char *comm;
	size_t clen;
	uint32_t ppid = 0;
	uint64_t base = 0, old_base = 0;
	int first, skip;

	if (profil_perf_comm_parse(profil_outside_sample_type(s), rec, len, &c) < 0)
		return;
	pid = c.pid;
	tid = c.tid;
	comm = c.comm;
	clen = c.comm_len;
	if (!c.exec) {
		im = profil_outside_image_of(s, (pid_t)pid, 1);
		if (im != NULL)
			profil_outside_thread_name(im, tid, comm, clen);
		return;
	}
	/* exec: the image ends and a new one begins, under the same pid. */
	old = profil_outside_image_of(s, (pid_t)pid, 0);
	first = (pid_t)pid == s->root && !s->root_execed;
	if (old != NULL) {
		profil_outside_system_update(old);
		old_base = old->system_base_ns + old->system_ns;
	}
	if (old != NULL) {
		ppid = old->ppid;
		/* The command's first image is recorded, whatever ran under its pid before (-a). */
		skip = !first && (!s->opts.follow_exec || old->skip);
		old->end_ns = c.id.time + (uint64_t)s->realtime_offset;
		profil_outside_image_end(s, old, PROFIL_EXIT_EXEC, 0);
		/* Where the old image's count ended, this one's starts (read now, as late). */
		base = old_base;
	} else if ((pid_t)pid == s->root) {
		ppid = (uint32_t)getpid();
		skip = !first && !s->opts.follow_exec;
	} else {
		skip = !s->opts.follow_exec;
	}
	im = profil_outside_image_new(s, (pid_t)pid, "", "");
	if (im == NULL)
		return;
	/*
	 * The process's count goes on across exec: this image's starts where the last one's
	 * ended; the command's first, at 0 (before its exec it only waited to be let go).
	 */
	im->system_base_ns = base;
	im->ppid = ppid;
	im->skip = skip;
	if ((pid_t)pid == s->root) {
		s->root_execed = 1;
		im->hold = 1;
	}
	im->start_ns = c.id.time + (uint64_t)s->realtime_offset;
	free(im->progname);
	im->progname = strndup(comm, clen < 16 ? clen : 16);
	if (im->progname == NULL)
		im->progname = strdup("");
	/* After exec the process has one thread, and its id is the pid. */
	profil_outside_thread_name(im, pid, comm, clen);
	profil_outside_thread_alive(im, pid, 1);
}

static void
on_fork(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct profil_outside_image *parent, *im;
	struct profil_perf_task task;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	size_t i;

	if (profil_perf_task_parse(rec, len, &task) < 0)
		return;
	pid = task.pid;
	ppid = task.ppid;
	tid = task.tid;
	ptid = task.ptid;
	time = task.time;
	/* A process is never its own parent: such a record is not the kernel's, and is dropped. */
	if (pid == tid && pid == ppid)
		return;
	/* -a: a parent not seen yet is described from /proc, so that its child inherits it. */
	parent = profil_outside_image_of(s, (pid_t)ppid,
	    s->opts.system_wide && (pid_t)ppid != s->self && ppid != 0);
	if (pid != tid) {
		im = profil_outside_image_of(s, (pid_t)pid, 1);
		if (im == NULL)
			return;
		profil_outside_thread_name_after(im, tid, im, ptid);
		profil_outside_thread_alive(im, tid, 1);
		return;
	}
	/* A process: a copy of its parent's mappings and name. */
	im = profil_outside_image_new(s, (pid_t)pid, parent != NULL ? parent->progname : "",
	    parent != NULL ? parent->exe : "");
	if (im == NULL)
		return;
	im->ppid = ppid;
	im->start_ns = time + (uint64_t)s->realtime_offset;
	profil_outside_thread_alive(im, tid, 1);
	if (parent == NULL) {
		profil_outside_image_synth(s, im);
		return;
	}
	im->skip = parent->skip;
	for (i = 0; i < parent->nmaps; i++) {
		const struct profil_outside_map *m = &parent->maps[i];

		if (m->live)
			profil_outside_map_add(s, im, m->m.start, m->m.end - m->m.start,
			    m->m.offset, m->m.prot, m->m.build_id, m->m.build_id_len, m->m.path,
			    strlen(m->m.path), im->start_ns);
	}
	profil_outside_thread_name_after(im, tid, parent, ptid);
}

static void
on_exit_record(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct profil_outside_image *im;
	struct profil_perf_task task;
	uint32_t pid, tid;
	uint64_t time;

	if (profil_perf_task_parse(rec, len, &task) < 0)
		return;
	pid = task.pid;
	tid = task.tid;
	time = task.time;
	im = profil_outside_image_of(s, (pid_t)pid, 0);
	if (im == NULL)
		return;
	im->end_ns = time + (uint64_t)s->realtime_offset;
	/* The process ends with its last thread (its main thread may end first). */
	profil_outside_thread_alive(im, tid, 0);
	if (im->live_threads > 0)
		return;
	/* A zombie still shows its times; once reaped, the last read stands. */
	profil_outside_system_update(im);
	if (im->hold) {
		im->exit_kind = PROFIL_EXIT_NORMAL;
		return;		/* the command: its status comes from waitpid() */
	}
	profil_outside_image_end(s, im, PROFIL_EXIT_NORMAL, -1);
}

static void
on_mmap2(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct profil_outside_image *im;
	struct profil_perf_mmap m;

	if (profil_perf_mmap2_parse(profil_outside_sample_type(s), rec, len, &m) < 0)
		return;
	im = profil_outside_image_of(s, (pid_t)m.pid, 1);
	if (im == NULL || m.len == 0)
		return;
	profil_outside_map_add(s, im, m.addr, m.len, m.pgoff, m.prot, m.build_id, m.build_id_len,
	    m.path, m.path_len, m.id.time + (uint64_t)s->realtime_offset);
}

void
profil_outside_apply(struct profil_outside *s, const uint8_t *rec, size_t len)
{
	struct perf_event_header h;
	struct profil_outside_image *im;
	struct profil_perf_lost lost;

	if (len < sizeof(h))
		return;
	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, rec, len);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(s, rec, len);
		break;
	case PERF_RECORD_COMM:
		on_comm(s, rec, len);
		break;
	case PERF_RECORD_FORK:
		on_fork(s, rec, len);
		break;
	case PERF_RECORD_EXIT:
		on_exit_record(s, rec, len);
		break;
	case PERF_RECORD_LOST:
		if (profil_perf_lost_parse(profil_outside_sample_type(s), rec, len, &lost) < 0)
			break;
		s->stats.lost += lost.lost;
		if (lost.has_id && (im = profil_outside_image_of(s, (pid_t)lost.id_all.pid, 0)) !=
		    NULL)
			im->lost += lost.lost;
		break;
	case PERF_RECORD_THROTTLE:
		s->stats.throttled++;
		break;
	default:
		break;
	}
}
