/*
 * signals - the program keeps its signals.  The engine ticks on a real-time signal of its own;
 * the program, asking, sees its own disposition; resetting every signal to SIG_DFL (as a fork
 * child does before exec) cannot expose it to the tick's default action; installing a handler of
 * its own on that signal gives it the signal while profiling moves to another one.  Also: a
 * perf event descriptor the program closed and reused stays the program's, and unloading
 * libprofil.so while profiling cannot unmap the handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

static unsigned short bins[1 << 16];
static volatile int own;

static void
on_own(int s)
{
	(void)s;
	own++;
}

static int
tick_signal(struct profil_stats *st)
{
	profil_stats_get(st);
	return st->signo;
}

static void
start(unsigned int hz, enum profil_clock clock)
{
	profil_rate_set(hz, clock);
	profil(bins, sizeof(bins), HOT_START(hot_a), 65536);
}

static void
stop(void)
{
	profil(bins, sizeof(bins), 0, 0);
}

int
main(int argc, char **argv)
{
	struct profil_stats st;
	struct sigaction sa, cur;
	int s, s2, status, fd;
	pid_t pid;

	(void)argc;
	start(1000, PROFIL_CLOCK_AUTO);
	s = tick_signal(&st);
	sigaction(s, NULL, &cur);
	tap_check(!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL,
	    "asked while profiling, the tick signal %d shows the program's SIG_DFL", s);

	/* A fork child that resets every signal before it execs -- and burns CPU meanwhile. */
	pid = fork();
	if (pid == 0) {
		int i;

		for (i = 1; i < 65; i++)
			signal(i, SIG_DFL);
		hot_a(0.3);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a fork child that resets every signal to SIG_DFL runs on (status %#x)", status);

	/* The program takes the tick signal for itself. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_own;
	sigaction(s, &sa, NULL);
	hot_a(0.2);
	s2 = tick_signal(&st);
	tap_check(own == 0 && s2 != s && st.running && st.signals >= 100,
	    "its own handler on signal %d gets no tick; profiling moved to %d (%llu ticks)", s, s2,
	    (unsigned long long)st.signals);
	stop();
	sigaction(s, NULL, &cur);
	tap_check(cur.sa_handler == on_own, "after profiling stops its handler is still there");
	sigqueue(getpid(), s, (union sigval){ 0 });
	tap_check(own == 1, "and its own signal reaches it (%d)", own);

	/* An exec that fails resumes profiling: exec stops it only for an image that replaces us. */
	start(1000, PROFIL_CLOCK_AUTO);
	errno = 0;
	execl("/nonexistent/profil-test", "x", (char *)NULL);
	profil_stats_get(&st);
	tap_check(errno == ENOENT && st.running, "a failed exec (%s) leaves profiling running",
	    strerror(errno));
	stop();

	/*
	 * A perf descriptor the program closed under us and whose number it reuses (numbered from
	 * 100, out of the way of the program's opens: dup2 takes the number again, as a program
	 * that closes every descriptor and then numbers its own would).
	 */
	start(1000, PROFIL_CLOCK_PERF);
	profil_stats_get(&st);
	for (fd = 3; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		close(fd);
		break;
	}
	{
		int mine = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (mine >= 0 && mine != fd && dup2(mine, fd) == fd) {
			close(mine);
			mine = fd;
		}

		stop();
		tap_check(mine == fd && write(mine, "x", 1) == 1,
		    "a reused descriptor (%d) is not closed when profiling stops", mine);
		close(mine);
	}

	/* dlclose of a dlopen'ed libprofil.so while it profiles. */
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		int (*dprofil)(unsigned short *, size_t, size_t, unsigned int) =
		    h ? (int (*)(unsigned short *, size_t, size_t, unsigned int))dlsym(h, "profil") :
		    NULL;
		static unsigned short more[1 << 16];

		tap_check(dprofil != NULL && dprofil(more, sizeof(more), HOT_START(hot_a), 65536) == 0,
		    "a dlopen'ed copy of libprofil.so starts profiling");
		dlclose(h);
		hot_a(0.2);
		tap_check(1, "the program runs on after dlclose of it");
	}
	return tap_done();
}
