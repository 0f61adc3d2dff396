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
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "record.h"

struct profil_record profil_rec;

static atomic_int lock_owner;		/* tid holding the recorder lock, or 0 */
static unsigned int flush_ms = 1000;
static int ring_mode;			/* samples come from perf ring buffers, not signals */
static uint64_t cpu_start_ns;		/* process CPU time at start, for the ring's rate */

static atomic_int flusher_running;
static sigset_t atfork_saved;
static int atfork_taken;		/* the fork took the lock (not already held here) */

/*
 * The recorder's thread works in a descriptor table of its own (unshare(CLONE_FILES)), so its
 * opens and closes never race the program's: a shell's close(1) then dup2(fd, 1) must find
 * fd 1 as it left it.  flusher_tid is that thread once its table is private, 0 before.  The
 * program's threads hand it the flushes at exit, exec and fatal signals, through req.
 */
static atomic_int flusher_tid;
/*
 * 1 from the recorder thread's creation until it has its own table (flusher_tid) or has found
 * it cannot: a request meanwhile waits for it rather than open files on a program thread.
 */
static atomic_int flusher_starting;
static atomic_int keeper_running, keeper_go;
static atomic_int keeper_tid;		/* ours, never sampled while it waits (--wall) */
enum { REQ_NONE, REQ_PENDING, REQ_DONE };
#define REQ_MAPS UINT32_MAX	/* req.kind: re-read the mappings, write nothing */
static struct {
	atomic_int state;
	atomic_int owner;		/* tid of the thread whose request it is, 0: free */
	uint32_t kind;
	int32_t code;
	struct profil_stats st;		/* signal clocks: taken by the requester */
} req;
static int final_written;		/* an exit or fatal-signal file is out: no more flushes */
static atomic_int sealed;		/* a seccomp filter reached the recorder thread: no files */
/*
 * What a seccomp filter in force at start would kill (seccomp_probe()): clone3(2), so no
 * thread of ours; unshare(2) or close_range(2), so no descriptor table of its own for the
 * recorder's thread (it writes nothing, the program's threads write at exit); prctl(2).
 */
static int no_threads, no_table, no_prctl;
/*
 * The exec file is out and the exec is under way: a periodic flush started now would be
 * killed with the old image and leave its temporary file behind.  Cleared if exec fails.
 */
static atomic_int exec_quiet;

static int
self_tid(void)
{
	return (int)syscall(SYS_gettid);
}

int
profil_record_lock(void)
{
	int me = self_tid(), expect;

	if (atomic_load(&lock_owner) == me)
		return 0;
	for (;;) {
		expect = 0;
		if (atomic_compare_exchange_weak(&lock_owner, &expect, me))
			return 1;
		sched_yield();
	}
}

void
profil_record_unlock(void)
{
	atomic_store(&lock_owner, 0);
}

