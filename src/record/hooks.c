/*
 * The recorder's part in the program's life: threads that start and end, exec, exit, fork.
 */
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "protocol.h"
#include "life.h"
#include "record.h"

static int fork_taken;		/* the fork took the lock (not already held here) */

/*
 * The recorder's own executable segment, from its program headers: the linker defines
 * __ehdr_start at the ELF header of every object it writes, which the first PT_LOAD maps.  No
 * dl_iterate_phdr, no name to look up: the walks then read two plain fields.
 */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

void
profil_record_note_self_text(struct profil_stacks *s)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(uintptr_t)((uintptr_t)eh + eh->e_phoff);
	uintptr_t bias = 0, lo = UINTPTR_MAX, hi = 0;
	int have_bias = 0;

	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		/* The first PT_LOAD maps file offset 0, the header, at eh. */
		if (!have_bias) {
			bias = (uintptr_t)eh - (uintptr_t)(ph[i].p_vaddr - ph[i].p_offset);
			have_bias = 1;
		}
		if ((ph[i].p_flags & PF_X) == 0)
			continue;
		if (bias + ph[i].p_vaddr < lo)
			lo = bias + ph[i].p_vaddr;
		if (bias + ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = bias + ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (lo < hi) {
		s->self_lo = lo;
		s->self_hi = hi;
	}
}

