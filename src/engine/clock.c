/*
 * The kernel clocks behind the ticks, one per thread: a POSIX timer on the thread's CPU clock
 * (checked at the scheduler tick, so at most CONFIG_HZ signals a second, with the rest reported
 * in si_overrun), or a perf task-clock event (hrtimer driven, unprivileged up to about 20 kHz).
 * Raw system calls only: this runs from pcsample(), which may be called from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "perf/perf.h"

#define NSEC_PER_SEC 1000000000ULL

/* Where the perf clock's descriptors go, as the recorder's output directory's. */
#define PERF_FD_HIGH 100

/* Every Linux kernel ticks at least 100 times a second (CONFIG_HZ >= 100). */
#define TIMER_HZ_GUARANTEED 100

/* linux/posix-timers.h: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED). */
static clockid_t
thread_cpu_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned int)tid) << 3) | 4 | 2;
}

static int
timer_arm(struct profil_thread *t, pid_t tid, unsigned int hz, int signo)
{
	uint64_t period = NSEC_PER_SEC / hz;
	struct itimerspec its;
	struct sigevent sev;
	int id;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = signo;
	sev.sigev_value.sival_int = PROFIL_TIMER_COOKIE;
	sev._sigev_un._tid = tid;
	profil_seccomp_step("timer_create");
	if (syscall(SYS_timer_create, thread_cpu_clock(tid), &sev, &id) != 0)
		return -errno;
	profil_seccomp_step("timer_settime");
	its.it_interval.tv_sec = (time_t)(period / NSEC_PER_SEC);
	its.it_interval.tv_nsec = (long)(period % NSEC_PER_SEC);
	its.it_value = its.it_interval;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		int e = -errno;

		syscall(SYS_timer_delete, id);
		return e;
	}
	t->clock = PROFIL_CLOCK_TIMER;
	t->id = id;
	return 0;
}

static void
perf_fd_mark(int fd, int on)
{
	unsigned char bit = (unsigned char)(1u << (fd % 8));

	if (on)
		atomic_fetch_or(&profil_ticks.perf_fds[fd / 8], bit);
	else
		atomic_fetch_and(&profil_ticks.perf_fds[fd / 8], (unsigned char)~bit);
}

static int
perf_arm(struct profil_thread *t, pid_t tid, unsigned int hz, int signo)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	/* A signal per period of the thread's CPU time, in user space (enabled by the tick). */
	struct profil_perf_desc d = { .period_ns = NSEC_PER_SEC / hz, .disabled = 1 };
	int fd, e;

	profil_seccomp_step("perf_event_open");
	fd = profil_perf_open(&d, tid, -1);
	if (fd < 0)
		return fd;
	profil_seccomp_step("fcntl");
	/*
	 * The tick re-enables the event through this descriptor, so it stays; it moves above the
	 * numbers a program's first opens get (under a limit of 100 or less it stays where it is).
	 */
	if (fd < PERF_FD_HIGH) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, PERF_FD_HIGH);

		if (high >= 0) {
			close(fd);
			fd = high;
		}
	}
	if (fd >= PROFIL_MAX_PERF_FD) {
		close(fd);
		return -EMFILE;
	}
	/* The signal goes to the sampled thread itself (perf_event_open(2), BUGS). */
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0) {
		e = -errno;
		close(fd);
		return e;
	}
	profil_seccomp_step("ioctl");
	if (ioctl(fd, PERF_EVENT_IOC_ID, &t->perf_id) != 0) {
		e = -errno;
		close(fd);
		return e;
	}
	perf_fd_mark(fd, 1);
	if (ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
		e = -errno;
		perf_fd_mark(fd, 0);
		close(fd);
		return e;
	}
	t->clock = PROFIL_CLOCK_PERF;
	t->id = fd;
	t->quiet_cpu = 0;
	t->kicking = 0;
	return 0;
}

int
profil_clock_arm(struct profil_thread *t, pid_t tid, int clock, unsigned int hz, int signo)
{
	int r;

	r = clock == PROFIL_CLOCK_PERF ? perf_arm(t, tid, hz, signo) : timer_arm(t, tid, hz, signo);
	if (r == 0)
		t->tid = tid;
	return r;
}

/*
 * A program may close every descriptor it did not open itself (close_range) and reuse the
 * number: the fd is ours only if it still names the event we opened.
 */
static int
perf_fd_still_ours(const struct profil_thread *t)
{
	uint64_t id;

	return ioctl(t->id, PERF_EVENT_IOC_ID, &id) == 0 && id == t->perf_id;
}

