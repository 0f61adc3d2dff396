/*
 * record.c - `profil record [-F HZ] [-g] [-o DIR] [-x] [--clock CLOCK] -- COMMAND [ARGS...]`
 * and `profil record -p PID[,PID...]`: every process COMMAND becomes (threads, fork children,
 * exec'ed images), or the running processes named, get <progname>.<pid>.profil in DIR.
 *
 * Where perf events are allowed, from outside (src/outside): COMMAND is started with the
 * events already on it, enabled at its exec, and nothing is loaded into it.  Where they are
 * refused, from inside: COMMAND runs with the recorder (libprofil-record.so) preloaded and
 * configured through its environment.  The exit status is COMMAND's, or 128+N when a signal N
 * killed it.  See profil(1).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "format/format.h"
#include "outdir.h"
#include "jit/jit.h"
#include "outside/outside.h"
#include "record/protocol.h"

#define RECORD_LIB "libprofil-record.so"

static volatile sig_atomic_t child_pid;


static int
usage(FILE *f)
{
	fprintf(f, "usage: profil record [-F HZ] [-g] [--wall] [--user-only] [-o DIR] [--append]\n"
	    "           [-q] [-x] [--clock CLOCK] -- COMMAND [ARGS...]\n"
	    "       profil record [-F HZ] [-g] [--user-only] [-o DIR] [--append] [-q]\n"
	    "           -p PID[,PID...]\n"
	    "       profil record -a [-F HZ] [-g] [--wall] [--user-only] [-o DIR] [--append] [-q]\n"
	    "           [-- COMMAND [ARGS...]]\n"
	    "  -F, --freq HZ   samples per second of each thread's CPU time, 1..20000\n"
	    "                  (default 1000)\n"
	    "  -g              record call stacks (--call-graph cfi)\n"
	    "  --call-graph MODE  record call stacks walked by cfi (the unwind tables of\n"
	    "                  each object: complete stacks, frame pointers or not), or\n"
	    "                  fp (frame pointers); cfi,SIZE copies SIZE bytes of each\n"
	    "                  sampled stack (default 16384, at most 65000)\n"
	    "  --wall          also sample threads while they wait (sleep, I/O, locks), on\n"
	    "                  wall-clock time, with their stacks (default -F 100);\n"
	    "                  outside, or inside by the recorder's thread\n"
	    "  --user-only     no samples in the kernel, even where it allows them (root,\n"
	    "                  CAP_PERFMON, kernel.perf_event_paranoid <= 1)\n"
	    "  -o, --output DIR  where the profiles go (default ./profil.out/); a recording\n"
	    "                  there is kept as DIR.old\n"
	    "  --append        add to the recording in DIR instead\n"
	    "  -q, --quiet     no line saying what was recorded\n"
	    "  -p, --pid PIDS  attach to running processes until they exit or SIGINT\n"
	    "  -a, --all-cpus  every process of the machine, while COMMAND runs or until\n"
	    "                  SIGINT (kernel.perf_event_paranoid 0 or less, or\n"
	    "                  CAP_PERFMON)\n"
	    "  -x, --no-exec   do not record the programs COMMAND's processes exec\n"
	    "  --clock CLOCK   auto (default: outside where perf events are allowed, else\n"
	    "                  inside), outside (perf events read by profil, nothing\n"
	    "                  loaded into the program), or inside the program: ring (perf\n"
	    "                  ring buffers), perf (perf events and a signal per sample)\n"
	    "                  or timer (per-thread CPU timers and a signal)\n");
	return f == stdout ? 0 : 2;
}

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

int
profil_cmd_parse_hz(const char *s, unsigned long *hz)
{
	char *end;

	errno = 0;
	*hz = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && *s != '\0' && *hz >= 1 && *hz <= 20000 ? 0 : -1;
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

int
profil_cmd_command_status(int status, const char *cmd)
{
	if (WIFSIGNALED(status)) {
		char what[96];
		const char *abbrev = sigabbrev_np(WTERMSIG(status));

		snprintf(what, sizeof(what), "command killed by signal %d (SIG%s)",
		    WTERMSIG(status), abbrev != NULL ? abbrev : "?");
		profil_cmd_error(what, cmd);
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
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

static int
record_inside(const struct profil_cmd_record_opts *o, char **cmd,
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
static int
resolve_command(const char *name, char *out, size_t cap)
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
static int
is_static_elf(const char *path)
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
	int r = resolve_command(cmd[0], prog, sizeof(prog));

	if (r < 0) {
		char what[96];

		snprintf(what, sizeof(what), "cannot run command (%s)", strerror(-r));
		profil_cmd_error(what, cmd[0]);
		return r == -ENOENT ? 127 : 126;
	}
	if (is_static_elf(prog)) {
		profil_cmd_error("a statically linked program cannot be recorded from inside; "
		    "perf events are needed", prog);
		return 1;
	}
	return record_inside(o, cmd, out);
}

/*
 * The cause as it is: the kernel's perf_event_paranoid refuses with EACCES; a seccomp filter
 * refuses with the errno it was given (EPERM, ENOSYS) or kills.
 */
