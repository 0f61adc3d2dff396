/*
 * bigfork MIB LIBPROFIL - the profiling signal is blocked in the forking thread across fork(2),
 * and only then.  A signal that arrives during the copy can restart clone() (ERESTARTNOINTR); a
 * copy longer than the tick period can then restart forever (gperftools #335).  Kernels of this
 * decade no longer restart for a thread-directed signal, so the test watches the mechanism
 * itself, from fork handlers of its own that run inside the engine's.
 *
 * pthread_atfork(3): prepare handlers run in the reverse order of registration, parent and
 * child handlers in the order of registration.  So this program registers its handlers first
 * and only then loads libprofil (LIBPROFIL, with dlopen; it is not linked), whose constructor
 * registers the engine's: the engine blocks the signal before our prepare handler runs and
 * unblocks it after our parent and child handlers ran, and each of them reads the mask of the
 * forking thread itself.  A thread polling /proc for the mask missed the window under load.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

#define FORKS 40

static int signo;
static volatile sig_atomic_t in_prepare, in_parent, in_child;

/* Is the engine's signal blocked in the calling thread? */
static int
blocked_now(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, signo) == 1;
}

static void
on_prepare(void)
{
	in_prepare += blocked_now();
}

static void
on_parent(void)
{
	in_parent += blocked_now();
}

static void
on_child(void)
{
	in_child = blocked_now();
}

int
main(int argc, char **argv)
{
	static unsigned short bins[1 << 16];
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 256;
	char *mem = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*p_profil)(unsigned short *, size_t, size_t, unsigned int);
	int (*p_rate_set)(unsigned int, enum profil_clock);
	int (*p_stats_get)(struct profil_stats *);
	struct profil_stats st;
	int i, status, ok = 1, after = 0;
	void *lib;

	if (mem == MAP_FAILED || argc < 3)
		return 1;
	/* Small pages: copying their page tables is what makes a fork take milliseconds. */
	madvise(mem, mib << 20, MADV_NOHUGEPAGE);
	memset(mem, 1, mib << 20);
	pthread_atfork(on_prepare, on_parent, on_child);
	lib = dlopen(argv[2], RTLD_NOW);
	if (lib == NULL) {
		tap_check(0, "dlopen %s: %s", argv[2], dlerror());
		return tap_done();
	}
	*(void **)&p_profil = dlsym(lib, "profil");
	*(void **)&p_rate_set = dlsym(lib, "profil_rate_set");
	*(void **)&p_stats_get = dlsym(lib, "profil_stats_get");
	if (p_profil == NULL || p_rate_set == NULL || p_stats_get == NULL) {
		tap_check(0, "libprofil's entry points: %s", dlerror());
		return tap_done();
	}
	p_rate_set(1000, PROFIL_CLOCK_AUTO);
	p_profil(bins, sizeof(bins), HOT_START(hot_a), 65536);
	p_stats_get(&st);
	signo = st.signo;
	tap_check(signo > 0 && !blocked_now(), "the engine's signal (%d) is not blocked before fork",
	    signo);
	for (i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		/* The child reports its handler's reading, and that the engine unblocked after. */
		if (pid == 0)
			_exit(mem[i] == 1 && in_child && !blocked_now() ? 0 : 1);
		after += !blocked_now();
		waitpid(pid, &status, 0);
		ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	tap_check(ok, "%d forks of a %zu MiB process while profiling; each child was forked with "
	    "the signal blocked and unblocked it after", FORKS, mib);
	tap_check(in_prepare == FORKS && in_parent == FORKS, "the signal was blocked in the forking "
	    "thread during every fork (%d and %d of %d)", (int)in_prepare, (int)in_parent, FORKS);
	tap_check(after == FORKS && !blocked_now(), "and unblocked again after (%d of %d)", after,
	    FORKS);
	hot_a(0.1);
	p_stats_get(&st);
	tap_check(st.signals > 0, "ticks still arrive after the forks (%llu)",
	    (unsigned long long)st.signals);
	return tap_done();
}
