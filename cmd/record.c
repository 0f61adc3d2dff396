/*
 * record.c - `profil record [-F HZ] [-g] [-o DIR] [-x] [--clock CLOCK] -- COMMAND [ARGS...]`:
 * runs COMMAND with the recorder (libprofil-record.so) preloaded and configured through its
 * environment, so every process COMMAND becomes (threads, fork children, exec'ed images)
 * writes <progname>.<pid>.profil into DIR.  The exit status is COMMAND's, or 128+N when a
 * signal N killed it.  See profil(1).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "format/format.h"

#define RECORD_LIB "libprofil-record.so"

static volatile sig_atomic_t child_pid;

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil record [-F HZ] [-g] [-o DIR] [-x] [--clock CLOCK] -- COMMAND "
	    "[ARGS...]\n"
	    "  -F, --freq HZ   samples per second of each thread's CPU time, 1..20000\n"
	    "                  (default 1000)\n"
	    "  -g, --call-graph  record call stacks (frame pointers)\n"
	    "  -o, --output DIR  where the profiles go (default ./profil.out/)\n"
	    "  -x, --no-exec   do not record the programs COMMAND's processes exec\n"
	    "  --clock CLOCK   auto (default: ring where perf events are allowed, else\n"
	    "                  timer or perf), ring (perf ring buffers, no signals), perf\n"
	    "                  (perf events and a signal per sample) or timer (per-thread\n"
	    "                  CPU timers and a signal)\n");
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

static int
parse_hz(const char *s, unsigned long *hz)
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

static int
setup_env(const char *lib, const char *hz, int stacks, const char *dir, int noexec,
    const char *clock)
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
	unsetenv("PROFIL_RECORD_ACTIVE");
	if (hz != NULL && setenv("PROFIL_RECORD_HZ", hz, 1) != 0)
		return -1;
	if (setenv("PROFIL_RECORD_STACKS", stacks ? "1" : "0", 1) != 0)
		return -1;
	if (dir != NULL && setenv("PROFIL_RECORD_DIR", dir, 1) != 0)
		return -1;
	if (noexec && setenv("PROFIL_RECORD_EXEC", "0", 1) != 0)
		return -1;
	if (clock != NULL && setenv("PROFIL_RECORD_CLOCK", clock, 1) != 0)
		return -1;
	return 0;
}

/*
 * What the profiles written since `since` say that the user should know: a program that has its
 * own SIGPROF handler or ITIMER_PROF (both kept working, but its own profile is its own),
 * threads that could not be sampled, and samples dropped.  Files of other runs in the same
 * directory are left alone.
 */
static void
note_profiles(const char *dir, time_t since)
{
	char path[PATH_MAX], err[256];
	struct profil_file *f;
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);

	if (dp == NULL)
		return;
	while ((d = readdir(dp)) != NULL) {
		size_t n = strlen(d->d_name);

		if (d->d_name[0] == '.' || n < 8 || strcmp(d->d_name + n - 7, ".profil") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) != 0 || st.st_mtime < since ||
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
		profil_file_free(f);
	}
	closedir(dp);
}

int
profil_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-exec", no_argument, NULL, 'x' },
		{ "clock", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hz = NULL, *dir = NULL, *clock = NULL;
	char lib[PATH_MAX + 64];
	struct sigaction sa, ign;
	unsigned long v;
	int c, stacks = 0, noexec = 0, status;
	time_t start = time(NULL);
	pid_t pid;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:go:xh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (parse_hz(optarg, &v) < 0) {
				profil_cmd_error("rate must be 1 to 20000 Hz", optarg);
				return 2;
			}
			hz = optarg;
			break;
		case 'g':
			stacks = 1;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'x':
			noexec = 1;
			break;
		case 'c':
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "timer") != 0 &&
			    strcmp(optarg, "perf") != 0 && strcmp(optarg, "ring") != 0) {
				profil_cmd_error("unknown clock", optarg);
				return 2;
			}
			clock = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind >= argc) {
		profil_cmd_error("no command to record", NULL);
		return usage(stderr);
	}
	if (find_library(lib, sizeof(lib)) < 0) {
		profil_cmd_error("recorder library not found", lib);
		return 1;
	}
	if (dir != NULL && mkdir(dir, 0777) != 0 && errno != EEXIST) {
		profil_cmd_error("cannot create output directory", dir);
		return 1;
	}
	if (setup_env(lib, hz, stacks, dir, noexec, clock) < 0) {
		profil_cmd_error("cannot set the environment", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		profil_cmd_error("cannot fork", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "profil: cannot run command: '%s': %s\n", argv[optind],
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
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			profil_cmd_error("cannot wait for the command", strerror(errno));
			return 1;
		}
	}
	note_profiles(dir != NULL ? dir : "profil.out", start);
	if (WIFSIGNALED(status)) {
		char what[96];
		const char *abbrev = sigabbrev_np(WTERMSIG(status));

		snprintf(what, sizeof(what), "command killed by signal %d (SIG%s)",
		    WTERMSIG(status), abbrev != NULL ? abbrev : "?");
		profil_cmd_error(what, argv[optind]);
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