static void
say_inside(int e, const char *cmd)
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

/* --call-graph fp | cfi | cfi,SIZE, as perf's fp | dwarf[,SIZE]. */
static int
parse_call_graph(const char *arg, struct profil_cmd_record_opts *o)
{
	unsigned long n;
	char *end;

	o->frame_pointers = 0;
	o->stack_copy = 0;
	if (strcmp(arg, "fp") == 0) {
		o->frame_pointers = 1;
		return 0;
	}
	if (strcmp(arg, "cfi") == 0)
		return 0;
	if (strncmp(arg, "cfi,", 4) != 0 || arg[4] < '0' || arg[4] > '9')
		return -1;
	errno = 0;
	n = strtoul(arg + 4, &end, 10);
	if (errno != 0 || *end != '\0' || n < 8 || n > PROFIL_OUTSIDE_STACK_COPY_MAX)
		return -1;
	o->stack_copy = (unsigned int)n;
	return 0;
}

/*
 * One option of what to record, the same for profil record, top and serve: -F, -g,
 * --call-graph, -o, --no-exec, -p, -a, --clock, --wall, --user-only, --append, -q.  Called for
 * the options a subcommand does not take itself (serve's -U and -A are its own).  Returns 1
 * when c is one (o set), 0 when it is not, -1 after saying what is wrong with arg.
 */
int
profil_cmd_record_option(int c, const char *arg, struct profil_cmd_record_opts *o)
{
	switch (c) {
	case 'F':
		if (profil_cmd_parse_hz(arg, &o->hzv) < 0) {
			profil_cmd_error("rate must be 1 to 20000 Hz", arg);
			return -1;
		}
		o->hz = arg;
		break;
	case 'g':
		o->stacks = 1;
		break;
	case 'G':
		if (parse_call_graph(arg, o) < 0) {
			profil_cmd_error("call graph must be fp, cfi or cfi,SIZE (8 to 65000 "
			    "bytes)", arg);
			return -1;
		}
		o->stacks = 1;
		break;
	case 'o':
		o->dir = arg;
		break;
	case 'x':
		o->noexec = 1;
		break;
	case 'p':
		o->pids = arg;
		break;
	case 'a':
		o->all = 1;
		break;
	case 'c':
		if (strcmp(arg, PROFIL_RECORD_CLOCK_AUTO) != 0 &&
		    strcmp(arg, PROFIL_RECORD_CLOCK_TIMER) != 0 &&
		    strcmp(arg, PROFIL_RECORD_CLOCK_PERF) != 0 &&
		    strcmp(arg, PROFIL_RECORD_CLOCK_RING) != 0 &&
		    strcmp(arg, PROFIL_RECORD_CLOCK_OUTSIDE) != 0) {
			profil_cmd_error("unknown clock", arg);
			return -1;
		}
		o->clock = arg;
		break;
	case 'W':
		o->wall = 1;
		break;
	case 'U':
		o->user_only = 1;
		break;
	case 'A':
		o->append = 1;
		break;
	case 'q':
		o->quiet = 1;
		break;
	default:
		return 0;
	}
	return 1;
}

