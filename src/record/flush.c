/*
 * Writing the profile: the whole state so far, to a temporary file created with O_EXCL and
 * O_NOFOLLOW in the output directory, renamed over the final name once complete, so the name
 * never holds a partial file.  Async-signal-safe: it runs from the exit hook on fatal signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/append.h"
#include "base/write.h"
#include "record.h"

static struct profil_writer writer;	/* 64 KiB: static, under the recorder lock */
static unsigned int tmp_serial;
static uint8_t copy_buf[64 * 1024];	/* spill to profile, under the lock too */

void *
profil_record_map_zero(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t system_start_ns;

/* getrusage(2) is a system call and nothing more: safe in the fatal-signal flush too. */
static uint64_t
system_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

void
profil_record_system_mark(void)
{
	system_start_ns = system_ns();
}

int
profil_record_dir_fd(void)
{
	struct stat st;

	if (profil_rec.dir_fd >= 0 && fstat(profil_rec.dir_fd, &st) == 0 &&
	    (uint64_t)st.st_dev == profil_rec.dir_dev && (uint64_t)st.st_ino == profil_rec.dir_ino)
		return profil_rec.dir_fd;
	return AT_FDCWD;
}

/* A path under the output directory, as the *at() calls take it relative to dfd. */
static const char *
at_name(int dfd, const char *path)
{
	return dfd == AT_FDCWD ? path : path + strlen(profil_rec.dir) + 1;
}

/*
 * <dir>/<progname>.<pid>.profil, or <progname>.<pid>.<n>.profil when an earlier image of this
 * process (an exec of the same program) already wrote the first.
 */
int
profil_record_choose_path(void)
{
	struct stat st;
	unsigned int n;
	int dfd = profil_record_dir_fd();

	for (n = 0; n < 1000; n++) {
		char *path = profil_rec.path;
		const size_t cap = sizeof(profil_rec.path);
		size_t len = 0;

		len = profil_append(path, len, cap, profil_rec.dir);
		len = profil_append(path, len, cap, "/");
		len = profil_append(path, len, cap, profil_rec.progname);
		len = profil_append(path, len, cap, ".");
		len = profil_append_uint(path, len, cap, (unsigned long)profil_rec.pid);
		if (n > 0) {
			len = profil_append(path, len, cap, ".");
			len = profil_append_uint(path, len, cap, n);
		}
		(void)profil_append(path, len, cap, ".profil");
		if (fstatat(dfd, at_name(dfd, profil_rec.path), &st, AT_SYMLINK_NOFOLLOW) != 0 &&
		    errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

/* The program's own SIGPROF or ITIMER_PROF: both keep working beside ours; the file says so. */
static int
program_uses_sigprof(void)
{
	struct sigaction sa;
	struct itimerval it;

	if (sigaction(SIGPROF, NULL, &sa) == 0 &&
	    ((sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)))
		return 1;
	return getitimer(ITIMER_PROF, &it) == 0 &&
	    (it.it_value.tv_sec != 0 || it.it_value.tv_usec != 0);
}

/*
 * The table's entries as SAMPLE records; each row's record number noted for the times
 * (profil_record_times_ranks), UINT32_MAX for a row not written.
 */
static void
write_table(struct profil_writer *w, const struct profil_stack_table *t)
{
	uint32_t *ranks = profil_record_times_ranks(t);
	size_t i;

	for (i = 0; i < t->nentries; i++) {
		const struct profil_stack_entry *e = &t->entries[i];
		uint_least64_t state = atomic_load_explicit(&e->state, memory_order_acquire);
		uint64_t count = 0;

		if (state > PROFIL_STACK_DEAD)
			count = atomic_load_explicit(&e->count, memory_order_relaxed);
		if (ranks != NULL)
			ranks[i] = count > 0 && w->samples < UINT32_MAX ? (uint32_t)w->samples :
			    UINT32_MAX;
		if (count > 0)
			profil_writer_sample(w, count, e->tid, e->epoch, e->depth,
			    t->pool + e->pcs);
	}
}

/* The spill file, if the descriptor still is the file we made (a program may close all). */
static int
spill_ours(void)
{
	struct stat st;

	return profil_rec.spill_fd >= 0 && fstat(profil_rec.spill_fd, &st) == 0 &&
	    (uint64_t)st.st_dev == profil_rec.spill_dev &&
	    (uint64_t)st.st_ino == profil_rec.spill_ino;
}

static void
copy_spill(struct profil_writer *w)
{
	uint64_t off = 0;
	ssize_t n;

	if (profil_rec.spill_records == 0 || !spill_ours())
		return;
	if (profil_writer_flush(w) < 0)
		return;
	while (off < profil_rec.spill_bytes) {
		size_t want = profil_rec.spill_bytes - off < sizeof(copy_buf) ?
		    (size_t)(profil_rec.spill_bytes - off) : sizeof(copy_buf);
		int r;

		n = pread(profil_rec.spill_fd, copy_buf, want, (off_t)off);
		if (n <= 0) {
			w->error = n < 0 ? -errno : -EIO;
			return;
		}
		r = profil_write_all(w->fd, copy_buf, (size_t)n);
		if (r < 0) {
			w->error = r;
			return;
		}
		off += (uint64_t)n;
	}
	/* The spill file holds SAMPLE records only: they count as samples written. */
	w->records += profil_rec.spill_records;
	w->samples += profil_rec.spill_records;
}

/*
 * Makes the other table current, waits for the adders still inside the old one, appends its
 * entries to the spill file and clears it.  Only the file grows, by the distinct stacks of
 * each period: memory stays bounded however long the run.
 */
static void
spill_locked(void)
{
	struct profil_stacks *s = &profil_rec.stacks;
	struct profil_stack_table *old = atomic_load(&s->cur);
	struct profil_stack_table *next = old == &s->tables[0] ? &s->tables[1] : &s->tables[0];
	struct stat st;
	int written;

	if (profil_rec.spill_fd < 0) {
		int dfd = profil_record_dir_fd();
		int fd = openat(dfd, dfd == AT_FDCWD ? profil_rec.dir : ".",
		    O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

		if (fd < 0 || fstat(fd, &st) != 0) {
			if (fd >= 0)
				close(fd);
			return;		/* no spill: a full table drops and counts */
		}
		profil_rec.spill_fd = fd;
		profil_rec.spill_dev = (uint64_t)st.st_dev;
		profil_rec.spill_ino = (uint64_t)st.st_ino;
		profil_rec.spill_bytes = 0;
		profil_rec.spill_records = 0;
	}
	if (!spill_ours())
		return;
	atomic_store(&s->cur, next);
	while (atomic_load(&old->inflight) != 0)
		sched_yield();
	/* The adders are gone, and their times queued: taken before the keys change. */
	profil_record_times_spill_begin();
	if (lseek(profil_rec.spill_fd, (off_t)profil_rec.spill_bytes, SEEK_SET) < 0)
		return;
	profil_writer_init_records(&writer, profil_rec.spill_fd);
	write_table(&writer, old);
	written = profil_writer_flush(&writer) == 0;
	profil_record_times_spill_end((int)(old - s->tables), profil_rec.spill_records, written);
	if (written) {
		profil_rec.spill_records += writer.records;
		profil_rec.spill_bytes = (uint64_t)lseek(profil_rec.spill_fd, 0, SEEK_CUR);
	} else if (ftruncate(profil_rec.spill_fd, (off_t)profil_rec.spill_bytes) != 0) {
		profil_rec.spill_fd = -1;	/* unusable: later flushes skip it */
	}
	/* Fresh zero pages for the entries; the pool is reused from its start. */
	mmap(old->entries, old->nentries * sizeof(*old->entries), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	atomic_store(&old->pool_used, 0);
	atomic_store(&old->used, 0);
}

void
profil_record_spill_check_locked(void)
{
	struct profil_stack_table *t = atomic_load(&profil_rec.stacks.cur);

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return;
	if (atomic_load(&t->used) * 2 > t->nentries || atomic_load(&t->pool_used) * 2 > t->npool)
		spill_locked();
}

void
profil_record_spill_forget(void)
{
	/*
	 * The spill descriptor lives in the parent's recorder thread's own table: the number
	 * means nothing here, and may be one of the program's.
	 */
	profil_rec.spill_fd = -1;
	profil_rec.spill_bytes = 0;
	profil_rec.spill_records = 0;
}

static void
write_profile(struct profil_writer *w, uint32_t exit_kind, int32_t exit_code,
    const struct profil_stats *st)
{
	struct profil_stacks *s = &profil_rec.stacks;
	struct profil_file_header h;
	uint64_t spill_base;
	size_t i;
	int spilled;

	memset(&h, 0, sizeof(h));
	h.pid = (uint32_t)profil_rec.pid;
	h.ppid = (uint32_t)getppid();
	h.requested_hz = profil_rec.hz;
	h.clock = (uint32_t)st->clock;
	h.achieved_mhz = (uint64_t)(st->achieved_hz * 1000.0 + 0.5);
	h.start_ns = profil_rec.start_ns;
	h.end_ns = profil_clock_ns(CLOCK_REALTIME);
	h.cpu_ns = st->cpu_ns;
	h.samples = st->signals;
	h.ticks = st->ticks;
	h.dropped = atomic_load(&s->dropped) + profil_ring_stats.lost;
	h.exit_kind = exit_kind;
	h.exit_code = exit_code;
	/* The samples are of user space alone: the kernel's count says what they left out. */
	h.system_ns = system_ns() - system_start_ns;
	h.flags = PROFIL_HDR_SYSTEM_NS | (profil_rec.depth > 1 ? PROFIL_HDR_STACKS : 0) |
	    (profil_rec.wall ? PROFIL_HDR_WALL | PROFIL_HDR_WAIT_CPU : 0) |
	    (program_uses_sigprof() ? PROFIL_HDR_PROGRAM_SIGPROF : 0);
	h.max_depth = profil_rec.depth;
	h.threads = (uint32_t)st->threads;
	h.thread_failures = (uint32_t)st->thread_failures;
	h.progname = profil_rec.progname;
	h.exe = profil_rec.exe;
	profil_writer_header(w, &h);
	for (i = 0; i < profil_rec.nmaps; i++)
		profil_writer_mapping(w, &profil_rec.maps[i].m);
	for (i = 0; i < profil_rec.nthreads; i++)
		profil_writer_thread(w, profil_rec.threads[i].tid, profil_rec.threads[i].name);
	/* Every time queued so far names an entry published before the tables are read. */
	profil_record_times_drain();
	spill_base = w->samples;
	copy_spill(w);
	spilled = w->samples - spill_base == profil_rec.spill_records;
	/* The table not current is empty, unless a spill could not write it: then it counts. */
	write_table(w, &s->tables[0]);
	write_table(w, &s->tables[1]);
	profil_record_times_write(w, spill_base, spilled);
	/* The last profile of the image: the program's JIT has written what it will. */
	if (exit_kind != PROFIL_EXIT_RUNNING)
		profil_record_jit_names(w);
}

/*
 * Tells `profil record` (PROFIL_RECORD_REPORT) that this process's file could not be written,
 * err > 0, or has been since, err 0: one datagram, never waited for.  A descriptor for the
 * moment of the call, as the file's own.
 */
static void
report(int err)
{
	struct sockaddr_un sa;
	char msg[sizeof(profil_rec.path) + 16];
	size_t len = 0;
	int fd;

	if (profil_rec.report_len == 0 || (err == 0 && !profil_rec.report_failed) ||
	    (err > 0 && profil_rec.report_failed))
		return;
	profil_rec.report_failed = err > 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, profil_rec.report, profil_rec.report_len);
	len = profil_append_uint(msg, len, sizeof(msg), (unsigned long)err);
	len = profil_append(msg, len, sizeof(msg), " ");
	len = profil_append(msg, len, sizeof(msg), profil_rec.path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + profil_rec.report_len));
	close(fd);
}

int
profil_record_flush_locked(uint32_t exit_kind, int32_t exit_code, const struct profil_stats *st)
{
	/*
	 * Static, like the writer: the fatal-signal flush runs on whatever stack the dying thread
	 * has left, and the recorder lock makes this the only user.
	 */
	static char tmp[sizeof(profil_rec.path) + 64];
	size_t len = 0;
	int fd, r, dfd;

	if (!profil_rec.enabled || profil_rec.pid != getpid())
		return 0;
	dfd = profil_record_dir_fd();
	profil_record_maps_snapshot();
	profil_record_threads_scan();
	len = profil_append(tmp, len, sizeof(tmp), profil_rec.dir);
	len = profil_append(tmp, len, sizeof(tmp), "/.");
	len = profil_append(tmp, len, sizeof(tmp), profil_rec.progname);
	len = profil_append(tmp, len, sizeof(tmp), ".");
	len = profil_append_uint(tmp, len, sizeof(tmp), (unsigned long)profil_rec.pid);
	len = profil_append(tmp, len, sizeof(tmp), ".");
	len = profil_append_uint(tmp, len, sizeof(tmp), tmp_serial++);
	len = profil_append(tmp, len, sizeof(tmp), ".tmp");
	fd = profil_tmp_create(dfd, at_name(dfd, tmp));
	if (fd < 0) {
		r = fd;
		profil_record_warn_errno("cannot create profile", tmp, -r);
		report(-r);
		return r;
	}
	profil_writer_init(&writer, fd);
	write_profile(&writer, exit_kind, exit_code, st);
	r = profil_tmp_commit(dfd, at_name(dfd, tmp), at_name(dfd, profil_rec.path), fd,
	    profil_writer_finish(&writer));
	if (r < 0)
		profil_record_warn_errno("cannot write profile", profil_rec.path, -r);
	report(-r);
	return r;
}
