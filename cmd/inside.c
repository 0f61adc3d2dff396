/*
 * inside.c - `profil record` from inside, where perf events are refused: the command run with
 * the recorder (libprofil-record.so) preloaded and configured through its environment, waited
 * for, and the profiles its processes wrote looked over (warnings, JIT names); the socket on
 * which the recorder reports profiles it could not write (src/record/protocol.h,
 * PROFIL_RECORD_REPORT); and the probe of perf events made safe under a seccomp filter that
 * would kill it.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "format/format.h"
#include "jit/jit.h"
#include "outdir.h"
#include "outside/outside.h"
#include "record/protocol.h"

/*
 * Where the inside recorder says a profile could not be written (PROFIL_RECORD_REPORT): an
 * abstract datagram socket, so that nothing of it is in the program's descriptors or file
 * system.  Abstract names have no permissions and are listed in /proc/net/unix for every user:
 * each datagram comes with its sender's credentials (SO_PASSCRED), and only ours and root's
 * are believed.  Returns it, or -1: then nothing is reported, as with a bare LD_PRELOAD.
 */
int
profil_cmd_report_open(void)
{
	struct sockaddr_un sa;
	unsigned int rnd = 0;
	char name[64];
	size_t n;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0) {
		close(fd);
		return -1;
	}
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) < 0)
		rnd = (unsigned int)time(NULL);
	n = (size_t)snprintf(name, sizeof(name), "profil-record.%ld.%08x", (long)getpid(), rnd);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, name, n);
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    1 + n)) != 0 || setenv(PROFIL_RECORD_ENV_REPORT, name, 1) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Says each profile whose last write failed, with the error; returns how many. */
int
profil_cmd_report_read(int fd)
{
	struct failure {
		char path[PATH_MAX];
		int err;
	} *f = calloc(64, sizeof(*f));
	char buf[PATH_MAX + 32], what[160], *p;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	struct ucred cred;
	size_t nf = 0, i;
	int failed = 0, more = 0, trusted;
	ssize_t n;
	long err;

	if (f == NULL)
		return 0;
	for (;;) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf) - 1;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.space;
		msg.msg_controllen = sizeof(ctl.space);
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n <= 0)
			break;
		trusted = 0;
		for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
			    c->cmsg_len < CMSG_LEN(sizeof(cred)))
				continue;
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			trusted = cred.uid == geteuid() || cred.uid == 0;
		}
		if (!trusted)
			continue;	/* another user's datagram: not our recorder's */
		buf[n] = '\0';
		err = strtol(buf, &p, 10);
		if (*p != ' ' || err < 0)
			continue;
		for (i = 0; i < nf && strcmp(f[i].path, p + 1) != 0; i++)
			;
		if (i == nf && nf == 64) {
			more += err != 0;
			continue;
		}
		if (i == nf)
			snprintf(f[nf++].path, sizeof(f->path), "%s", p + 1);
		f[i].err = (int)err;
	}
	for (i = 0; i < nf; i++) {
		if (f[i].err == 0)
			continue;
		snprintf(what, sizeof(what), "cannot write profile (%s)", strerror(f[i].err));
		profil_cmd_error(what, f[i].path);
		failed++;
	}
	free(f);
	return failed + more;
}

/*
 * proc(5) "Seccomp: 2": this process runs under a seccomp filter, as the command will; with
 * filters, how many ("Seccomp_filters", Linux 5.9; -1 where the kernel does not say).
 */
int
profil_cmd_seccomp_filtered(long *filters)
{
	char line[256];
	long mode = 0, n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, "Seccomp: %ld", &mode) == 1)
				continue;
			if (sscanf(line, "Seccomp_filters: %ld", &n) == 1)
				break;
		}
		fclose(f);
	}
	if (filters != NULL)
		*filters = n;
	return mode == 2;
}

int profil_cmd_probe_killed;

/*
 * Under a seccomp filter, perf events are probed in a child: a filter that kills
 * perf_event_open(2) (systemd's SystemCallFilter=) must not kill profil.
 */
