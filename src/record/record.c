/*
 * The preloaded recorder's life: it starts itself when the library is loaded (LD_PRELOAD, or
 * `profil record`), configured from the environment:
 *
 *   PROFIL_RECORD_DIR      output directory, created if missing (default ./profil.out); made
 *                          absolute and exported, so children that chdir write there too
 *   PROFIL_RECORD_HZ       samples per CPU second per thread, 1..20000 (default 1000)
 *   PROFIL_RECORD_CLOCK    auto (default): perf ring buffers where perf events are allowed,
 *                          else the engine's clocks; ring; perf (perf events + a signal per
 *                          sample); timer (per-thread CPU timers + a signal)
 *   PROFIL_RECORD_STACKS   cfi or 1: record call stacks walked by the unwind tables of the
 *                          objects' call frame information; fp: walked by frame pointers;
 *                          0: flat (default)
 *   PROFIL_RECORD_EXEC     0: images started by exec from a recorded process are not recorded
 *   PROFIL_RECORD_ENTRIES  distinct stacks per in-memory table (default 16384); a table half
 *                          full is spilled to an unnamed file in the output directory
 *   PROFIL_RECORD_FLUSH_MS periodic flush interval in ms (default 1000; 0 disables, and with
 *                          a signal clock and no PROFIL_RECORD_WALL runs no recorder thread)
 *   PROFIL_RECORD_WALL     1: threads are also sampled while they wait (sleep, I/O, locks), at
 *                          PROFIL_RECORD_HZ of the wall clock, by the recorder thread reading
 *                          /proc and their stacks (src/record/wall.c); no signal reaches them
 *
 * A fork child records into its own file; exec writes the file (exit kind "exec") and the new
 * image, preloaded through the inherited environment, starts a file of its own.  Failures
 * disable the recorder with one line on stderr; the program runs on unharmed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "base/append.h"
#include "protocol.h"
#include "life.h"
#include "record.h"

struct profil_record profil_rec;
struct profil_record_life profil_life = { .flush_ms = 1000, .stat_fd = -1, .status_fd = -1 };

int
profil_record_tid(void)
{
	return (int)syscall(SYS_gettid);
}

int
profil_record_lock(void)
{
	int me = profil_record_tid(), expect;

	if (atomic_load(&profil_life.lock_owner) == me)
		return 0;
	for (;;) {
		expect = 0;
		if (atomic_compare_exchange_weak(&profil_life.lock_owner, &expect, me))
			return 1;
		sched_yield();
	}
}

void
profil_record_unlock(void)
{
	atomic_store(&profil_life.lock_owner, 0);
}

void
profil_record_lock_reset(void)
{
	atomic_store(&profil_life.lock_owner, 0);
}

void
profil_record_warn(const char *what, const char *subject)
{
	profil_record_warn_errno(what, subject, 0);
}

/*
 * strerrordesc_np(3), not strerror(3): a static English table, no locale and no buffer, so
 * the fatal-signal flush may call it.
 */
void
profil_record_warn_errno(const char *what, const char *subject, int err)
{
	char line[PROFIL_FORMAT_MAX_PATH + 256];
	size_t n = 0;
	const char *desc = err > 0 ? strerrordesc_np(err) : NULL;
	const char *parts[] = { "profil: ", what, ": '", subject, "'", desc ? ": " : "", desc,
		"\n" };
	size_t i;

	if (profil_rec.warned)
		return;
	profil_rec.warned = 1;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		n = profil_append(line, n, sizeof(line) - 1, parts[i]);
	line[n++] = '\n';	/* kept even when the line is cut */
	if (n >= 2 && line[n - 2] == '\n')
		n--;
	/*
	 * The recorder's thread has no descriptor 2 of its own: it reopens the program's stderr
	 * through /proc (the thread-group leader's table), appending.  Nothing to do if stderr is
	 * gone: the profile is what matters.
	 */
	if (atomic_load(&profil_life.flusher_tid) != 0 &&
	    atomic_load(&profil_life.flusher_tid) == profil_record_tid()) {
		int fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			if (write(fd, line, n) < 0)
				n = 0;
			close(fd);
		}
		return;
	}
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static unsigned long
env_ulong(const char *name, unsigned long dflt, unsigned long min, unsigned long max)
{
	const char *v = profil_env_get(name);
	unsigned long x;
	char *end;

	if (v == NULL || *v == '\0')
		return dflt;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || x < min || x > max) {
		profil_record_warn("ignoring invalid value", name);
		return dflt;
	}
	return x;
}

/*
 * name=value for the processes that follow: in place where the variable exists (bash's main()
 * reads its envp, the array the kernel gave, and would miss a new one), else through the C
 * library's setenv, never a program's (bash's own one throws it away before main).  entry is
 * static storage of cap bytes that the environment keeps pointing to.
 */
