/*
 * The -pg runtime's control side: __monstartup (gcrt1.o calls it before main), moncontrol(3),
 * _mcleanup (gcrt1.o registers it with atexit), and profil_gmon(), OpenBSD's profil(2) call
 * as an API of ours.  A program compiled with -pg and linked with -lprofil before libc gets
 * these instead of glibc's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/gmon.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gmon.h"

struct profil_gmon profil_gmon_rt = { .fd = -1, .dirfd = -1 };

#define DEFAULT_HZ	100		/* gprof's familiar 0.01 seconds a sample */
#define ARCDENSITY	3		/* glibc: arcs per 100 bytes of text */
#define ARCS_MIN	1024		/* per thread; glibc's MINARCS 50 is per program */
#define ARCS_DEFAULT_MAX 65536		/* per thread: 2.7 MB of file each unless PROFIL_ARCS */
#define ARCS_MAX	(1 << 20)	/* glibc's MAXARCS */
#define HIST_OFF	(PROFIL_GMON_HDR_SIZE + sizeof(struct profil_gmon_arc))
#define BINS_OFF	(HIST_OFF + 1 + PROFIL_GMON_HIST_SIZE)

_Static_assert(sizeof(struct profil_gmon_arc) == 21, "a gmon arc record is 21 bytes");
_Static_assert(BINS_OFF % 2 == 0, "bins must be 2-byte aligned for atomic adds");

/*
 * Parses a positive decimal no larger than max; 0 if absent or not one.  From the environment
 * the kernel gave (profil_env_get(), src/engine/env.c), not through getenv(3): __monstartup
 * runs before main, where a program's own getenv (bash's) sees nothing yet.
 */
static unsigned long
env_number(const char *name, unsigned long max)
{
	const char *v = profil_env_get(name);
	unsigned long n;
	char *end;

	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || n == 0 || n > max) {
		profil_gmon_warn("ignoring a bad value", name);
		return 0;
	}
	return n;
}

static int
main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	/* The first object is the executable. */
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;
}

static void
put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The header, a leading empty arc, and the histogram record's header, in gmon_out.h's order. */
static void
write_header(struct profil_gmon *g)
{
	unsigned char *p = g->buf;

	memcpy(p, "gmon", 4);
	put32(p + 4, 1);
	p[PROFIL_GMON_HDR_SIZE] = PROFIL_GMON_TAG_ARC;
	p += HIST_OFF;
	*p++ = PROFIL_GMON_TAG_HIST;
	put64(p, g->lowpc - g->bias);
	put64(p + 8, g->highpc - g->bias);
	put32(p + 16, (uint32_t)(g->samplesize / 2));
	/* profil(2): "The frequency of the profiling clock is recorded in the header". */
	put32(p + 20, g->hz);
	memcpy(p + 24, "seconds", 7);
	p[39] = 's';
}

int
profil_gmon_start_locked(void)
{
	struct profil_gmon *g = &profil_gmon_rt;
	int r;

	/* After _mcleanup a start is a stop (glibc BZ #30101): the file is final. */
	if (atomic_load(&g->finished))
		return 0;
	g->bins.buf = (unsigned short *)(g->buf + BINS_OFF);
	g->bins.nbins = g->samplesize / 2;
	g->bins.offset = g->lowpc;
	g->bins.scale = PROFIL_GMON_SCALE;
	g->sink.fn = profil_bins_tick;
	g->sink.arg = &g->bins;
	atomic_store(&g->state, PROFIL_GMON_ON);
	r = profil_engine_start_locked(&g->sink, g->hz, PROFIL_CLOCK_AUTO);
	return r;
}

void
profil_gmon_stop_locked(void)
{
	struct profil_gmon *g = &profil_gmon_rt;

	atomic_store(&g->state, PROFIL_GMON_OFF);
	/* The engine has one sink: profil(3) may have taken it since. */
	if (profil_engine_sink_locked() == &g->sink)
		profil_engine_stop_locked();
}

/*
 * fork(2).  The buffer is a shared mapping, so until the child has its own file the parent's
 * writes land in both: the parent waits in its fork handler until the child has copied the
 * data (the byte on this pipe, or end of file if no child was made).  Only other threads of a
 * threaded parent still run during that copy, and any that wants the engine lock waits: the
 * engine's fork places (engine.h) hold it.
 */