int
profil_cmd_outside_probe(void)
{
	int status;
	pid_t pid;

	if (!profil_cmd_seccomp_filtered(NULL))
		return profil_outside_probe();
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(-profil_outside_probe() & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -ENOSYS;
	if (WIFSIGNALED(status)) {
		profil_cmd_probe_killed = WTERMSIG(status) == SIGSYS;
		return -ENOSYS;
	}
	return -WEXITSTATUS(status);
}

/* ---- profil record from inside: the command run with the recorder preloaded ---- */

#define RECORD_LIB "libprofil-record.so"

static volatile sig_atomic_t child_pid;

/*
 * The recorder library: $PROFIL_RECORD_LIB, else next to this binary (the build tree), else
 * in ../lib relative to it (an installed $PREFIX/bin/profil).
 */
static int
find_library(char *out, size_t cap)
{
	const char *env = getenv("PROFIL_RECORD_LIB");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env != NULL && *env != '\0') {
		snprintf(out, cap, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	snprintf(out, cap, "%s/%s", self, RECORD_LIB);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, cap, "%s/../lib/%s", self, RECORD_LIB);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, cap, "%s/%s", self, RECORD_LIB);
	return -1;
}

/* SIGTERM or SIGHUP sent to us is meant for the command; it decides how to end. */
static void
forward(int signo)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, signo);
}

/*
 * Under a seccomp filter, the command is forked under the same filters: a process clone
 * survives them, so the recorder in it may probe its calls in a child (src/engine/seccomp.c).
 * proc(5): "Seccomp_filters: Number of seccomp filters attached to the thread" (Linux 5.9);
 * without that count nothing is vouched for, and a variable inherited from an outer run goes.
 */
static int
setup_clone_ok(void)
{
	char line[32];
	long filters;

	if (profil_cmd_seccomp_filtered(&filters) && filters > 0) {
		snprintf(line, sizeof(line), "%ld", filters);
		return setenv(PROFIL_RECORD_ENV_CLONE_OK, line, 1);
	}
	return unsetenv(PROFIL_RECORD_ENV_CLONE_OK);
}

static int
setup_env(const char *lib, const char *hz, int stacks, int frame_pointers, int wall,
    const char *dir, int noexec, const char *clock)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload;
	size_t n;

	n = strlen(lib) + (old != NULL ? strlen(old) + 1 : 0) + 1;
	preload = malloc(n);
	if (preload == NULL)
		return -1;
	if (old != NULL && *old != '\0')
		snprintf(preload, n, "%s:%s", lib, old);
	else
		snprintf(preload, n, "%s", lib);
	if (setenv("LD_PRELOAD", preload, 1) != 0) {
		free(preload);
		return -1;
	}
	free(preload);
	/* A recorder started by this command is a first image, even under another recorder. */
	if (setenv(PROFIL_RECORD_ENV_ACTIVE, "", 1) != 0)
		return -1;
	if (hz != NULL && setenv(PROFIL_RECORD_ENV_HZ, hz, 1) != 0)
		return -1;
	if (setenv(PROFIL_RECORD_ENV_STACKS, !stacks ? "0" : frame_pointers ?
	    PROFIL_RECORD_STACKS_FP : PROFIL_RECORD_STACKS_CFI, 1) != 0)
		return -1;
	/* Set either way: only this command's --wall samples waits, not an inherited variable. */
	if (setenv(PROFIL_RECORD_ENV_WALL, wall ? "1" : "0", 1) != 0)
		return -1;
	if (dir != NULL && setenv(PROFIL_RECORD_ENV_DIR, dir, 1) != 0)
		return -1;
	if (noexec && setenv(PROFIL_RECORD_ENV_EXEC, "0", 1) != 0)
		return -1;
	if (clock != NULL && setenv(PROFIL_RECORD_ENV_CLOCK, clock, 1) != 0)
		return -1;
	return setup_clone_ok();
}

/*
 * What the profiles this run wrote say that the user should know: a program that has its own
 * SIGPROF handler or ITIMER_PROF (both kept working, but its own profile is its own), threads
 * that could not be sampled, and samples dropped.  Files of other runs in the same directory
 * (--append) are left alone: told apart by what was there before, not by a time, which the
 * last run may share to the second.
 */