static void
env_set(const char *name, const char *value, char *entry, size_t cap)
{
	if ((size_t)snprintf(entry, cap, "%s=%s", name, value) >= cap)
		return;
	if (profil_env_replace(entry) == 0)
		return;
	if (profil_real.setenv != NULL)
		profil_real.setenv(name, value, 1);
}

/*
 * fd moved to the highest number it may take up to 100, under RLIMIT_NOFILE: above the
 * numbers a program's first opens get, without growing the kernel's descriptor table for a
 * limit of a million.  Returns the new descriptor (fd closed), or fd where none is free.
 */
int
profil_record_fd_high(int fd)
{
	struct rlimit rl;
	long want = 100;
	int high;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)want >= rl.rlim_cur)
		want = (long)rl.rlim_cur - 1;
	for (; want > fd; want--) {
		high = fcntl(fd, F_DUPFD_CLOEXEC, (int)want);
		if (high >= 0) {
			close(fd);
			return high;
		}
		if (errno != EMFILE)
			break;
	}
	return fd;
}

/*
 * Creates and opens the output directory.  The default ./profil.out must be a directory of
 * ours, not a symbolic link or a directory that another user planted where we would write.
 * The descriptor moves above the numbers a program expects to get from its first opens, and
 * leaves the program's table once the recorder's thread has a table of its own
 * (profil_record_flusher_start()).
 */
static int
make_dir(char *out, size_t cap)
{
	const char *d = profil_env_get(PROFIL_RECORD_ENV_DIR);
	int dflt = d == NULL || *d == '\0', fd;
	struct stat st;

	if (dflt)
		d = "profil.out";
	if (mkdir(d, 0777) != 0 && errno != EEXIST)
		return -errno;
	fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC | (dflt ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || (dflt && st.st_uid != geteuid())) {
		close(fd);
		return -EPERM;
	}
	if (realpath(d, out) == NULL || strlen(out) + 1 > cap) {
		int r = errno ? -errno : -ENAMETOOLONG;

		close(fd);
		return r;
	}
	profil_rec.dir_fd = profil_record_fd_high(fd);
	profil_rec.dir_dev = (uint64_t)st.st_dev;
	profil_rec.dir_ino = (uint64_t)st.st_ino;
	return 0;
}

/* A recorder that gives up gives the program its address space back. */
static void
tables_release(void)
{
	struct profil_stacks *s = &profil_rec.stacks;
	int i;

	profil_record_times_release();
	atomic_store(&s->cur, NULL);
	for (i = 0; i < 2; i++) {
		struct profil_stack_table *t = &s->tables[i];

		if (t->entries != NULL)
			munmap(t->entries, t->nentries * sizeof(*t->entries));
		if (t->pool != NULL)
			munmap(t->pool, t->npool * sizeof(*t->pool));
		t->entries = NULL;
		t->pool = NULL;
	}
}