static _Thread_local int fork_pipe[2] = { -1, -1 };
static pid_t profile_pid;	/* the process the file belongs to (not a vfork child) */
static int forked;		/* this process's file began as a copy at fork */
static int unlinked;		/* removed before an exec that may yet fail */

static void
fork_prepare(int why, void *arg)
{
	(void)why;
	(void)arg;
	if (!atomic_load(&profil_gmon_rt.setup) || atomic_load(&profil_gmon_rt.finished) ||
	    pipe2(fork_pipe, O_CLOEXEC) != 0)
		fork_pipe[0] = fork_pipe[1] = -1;
}

static void
fork_parent(int why, void *arg)
{
	char c;

	(void)why;
	(void)arg;
	if (fork_pipe[0] < 0)
		return;
	close(fork_pipe[1]);
	while (read(fork_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fork_pipe[0]);
	fork_pipe[0] = fork_pipe[1] = -1;
}

/*
 * fork(2) child, engine lock held and every signal blocked since before the copy (the engine's
 * FORK_CHILD hook), so no tick lands in the parent's file from here.
 */
static void
fork_child(int why, void *arg)
{
	struct profil_gmon *g = &profil_gmon_rt;

	(void)why;
	(void)arg;
	if (!atomic_load(&g->setup) || atomic_load(&g->finished))
		goto done;
	if (profil_gmon_file_relocate(g->dirfd) == 0) {
		profil_gmon_thread_forget_all();
		profile_pid = getpid();
		forked = 1;
		goto done;
	}
	/* Never write into the parent's file: this child goes unprofiled. */
	profil_gmon_stop_locked();
	atomic_store(&g->finished, 1);
	profil_gmon_warn("cannot create the child's profile", g->name);
done:
	if (fork_pipe[1] >= 0) {
		if (write(fork_pipe[1], "", 1) < 0)
			profil_gmon_warn("cannot release the parent", g->name);
		close(fork_pipe[0]);
		close(fork_pipe[1]);
		fork_pipe[0] = fork_pipe[1] = -1;
	}
}

/*
 * exec(3) in a fork child: the child becomes another program, and its file so far is mostly a
 * copy of the parent's profile, which a shell or a server would leave once per command.  "exec
 * ends profiling", so such a child leaves no file; the parent's own profile is kept whole.  If
 * the exec fails, the file comes back with everything in it.  A vfork child shares the parent's
 * memory and is left alone.
 */
static void
exec_before(int why, void *arg)
{
	struct profil_gmon *g = &profil_gmon_rt;

	(void)why;
	(void)arg;
	if (!atomic_load(&g->setup) || atomic_load(&g->finished) || !forked ||
	    getpid() != profile_pid)
		return;
	if (unlinkat(g->dirfd, g->name, 0) == 0)
		unlinked = 1;
}

static void
exec_failed(int why, void *arg)
{
	struct profil_gmon *g = &profil_gmon_rt;

	(void)why;
	(void)arg;
	if (!unlinked || getpid() != profile_pid)
		return;
	unlinked = 0;
	if (profil_gmon_file_relocate(g->dirfd) < 0)
		profil_gmon_warn("cannot create the profile again", g->name);
}

static void
at_exit(int why, void *arg)
{
	(void)why;
	(void)arg;
	profil_gmon_finish();
}

static void
try_membarrier(void *unused)
{
	(void)unused;
	profil_seccomp_step("membarrier");
	syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
}

/*
 * gcrt1.o: __gmon_start__ calls __monstartup(&__executable_start, &etext) before any
 * constructor of the program, then atexit(_mcleanup).
 */
PROFIL_API void
__monstartup(unsigned long lowpc, unsigned long highpc)
{
	struct profil_gmon *g = &profil_gmon_rt;
	const char *profdir;
	unsigned long arcs;
	size_t text, nslots;
	sigset_t saved;
	int fd, r;

	if (atomic_load(&g->setup) || highpc <= lowpc)
		return;
	/* glibc rounds to the bin size, so the bins tile [lowpc, highpc) exactly. */
	g->lowpc = lowpc & ~(uintptr_t)(PROFIL_GMON_BIN_BYTES - 1);
	g->highpc = (highpc + PROFIL_GMON_BIN_BYTES - 1) & ~(uintptr_t)(PROFIL_GMON_BIN_BYTES - 1);
	text = g->highpc - g->lowpc;
	g->samplesize = text / PROFIL_GMON_BIN_BYTES * 2;
	g->hz = (unsigned int)env_number("PROFIL_HZ", PROFIL_HZ_MAX);
	if (g->hz == 0)
		g->hz = DEFAULT_HZ;
	arcs = env_number("PROFIL_ARCS", ARCS_MAX);
	if (arcs == 0) {
		arcs = text / 100 * ARCDENSITY;
		if (arcs < ARCS_MIN)
			arcs = ARCS_MIN;
		if (arcs > ARCS_DEFAULT_MAX)
			arcs = ARCS_DEFAULT_MAX;
	}
	g->maxarcs = arcs;
	/* At most three quarters full, so a probe always ends. */
	for (nslots = 16; nslots * 3 / 4 < arcs + 1; nslots <<= 1)
		;
	g->nslots = nslots;
	dl_iterate_phdr(main_bias, &g->bias);

	/*
	 * OpenBSD: the file goes to PROFDIR or the starting directory, fixed now, so a chdir,
	 * chroot or privilege drop later changes nothing.  PROFDIR is ignored for set-user-ID
	 * and set-group-ID programs (AT_SECURE).
	 */
	profdir = getauxval(AT_SECURE) ? NULL : profil_env_get("PROFDIR");
	g->dirfd = open(profdir != NULL && *profdir != '\0' ? profdir : ".",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dirfd < 0) {
		profil_gmon_warn("cannot open the profile directory", profdir ? profdir : ".");
		return;
	}
	profil_gmon_name(g->name, sizeof(g->name), getpid());
	g->arcs_off = BINS_OFF + g->samplesize;
	g->buflen = g->arcs_off + PROFIL_GMON_TABLES * nslots * sizeof(struct profil_gmon_arc);
	fd = profil_gmon_file_create(g->dirfd, g->name, g->arcs_off);
	if (fd < 0) {
		profil_gmon_warn(strerror(-fd), g->name);
		goto fail;
	}
	g->fd = fd;
	profil_gmon_file_set_length(g->arcs_off);
	r = profil_gmon_file_map(fd, g->arcs_off, g->buflen, NULL, &g->buf);
	if (r < 0) {
		profil_gmon_warn(strerror(-r), g->name);
		goto fail;
	}
	write_header(g);
	if (profil_gmon_tables_init() < 0)
		goto fail;
	/*
	 * Under a seccomp filter that would kill it, or one that cannot be probed, the merge does
	 * without (merge.c).
	 */
	g->membarrier = (profil_seccomp_filtered() == 0 ||
	    profil_seccomp_kills(try_membarrier, NULL) == 0) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	profil_engine_hook_add(PROFIL_HOOK_FORK_PREPARE, fork_prepare, NULL);
	profil_engine_hook_add(PROFIL_HOOK_FORK_PARENT, fork_parent, NULL);
	profil_engine_hook_add(PROFIL_HOOK_FORK_CHILD, fork_child, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_BEFORE, exec_before, NULL);
	profil_engine_hook_add(PROFIL_HOOK_EXEC_FAILED, exec_failed, NULL);
	profile_pid = getpid();
	profil_engine_hook_add(PROFIL_HOOK_EXIT, at_exit, NULL);
	atomic_store(&g->setup, 1);

	profil_engine_lock(&saved);
	r = profil_gmon_start_locked();
	profil_engine_unlock(&saved);
	if (r < 0 && profil_seccomp_filtered() != 0 && !profil_seccomp_may_probe())
		profil_gmon_warn("no histogram: a seccomp filter is in force (run the program "
		    "under profil record to probe it)", g->name);
	else if (r < 0 && profil_seccomp_killer() != NULL)
		profil_gmon_warn("no histogram: a seccomp filter kills the profiling clock's calls",
		    profil_seccomp_killer());
	else if (r < 0)
		profil_gmon_warn("no histogram: cannot start the profiling clock", strerror(-r));
	return;
fail:
	if (g->fd >= 0) {
		close(g->fd);
		unlinkat(g->dirfd, g->name, 0);
		g->fd = -1;
	}
	close(g->dirfd);
	g->dirfd = -1;
}

PROFIL_API void
monstartup(unsigned long lowpc, unsigned long highpc)
{
	__monstartup(lowpc, highpc);
}

/* atexit, from gcrt1.o; a program may also call it to end its profile early. */
PROFIL_API void
_mcleanup(void)
{
	sigset_t saved;

	if (!atomic_load(&profil_gmon_rt.setup))
		return;
	profil_engine_lock(&saved);
	profil_gmon_stop_locked();
	profil_engine_unlock(&saved);
	profil_gmon_finish();
}

/* moncontrol(3): "mode 0 stops profiling, any other value restarts it". */
PROFIL_API void
moncontrol(int mode)
{
	struct profil_gmon *g = &profil_gmon_rt;

	if (!atomic_load(&g->setup))
		return;
	if (mode)
		profil_gmon(g->buf, g->buflen, g->samplesize, g->lowpc, PROFIL_GMON_SCALE, -1);
	else
		profil_gmon(NULL, 0, 0, 0, 0, -1);
}

static int
same_file(int a, const struct stat *b)
{
	struct stat st;

	return fstat(a, &st) == 0 && st.st_dev == b->st_dev && st.st_ino == b->st_ino;
}

/* A later call that names another directory: the profile moves there. */
static int
move_to(int dirfd, const struct stat *dir)
{
	struct profil_gmon *g = &profil_gmon_rt;
	char old[sizeof(g->name)];
	int newfd, r;

	if (same_file(g->dirfd, dir))
		return 0;
	r = profil_gmon_quiesce();
	if (r < 0)
		return r;
	newfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (newfd < 0)
		return -errno;
	memcpy(old, g->name, sizeof(old));
	r = profil_gmon_file_relocate(newfd);
	if (r < 0) {
		close(newfd);
		return r;
	}
	unlinkat(g->dirfd, old, 0);
	close(g->dirfd);
	g->dirfd = newfd;
	return 0;
}

/*
 * OpenBSD profil(2) with its errors, in its order: EPERM when the -pg runtime has not set up,
 * EINVAL for a scale above 65536, scale 0 stops, EALREADY for another buffer than the one
 * registered, EBADF and ENOTDIR for dirfd.
 */
PROFIL_API int
profil_gmon(void *buf, size_t buflen, size_t samplesize, unsigned long offset,
    unsigned int scale, int dirfd)
{
	struct profil_gmon *g = &profil_gmon_rt;
	struct stat st;
	sigset_t saved;
	int r;

	if (!atomic_load(&g->setup)) {
		r = -EPERM;
		goto out;
	}
	/* "The scale parameter ranges from 1 to 65536"; "A scale value of 0 disables". */
	if (scale > 65536) {
		r = -EINVAL;
		goto out;
	}
	profil_engine_lock(&saved);
	if (scale == 0) {
		profil_gmon_stop_locked();
		r = 0;
		goto unlock;
	}
	if (buf != g->buf) {
		r = -EALREADY;
		goto unlock;
	}
	if (dirfd != -1) {
		if (fstat(dirfd, &st) != 0) {
			r = -EBADF;
			goto unlock;
		}
		if (!S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			goto unlock;
		}
	}
	/* The file's histogram header was written for this layout; another would lie to gprof. */
	if (buflen != g->buflen || samplesize != g->samplesize || offset != g->lowpc ||
	    scale != PROFIL_GMON_SCALE) {
		r = -EINVAL;
		goto unlock;
	}
	if (atomic_load(&g->finished)) {
		r = 0;
		goto unlock;
	}
	if (dirfd != -1) {
		profil_gmon_stop_locked();
		r = move_to(dirfd, &st);
		if (r < 0) {
			profil_gmon_start_locked();
			goto unlock;
		}
	}
	r = profil_gmon_start_locked();
unlock:
	profil_engine_unlock(&saved);
out:
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

PROFIL_API int
profil_gmon_status_get(struct profil_gmon_status *st)
{
	struct profil_gmon *g = &profil_gmon_rt;
	size_t n;

	if (st == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	if (!atomic_load(&g->setup))
		return 0;
	st->setup = 1;
	st->running = atomic_load(&g->state) == PROFIL_GMON_ON;
	st->finished = atomic_load(&g->finished);
	st->buf = g->buf;
	st->buflen = g->buflen;
	st->samplesize = g->samplesize;
	st->offset = g->lowpc;
	st->scale = PROFIL_GMON_SCALE;
	st->dirfd = g->dirfd;
	st->hz = g->hz;
	n = atomic_load(&g->ntables);
	st->tables = n > PROFIL_GMON_TABLES ? PROFIL_GMON_TABLES : n;
	st->arcs_per_table = g->maxarcs;
	st->arcs_dropped = atomic_load(&g->dropped);
	memcpy(st->name, g->name, sizeof(st->name));
	return 0;
}
