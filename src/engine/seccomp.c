/*
 * What a seccomp filter in force would do to the calls profiling needs.  A filter installed
 * before exec (systemd's SystemCallFilter=, a container's profile) may kill the process on a
 * call the program itself never makes: timer_create(2), perf_event_open(2), unshare(2),
 * clone3(2).  No interface tells what a filter does with a call short of making it, so a probe
 * makes it in a child process, which does what the caller is about to do and exits.  Killed by
 * SIGSYS (SECCOMP_RET_KILL_PROCESS, _KILL_THREAD, or _TRAP with SIGSYS at its default), the call
 * is one the caller must not make.
 *
 * The child is itself a clone(2), which the filter may kill too: many allow only thread clones
 * (minijail's "clone: arg0 & CLONE_THREAD").  So a child is made only where a process clone is
 * known to survive: `profil record` forked this program under the same filters and says how
 * many there were (PROFIL_RECORD_ENV_CLONE_OK); the count must be the same now (no filter added
 * since) and the process must have one thread (no other thread can reap the child with a
 * waitpid(-1) of its own).  Anywhere else (a bare LD_PRELOAD, profil(3) or the -pg runtime run
 * under a filter, a program with threads) nothing is probed and every call counts as killed.
 * Raw system calls only: the engine may start from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "record/protocol.h"

/* How long a probe child may take: a filter's SECCOMP_RET_USER_NOTIF may block it for good. */
#define PROBE_TIMEOUT_NS 2000000000L

/*
 * The step the child has reached, in a page it shares with the parent: the name of the call
 * that killed it.  Mapped at the first probe.
 */
static const char *volatile *step_page;
static const char *last_killer;
static int probing;		/* 1 in a probe child alone */

/* The number after name at a line's start, or -1: no stdio, no strtol (signal context). */
static long
field(const char *buf, const char *name)
{
	const char *p, *q;
	long v = 0;

	for (p = buf; *p != '\0'; p++) {
		for (q = name; *q != '\0' && p[q - name] == *q; q++)
			;
		if (*q != '\0')
			continue;
		for (p += q - name; *p == ' ' || *p == '\t'; p++)
			;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		return v;
	}
	return -1;
}

/* The digits of s as a number, or -1. */
static long
number(const char *s)
{
	long v = 0;

	if (s == NULL || *s == '\0')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return *s == '\0' ? v : -1;
}

/* The calling thread's status: a filter may be on one thread and not on another. */
static int
status_read(char *buf, size_t cap)
{
	ssize_t n;
	int fd;

	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/status",
	    O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int
profil_seccomp_filtered(void)
{
	char buf[4096];
	long mode, filters;

	if (status_read(buf, sizeof(buf)) < 0)
		return 1;	/* cannot tell: assume a filter, which costs a profile at most */
	/*
	 * proc(5): "Seccomp: Seccomp mode of the process ... 0 means SECCOMP_MODE_DISABLED";
	 * Seccomp_filters (Linux 5.9) counts the filters, so that a filter added later shows.
	 */
	mode = field(buf, "\nSeccomp:");
	if (mode <= 0)
		return 0;	/* none, or a kernel without seccomp */
	filters = field(buf, "\nSeccomp_filters:");
	return filters > 0 ? 1 + (int)filters : 1;
}

int
profil_seccomp_may_probe(void)
{
	char buf[4096];
	long filters, vouched = number(profil_env_get(PROFIL_RECORD_ENV_CLONE_OK));

	if (vouched <= 0 || status_read(buf, sizeof(buf)) < 0)
		return 0;
	filters = field(buf, "\nSeccomp_filters:");
	return filters == vouched && field(buf, "\nThreads:") == 1;
}

void
profil_seccomp_step(const char *name)
{
	if (probing)
		*step_page = name;
}

const char *
profil_seccomp_killer(void)
{
	return last_killer;
}

/* The child's wait, bounded: 0 and *status, or -errno. */
static int
reap(long pid, int *status)
{
	struct timespec nap = { 0, 100000 };
	long waited = 0, r;

	for (;;) {
		r = syscall(SYS_wait4, pid, status, WNOHANG | __WALL, NULL);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (waited >= PROBE_TIMEOUT_NS)
			break;
		syscall(SYS_nanosleep, &nap, NULL);
		waited += nap.tv_nsec;
		if (nap.tv_nsec < 10000000)
			nap.tv_nsec *= 2;
	}
	/* Blocked in the call (a supervisor that never answers): as good as killed. */
	syscall(SYS_kill, pid, SIGKILL);
	do
		r = syscall(SYS_wait4, pid, status, __WALL, NULL);
	while (r < 0 && errno == EINTR);
	if (r != pid)
		return -ECHILD;
	*status = SIGSYS;	/* WIFSIGNALED, WTERMSIG SIGSYS */
	return 0;
}

int
profil_seccomp_kills(void (*try)(void *arg), void *arg)
{
	struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } dfl = { 0 };
	struct rlimit none = { 0, 0 };
	uint64_t all = ~(uint64_t)0, saved;
	int status, r, ctid;
	long pid;

	last_killer = NULL;
	if (!profil_seccomp_may_probe())
		return -EPERM;	/* a clone of ours may be what the filter kills */
	if (step_page == NULL) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		    0);

		if (m == MAP_FAILED)
			return -ENOMEM;
		step_page = m;
	}
	*step_page = NULL;
	/*
	 * Every signal blocked across the child's life: in the child, none of the program's
	 * handlers may run (a Ctrl-C would run its SIGINT handler there); the parent takes what
	 * came meanwhile once the child is gone.
	 */
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, sizeof(all)) != 0)
		return -errno;
	/*
	 * glibc's fork(2) flags, the clone `profil record` made under these filters, but for the
	 * exit signal: with none, no SIGCHLD reaches the program (the child dies with no parent
	 * to notify but us, and __WALL reaps it).  Filters that test clone's flags test bits
	 * (CLONE_THREAD, the CLONE_NEW* namespaces), which are those of the fork that survived.
	 * A raw clone, not fork(): no fork handlers of the program's run.
	 */
	pid = syscall(SYS_clone, (unsigned long)(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID), 0UL,
	    NULL, &ctid, 0UL);
	if (pid == 0) {
		probing = 1;
		/* First, so that a program's SIGSYS handler cannot hide a kill from us. */
		profil_seccomp_step("rt_sigaction");
		syscall(SYS_rt_sigaction, SIGSYS, &dfl, NULL, sizeof(uint64_t));
		/* No core file of its death. */
		profil_seccomp_step("prlimit64");
		syscall(SYS_prlimit64, 0, RLIMIT_CORE, &none, NULL);
		profil_seccomp_step("prctl");
		syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
		profil_seccomp_step(NULL);
		try(arg);
		syscall(SYS_exit_group, 0);
	}
	r = pid < 0 ? -errno : reap(pid, &status);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, NULL, sizeof(saved));
	if (r < 0)
		return r;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
		return 0;
	last_killer = *step_page != NULL ? *step_page : "a system call";
	return 1;
}