/*
 * A perf event that the kernel disabled at an overflow whose signal it could not deliver (no
 * room for the frame on the thread's stack: the tick became the program's SIGSEGV, t2010)
 * would never tick again, as only the tick handler enables it.  A thread that used this many
 * periods of CPU with no tick seen gets one kick: a one-shot timer on its own CPU clock (so it
 * fires while the thread runs, as a timer clock's tick would) whose signal the tick handler
 * takes as an order to enable the event, not as a sample.  A thread that merely blocks the
 * signal is kicked too; its event then counts one overflow more before it disables itself
 * (tick.c, POLL_IN), and nothing accumulates.
 */
#define QUIET_PERIODS 8

static void
kick_end(struct profil_thread *t)
{
	if (t->kicking)
		syscall(SYS_timer_delete, t->kick);
	t->kicking = 0;
}

void
profil_clock_watch(struct profil_thread *t, unsigned int hz, int signo)
{
	uint64_t period = NSEC_PER_SEC / hz, cpu;
	struct itimerspec its;
	struct sigevent sev;
	struct timespec ts;
	int id;

	if (t->tid == 0 || t->clock != PROFIL_CLOCK_PERF)
		return;
	kick_end(t);
	if (syscall(SYS_clock_gettime, thread_cpu_clock(t->tid), &ts) != 0)
		return;
	cpu = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	if (atomic_exchange(&profil_ticks.perf_seen[t->id], 0) || t->quiet_cpu == 0 ||
	    cpu < t->quiet_cpu) {
		t->quiet_cpu = cpu;
		return;
	}
	if (cpu - t->quiet_cpu < QUIET_PERIODS * period)
		return;
	t->quiet_cpu = cpu;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = signo;
	sev.sigev_value.sival_int = PROFIL_KICK_TAG | t->id;
	sev._sigev_un._tid = t->tid;
	if (syscall(SYS_timer_create, thread_cpu_clock(t->tid), &sev, &id) != 0)
		return;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = (long)(period < NSEC_PER_SEC ? period : NSEC_PER_SEC - 1);
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		syscall(SYS_timer_delete, id);
		return;
	}
	t->kick = id;
	t->kicking = 1;
}

void
profil_clock_disarm(struct profil_thread *t)
{
	if (t->tid == 0)
		return;
	if (t->clock == PROFIL_CLOCK_PERF) {
		kick_end(t);
		perf_fd_mark(t->id, 0);
		if (perf_fd_still_ours(t)) {
			ioctl(t->id, PERF_EVENT_IOC_DISABLE, 0);
			close(t->id);
		}
	} else {
		syscall(SYS_timer_delete, t->id);
	}
	t->tid = 0;
}

/*
 * In a fork child: timers were not inherited and the perf events measure the parent's
 * threads, so only the descriptors need closing.
 */
void
profil_clock_forget(struct profil_thread *t)
{
	if (t->tid != 0 && t->clock == PROFIL_CLOCK_PERF) {
		t->kicking = 0;	/* timers are not inherited */
		perf_fd_mark(t->id, 0);
		if (perf_fd_still_ours(t))
			close(t->id);
	}
	t->tid = 0;
}

struct arm_probe {
	int clock;
	unsigned int hz;
	int signo;
};

static void
try_arm(void *arg)
{
	const struct arm_probe *a = arg;
	struct profil_thread t;

	memset(&t, 0, sizeof(t));
	profil_clock_arm(&t, (pid_t)syscall(SYS_gettid), a->clock, a->hz, a->signo);
}

/*
 * Under a seccomp filter, the clock is armed first in a probe child (seccomp.c), once per
 * process, filter count and clock: a filter from before exec that kills timer_create(2) or
 * perf_event_open(2) must cost the program its profile, not its life.  Where no probe child
 * may be made, the clock is never armed.
 */
int
profil_clock_allowed(int clock, unsigned int hz, int signo)
{
	static struct {
		pid_t pid;
		int level;
		int verdict;
	} seen[2];
	struct arm_probe a = { clock, hz, signo };
	int level = profil_seccomp_filtered(), i = clock == PROFIL_CLOCK_PERF, r;

	if (level == 0)
		return 0;
	if (seen[i].pid == getpid() && seen[i].level == level)
		return seen[i].verdict;
	r = profil_seccomp_kills(try_arm, &a);
	if (r == -EPERM)
		return r;	/* no probe made: one may be, once the process has one thread */
	seen[i].pid = getpid();
	seen[i].level = level;
	seen[i].verdict = r != 0 ? -EPERM : 0;
	return seen[i].verdict;
}

int
profil_clock_resolve(enum profil_clock clock, unsigned int hz)
{
	if (clock != PROFIL_CLOCK_AUTO)
		return clock;
	return hz <= TIMER_HZ_GUARANTEED ? PROFIL_CLOCK_TIMER : PROFIL_CLOCK_PERF;
}
