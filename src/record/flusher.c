/*
 * The recorder's thread (the periodic flush, ring drains, --wall ticks, requests) and the
 * keeper, the thread of ours that stays in the program's descriptor table to call exit(3).
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "protocol.h"
#include "life.h"
#include "record.h"

static atomic_int flusher_running;

/*
 * /proc files the recorder thread reads again and again: opened once in its own table and
 * read with pread(2), so that a seccomp filter that kills open(2) later (see filtered()) does
 * not stop it from seeing the program end.  Without a table of its own: opened each time.
 */
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

	if (profil_life.status_fd < 0)
		return profil_seccomp_filtered();
	n = pread(profil_life.status_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return LONG_MAX;	/* cannot tell: assume the worst */
	buf[n] = '\0';
	filters = status_field(buf, "\nSeccomp_filters:");
	if (filters >= 0)
		return 100 + filters;
	return status_field(buf, "\nSeccomp:");
}

/* A level seccomp_level() gives a thread under no filter and in no strict mode. */
static int
seccomp_none(long level)
{
	return level == 0 || level == 100;
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

	n = read_proc(&profil_life.stat_fd, "/proc/self/stat", buf, sizeof(buf) - 1);
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
	return threads == 2 + atomic_load(&profil_life.keeper_running);
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
	if (!profil_life.no_prctl)
		prctl(PR_SET_NAME, "profil-keep");
	atomic_store(&profil_life.keeper_tid, profil_record_tid());
	while (atomic_load(&profil_life.keeper_go) == 0)
		profil_record_futex(&profil_life.keeper_go, FUTEX_WAIT_PRIVATE, 0, NULL);
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
		atomic_store(&profil_life.keeper_running, 1);
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

	if (profil_life.ring_mode || !seccomp_none(start_level) ||
	    atomic_load(&profil_life.sealed))
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
	if (!profil_life.no_prctl)
		prctl(PR_SET_NAME, "profil-flush");
	/*
	 * A table of our own, emptied of the copies unshare made: holding the program's pipe ends
	 * would keep its readers from seeing end-of-file.  Without one (old kernel, seccomp), this
	 * thread opens nothing: it drains rings, and the files are written at exit on the
	 * program's threads.
	 */
	if (atomic_load(&profil_life.keeper_running) && !profil_life.no_table &&
	    unshare(CLONE_FILES) == 0 && close_all_but_dir() == 0)
		files = 1;
	if (files) {
		profil_life.stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
		profil_life.status_fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
		start_level = seccomp_level();
		atomic_store(&profil_life.flusher_tid, profil_record_tid());
	}
	atomic_store(&profil_life.flusher_starting, 0);
	profil_record_futex(&profil_life.flusher_starting, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
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
	if (files && profil_life.flush_ms != 0)
		profil_record_flush_now(PROFIL_EXIT_RUNNING, 0);
	for (;;) {
		uint64_t now = profil_monotonic_ns(), wake = last_drain + step, nap;
		struct timespec ts;
		int state = atomic_load(&profil_life.req.state);

		if (wall_ns > 0 && next_wall < wake)
			wake = next_wall;
		nap = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(nap / 1000000000ULL);
		ts.tv_nsec = (long)(nap % 1000000000ULL);
		/* A nap that a program thread's request ends early. */
		if (state != REQ_PENDING && nap > 0)
			profil_record_futex(&profil_life.req.state, FUTEX_WAIT_PRIVATE, state, &ts);
		if (files && !atomic_load(&profil_life.sealed) && filtered())
			atomic_store(&profil_life.sealed, 1);
		if (atomic_load(&profil_life.req.state) == REQ_PENDING) {
			profil_record_serve_request();
			continue;
		}
		if (atomic_load(&profil_life.sealed))
			continue;	/* naps and pread(2) of /proc only, until the end */
		now = profil_monotonic_ns();
		if (wall_ns > 0 && now >= next_wall) {
			uint64_t periods = 1 + (now - next_wall) / wall_ns;

			/*
			 * A late tick stands for the periods it missed, a few at most: after this
			 * thread was kept off a CPU, a wait seen now says nothing of the gap.
			 */
			profil_record_wall_tick(periods < 10 ? periods : 10,
			    (uint32_t)atomic_load(&profil_life.flusher_tid),
			    (uint32_t)atomic_load(&profil_life.keeper_tid));
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
			atomic_store(&profil_life.keeper_go, 1);
			/* We go on: the keeper's exit hands us the final flush. */
			profil_record_futex(&profil_life.keeper_go, FUTEX_WAKE_PRIVATE, 1, NULL);
		}
		if (files && drains % 5 == 0)
			watch_clock();
		/* By the clock, not by counting naps: a loaded machine wakes us late. */
		if (files && profil_life.flush_ms != 0 &&
		    profil_monotonic_ns() - last >= (uint64_t)profil_life.flush_ms * 1000000ULL) {
			last = profil_monotonic_ns();
			profil_record_flush_now(PROFIL_EXIT_RUNNING, 0);
		} else {
			profil_record_drain_now(files);
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

	for (waits = 0; atomic_load(&profil_life.flusher_starting) && waits < 200; waits++)
		profil_record_futex(&profil_life.flusher_starting, FUTEX_WAIT_PRIVATE, 1, &ts);
	dfd = profil_record_dir_fd();
	if (atomic_load(&profil_life.flusher_tid) != 0 && dfd >= 0)
		close(dfd);
}

/*
 * A thread of ours makes the calls that need a single-threaded process fail (unshare(2) of a
 * user namespace, EINVAL), also in a fork child.  So with the periodic flush off and a signal
 * clock, which needs no draining, there is none: tables are then not spilled (a full one drops
 * ticks and counts them), and the file is written only at exit, exec and fatal signals.
 * PROFIL_RECORD_WALL needs it all the same: it is the thread that samples the waits.
 */
void
profil_record_flusher_start(void)
{
	pthread_attr_t attr;
	pthread_t t;

	if (profil_real.pthread_create == NULL || profil_life.no_threads ||
	    (profil_life.flush_ms == 0 && !profil_life.ring_mode && !profil_rec.wall))
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
	atomic_store(&profil_life.flusher_starting, 1);
	if (profil_real.pthread_create(&t, &attr, flusher_main, NULL) == 0)
		atomic_store(&flusher_running, 1);
	else
		atomic_store(&profil_life.flusher_starting, 0);
	pthread_attr_destroy(&attr);
	dir_leave_program();
}