int
profil_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-exec", no_argument, NULL, 'x' },
		{ "clock", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "wall", no_argument, NULL, 'W' },
		{ "user-only", no_argument, NULL, 'U' },
		{ "append", no_argument, NULL, 'A' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profil_cmd_record_opts o = { .hzv = 1000 };
	struct profil_cmd_outdir out;
	char prog[PATH_MAX];
	int c, r, refused = 0, outside;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:go:xp:aqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return usage(stdout);
		default:
			r = profil_cmd_record_option(c, optarg, &o);
			if (r < 0)
				return 2;
			if (r == 0)
				return usage(stderr);
		}
	}
	if (o.pids != NULL && optind < argc) {
		profil_cmd_error("-p and a command are one or the other", argv[optind]);
		return usage(stderr);
	}
	if (o.all && o.pids != NULL) {
		profil_cmd_error("-a and -p are one or the other", o.pids);
		return usage(stderr);
	}
	if (o.pids == NULL && !o.all && optind >= argc) {
		profil_cmd_error("no command to record", NULL);
		return usage(stderr);
	}
	outside = o.clock == NULL || strcmp(o.clock, PROFIL_RECORD_CLOCK_AUTO) == 0 ||
	    strcmp(o.clock, PROFIL_RECORD_CLOCK_OUTSIDE) == 0;
	if (o.pids != NULL && !outside) {
		profil_cmd_error("-p records from outside: it takes no inside clock", o.clock);
		return 2;
	}
	if (o.all && !outside) {
		profil_cmd_error("-a records from outside: it takes no inside clock", o.clock);
		return 2;
	}
	if (o.wall) {
		/*
		 * A waiting thread's sample is its stack: --wall records them.  Outside, or from
		 * inside by the recorder's thread (PROFIL_RECORD_WALL), with any inside clock.
		 */
		o.stacks = 1;
		if (o.hz == NULL) {
			o.hz = "100";
			o.hzv = 100;
		}
	}
	if (outside) {
		r = profil_cmd_outside_probe();
		if (r < 0 && (o.pids != NULL || o.all || (o.clock != NULL &&
		    strcmp(o.clock, PROFIL_RECORD_CLOCK_OUTSIDE) == 0))) {
			char what[200];

			snprintf(what, sizeof(what), "perf events refused (%s)", strerror(-r));
			profil_cmd_error(what, o.pids != NULL ? o.pids : o.all ? "-a" : argv[optind]);
			return 1;
		}
		if (r < 0) {
			outside = 0;
			refused = -r;
		}
	}
	if (o.all) {
		char err[300];

		if (profil_outside_probe_system(err, sizeof(err)) < 0) {
			profil_cmd_error(err, "-a");
			return 1;
		}
	}
	/*
	 * A command that cannot run fails here, as execvp(3) would in the child (127, or 126),
	 * before the output directory is rotated: a typo must not cost a generation.
	 */
	if (o.pids == NULL && optind < argc &&
	    (r = resolve_command(argv[optind], prog, sizeof(prog))) < 0) {
		char what[96];

		snprintf(what, sizeof(what), "cannot run command (%s)", strerror(-r));
		profil_cmd_error(what, argv[optind]);
		return r == -ENOENT ? 127 : 126;
	}
	/* Nothing preloads into a static program: said, rather than a silent empty run. */
	if (o.pids == NULL && !o.all && !outside && is_static_elf(prog)) {
		if (refused != 0)
			say_inside(refused, argv[optind]);
		profil_cmd_error("a statically linked program cannot be recorded from inside; "
		    "perf events are needed", prog);
		return 1;
	}
	/*
	 * Here, before either recorder starts a command: one place decides where the recording
	 * goes.  -p opens it once it has attached.
	 */
	memset(&out, 0, sizeof(out));
	out.fd = -1;
	if (o.pids == NULL &&
	    profil_cmd_outdir_open(&out, o.dir != NULL ? o.dir : "profil.out", o.append) != 0)
		return 1;
	if (o.pids != NULL || o.all)
		r = profil_cmd_record_outside(&o, optind < argc ? argv + optind : NULL, &out);
	else if (outside && (r = profil_cmd_outside_run(&o, argv + optind, &out, &refused)) >= 0)
		;
	else {
		if (refused != 0)
			say_inside(refused, argv[optind]);
		/* The outside recorder was refused only as it started: checked again. */
		if (resolve_command(argv[optind], prog, sizeof(prog)) == 0 && is_static_elf(prog)) {
			profil_cmd_error("a statically linked program cannot be recorded from "
			    "inside; perf events are needed", prog);
			r = 1;
		} else {
			r = record_inside(&o, argv + optind, &out);
		}
	}
	profil_cmd_outdir_release(&out);
	return r;
}
