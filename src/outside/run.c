/*
 * The outside recorder's run: the command started under its events, or running processes
 * attached to, or every process (-a), read until they end or we are told to stop.  Our
 * SIGTERM and SIGHUP go to the command; SIGINT and SIGQUIT are its terminal's to send it, or
 * (-p, -a) end the recording.  Moved from cmd/record.c, which parses the options and says
 * what the run reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

static volatile sig_atomic_t got_signal;	/* the last SIGTERM, SIGHUP or SIGINT */

/* SIGCHLD only wakes the loop: kept out of got_signal, where it would hide a SIGTERM. */
static void
on_signal(int signo)
{
	if (signo != SIGCHLD)
		got_signal = signo;
}

int
profil_outside_notes(struct profil_outside *s, const char *dir,
    void (*say)(const char *what, const char *subject))
{
	struct profil_outside_stats st;
	char what[160];

	profil_outside_stats(s, &st);
	if (st.lost > 0) {
		snprintf(what, sizeof(what), "%llu samples lost on full perf ring buffers "
		    "(a lower -F loses fewer)", (unsigned long long)st.lost);
		say(what, dir);
	}
	if (st.throttled > 0)
		say("the kernel throttled sampling (kernel.perf_event_max_sample_rate)",
		    dir);
	if (st.wall_unread > 0) {
		snprintf(what, sizeof(what), "%llu stacks of waiting threads could not be read: "
		    "--wall needs ptrace access to the processes (same user, or CAP_SYS_PTRACE)",
		    (unsigned long long)st.wall_unread);
		say(what, dir);
	}
	if (st.jit_refused[0] != '\0') {
		snprintf(what, sizeof(what), "JIT names not read (perf's rule: a regular file "
		    "owned by root or by the user profil runs as)");
		say(what, st.jit_refused);
	}
	/* A few stacks deeper than the copy are expected; more say the copy is too small. */
	if (st.cut_short > 0 && st.cut_short * 100 >= st.stacks) {
		snprintf(what, sizeof(what), "%llu of %llu stacks cut where the copy of the stack "
		    "ended (--call-graph cfi,SIZE copies more)", (unsigned long long)st.cut_short,
		    (unsigned long long)st.stacks);
		say(what, dir);
	}
	if (st.write_error != 0) {
		snprintf(what, sizeof(what), "cannot write profile (%s)", strerror(st.write_error));
		say(what, st.write_error_path);
		return -1;
	}
	return 0;
}

