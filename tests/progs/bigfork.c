/*
 * bigfork MIB - the profiling signal is blocked in the forking thread across fork(2), and only
 * then.  A signal that arrives during the copy can restart clone() (ERESTARTNOINTR); a copy longer
 * than the tick period can then restart forever (gperftools #335).  Kernels of this decade no
 * longer restart for a thread-directed signal, so the test watches the mechanism itself: another
 * thread reads the forking thread's SigBlk from /proc while a large process forks.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

#define FORKS 40

static volatile int done;
static pid_t main_tid;
static int signo;
static long seen_blocked, reads;

/* Is the engine's signal in the main thread's blocked set right now? */
static int
blocked_now(void)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)main_tid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	fclose(f);
	return (mask >> (signo - 1)) & 1;
}

static void *
observer(void *arg)
{
	(void)arg;
	while (!done) {
		seen_blocked += blocked_now();
		reads++;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static unsigned short bins[1 << 16];
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 256;
	char *mem = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct profil_stats st;
	int i, status, ok = 1;
	pthread_t t;

	if (mem == MAP_FAILED)
		return 1;
	/* Small pages: copying their page tables is what makes a fork take milliseconds. */
	madvise(mem, mib << 20, MADV_NOHUGEPAGE);
	memset(mem, 1, mib << 20);
	profil_rate_set(1000, PROFIL_CLOCK_AUTO);
	profil(bins, sizeof(bins), HOT_START(hot_a), 65536);
	profil_stats_get(&st);
	signo = st.signo;
	main_tid = (pid_t)syscall(SYS_gettid);
	tap_check(!blocked_now(), "the engine's signal is not blocked before fork");
	pthread_create(&t, NULL, observer, NULL);
	for (i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(mem[i] == 1 ? 0 : 1);
		waitpid(pid, &status, 0);
		ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	done = 1;
	pthread_join(t, NULL);
	tap_check(ok, "%d forks of a %zu MiB process while profiling", FORKS, mib);
	tap_check(seen_blocked > 0, "the signal was blocked in the forking thread during fork "
	    "(%ld of %ld reads)", seen_blocked, reads);
	tap_check(!blocked_now(), "and unblocked again after");
	hot_a(0.1);
	profil_stats_get(&st);
	tap_check(st.signals > 0, "ticks still arrive after the forks (%llu)",
	    (unsigned long long)st.signals);
	return tap_done();
}
