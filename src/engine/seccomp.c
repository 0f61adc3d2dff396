/*
 * What a seccomp filter in force would do to the calls profiling needs, found without making
 * them.  A filter installed before exec (systemd's SystemCallFilter=, a container's profile)
 * may kill the process on a call the program itself never makes: timer_create(2),
 * perf_event_open(2), unshare(2), clone3(2).  No interface tells what a filter does with a
 * call short of making it, so a probe makes it in a child process: a raw clone(2) with no
 * exit signal (no fork handlers run, no SIGCHLD reaches the program, a waitpid(-1) of the
 * program does not see it), not dumpable (no core file of its death), which does what the
 * caller is about to do and exits.  Killed by SIGSYS (SECCOMP_RET_KILL_PROCESS, _KILL_THREAD,
 * or _TRAP with SIGSYS at its default), the call is one the caller must not make.  A filter
 * that kills clone(2) itself leaves nothing to probe with; the program then cannot fork or
 * start a thread either.  Raw system calls only: the engine may start from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"

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

int
profil_seccomp_filtered(void)
{
	char buf[4096];
	long mode, filters;
	ssize_t n;
	int fd;

	/* The calling thread's own: a filter may be on one thread and not on another. */
	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/status",
	    O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;	/* cannot tell: probing costs a child, guessing may cost the program */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
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

int
profil_seccomp_kills(void (*try)(void *arg), void *arg)
{
	struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } dfl = { 0 };
	struct rlimit none = { 0, 0 };
	int status;
	long pid, r;

	if (step_page == NULL) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		    0);

		if (m == MAP_FAILED)
			return -ENOMEM;
		step_page = m;
	}
	*step_page = NULL;
	last_killer = NULL;
	pid = syscall(SYS_clone, 0UL, 0UL, NULL, NULL, 0UL);
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		probing = 1;
		/* No core file; SIGSYS kills here even where the program traps it. */
		syscall(SYS_prlimit64, 0, RLIMIT_CORE, &none, NULL);
		syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
		syscall(SYS_rt_sigaction, SIGSYS, &dfl, NULL, sizeof(uint64_t));
		try(arg);
		syscall(SYS_exit_group, 0);
	}
	do
		r = syscall(SYS_wait4, pid, &status, __WALL, NULL);
	while (r < 0 && errno == EINTR);
	if (r != pid)
		return -ECHILD;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
		return 0;
	last_killer = *step_page != NULL ? *step_page : "a system call";
	return 1;
}