static void
note_profiles(const struct profil_cmd_outdir *out)
{
	const char *dir = out->path;
	char path[PATH_MAX], err[256], why[600];
	struct profil_file *f;
	struct dirent *d;
	ssize_t r;
	struct stat st;
	DIR *dp = opendir(dir);

	if (dp == NULL) {
		snprintf(why, sizeof(why), "cannot read the profiles written (%s)", strerror(errno));
		profil_cmd_error(why, dir);
		return;
	}
	while ((d = readdir(dp)) != NULL) {
		size_t n = strlen(d->d_name);

		if (d->d_name[0] == '.' || n < 8 || strcmp(d->d_name + n - 7, ".profil") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) != 0 || !profil_cmd_outdir_is_new(out, d->d_name, &st) ||
		    profil_file_read(path, &f, err, sizeof(err)) != 0)
			continue;
		if (f->hdr.flags & PROFIL_HDR_PROGRAM_SIGPROF)
			profil_cmd_error("program has its own SIGPROF handler or ITIMER_PROF, "
			    "both kept working", path);
		if (f->hdr.thread_failures > 0)
			profil_cmd_error("threads left unsampled (their clock was refused: "
			    "RLIMIT_NOFILE, RLIMIT_MEMLOCK?)", path);
		if (f->hdr.dropped > 0)
			profil_cmd_error("samples dropped (see the header's dropped count)", path);
		/* JIT names, which the recorder in the program leaves to us: from the file read. */
		r = profil_jit_name_profile(dirfd(dp), d->d_name, f, why, sizeof(why));
		profil_file_free(f);
		if (why[0] != '\0')
			profil_cmd_error("JIT names not read (perf's rule: a regular file "
			    "owned by root or by the user profil runs as)", why);
		if (r < 0) {
			snprintf(why, sizeof(why), "cannot add JIT names (%s)", strerror((int)-r));
			profil_cmd_error(why, path);
		}
	}
	closedir(dp);
}

/*
 * The inside recorder: COMMAND runs with libprofil-record.so preloaded, and each process
 * writes its own file.  A profile that could not be written makes the status 1 where the
 * command's is 0, as from outside.
 */
/*
 * Waits for the command started under the inside recorder; with a live view, calls it every
 * interval and when its descriptor is readable (the recorder in the program rewrites its
 * profile about once a second, which the view reads).  A view that ends the recording sends
 * the command SIGINT, as ^C would, and the wait goes on to its exit.  0, or -1 with errno.
 */
