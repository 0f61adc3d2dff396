/*
 * gmon-work - a -pg program with a truth of its own, for the gmon runtime's tests.
 *
 *	gmon-work flat MS      spin_a, spin_b, spin_c for 50%, 30%, 20% of MS ms of CPU time,
 *	                       measured per call and written to truth.txt; counted() 1000 times
 *	                       and thrice() 3 times from main
 *	gmon-work threads N    N threads call tcount() 1000 times each
 *	gmon-work churn N      N threads one after the other, each calls tcount() 10 times
 *	gmon-work signals      counted() 20000000 times while a -pg SIGPROF handler calls
 *	                       in_handler() every ms of CPU time; prints "handled COUNT"
 *	gmon-work END          counted() 1000 times and spin_a for 100 ms, then END: exit, _exit,
 *	                       segv, abort, kill (SIGKILL), seccomp (strict mode, 400 calls of
 *	                       spin_b, then a forbidden system call), chdir (chdir("/") first),
 *	                       exec (execs /bin/true), killat-CALL (then returns from main under a
 *	                       seccomp filter that kills the process at its first CALL: ftruncate,
 *	                       rename, openat, write, mmap or munmap, all calls the exit's merge
 *	                       may make), fork (the child calls child_only() 7 times,
 *	                       the parent parent_only() 5 times), forkexec (the child fails to
 *	                       exec a missing file, then execs /bin/true)
 *	gmon-work quick        counted() 1000 times
 *	gmon-work arcs         leaf() from 64 call sites: 64 distinct arcs
 *	gmon-work api          profil_gmon() and moncontrol(), printing TAP lines
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profil.h"
#include "../tap.h"

#include "spin.h"

static unsigned long long
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

void counted(void);
void thrice(void);
void tcount(void);
void leaf(void);
void child_only(void);
void parent_only(void);
void stopped_work(unsigned long n);
void in_handler(void);

/* A separate function for the time moncontrol(0) leaves unprofiled. */
void
stopped_work(unsigned long n)
{
	unsigned long x = sink;

	while (n-- > 0)
		x = x * 2862933555777941757UL + 7UL;
	sink = x;
}

void
counted(void)
{
	sink++;
}

void
thrice(void)
{
	sink += 3;
}

void
tcount(void)
{
	sink += 5;
}

void
leaf(void)
{
	sink += 7;
}

void
child_only(void)
{
	sink += 11;
}

void
parent_only(void)
{
	sink += 13;
}

void
in_handler(void)
{
	sink += 17;
}

/* Calls fn until it has used ms of this thread's CPU time; returns the nanoseconds used. */
/*
 * Runs fn in calls of 200000 iterations for ms of the thread's CPU time; returns the time used.
 * The CPU clock is read once a batch of calls of about 10 ms, not around every call: on this
 * kernel (6.18), a thread that reads its own CPU clock every few hundred microseconds makes its
 * CPU-time timers miss expirations, up to all ten of 100 ms (measured with a bare timer_create
 * program; a getppid() as often does not), and the profile would then hold nothing to test.
 */
static unsigned long long
spin_for(void (*fn)(unsigned long), unsigned long long ms)
{
	unsigned long long used = 0, goal = ms * 1000000ULL, t0, took, per, left;
	unsigned long batch = 1, k;

	while (used < goal) {
		t0 = cpu_ns();
		for (k = 0; k < batch; k++)
			fn(200000);
		took = cpu_ns() - t0;
		used += took;
		per = took / batch > 0 ? took / batch : 1;
		left = used < goal ? goal - used : 0;
		batch = (unsigned long)((left < 10000000ULL ? left : 10000000ULL) / per) + 1;
	}
	return used;
}

static int
flat(unsigned long long ms)
{
	unsigned long long a, b, c;
	FILE *f;
	int i;

	a = spin_for(spin_a, ms * 5 / 10);
	b = spin_for(spin_b, ms * 3 / 10);
	c = spin_for(spin_c, ms * 2 / 10);
	for (i = 0; i < 1000; i++)
		counted();
	for (i = 0; i < 3; i++)
		thrice();
	f = fopen("truth.txt", "w");
	if (f == NULL)
		return 1;
	fprintf(f, "spin_a %llu\nspin_b %llu\nspin_c %llu\n", a, b, c);
	return fclose(f) != 0;
}