void
profil_record_lock_reset(void)
{
	atomic_store(&lock_owner, 0);
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
		for (const char *p = parts[i]; p != NULL && *p != '\0' && n < sizeof(line) - 1; p++)
			line[n++] = *p;
	line[n++] = '\n';	/* kept even when the line is cut */
	if (n >= 2 && line[n - 2] == '\n')
		n--;
	/*
	 * The recorder's thread has no descriptor 2 of its own: it reopens the program's stderr
	 * through /proc (the thread-group leader's table), appending.  Nothing to do if stderr is
	 * gone: the profile is what matters.
	 */
	if (atomic_load(&flusher_tid) != 0 && atomic_load(&flusher_tid) == self_tid()) {
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

/* The ring clock's figures in the engine's terms, for the header. */
static void
ring_stats(struct profil_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->requested_hz = profil_rec.hz;
	st->clock = PROFIL_FILE_CLOCK_RING;
	st->running = 1;
	st->signals = profil_ring_stats.samples;
	/*
	 * The samples the kernel could not store on a full ring (its LOST records) were ticks
	 * too; the header counts them as dropped, so that every tick is counted or dropped.
	 */
	st->ticks = profil_ring_stats.samples + profil_ring_stats.lost;
	st->cpu_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start_ns;
	st->threads = profil_ring_stats.threads;
	st->thread_failures = profil_ring_stats.failures;
	if (st->cpu_ns > 0)
		st->achieved_hz = (double)st->ticks * 1e9 / (double)st->cpu_ns;
}

static long
futex(atomic_int *word, int op, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* Writes the file; lock held.  st is NULL with the ring clock, whose figures are taken here. */
static void
write_locked(uint32_t kind, int32_t code, const struct profil_stats *st)
{
	struct profil_stats ring;

	if (ring_mode) {
		profil_ring_drain_all();
		ring_stats(&ring);
		st = &ring;
	}
	/* A periodic flush after the final one would say "running" of a process that ended. */
	if (final_written || (kind == PROFIL_EXIT_RUNNING && atomic_load(&exec_quiet)))
		return;
	profil_record_flush_locked(kind, code, st);
	if (kind == PROFIL_EXIT_NORMAL || kind == PROFIL_EXIT_SIGNAL)
		final_written = 1;
	if (kind == PROFIL_EXIT_EXEC)
		atomic_store(&exec_quiet, 1);
}

/*
 * Hands a flush to the recorder's thread and waits for it.  Returns 1 when it is done (or
 * must not be done), 0 when the caller must write it itself: no recorder thread with a table
 * of its own, or it did not answer within two seconds.  Async-signal-safe: futex(2) only.
 */
static int
delegate(uint32_t kind, int32_t code, const struct profil_stats *st)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000000L };
	int me = self_tid(), expect, waits;

	/*
	 * The recorder thread's first moments: a dlopen at the program's start would otherwise
	 * read the maps here, in the program's table, while the program counts on its numbers.
	 */
	for (waits = 0; atomic_load(&flusher_tid) == 0 && atomic_load(&flusher_starting) &&
	    waits < 200; waits++)
		futex(&flusher_starting, FUTEX_WAIT_PRIVATE, 1, &ts);
	if (atomic_load(&flusher_tid) == 0 || atomic_load(&flusher_tid) == me)
		return 0;
	/* Under the program's filter no thread can write safely: the periodic file stays. */
	if (atomic_load(&sealed))
		return 1;
	/*
	 * A fatal signal in the middle of an update, or of this thread's own request (a dlopen's
	 * mappings): see flush_now().  The request cannot finish under us, nor be waited for.
	 */
	if (atomic_load(&lock_owner) == me || atomic_load(&req.owner) == me)
		return 1;
	/* One request at a time: two threads exiting or exec'ing together take turns. */
	for (waits = 0;; waits++) {
		expect = 0;
		if (atomic_compare_exchange_strong(&req.owner, &expect, me))
			break;
		if (waits >= 200)
			return 0;
		futex(&req.owner, FUTEX_WAIT_PRIVATE, expect, &ts);
	}
	req.kind = kind;
	req.code = code;
	if (st != NULL)
		req.st = *st;
	atomic_store(&req.state, REQ_PENDING);
	futex(&req.state, FUTEX_WAKE_PRIVATE, 1, NULL);
	for (waits = 0; atomic_load(&req.state) == REQ_PENDING && waits < 200; waits++)
		futex(&req.state, FUTEX_WAIT_PRIVATE, REQ_PENDING, &ts);
	expect = REQ_DONE;
	if (!atomic_compare_exchange_strong(&req.state, &expect, REQ_NONE))
		return 0;	/* the recorder's thread is gone; the request stays */
	atomic_store(&req.owner, 0);
	futex(&req.owner, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	return 1;
}

/* The recorder's thread: a flush a program thread asked for. */
static void
serve_request(void)
{
	if (!atomic_load(&sealed) && profil_record_lock()) {
		if (req.kind == REQ_MAPS) {
			if (ring_mode)
				profil_ring_drain_all();
			profil_record_maps_snapshot();
			/* The requester builds the tables: this thread must not allocate. */
			profil_record_unwind_open_locked();
		} else {
			write_locked(req.kind, req.code, ring_mode ? NULL : &req.st);
		}
		profil_record_unlock();
	}
	atomic_store(&req.state, REQ_DONE);
	futex(&req.state, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

static void
flush_now(uint32_t kind, int32_t code)
{
	struct profil_stats st;
	sigset_t saved;
	int starved;

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	memset(&st, 0, sizeof(st));
	if (!ring_mode) {
		/* The engine lock is never held with the recorder lock: fork takes both. */
		profil_engine_lock(&saved);
		starved = profil_engine_starved_locked();
		/*
		 * The last write of a process that ends: no tick may land between the header's
		 * counts and the table's, so the file accounts for every one.  (Not at exec: the
		 * engine stops itself next, and restarts if exec fails.)
		 */
		if (kind == PROFIL_EXIT_NORMAL || kind == PROFIL_EXIT_SIGNAL)
			profil_engine_stop_locked();
		profil_engine_stats_locked(&st);
		profil_engine_unlock(&saved);
		/* Once, when the program has done it: a profile without samples says why. */
		if (starved == PROFIL_STARVED_NO_SIGNAL)
			profil_record_warn("no more samples: "
			    "the program took every real-time signal", profil_rec.progname);
		else if (starved == PROFIL_STARVED_REPLACED)
			profil_record_warn("no more samples: the program replaced the handler of "
			    "the profiling signal", profil_rec.progname);
	}
	/* The engine's part (its perf descriptors are the program's) is done: the file is not. */
	if (delegate(kind, code, ring_mode ? NULL : &st))
		return;
	/*
	 * A fatal signal on the thread that holds the lock: the tables are half updated, so this
	 * flush is skipped and the file stays as the last periodic flush wrote it.
	 */
	if (!profil_record_lock())
		return;
	write_locked(kind, code, ring_mode ? NULL : &st);
	profil_record_unlock();
}

/*
 * Every few milliseconds: the rings emptied, and a half-full table spilled (only from a
 * private descriptor table: the spill file is a descriptor kept open).
 */
static void
drain_now(int files)
{
	if (!profil_rec.enabled || profil_rec.pid != getpid() || !profil_record_lock())
		return;
	profil_record_times_clock();
	if (ring_mode)
		profil_ring_drain_all();
	profil_record_times_drain();
	if (files)
		profil_record_spill_check_locked();
	profil_record_unlock();
}

/*
 * dlopen/dlclose (src/record/dl.c): drained first, samples taken so far keep their epoch.
 * /proc/self/maps and the libraries' build-ids are opened by the recorder's thread, in its own
 * descriptor table, while this one waits: another thread of the program may be between a
 * close(2) and the open(2) it expects to get that number.
 */
void
profil_record_maps_changed(void)
{
	int saved_errno = errno;

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	if (!delegate(REQ_MAPS, 0, NULL)) {
		if (!profil_record_lock())
			return;
		if (ring_mode)
			profil_ring_drain_all();
		profil_record_maps_snapshot();
		profil_record_unwind_open_locked();
		profil_record_unlock();
	}
	/* This thread called dlopen or dlclose: it may allocate, as they do. */
	profil_record_unwind_build();
	errno = saved_errno;
}

/*
 * /proc files the recorder thread reads again and again: opened once in its own table and
 * read with pread(2), so that a seccomp filter that kills open(2) later (see filtered()) does
 * not stop it from seeing the program end.  Without a table of its own: opened each time.
 */
static int stat_fd = -1, status_fd = -1;
static int start_seccomp;		/* profil_seccomp_filtered() at start: 0, no filter */
static long start_level;		/* the recorder thread's seccomp_level() at its start */

static ssize_t
read_proc(int *fd, const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int once;

	if (*fd >= 0)
		return pread(*fd, buf, cap, 0);
	once = open(path, O_RDONLY | O_CLOEXEC);
	if (once < 0)
		return -1;
	n = read(once, buf, cap);
	close(once);
	return n;
}

/*
 * Whether a seccomp filter applies to the recorder thread: a program installed one with
 * SECCOMP_FILTER_FLAG_TSYNC, for every thread.  Its next open(2) or rename(2) might be killed,
 * and with it the program (SIGSYS), so from then on the thread writes nothing: the file keeps
 * the last periodic flush.  A filter on one program thread alone is no concern of this thread,
 * which writes that thread's exit and exec files for it.  proc(5): "Seccomp: Seccomp mode of
 * the process ... 0 means SECCOMP_MODE_DISABLED".
 */
static long
status_field(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p == NULL ? -1 : strtol(p + strlen(name), NULL, 10);
}

/* Seccomp_filters (Linux 5.9) counts the filters; before it, only the mode says anything. */
static long
seccomp_level(void)
{
	char buf[4096];
	ssize_t n;
	long filters;

	if (status_fd < 0)
		return profil_seccomp_filtered();
	n = pread(status_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return LONG_MAX;	/* cannot tell: assume the worst */
	buf[n] = '\0';
	filters = status_field(buf, "\nSeccomp_filters:");
	if (filters >= 0)
		return 100 + filters;
	return status_field(buf, "\nSeccomp:");
}

static int
filtered(void)
{
	return seccomp_level() > start_level;
}

/*
 * Whether the flusher is all that is left of the process: the main thread has ended
 * (pthread_exit(3) from main, which POSIX allows) and so has every other thread.  The main
 * thread stays a zombie in the count while the group lives, so /proc/self/stat then says state
 * Z and two threads.  glibc's last thread would call exit(0); ours is never the program's, so
 * glibc counts it and lets the program's last thread end quietly instead.
 */
static int
flusher_alone(void)
{
	char buf[512], *p;
	ssize_t n;
	int field;
	long threads;

	n = read_proc(&stat_fd, "/proc/self/stat", buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name may hold spaces and parentheses: the fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] != 'Z')
		return 0;
	/* Field 3 is the state; num_threads is field 20. */
	for (field = 3, p += 2; field < 20 && p != NULL; field++) {
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	if (p == NULL)
		return 0;
	threads = strtol(p, NULL, 10);
	return threads == 2 + atomic_load(&keeper_running);
}

/*
 * The keeper: a thread of ours that stays in the program's descriptor table and does nothing
 * else.  When the program's last thread has gone, that table would go with it, and exit(3)
 * could no longer flush the program's stdio; the keeper is the thread that calls it.
 */
static void *
keeper_main(void *unused)
{
	sigset_t all;

	(void)unused;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!no_prctl)
		prctl(PR_SET_NAME, "profil-keep");
	atomic_store(&keeper_tid, self_tid());
	while (atomic_load(&keeper_go) == 0)
		futex(&keeper_go, FUTEX_WAIT_PRIVATE, 0, NULL);
	exit(0);
}

static int
keeper_start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	r = profil_real.pthread_create(&t, &attr, keeper_main, NULL);
	pthread_attr_destroy(&attr);
	if (r == 0)
		atomic_store(&keeper_running, 1);
	return r == 0 ? 0 : -r;
}

/* In the recorder thread's own table: every copy closed but the output directory's. */
static int
close_all_but_dir(void)
{
	int dfd = profil_record_dir_fd();

	if (dfd == AT_FDCWD)
		return (int)syscall(SYS_close_range, 0U, ~0U, 0);
	if (dfd > 0 && syscall(SYS_close_range, 0U, (unsigned int)dfd - 1, 0) != 0)
		return -1;
	return (int)syscall(SYS_close_range, (unsigned int)dfd + 1, ~0U, 0);
}

/*
 * Every few drains: the perf clock's events that went quiet are enabled again (the engine's
 * watchdog makes a timer: not under a filter, which might forbid it).
 */
static void
watch_clock(void)
{
	sigset_t saved;

	/* seccomp_level(): 0 (mode) or 100 (filter count) where there is no filter */
	if (ring_mode || (start_level != 0 && start_level != 100) || atomic_load(&sealed))
		return;
	profil_engine_lock(&saved);
	profil_engine_rearm_quiet_locked();
	profil_engine_unlock(&saved);
}

/* The periodic flush bounds what SIGKILL can take: at most one interval of samples. */
static void *
flusher_main(void *unused)
{
	const uint64_t step = PROFIL_RECORD_DRAIN_MS * 1000000ULL;
	unsigned int drains = 0;
	uint64_t last = profil_monotonic_ns(), last_drain = last, wall_ns = 0, next_wall = 0;
	sigset_t all;
	int files = 0;

	(void)unused;
	/*
	 * The program's signals are for the program's threads: a program that blocks SIGTERM
	 * everywhere to sigwait(3) for it must not see it taken here, so even SIGTERM stays
	 * blocked.  What keeps the process from outliving its main thread is flusher_alone().
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!no_prctl)
		prctl(PR_SET_NAME, "profil-flush");
	/*
	 * A table of our own, emptied of the copies unshare made: holding the program's pipe ends
	 * would keep its readers from seeing end-of-file.  Without one (old kernel, seccomp), this
	 * thread opens nothing: it drains rings, and the files are written at exit on the
	 * program's threads.
	 */
	if (atomic_load(&keeper_running) && !no_table && unshare(CLONE_FILES) == 0 &&
	    close_all_but_dir() == 0)
		files = 1;
	if (files) {
		stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
		status_fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
		start_level = seccomp_level();
		atomic_store(&flusher_tid, self_tid());
	}
	atomic_store(&flusher_starting, 0);
	futex(&flusher_starting, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	/*
	 * --wall keeps a descriptor open for each waiting thread: only in a table of our own,
	 * where the program never sees them.
	 */
	if (profil_rec.wall && !files) {
		profil_rec.wall = 0;
		profil_record_warn("--wall off: the recorder thread has no descriptor table of its "
		    "own", profil_rec.progname);
	}
	if (profil_rec.wall) {
		wall_ns = 1000000000ULL / profil_rec.hz;
		next_wall = last + wall_ns;
	}
	/* First at once: a process killed early still leaves its file, mappings and all. */
	if (files && flush_ms != 0)
		flush_now(PROFIL_EXIT_RUNNING, 0);
	for (;;) {
		uint64_t now = profil_monotonic_ns(), wake = last_drain + step, nap;
		struct timespec ts;
		int state = atomic_load(&req.state);

		if (wall_ns > 0 && next_wall < wake)
			wake = next_wall;
		nap = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(nap / 1000000000ULL);
		ts.tv_nsec = (long)(nap % 1000000000ULL);
		/* A nap that a program thread's request ends early. */
		if (state != REQ_PENDING && nap > 0)
			futex(&req.state, FUTEX_WAIT_PRIVATE, state, &ts);
		if (files && !atomic_load(&sealed) && filtered())
			atomic_store(&sealed, 1);
		if (atomic_load(&req.state) == REQ_PENDING) {
			serve_request();
			continue;
		}
		if (atomic_load(&sealed))
			continue;	/* naps and pread(2) of /proc only, until the end */
		now = profil_monotonic_ns();
		if (wall_ns > 0 && now >= next_wall) {
			uint64_t periods = 1 + (now - next_wall) / wall_ns;

			/*
			 * A late tick stands for the periods it missed, a few at most: after this
			 * thread was kept off a CPU, a wait seen now says nothing of the gap.
			 */
			profil_record_wall_tick(periods < 10 ? periods : 10,
			    (uint32_t)atomic_load(&flusher_tid),
			    (uint32_t)atomic_load(&keeper_tid));
			next_wall = periods < 10 ? next_wall + periods * wall_ns : now + wall_ns;
			now = profil_monotonic_ns();
		}
		if (now - last_drain < step)
			continue;
		last_drain = now;
		/*
		 * Every tenth drain: the last of the program's threads gone, the process ends as
		 * glibc would have ended it then, by exit(0) (atexit handlers, stdio, and our
		 * destructor's final flush), not left running with a lone flusher.
		 */
		if (++drains % 10 == 0 && files && flusher_alone()) {
			atomic_store(&keeper_go, 1);
			/* We go on: the keeper's exit hands us the final flush. */
			futex(&keeper_go, FUTEX_WAKE_PRIVATE, 1, NULL);
		}
		if (files && drains % 5 == 0)
			watch_clock();
		/* By the clock, not by counting naps: a loaded machine wakes us late. */
		if (files && flush_ms != 0 &&
		    profil_monotonic_ns() - last >= (uint64_t)flush_ms * 1000000ULL) {
			last = profil_monotonic_ns();
			flush_now(PROFIL_EXIT_RUNNING, 0);
		} else {
			drain_now(files);
		}
	}
	return NULL;
}

/*
 * The output directory's descriptor is the recorder thread's alone once that thread has a
 * table of its own: every file is written there, and the program's table gets its number back
 * (a program under `ulimit -n 16` opens as many files as alone).  A program thread that must
 * write after all (no answer from the recorder's thread) finds the number gone or another
 * file's, and writes by path (profil_record_dir_fd()).  Waits at most two seconds for the
 * thread's start, at start-up or in a fork child, before the program runs on.
 */
static void
dir_leave_program(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000000L };
	int waits, dfd;

	for (waits = 0; atomic_load(&flusher_starting) && waits < 200; waits++)
		futex(&flusher_starting, FUTEX_WAIT_PRIVATE, 1, &ts);
	dfd = profil_record_dir_fd();
	if (atomic_load(&flusher_tid) != 0 && dfd >= 0)
		close(dfd);
}

/*
 * A thread of ours makes the calls that need a single-threaded process fail (unshare(2) of a
 * user namespace, EINVAL), also in a fork child.  So with the periodic flush off and a signal
 * clock, which needs no draining, there is none: tables are then not spilled (a full one drops
 * ticks and counts them), and the file is written only at exit, exec and fatal signals.
 * PROFIL_RECORD_WALL needs it all the same: it is the thread that samples the waits.
 */
static void
flusher_start(void)
{
	pthread_attr_t attr;
	pthread_t t;

	if (profil_real.pthread_create == NULL || no_threads ||
	    (flush_ms == 0 && !ring_mode && !profil_rec.wall))
		return;
	/*
	 * The keeper first, from this thread: pthread_create mallocs, and from the flusher it
	 * would make glibc reserve a thread arena (64 MiB of the program's address space).
	 */
	keeper_start();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* The real pthread_create: this thread is not the program's and is never sampled. */
	atomic_store(&flusher_starting, 1);
	if (profil_real.pthread_create(&t, &attr, flusher_main, NULL) == 0)
		atomic_store(&flusher_running, 1);
	else
		atomic_store(&flusher_starting, 0);
	pthread_attr_destroy(&attr);
	dir_leave_program();
}

/*
 * The recorder's own executable segment, from its program headers: the linker defines
 * __ehdr_start at the ELF header of every object it writes, which the first PT_LOAD maps.  No
 * dl_iterate_phdr, no name to look up: the walks then read two plain fields.
 */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

static void
note_self_text(struct profil_stacks *s)
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
static void
note_stack_bounds(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	profil_sample_tid = (uint32_t)self_tid();
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
on_thread_start(void *unused)
{
	(void)unused;
	note_stack_bounds();
	if (!ring_mode || !profil_rec.enabled || profil_rec.pid != getpid() ||
	    !profil_record_lock())
		return;
	open_ring(self_tid());
	profil_record_unlock();
}

static void
on_thread_exit(void *unused)
{
	char name[17] = "";

	(void)unused;
	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	if (!no_prctl)
		prctl(PR_GET_NAME, name);
	if (!profil_record_lock())
		return;
	if (ring_mode)
		profil_ring_close(self_tid());
	profil_record_thread_note((uint32_t)self_tid(), name);
	profil_record_unlock();
}

static void
on_exec_before(void *unused)
{
	(void)unused;
	flush_now(PROFIL_EXIT_EXEC, 0);
}

static void
on_exec_failed(void *unused)
{
	(void)unused;
	if (profil_rec.pid == getpid())
		atomic_store(&exec_quiet, 0);
}

static void
record_on_exit(int why, void *unused)
{
	(void)unused;
	if (why == 0)
		flush_now(PROFIL_EXIT_NORMAL, -1);
	else
		flush_now(PROFIL_EXIT_SIGNAL, why);
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
 * the child starts empty, under its own name, with a flusher of its own.
 */
static void
atfork_prepare(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &atfork_saved);
	profil_record_unwind_fork_prepare();
	atfork_taken = profil_record_lock();
}

static void
atfork_parent(void)
{
	if (atfork_taken)
		profil_record_unlock();
	profil_record_unwind_fork_parent();
	pthread_sigmask(SIG_SETMASK, &atfork_saved, NULL);
}

static void
atfork_child(void)
{
	struct profil_stacks *s = &profil_rec.stacks;
	int i;

	profil_record_lock_reset();
	/* The parent's recorder thread is not in the child; a new one takes requests. */
	atomic_store(&flusher_tid, 0);
	atomic_store(&flusher_starting, 0);
	atomic_store(&keeper_running, 0);
	atomic_store(&keeper_go, 0);
	atomic_store(&keeper_tid, 0);
	profil_record_wall_fork_child();
	atomic_store(&req.state, REQ_NONE);
	atomic_store(&req.owner, 0);
	atomic_store(&exec_quiet, 0);
	final_written = 0;
	stat_fd = -1;		/* in the parent's recorder thread's table */
	status_fd = -1;
	/* The forking thread lives on under a new id; its ticks must not carry the parent's. */
	profil_sample_tid = (uint32_t)self_tid();
	profil_record_unwind_fork_child();
	/*
	 * The child inherits the forking thread's seccomp filter, and its recorder thread would
	 * too: with one, the child records nothing rather than risk a killed open(2).
	 */
	if (profil_rec.enabled &&
	    (atomic_load(&sealed) || profil_seccomp_filtered() != start_seccomp))
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
		cpu_start_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		profil_record_system_mark();
		if (ring_mode) {
			profil_ring_forget_all();
			open_ring(getpid());
		}
		dir_reopen();
		if (profil_record_choose_path() < 0)
			profil_rec.enabled = 0;
		else
			flusher_start();
	}
	pthread_sigmask(SIG_SETMASK, &atfork_saved, NULL);
}

static void
open_ring_cb(pid_t tid, void *unused)
{
	(void)unused;
	open_ring(tid);
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
 * leaves the program's table once the recorder's thread has a table of its own (flusher_start).
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

static void
try_files(void *unused)
{
	char buf[16];

	(void)unused;
	/* Paths under /proc: nothing can be made there, whatever the filter lets through. */
	profil_seccomp_step("mkdir");
	mkdir("/proc/profil-probe", 0700);
	profil_seccomp_step("openat");
	openat(AT_FDCWD, "/proc/profil-probe/a", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	profil_seccomp_step("renameat");
	renameat(AT_FDCWD, "/proc/profil-probe/a", AT_FDCWD, "/proc/profil-probe/b");
	profil_seccomp_step("unlinkat");
	unlinkat(AT_FDCWD, "/proc/profil-probe/a", 0);
	profil_seccomp_step("readlink");
	if (readlink("/proc/self/exe", buf, sizeof(buf)) < 0)
		return;
}

static void
try_threads(void *unused)
{
	(void)unused;
#ifdef SYS_clone3
	/*
	 * glibc's pthread_create(3) calls clone3(2) with its 88-byte struct clone_args; flags
	 * with CLONE_THREAD and no CLONE_SIGHAND make it fail with EINVAL where it is allowed.
	 */
	uint64_t args[11] = { CLONE_THREAD };

	profil_seccomp_step("clone3");
	syscall(SYS_clone3, args, sizeof(args));
#endif
}

static void
try_table(void *unused)
{
	(void)unused;
	profil_seccomp_step("unshare");
	unshare(CLONE_FILES);
	profil_seccomp_step("close_range");
	syscall(SYS_close_range, ~0U - 1, ~0U, 0);
}

static void
try_prctl(void *unused)
{
	char name[17];

	(void)unused;
	profil_seccomp_step("prctl");
	prctl(PR_SET_NAME, "profil-probe");
	prctl(PR_GET_NAME, name);
}

static void
try_report(void *unused)
{
	int fd;

	(void)unused;
	profil_seccomp_step("socket");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	profil_seccomp_step("sendto");
	sendto(fd, "", 0, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
}

static void
try_ring(void *unused)
{
	(void)unused;
	profil_ring_open(self_tid(), profil_rec.hz, profil_rec.depth > 1);
}

/* A filter in force at start: what it would kill, probed before anything is armed. */
static const char *seccomp_note;	/* the first degradation, said once setup is done */
static const char *seccomp_call;	/* the call that forced it */

static void
seccomp_degrade(const char *note)
{
	if (seccomp_note != NULL)
		return;
	seccomp_note = note;
	seccomp_call = profil_seccomp_killer();
}

static int
seccomp_probe(void)
{
	if (profil_seccomp_kills(try_files, NULL) != 0)
		return -EPERM;
	if (profil_seccomp_kills(try_threads, NULL) != 0) {
		no_threads = 1;
		seccomp_degrade("no recorder thread, the profile is written at exit");
	}
	if (!no_threads && profil_seccomp_kills(try_table, NULL) != 0) {
		no_table = 1;
		seccomp_degrade("the profile is written at exit");
	}
	/* The report of a failed write to `profil record` is left out, the write's line stays. */
	if (profil_rec.report_len != 0 && profil_seccomp_kills(try_report, NULL) != 0)
		profil_rec.report_len = 0;
	if (profil_seccomp_kills(try_prctl, NULL) != 0) {
		no_prctl = 1;
		seccomp_degrade("the recorder's threads are not named");
	}
	return 0;
}

/* "a seccomp filter kills CALL", for the one line on stderr. */
static const char *
seccomp_what(const char *before, const char *call, const char *after)
{
	static char what[160];

	snprintf(what, sizeof(what), "%sa seccomp filter kills %s%s%s", before,
	    call != NULL ? call : "a system call", after != NULL ? ": " : "",
	    after != NULL ? after : "");
	return what;
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
	flush_ms = (unsigned int)env_ulong(PROFIL_RECORD_ENV_FLUSH_MS, 1000, 0, 3600000);
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
	if (start_seccomp != 0 && !profil_seccomp_may_probe()) {
		profil_record_warn("recorder disabled: a seccomp filter is in force (run the program "
		    "under profil record to probe it)", profil_rec.progname);
		return -EPERM;
	}
	if (start_seccomp != 0 && seccomp_probe() < 0) {
		profil_record_warn(seccomp_what("recorder disabled: ", profil_seccomp_killer(),
		    NULL), profil_rec.progname);
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
	note_stack_bounds();
	note_self_text(s);
	if (cfi)
		s->unwind = profil_record_unwind_shared();
	profil_record_lock();
	profil_record_maps_snapshot();
	/* The constructor's thread, before the program runs: it may open files and allocate. */
	profil_record_unwind_open_locked();
	profil_record_unlock();
	profil_record_unwind_build();
	profil_rec.enabled = 1;

	profil_engine_hook_add(PROFIL_HOOK_THREAD_START, on_thread_start, NULL);
	profil_engine_hook_add(PROFIL_HOOK_THREAD_EXIT, on_thread_exit, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_BEFORE, on_exec_before, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_FAILED, on_exec_failed, NULL);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	profil_exit_hook_add(record_on_exit, NULL);

	/* Ring buffers where perf events are allowed: no signal per sample at all. */
	cpu_start_ns = profil_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	profil_record_system_mark();
	profil_ring_init(sysconf(_SC_PAGESIZE));
	if (profil_rec.clock == PROFIL_CLOCK_AUTO || profil_rec.clock == PROFIL_FILE_CLOCK_RING) {
		const char *why = NULL, *call = NULL;

		/* The rings need the recorder's thread to empty them. */
		if (start_seccomp != 0 && no_threads) {
			why = "the ring clock needs the recorder's thread";
			call = seccomp_call;
		} else if (start_seccomp != 0 && profil_seccomp_kills(try_ring, NULL) != 0) {
			why = "";
			call = profil_seccomp_killer();
		}
		profil_record_lock();
		r = why != NULL ? -EPERM : profil_ring_open(self_tid(), profil_rec.hz,
		    profil_rec.depth > 1);
		if (why != NULL && profil_rec.clock == PROFIL_CLOCK_AUTO)
			seccomp_degrade("recording with a signal clock");
		if (r == 0) {
			ring_mode = 1;
			profil_threads_foreach(open_ring_cb, NULL);
		}
		profil_record_unlock();
		if (r < 0 && profil_rec.clock == PROFIL_FILE_CLOCK_RING) {
			profil_rec.enabled = 0;
			tables_release();
			profil_record_unwind_release();
			if (why != NULL)
				profil_record_warn(seccomp_what("recorder disabled: ", call,
				    *why != '\0' ? why : NULL), profil_rec.progname);
			else
				profil_record_warn("recorder disabled: perf ring buffers refused",
				    strerror(-r));
			return r;
		}
	}
	if (ring_mode) {
		flusher_start();
		if (seccomp_note != NULL)
			profil_record_warn(seccomp_what("", seccomp_call, seccomp_note),
			    profil_rec.progname);
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
	killer = start_seccomp != 0 ? profil_seccomp_killer() : NULL;
	if (r < 0) {
		profil_rec.enabled = 0;
		tables_release();
		profil_record_unwind_release();
		if (killer != NULL)
			profil_record_warn(seccomp_what("recorder disabled: ", killer, NULL),
			    profil_rec.progname);
		else
			profil_record_warn("recorder disabled: cannot start the sampling clock",
			    strerror(-r));
		return r;
	}
	flusher_start();
	if (seccomp_note != NULL)
		profil_record_warn(seccomp_what("", seccomp_call, seccomp_note),
		    profil_rec.progname);
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
	 * before anything is armed (seccomp_probe()); a filter added later is watched for
	 * (filtered()).
	 */
	start_seccomp = profil_seccomp_filtered();
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