static void
signals_take(sigset_t *blocked, sigset_t *old, int forward_only)
{
	static const int sigs[] = { SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(blocked);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(blocked, sigs[i]);
	sigprocmask(SIG_BLOCK, blocked, old);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* A command's terminal sends it SIGINT and SIGQUIT itself: it decides. */
		if (forward_only && (sigs[i] == SIGINT || sigs[i] == SIGQUIT)) {
			struct sigaction ign;

			memset(&ign, 0, sizeof(ign));
			ign.sa_handler = SIG_IGN;
			sigaction(sigs[i], &ign, NULL);
			continue;
		}
		sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * ppoll(2) lets our signals in only while it waits: when a descriptor is ready it returns at once
 * and they stay pending.  Let in here, between two waits, so that a busy ring cannot keep ^C out.
 */
static void
signals_deliver(const sigset_t *wait_mask)
{
	sigset_t pending, cur;

	if (sigpending(&pending) != 0 || sigisemptyset(&pending))
		return;
	sigprocmask(SIG_SETMASK, wait_mask, &cur);
	sigprocmask(SIG_SETMASK, &cur, NULL);
}

#define LOOP_RINGS	512
#define LOOP_PIDFDS	64

/*
 * Waits for the rings, the processes' pidfds and our signals, reading the rings as they fill
 * and at least every 100 ms (more often while a ring hung up, profil_outside_drain_ns), and
 * writing running images about once a second.  With wall_ns,
 * the waiting threads are sampled every wall_ns (late ticks count the periods they missed).
 * Returns when done() says so.
 */
static void
outside_loop(struct profil_outside *s, const int *pidfds, size_t npidfds, const sigset_t *wait_mask,
    uint64_t wall_ns, int (*done)(void *arg), void *arg, const struct profil_outside_watch *watch)
{
	struct pollfd fds[LOOP_RINGS + LOOP_PIDFDS + 1];
	size_t slot[LOOP_RINGS + LOOP_PIDFDS + 1];
	/*
	 * A descriptor that hung up polls ready at once for ever after: the pidfd of a process
	 * that ended, a ring whose event's thread exited (the ring still takes the records of the
	 * other threads, read on the timeout).  Polled again, each would make this loop spin.
	 */
	unsigned char gone[LOOP_RINGS + LOOP_PIDFDS] = { 0 };
	uint64_t last_snapshot = 0, next_wall = profil_monotonic_ns() + wall_ns;
	uint64_t next_watch = watch != NULL ? profil_monotonic_ns() + watch->every_ns : 0;
	uint64_t drain_ns = profil_outside_drain_ns(s);
	int rings_gone = 0, woken;

	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		size_t nrings = profil_outside_pollfds(s, fds, LOOP_RINGS), n = 0, i;
		uint64_t ms, now = profil_monotonic_ns();
		int ready;

		/*
		 * A ring that hung up is read on the timeout alone: at 100 ms, a high rate filled it
		 * in between and lost thousands of samples (-F 20000 -g, five processes, the first
		 * attached exiting: 15260 lost in 4 s, none with this).
		 */
		if (rings_gone && (uint64_t)ts.tv_nsec > drain_ns)
			ts.tv_nsec = (long)drain_ns;
		if (wall_ns > 0) {
			uint64_t wait = next_wall > now ? next_wall - now : 0;

			if (wait < (uint64_t)ts.tv_nsec)
				ts.tv_nsec = (long)wait;
		}
		if (watch != NULL) {
			uint64_t wait = next_watch > now ? next_watch - now : 0;

			if (wait < (uint64_t)ts.tv_nsec)
				ts.tv_nsec = (long)wait;
		}
		for (i = 0; i < nrings; i++) {
			if (gone[i])
				continue;
			fds[n] = fds[i];
			slot[n++] = i;
		}
		for (i = 0; i < npidfds && i < LOOP_PIDFDS; i++) {
			if (gone[LOOP_RINGS + i])
				continue;
			fds[n].fd = pidfds[i];
			fds[n].events = POLLIN;
			fds[n].revents = 0;
			slot[n++] = LOOP_RINGS + i;
		}
		if (watch != NULL && watch->fd >= 0) {
			fds[n].fd = watch->fd;
			fds[n].events = POLLIN;
			fds[n].revents = 0;
			slot[n++] = LOOP_RINGS + LOOP_PIDFDS;
		}
		ready = ppoll(fds, n, &ts, wait_mask);
		woken = 0;
		for (i = 0; ready > 0 && i < n; i++)
			if (slot[i] == LOOP_RINGS + LOOP_PIDFDS)
				woken = fds[i].revents != 0;
			else if ((fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0 ||
			    (slot[i] >= LOOP_RINGS && fds[i].revents != 0)) {
				gone[slot[i]] = 1;
				rings_gone |= slot[i] < LOOP_RINGS;
			}
		signals_deliver(wait_mask);
		profil_outside_read(s, 0);
		if (done(arg))
			return;
		now = profil_monotonic_ns();
		if (watch != NULL && (woken || now >= next_watch)) {
			if (watch->fn(s, woken, watch->arg))
				return;
			if (now >= next_watch)
				next_watch = now + watch->every_ns;
		}
		if (wall_ns > 0 && now >= next_wall) {
			uint64_t periods = 1 + (now - next_wall) / wall_ns;

			/*
			 * A late tick stands for the periods it missed, a few at most: after
			 * profil itself was stopped, a wait seen now says nothing of the gap.
			 */
			profil_outside_wall_tick(s, periods < 10 ? periods : 10);
			next_wall = periods < 10 ? next_wall + periods * wall_ns : now + wall_ns;
		}
		ms = now / 1000000;
		if (ms - last_snapshot >= 1000) {
			if (last_snapshot != 0)
				profil_outside_snapshot(s);
			last_snapshot = ms;
		}
	}
}

/* One descriptor per thread and CPU: as many as we may have. */
static void
nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct command_wait {
	pid_t pid;
	int status;
	int ended;
	struct profil_outside *s;
};

static int
command_done(void *arg)
{
	struct command_wait *w = arg;
	siginfo_t si;

	if (got_signal == SIGTERM || got_signal == SIGHUP) {
		kill(w->pid, got_signal);
		got_signal = 0;
	}
	/* Its last counts are read while it is a zombie: reaped, /proc forgets it. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == w->pid)
		profil_outside_exited(w->s, w->pid);
	w->ended = waitpid(w->pid, &w->status, WNOHANG) == w->pid;
	return w->ended;
}

int
profil_outside_run_command(struct profil_outside *s, char **cmd,
    const struct profil_outside_run *ro, int *status, char *err, size_t errlen)
{
	struct command_wait w = { 0, 0, 0, NULL };
	struct rlimit nofile, raised;
	sigset_t blocked, old;
	char go;
	int pipefd[2], pidfd, r, have_nofile;

	err[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		r = -errno;
		ro->say("cannot start recording", strerror(-r));
		return r;
	}
	w.s = s;
	/*
	 * The events take descriptors of ours, one per CPU: as many as we may have, while the
	 * command gets the limit it was given back before it execs.
	 */
	have_nofile = getrlimit(RLIMIT_NOFILE, &nofile) == 0;
	if (have_nofile && nofile.rlim_cur < nofile.rlim_max) {
		raised = nofile;
		raised.rlim_cur = raised.rlim_max;
		setrlimit(RLIMIT_NOFILE, &raised);
	}
	fflush(NULL);
	w.pid = fork();
	if (w.pid < 0) {
		r = -errno;
		ro->say("cannot fork", strerror(-r));
		return r;
	}
	if (w.pid == 0) {
		/* Released by one byte; end of file means the recorder gave up. */
		close(pipefd[1]);
		if (read(pipefd[0], &go, 1) != 1)
			_exit(127);
		close(pipefd[0]);
		if (have_nofile)
			setrlimit(RLIMIT_NOFILE, &nofile);
		execvp(cmd[0], cmd);
		fprintf(stderr, "profil: cannot run command: '%s': %s\n", cmd[0],
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(pipefd[0]);
	r = s->opts.system_wide ? profil_outside_system(s, w.pid, err, errlen) :
	    profil_outside_start(s, w.pid, err, errlen);
	if (r < 0) {
		close(pipefd[1]);
		waitpid(w.pid, NULL, 0);
		if (err[0] == '\0')
			snprintf(err, errlen, "%s", strerror(-r));
		return r;
	}
	signals_take(&blocked, &old, 1);
	pidfd = (int)syscall(SYS_pidfd_open, w.pid, 0);
	go = 'x';
	if (write(pipefd[1], &go, 1) != 1) {
		ro->say("cannot start the command", strerror(errno));
		kill(w.pid, SIGKILL);
	}
	close(pipefd[1]);
	outside_loop(s, &pidfd, pidfd >= 0 ? 1 : 0, &old, ro->wall_ns, command_done, &w,
	    ro->watch);
	/* A live view ended the recording before the command: it gets the SIGINT of a ^C. */
	if (!w.ended) {
		kill(w.pid, SIGINT);
		waitpid(w.pid, &w.status, 0);
	}
	if (pidfd >= 0)
		close(pidfd);
	profil_outside_finish(s);
	profil_outside_status(s, w.pid, w.status);
	sigprocmask(SIG_SETMASK, &old, NULL);
	*status = w.status;
	return 0;
}

struct attach_wait {
	const pid_t *pids;
	const int *pidfds;		/* -1 where pidfd_open(2) failed */
	size_t n;
};

/*
 * Whether an attached process has ended: its pidfd polls readable from the moment it
 * terminates, while kill(2) still finds it as a zombie until its parent reaps it.
 */
static int
process_ended(pid_t pid, int pidfd)
{
	struct pollfd p = { pidfd, POLLIN, 0 };

	if (pidfd >= 0)
		return poll(&p, 1, 0) == 1;
	return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Attached processes: done when each has ended, or when we are told to stop. */
static int
attach_done(void *arg)
{
	const struct attach_wait *w = arg;
	size_t i;

	if (got_signal == SIGINT || got_signal == SIGTERM || got_signal == SIGHUP)
		return 1;
	for (i = 0; i < w->n; i++)
		if (!process_ended(w->pids[i], w->pidfds[i]))
			return 0;
	return 1;
}

int
profil_outside_run_attach(struct profil_outside *s, const pid_t *pids, size_t n,
    const struct profil_outside_run *ro)
{
	struct attach_wait w;
	sigset_t blocked, old;
	int pidfds[PROFIL_OUTSIDE_ATTACH_MAX];
	char err[512] = "";
	size_t i;
	int r, threads = 0;

	if (n > PROFIL_OUTSIDE_ATTACH_MAX)
		n = PROFIL_OUTSIDE_ATTACH_MAX;
	nofile_raise();
	signals_take(&blocked, &old, 0);
	for (i = 0; i < n; i++) {
		char subject[32];

		r = profil_outside_attach(s, pids[i], err, sizeof(err));
		if (r < 0) {
			char what[600];

			snprintf(subject, sizeof(subject), "%d", pids[i]);
			snprintf(what, sizeof(what), "cannot attach (%s)", err[0] != '\0' ? err :
			    strerror(-r));
			ro->say(what, subject);
			for (size_t j = 0; j < i; j++)
				if (pidfds[j] >= 0)
					close(pidfds[j]);
			sigprocmask(SIG_SETMASK, &old, NULL);
			return -1;
		}
		pidfds[i] = (int)syscall(SYS_pidfd_open, pids[i], 0);
		threads += r;
	}
	/* Attached, which is what fails on a mistyped pid: only now may the caller go on. */
	if (ro->ready != NULL && ro->ready(s, threads, ro->arg) != 0) {
		for (i = 0; i < n; i++)
			if (pidfds[i] >= 0)
				close(pidfds[i]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	w.pids = pids;
	w.pidfds = pidfds;
	w.n = n;
	{
		int live[PROFIL_OUTSIDE_ATTACH_MAX] = { 0 };
		size_t nlive = 0;

		for (i = 0; i < n; i++)
			if (pidfds[i] >= 0)
				live[nlive++] = pidfds[i];
		outside_loop(s, live, nlive, &old, ro->wall_ns, attach_done, &w, ro->watch);
	}
	for (i = 0; i < n; i++)
		if (pidfds[i] >= 0)
			close(pidfds[i]);
	profil_outside_finish(s);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/* profil record -a without a command: until we are told to stop. */
static int
signal_done(void *arg)
{
	(void)arg;
	return got_signal == SIGINT || got_signal == SIGTERM || got_signal == SIGHUP;
}

int
profil_outside_run_system(struct profil_outside *s, const struct profil_outside_run *ro)
{
	sigset_t blocked, old;
	char err[512] = "";
	int r;

	nofile_raise();
	signals_take(&blocked, &old, 0);
	r = profil_outside_system(s, 0, err, sizeof(err));
	if (r < 0) {
		ro->say(err[0] != '\0' ? err : strerror(-r), "-a");
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (ro->ready != NULL)
		ro->ready(s, 0, ro->arg);
	outside_loop(s, NULL, 0, &old, ro->wall_ns, signal_done, NULL, ro->watch);
	profil_outside_finish(s);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}