static void *
thread_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++)
		tcount();
	return NULL;
}

static int
threads(int n)
{
	pthread_t t[64];
	int i;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void *
churn_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 10; i++)
		tcount();
	return NULL;
}

/* More threads than the runtime has tables: those of ended threads are reused. */
static int
churn(int n)
{
	pthread_t t;
	int i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, churn_main, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}

static volatile sig_atomic_t handled;

static void
on_prof(int signo)
{
	(void)signo;
	handled++;
	in_handler();
}

/*
 * A -pg signal handler interrupting -pg code, at times inside mcount itself: nothing may
 * deadlock or crash, main's calls all count, the handler's at most once each.
 */
static int
signals(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa;
	int i, j;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	for (i = 0; i < 200; i++) {
		for (j = 0; j < 100000; j++)
			counted();
		spin_a(500000);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	printf("handled %d\n", (int)handled);
	return 0;
}

#define CALL4 leaf(); leaf(); leaf(); leaf();
#define CALL16 CALL4 CALL4 CALL4 CALL4

/* Each leaf() here is a call site of its own, so an arc of its own: 64 arcs. */
static void
arcs(void)
{
	CALL16 CALL16 CALL16 CALL16
}

/* A seccomp filter that kills the whole process at the first call of the system call named. */
static int
kill_at(const char *call)
{
	static const struct {
		const char *name;
		int nr[3];
	} calls[] = {
		{ "ftruncate", { SYS_ftruncate, -1, -1 } },
		{ "rename", { SYS_rename, SYS_renameat, SYS_renameat2 } },
		{ "openat", { SYS_open, SYS_openat, -1 } },
		{ "write", { SYS_write, SYS_pwrite64, -1 } },
		{ "mmap", { SYS_mmap, -1, -1 } },
		{ "munmap", { SYS_munmap, -1, -1 } },
	};
	struct sock_filter f[16];
	struct sock_fprog prog;
	size_t i, n = 0, k;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(call, calls[i].name) == 0)
			break;
	if (i == sizeof(calls) / sizeof(calls[0]))
		return 1;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	for (k = 0; k < 3; k++)
		if (calls[i].nr[k] >= 0)
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			    (unsigned int)calls[i].nr[k], 0, 1),
			f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			    SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = f;
	fflush(stdout);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 1;
	return 0;
}

static int
ending(const char *how)
{
	int i;

	if (strcmp(how, "chdir") == 0 && chdir("/") != 0)
		return 1;
	for (i = 0; i < 1000; i++)
		counted();
	if (strcmp(how, "quick") == 0)
		return 0;
	spin_for(spin_a, 100);
	if (strcmp(how, "_exit") == 0)
		_exit(3);
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(uintptr_t)sink = 0;	/* sink is small: an unmapped page */
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "kill") == 0)
		raise(SIGKILL);
	if (strcmp(how, "seccomp") == 0) {
		/* Only read, write, exit and sigreturn from here; the ticks go on. */
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
			return 1;
		for (i = 0; i < 400; i++)
			spin_b(200000);
		syscall(SYS_getpid);	/* not allowed: the kernel kills the process */
	}
	if (strncmp(how, "killat-", 7) == 0)
		return kill_at(how + 7);
	if (strcmp(how, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	if (strcmp(how, "forkexec") == 0) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			/* The first exec fails and the child profiles on; the second succeeds. */
			struct profil_gmon_status st;

			execl("/nonexistent/true", "true", (char *)NULL);
			child_only();
			profil_gmon_status_get(&st);
			printf("child %d\nrestored %d\n", (int)getpid(),
			    faccessat(st.dirfd, st.name, F_OK, 0) == 0);
			fflush(stdout);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
	}
	if (strcmp(how, "fork") == 0) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			for (i = 0; i < 7; i++)
				child_only();
			spin_for(spin_b, 100);
			printf("child %d\n", (int)getpid());
			exit(0);
		}
		for (i = 0; i < 5; i++)
			parent_only();
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
	}
	return 0;
}