static int
inside_wait(const struct profil_cmd_watch *w, pid_t pid, int *status)
{
	uint64_t next = 0;
	int pidfd = -1, ended = 0;
	pid_t r;

	if (w != NULL) {
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		next = profil_monotonic_ns() + w->every_ns;
	}
	for (;;) {
		struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { w != NULL ? w->fd : -1, POLLIN, 0 } };
		uint64_t now;
		int timeout, woken;

		r = waitpid(pid, status, w != NULL && !ended ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			goto fail;
		if (r < 0 || w == NULL || ended)
			continue;
		now = profil_monotonic_ns();
		/* Without a pidfd (Linux before 5.3) the exit is seen within 100 ms. */
		timeout = now >= next ? 0 : (int)((next - now + 999999) / 1000000);
		if (pidfd < 0 && timeout > 100)
			timeout = 100;
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			goto fail;
		woken = (p[1].revents & POLLIN) != 0;
		if (!woken && profil_monotonic_ns() < next)
			continue;
		if (!woken)
			next += w->every_ns;
		if (w->fn(NULL, woken, w->arg) == 1) {
			kill(pid, SIGINT);
			ended = 1;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
fail:
	if (pidfd >= 0) {
		int e = errno;

		close(pidfd);
		errno = e;
	}
	return -1;
}

int
profil_cmd_inside_run(const struct profil_cmd_record_opts *o, char **cmd,
    const struct profil_cmd_outdir *out)
{
	char lib[PATH_MAX + 64];
	struct sigaction sa, ign;
	int status, report, failed = 0, r;
	pid_t pid;

	if (find_library(lib, sizeof(lib)) < 0) {
		profil_cmd_error("recorder library not found", lib);
		return 1;
	}
	if (setup_env(lib, o->hz, o->stacks, o->frame_pointers, o->wall, o->dir, o->noexec,
	    o->clock) < 0) {
		profil_cmd_error("cannot set the environment", strerror(errno));
		return 1;
	}
	report = profil_cmd_report_open();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		profil_cmd_error("cannot fork", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "profil: cannot run command: '%s': %s\n", cmd[0],
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	/* The terminal's SIGINT and SIGQUIT reach the command too; it decides, we report. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (inside_wait(o->watch, pid, &status) < 0) {
		profil_cmd_error("cannot wait for the command", strerror(errno));
		return 1;
	}
	/* The report's descriptor first: under a low RLIMIT_NOFILE the notes need it. */
	if (report >= 0) {
		failed = profil_cmd_report_read(report);
		close(report);
	}
	note_profiles(out);
	if (!o->quiet)
		profil_cmd_outdir_summary(out);
	r = profil_cmd_command_status(status, cmd[0]);
	return r == 0 && failed > 0 ? 1 : r;
}

/*
 * The program execvp(3) would run for name: its path, through PATH when name has no '/'.
 * Returns 0, or execvp's -errno: -EACCES when a candidate was found but cannot be run, else
 * -ENOENT.
 */
int
profil_cmd_resolve_command(const char *name, char *out, size_t cap)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;
	int e = -ENOENT;

	if (*name == '\0')
		return -ENOENT;
	if (strchr(name, '/') != NULL) {
		snprintf(out, cap, "%s", name);
		if (access(out, X_OK) != 0)
			return -errno;
		return stat(out, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -EACCES;
	}
	for (p = path != NULL ? path : "/usr/local/bin:/usr/bin:/bin"; ; p++) {
		size_t n = strcspn(p, ":");

		snprintf(out, cap, "%.*s%s%s", (int)n, n > 0 ? p : ".", "/", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			e = -EACCES;
		}
		p += n;
		if (*p == '\0')
			return e;
	}
}

/*
 * Whether the program is an ELF executable without an interpreter (statically linked): the
 * inside recorder is a preloaded library, and nothing preloads into such a program.
 */
int
profil_cmd_is_static_elf(const char *path)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;
	uint64_t phoff = 0;
	unsigned int n = 0, size = 0, i, type;
	int fd, wide, r = 0;

	fd = profil_file_open_regular(path, NULL);
	if (fd < 0)
		return 0;
	/* The header's fields, 32- or 64-bit, little-endian (the machines profil runs on). */
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    memcmp(eh.e64.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e64.e_ident[EI_DATA] == ELFDATA2LSB) {
		wide = eh.e64.e_ident[EI_CLASS] == ELFCLASS64;
		type = wide ? eh.e64.e_type : eh.e32.e_type;
		phoff = wide ? eh.e64.e_phoff : eh.e32.e_phoff;
		n = wide ? eh.e64.e_phnum : eh.e32.e_phnum;
		size = wide ? eh.e64.e_phentsize : eh.e32.e_phentsize;
		r = type == ET_EXEC && (eh.e64.e_ident[EI_CLASS] == ELFCLASS32 || wide) &&
		    size == (wide ? sizeof(ph.p64) : sizeof(ph.p32));
		for (i = 0; r && i < n; i++) {
			if (pread(fd, &ph, size, (off_t)(phoff + (uint64_t)i * size)) != (ssize_t)size)
				r = 0;
			else if ((wide ? ph.p64.p_type : ph.p32.p_type) == PT_INTERP)
				r = 0;
		}
	}
	close(fd);
	return r;
}

int
profil_cmd_record_inside(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out)
{
	char prog[PATH_MAX];
	int r = profil_cmd_resolve_command(cmd[0], prog, sizeof(prog));

	if (r < 0) {
		char what[96];

		snprintf(what, sizeof(what), "cannot run command (%s)", strerror(-r));
		profil_cmd_error(what, cmd[0]);
		return r == -ENOENT ? 127 : 126;
	}
	if (profil_cmd_is_static_elf(prog)) {
		profil_cmd_error("a statically linked program cannot be recorded from inside; "
		    "perf events are needed", prog);
		return 1;
	}
	return profil_cmd_inside_run(o, cmd, out);
}

/*
 * The cause as it is: the kernel's perf_event_paranoid refuses with EACCES; a seccomp filter
 * refuses with the errno it was given (EPERM, ENOSYS) or kills.
 */
void
profil_cmd_say_inside(int e, const char *cmd)
{
	char what[200], v[32];

	if (profil_cmd_probe_killed) {
		snprintf(what, sizeof(what), "perf events refused (a seccomp filter kills "
		    "perf_event_open): recording from inside the program");
	} else if (e != EACCES && profil_cmd_seccomp_filtered(NULL)) {
		snprintf(what, sizeof(what), "perf events refused by a seccomp filter (%s): "
		    "recording from inside the program", strerror(e));
	} else {
		profil_outside_sysctl("perf_event_paranoid", v, sizeof(v));
		snprintf(what, sizeof(what), "perf events refused (%s; "
		    "kernel.perf_event_paranoid=%s): recording from inside the program",
		    strerror(e), v);
	}
	profil_cmd_error(what, cmd);
}