static int
setup(void)
{
	static char dir_entry[sizeof(PROFIL_RECORD_ENV_DIR "=") + sizeof(profil_rec.dir)];
	struct profil_stacks *s = &profil_rec.stacks;
	const char *clock = profil_env_get(PROFIL_RECORD_ENV_CLOCK), *stacks, *report, *killer;
	unsigned long entries;
	int cfi = 0;
	ssize_t n;
	sigset_t saved;
	struct timespec coarse;
	int r, i;

	profil_rec.hz = (unsigned int)env_ulong(PROFIL_RECORD_ENV_HZ, 1000, 1, PROFIL_HZ_MAX);
	stacks = profil_env_get(PROFIL_RECORD_ENV_STACKS);
	if (stacks != NULL && strcmp(stacks, PROFIL_RECORD_STACKS_FP) == 0) {
		profil_rec.depth = 128;
	} else if (stacks != NULL && strcmp(stacks, PROFIL_RECORD_STACKS_CFI) == 0) {
		profil_rec.depth = 128;
		cfi = 1;
	} else {
		profil_rec.depth = env_ulong(PROFIL_RECORD_ENV_STACKS, 0, 0, 1) ? 128 : 1;
		cfi = profil_rec.depth > 1;
	}
#if !defined(__x86_64__)
	cfi = 0;	/* the unwind tables and their walk are x86-64's: frame pointers */
#endif
	profil_life.flush_ms = (unsigned int)env_ulong(PROFIL_RECORD_ENV_FLUSH_MS, 1000, 0,
	    3600000);
	profil_rec.wall = (int)env_ulong(PROFIL_RECORD_ENV_WALL, 0, 0, 1);
	entries = env_ulong(PROFIL_RECORD_ENV_ENTRIES, 16384, 64, 1UL << 24);
	profil_rec.clock = PROFIL_CLOCK_AUTO;
	if (clock != NULL && strcmp(clock, PROFIL_RECORD_CLOCK_TIMER) == 0)
		profil_rec.clock = PROFIL_CLOCK_TIMER;
	else if (clock != NULL && strcmp(clock, PROFIL_RECORD_CLOCK_RING) == 0)
		profil_rec.clock = PROFIL_FILE_CLOCK_RING;
	else if (clock != NULL && strcmp(clock, PROFIL_RECORD_CLOCK_PERF) == 0)
		profil_rec.clock = PROFIL_CLOCK_PERF;
	else if (clock != NULL && *clock != '\0' && strcmp(clock, PROFIL_RECORD_CLOCK_AUTO) != 0)
		profil_record_warn("ignoring invalid value", PROFIL_RECORD_ENV_CLOCK);

	report = profil_env_get(PROFIL_RECORD_ENV_REPORT);
	if (report != NULL && *report != '\0' && strlen(report) < sizeof(profil_rec.report)) {
		profil_rec.report_len = (unsigned int)strlen(report);
		memcpy(profil_rec.report, report, profil_rec.report_len);
	}
	profil_rec.dir_fd = -1;
	strncpy(profil_rec.progname, program_invocation_short_name,
	    sizeof(profil_rec.progname) - 1);
	if (profil_rec.progname[0] == '\0' || strchr(profil_rec.progname, '/') != NULL)
		strcpy(profil_rec.progname, "unknown");
	/*
	 * Under a filter that no `profil record` vouched for (a bare LD_PRELOAD, a filter added
	 * after it forked, threads already running), even the probe's clone may be killed.
	 */
	if (profil_life.start_seccomp != 0 && !profil_seccomp_may_probe()) {
		profil_record_warn("recorder disabled: a seccomp filter is in force (run the program "
		    "under profil record to probe it)", profil_rec.progname);
		return -EPERM;
	}
	if (profil_life.start_seccomp != 0 && profil_record_seccomp_probe() < 0) {
		profil_record_warn(profil_record_seccomp_what("recorder disabled: ",
		    profil_seccomp_killer(), NULL), profil_rec.progname);
		return -EPERM;
	}
	r = make_dir(profil_rec.dir, sizeof(profil_rec.dir));
	if (r < 0) {
		profil_record_warn("recorder disabled: cannot create output directory",
		    profil_env_get(PROFIL_RECORD_ENV_DIR) ? profil_env_get(PROFIL_RECORD_ENV_DIR) :
		    "profil.out");
		return r;
	}
	env_set(PROFIL_RECORD_ENV_DIR, profil_rec.dir, dir_entry, sizeof(dir_entry));
	n = readlink("/proc/self/exe", profil_rec.exe, sizeof(profil_rec.exe) - 1);
	profil_rec.exe[n > 0 ? n : 0] = '\0';
	profil_rec.pid = getpid();
	profil_rec.start_ns = profil_clock_ns(CLOCK_REALTIME);
	if (profil_record_choose_path() < 0) {
		profil_record_warn("recorder disabled: no free file name", profil_rec.path);
		return -EEXIST;
	}

	/*
	 * Round the tables up to a power of two; the pools hold the stacks' pcs, 16 a stack on
	 * average (a pool half full spills the table like its entries).  Address space is the
	 * program's (RLIMIT_AS): about 1 MiB flat, 5 MiB with stacks, at the default size.
	 */
	s->max_depth = profil_rec.depth;
	profil_rec.spill_fd = -1;
	for (i = 0; i < 2; i++) {
		struct profil_stack_table *t = &s->tables[i];

		for (t->nentries = 64; t->nentries < entries; t->nentries <<= 1)
			;
		t->npool = t->nentries * (profil_rec.depth > 1 ? 16 : 1);
		t->entries = profil_record_map_zero(t->nentries * sizeof(*t->entries));
		t->pool = profil_record_map_zero(t->npool * sizeof(*t->pool));
		if (t->entries == NULL || t->pool == NULL) {
			tables_release();
			profil_record_warn("recorder disabled: cannot map memory",
			    PROFIL_RECORD_ENV_ENTRIES);
			return -ENOMEM;
		}
	}
	atomic_store(&s->cur, &s->tables[0]);
	/* Without room for times the recording goes on: its file says nothing of time. */
	(void)profil_record_times_init(getauxval(AT_SYSINFO_EHDR) != 0);
	if (profil_rec.wall && profil_record_wall_init() < 0) {
		profil_rec.wall = 0;
		profil_record_warn("--wall off: cannot map memory", PROFIL_RECORD_ENV_WALL);
	}
	profil_rec.sink.fn = profil_stacks_tick;
	profil_rec.sink.arg = s;
	profil_record_note_stack_bounds();
	profil_record_note_self_text(s);
	if (cfi)
		s->unwind = profil_record_unwind_shared();
	profil_record_lock();
	profil_record_maps_snapshot();
	/* The constructor's thread, before the program runs: it may open files and allocate. */
	profil_record_unwind_open_locked();
	profil_record_unlock();
	profil_record_unwind_build();
	profil_rec.enabled = 1;

	profil_record_hooks_add();

	/* Ring buffers where perf events are allowed: no signal per sample at all. */
	profil_life.cpu_start_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	profil_record_system_mark();
	profil_ring_init(sysconf(_SC_PAGESIZE));
	if (profil_rec.clock == PROFIL_CLOCK_AUTO || profil_rec.clock == PROFIL_FILE_CLOCK_RING) {
		const char *why = NULL, *call = NULL;

		/* The rings need the recorder's thread to empty them. */
		if (profil_life.start_seccomp != 0 && profil_life.no_threads) {
			why = "the ring clock needs the recorder's thread";
			call = profil_life.seccomp_call;
		} else if (profil_life.start_seccomp != 0 &&
		    profil_seccomp_kills(profil_record_try_ring, NULL) != 0) {
			why = "";
			call = profil_seccomp_killer();
		}
		profil_record_lock();
		r = why != NULL ? -EPERM : profil_ring_open(profil_record_tid(), profil_rec.hz,
		    profil_rec.depth > 1);
		if (why != NULL && profil_rec.clock == PROFIL_CLOCK_AUTO)
			profil_record_seccomp_degrade("recording with a signal clock");
		if (r == 0) {
			profil_life.ring_mode = 1;
			profil_threads_foreach(profil_record_open_ring_cb, NULL);
		}
		profil_record_unlock();
		if (r < 0 && profil_rec.clock == PROFIL_FILE_CLOCK_RING) {
			profil_rec.enabled = 0;
			tables_release();
			profil_record_unwind_release();
			if (why != NULL)
				profil_record_warn(profil_record_seccomp_what(
				    "recorder disabled: ", call, *why != '\0' ? why : NULL),
				    profil_rec.progname);
			else
				profil_record_warn("recorder disabled: perf ring buffers refused",
				    strerror(-r));
			return r;
		}
	}
	if (profil_life.ring_mode) {
		profil_record_flusher_start();
		if (profil_life.seccomp_note != NULL)
			profil_record_warn(profil_record_seccomp_what("", profil_life.seccomp_call,
			    profil_life.seccomp_note), profil_rec.progname);
		return 0;
	}
	/* Only the timer clock's ticks are timed to the kernel's tick (profil_time_tick). */
	if (profil_clock_resolve(profil_rec.clock, profil_rec.hz) != PROFIL_CLOCK_PERF &&
	    clock_getres(CLOCK_MONOTONIC_COARSE, &coarse) == 0)
		profil_record_times_signals((uint64_t)coarse.tv_sec * 1000000000ULL +
		    (uint64_t)coarse.tv_nsec);
	profil_engine_lock(&saved);
	r = profil_engine_start_locked(&profil_rec.sink, profil_rec.hz, profil_rec.clock);
	profil_engine_unlock(&saved);
	/* Under a filter the engine probed its clock last: what that probe found killed. */
	killer = profil_life.start_seccomp != 0 ? profil_seccomp_killer() : NULL;
	if (r < 0) {
		profil_rec.enabled = 0;
		tables_release();
		profil_record_unwind_release();
		if (killer != NULL)
			profil_record_warn(profil_record_seccomp_what("recorder disabled: ", killer,
			    NULL), profil_rec.progname);
		else
			profil_record_warn("recorder disabled: cannot start the sampling clock",
			    strerror(-r));
		return r;
	}
	profil_record_flusher_start();
	if (profil_life.seccomp_note != NULL)
		profil_record_warn(profil_record_seccomp_what("", profil_life.seccomp_call,
		    profil_life.seccomp_note), profil_rec.progname);
	return 0;
}

__attribute__((constructor)) static void
record_init(void)
{
	const char *active = profil_env_get(PROFIL_RECORD_ENV_ACTIVE);
	static char active_entry[64];
	char pid[24];

	profil_real_resolve();
	/*
	 * A filter in force from the start (a container's, systemd's SystemCallFilter=) is probed
	 * before anything is armed (profil_record_seccomp_probe()); a filter added later is
	 * watched for (filtered(), flusher.c).
	 */
	profil_life.start_seccomp = profil_seccomp_filtered();
	/*
	 * PROFIL_RECORD_EXEC=0: only the first image records; the marker reaches the others.
	 * Empty is unset: a launcher can make room for it in the environment it passes (bash
	 * keeps only the variables its main() found in envp).
	 */
	if (active != NULL && *active != '\0' && env_ulong(PROFIL_RECORD_ENV_EXEC, 1, 0, 1) == 0)
		return;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	env_set(PROFIL_RECORD_ENV_ACTIVE, pid, active_entry, sizeof(active_entry));
	setup();
}