static int
api(void)
{
	struct profil_gmon_status st;
	unsigned short other[64];
	int fd, r;

	r = profil_gmon_status_get(&st);
	tap_check(r == 0 && st.setup && st.running,
	    "the -pg runtime is ours and running: %s at %u Hz", st.name, st.hz);
	errno = 0;
	r = profil_gmon(st.buf, st.buflen, st.samplesize, st.offset, 65537, -1);
	tap_check(r == -1 && errno == EINVAL, "\"The scale value is too large\": EINVAL");
	/* The order: the scale is checked before the buffer. */
	errno = 0;
	r = profil_gmon(other, sizeof(other), sizeof(other), 0, 65537, -1);
	tap_check(r == -1 && errno == EINVAL, "a too large scale is EINVAL before EALREADY");
	errno = 0;
	r = profil_gmon(other, sizeof(other), sizeof(other), 0, 65536, -1);
	tap_check(r == -1 && errno == EALREADY,
	    "\"An attempt was made to change the profile buffer\": EALREADY");
	errno = 0;
	r = profil_gmon(st.buf, st.buflen, st.samplesize, st.offset, st.scale, 1000);
	tap_check(r == -1 && errno == EBADF,
	    "\"The dirfd argument is not a valid file descriptor\": EBADF");
	fd = open("/etc/hostname", O_RDONLY);
	errno = 0;
	r = profil_gmon(st.buf, st.buflen, st.samplesize, st.offset, st.scale, fd);
	tap_check(r == -1 && errno == ENOTDIR,
	    "\"The dirfd argument does not refer to a directory\": ENOTDIR");
	close(fd);
	/* The buffer is checked before dirfd. */
	errno = 0;
	r = profil_gmon(other, sizeof(other), sizeof(other), 0, 65536, 1000);
	tap_check(r == -1 && errno == EALREADY, "another buffer is EALREADY before a bad dirfd");

	/* "A scale value of 0 disables profiling", and the same buffer starts it again. */
	r = profil_gmon(NULL, 0, 0, 0, 0, -1);
	profil_gmon_status_get(&st);
	tap_check(r == 0 && !st.running, "scale 0 stops profiling");
	stopped_work(1);
	spin_for(stopped_work, 300);
	r = profil_gmon(st.buf, st.buflen, st.samplesize, st.offset, st.scale, -1);
	profil_gmon_status_get(&st);
	tap_check(r == 0 && st.running, "the registered buffer restarts profiling");
	moncontrol(0);
	profil_gmon_status_get(&st);
	tap_check(!st.running, "moncontrol(0) stops profiling");
	stopped_work(1);
	moncontrol(1);
	profil_gmon_status_get(&st);
	tap_check(st.running, "moncontrol(1) restarts profiling");
	/* Ours: a later call with a directory moves the profile there, data and all. */
	mkdir("moved", 0755);
	fd = open("moved", O_RDONLY | O_DIRECTORY);
	r = profil_gmon(st.buf, st.buflen, st.samplesize, st.offset, st.scale, fd);
	tap_check(r == 0 && faccessat(fd, st.name, F_OK, 0) == 0 && access(st.name, F_OK) != 0,
	    "a later call with a directory moves the profile into it");
	close(fd);
	counted();
	counted();
	return tap_done();
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "flat") == 0)
		return flat(strtoull(argv[2], NULL, 10));
	if (argc >= 3 && strcmp(argv[1], "threads") == 0)
		return threads(atoi(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "arcs") == 0) {
		arcs();
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "churn") == 0)
		return churn(atoi(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "signals") == 0)
		return signals();
	if (argc >= 2 && strcmp(argv[1], "api") == 0)
		return api();
	if (argc >= 2)
		return ending(argv[1]);
	fprintf(stderr, "usage: gmon-work flat MS | threads N | churn N | signals | arcs | api |"
	    " END\n");
	return 2;
}