/* What the tick needs of the thread it interrupts, noted as the thread starts. */
void
profil_record_note_stack_bounds(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	profil_sample_tid = (uint32_t)profil_record_tid();
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		profil_stack_bounds.lo = (uintptr_t)addr;
		profil_stack_bounds.hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

static void
open_ring(pid_t tid)
{
	if (profil_ring_open(tid, profil_rec.hz, profil_rec.depth > 1) < 0)
		profil_ring_stats.failures++;
}

static void
on_thread_start(int why, void *unused)
{
	(void)why;
	(void)unused;
	profil_record_note_stack_bounds();
	if (!profil_life.ring_mode || !profil_rec.enabled || profil_rec.pid != getpid() ||
	    !profil_record_lock())
		return;
	open_ring(profil_record_tid());
	profil_record_unlock();
}

static void
on_thread_exit(int why, void *unused)
{
	char name[17] = "";

	(void)why;
	(void)unused;
	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	if (!profil_life.no_prctl)
		prctl(PR_GET_NAME, name);
	if (!profil_record_lock())
		return;
	if (profil_life.ring_mode)
		profil_ring_close(profil_record_tid());
	profil_record_thread_note((uint32_t)profil_record_tid(), name);
	profil_record_unlock();
}

static void
on_exec_before(int why, void *unused)
{
	(void)why;
	(void)unused;
	profil_record_flush_now(PROFIL_EXIT_EXEC, 0);
}

static void
on_exec_failed(int why, void *unused)
{
	(void)why;
	(void)unused;
	if (profil_rec.pid == getpid())
		atomic_store(&profil_life.exec_quiet, 0);
}

static void
record_on_exit(int why, void *unused)
{
	(void)unused;
	if (why == 0)
		profil_record_flush_now(PROFIL_EXIT_NORMAL, -1);
	else
		profil_record_flush_now(PROFIL_EXIT_SIGNAL, why);
}

/*
 * A fork child: the parent's directory descriptor was in its recorder thread's table alone.
 * The same directory (device and inode) is opened again, high; the child's own recorder
 * thread takes it as the parent's did.  Failing that, the files are written by path.
 */
static void
dir_reopen(void)
{
	struct stat st;
	int fd;

	if (profil_record_dir_fd() >= 0)
		return;
	profil_rec.dir_fd = -1;
	fd = open(profil_rec.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != profil_rec.dir_dev ||
	    (uint64_t)st.st_ino != profil_rec.dir_ino) {
		close(fd);
		return;
	}
	profil_rec.dir_fd = profil_record_fd_high(fd);
}

/*
 * fork: the lock is held across it, so the child never inherits a half-written table or file;
 * the child starts empty, under its own name, with a flusher of its own.  The engine's fork
 * places (engine.h): its lock held and every signal blocked from before the copy until after
 * these; the child's part runs before the engine re-arms the child's clocks.
 */
static void
fork_prepare(int why, void *unused)
{
	(void)why;
	(void)unused;
	profil_record_unwind_fork_prepare();
	fork_taken = profil_record_lock();
}

static void
fork_parent(int why, void *unused)
{
	(void)why;
	(void)unused;
	if (fork_taken)
		profil_record_unlock();
	profil_record_unwind_fork_parent();
}

static void
fork_child(int why, void *unused)
{
	struct profil_stacks *s = &profil_rec.stacks;
	int i;

	(void)why;
	(void)unused;
	profil_record_lock_reset();
	/* The parent's recorder thread is not in the child; a new one takes requests. */
	atomic_store(&profil_life.flusher_tid, 0);
	atomic_store(&profil_life.flusher_starting, 0);
	atomic_store(&profil_life.keeper_running, 0);
	atomic_store(&profil_life.keeper_go, 0);
	atomic_store(&profil_life.keeper_tid, 0);
	profil_record_wall_fork_child();
	atomic_store(&profil_life.req.state, REQ_NONE);
	atomic_store(&profil_life.req.owner, 0);
	atomic_store(&profil_life.exec_quiet, 0);
	profil_life.final_written = 0;
	profil_life.stat_fd = -1;		/* in the parent's recorder thread's table */
	profil_life.status_fd = -1;
	/* The forking thread lives on under a new id; its ticks must not carry the parent's. */
	profil_sample_tid = (uint32_t)profil_record_tid();
	profil_record_unwind_fork_child();
	/*
	 * The child inherits the forking thread's seccomp filter, and its recorder thread would
	 * too: with one, the child records nothing rather than risk a killed open(2).
	 */
	if (profil_rec.enabled &&
	    (atomic_load(&profil_life.sealed) ||
	    profil_seccomp_filtered() != profil_life.start_seccomp))
		profil_rec.enabled = 0;
	if (profil_rec.enabled) {
		profil_rec.pid = getpid();
		profil_rec.start_ns = profil_clock_ns(CLOCK_REALTIME);
		/* Fresh zero pages in place of the parent's counts. */
		for (i = 0; i < 2; i++) {
			struct profil_stack_table *t = &s->tables[i];

			mmap(t->entries, t->nentries * sizeof(*t->entries),
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
			atomic_store(&t->pool_used, 0);
			atomic_store(&t->used, 0);
			atomic_store(&t->inflight, 0);
		}
		atomic_store(&s->cur, &s->tables[0]);
		atomic_store(&s->dropped, 0);
		profil_record_times_fork_child();
		profil_record_spill_forget();
		profil_rec.nthreads = 0;
		profil_rec.warned = 0;
		profil_rec.report_failed = 0;
		profil_life.cpu_start_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		profil_record_system_mark();
		if (profil_life.ring_mode) {
			profil_ring_forget_all();
			open_ring(getpid());
		}
		dir_reopen();
		if (profil_record_choose_path() < 0)
			profil_rec.enabled = 0;
		else
			profil_record_flusher_start();
	}
}

void
profil_record_open_ring_cb(pid_t tid, void *unused)
{
	(void)unused;
	open_ring(tid);
}

void
profil_record_hooks_add(void)
{
	profil_engine_hook_add(PROFIL_HOOK_THREAD_START, on_thread_start, NULL);
	profil_engine_hook_add(PROFIL_HOOK_THREAD_EXIT, on_thread_exit, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_BEFORE, on_exec_before, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_FAILED, on_exec_failed, NULL);
	profil_engine_hook_add(PROFIL_HOOK_FORK_PREPARE, fork_prepare, NULL);
	profil_engine_hook_add(PROFIL_HOOK_FORK_PARENT, fork_parent, NULL);
	profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD_FIRST, fork_child, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXIT, record_on_exit, NULL);
}
