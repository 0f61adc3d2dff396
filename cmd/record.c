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
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "format/format.h"
#include "outdir.h"
#include "outside/outside.h"
#include "record/protocol.h"

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

int
profil_cmd_parse_hz(const char *s, unsigned long *hz)
{
	char *end;

	errno = 0;
	*hz = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && *s != '\0' && *hz >= 1 && *hz <= 20000 ? 0 : -1;
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
	    (r = profil_cmd_resolve_command(argv[optind], prog, sizeof(prog))) < 0) {
		char what[96];

		snprintf(what, sizeof(what), "cannot run command (%s)", strerror(-r));
		profil_cmd_error(what, argv[optind]);
		return r == -ENOENT ? 127 : 126;
	}
	/* Nothing preloads into a static program: said, rather than a silent empty run. */
	if (o.pids == NULL && !o.all && !outside && profil_cmd_is_static_elf(prog)) {
		if (refused != 0)
			profil_cmd_say_inside(refused, argv[optind]);
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
			profil_cmd_say_inside(refused, argv[optind]);
		/* The outside recorder was refused only as it started: checked again. */
		if (profil_cmd_resolve_command(argv[optind], prog, sizeof(prog)) == 0 &&
		    profil_cmd_is_static_elf(prog)) {
			profil_cmd_error("a statically linked program cannot be recorded from "
			    "inside; perf events are needed", prog);
			r = 1;
		} else {
			r = profil_cmd_inside_run(&o, argv + optind, &out);
		}
	}
	profil_cmd_outdir_release(&out);
	return r;
}
