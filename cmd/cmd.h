/*
 * cmd.h - the subcommands of the profil(1) command, one file each in cmd/.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the exit status: 0 success,
 * 1 error, 2 usage.  Messages follow "profil: <problem>: '<subject>'".
 */
#ifndef PROFIL_CMD_H
#define PROFIL_CMD_H

#include <stdint.h>

struct profil_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* The table in cmd/profil.c; a subcommand's file defines its run function. */
extern const struct profil_cmd profil_cmds[];

/* The subcommands' run functions, one per cmd/<name>.c. */
int profil_cmd_report(int argc, char **argv);
int profil_cmd_record(int argc, char **argv);
int profil_cmd_dump(int argc, char **argv);
int profil_cmd_export(int argc, char **argv);
int profil_cmd_top(int argc, char **argv);
int profil_cmd_serve(int argc, char **argv);
int profil_cmd_view(int argc, char **argv);

/* -F HZ of record, top and serve: 0 for 1 to 20000, else -1. */
int profil_cmd_parse_hz(const char *s, unsigned long *hz);

/* Prints "profil: <what>: '<subject>'" (subject may be NULL) on stderr. */
void profil_cmd_error(const char *what, const char *subject);
/* What getopt_long(3) refused, with opterr 0 and a leading ':' in its options: c is ':' for an
 * option without its value, else an option it does not know. */
void profil_cmd_bad_option(int c, char **argv);

/* Where the recorder writes by default, and so where reading subcommands look. */
#define PROFIL_CMD_DEFAULT_DIR "./profil.out/"

struct profil_report;

/*
 * profil_cmd_load - adds the profiles named by paths (files, or directories whose *.profil files
 * are read in name order; npaths 0 means PROFIL_CMD_DEFAULT_DIR) to the session r.  Stops at the
 * first file that cannot be read, after one message naming it.  Returns 0, or 1 (exit status).
 */
int profil_cmd_load(struct profil_report *r, int npaths, char **paths);

/*
 * profil_cmd_load_base - the profiles at path (a file or directory) in a session of their own,
 * for --diff BASE, demangled or not as the session compared with it; NULL after a message.
 */
struct profil_report *profil_cmd_load_base(const char *path, int demangle);

/*
 * profil_cmd_sessions - the session *r of the profiles at paths (as profil_cmd_load reads
 * them; their modules warned about), demangled or not, split as split says, and with diff
 * (else NULL) the base *base of --diff.  Returns 0, or 1 after a message; free both sessions
 * either way.
 */
int profil_cmd_sessions(int npaths, char **paths, int demangle, int split, const char *diff,
    struct profil_report **r, struct profil_report **base);

/*
 * profil_cmd_export_to - writes r in format (as export --format names it; html compares
 * with base, or NULL) to out.  Returns 0, or 1 after a message naming out.
 */
int profil_cmd_export_to(struct profil_report *r, struct profil_report *base,
    const char *format, const char *out);

/*
 * Warns once per module the samples touched that stays unsymbolized (missing, changed, not ELF)
 * and, each or all in one line, of those without debug information.
 */
void profil_cmd_warn_modules(const struct profil_report *r, int each);

struct profil_outside;

/*
 * What a live view of a recording (profil top) hooks into the recorder's loop: fn(s, woken,
 * arg) every every_ns, and as soon as fd (-1: none) is readable (woken 1); s is the outside
 * session, or NULL from inside.  fn returns 1 to end the recording (a command the recorder
 * started then gets SIGINT).
 */
struct profil_cmd_watch {
	uint64_t every_ns;
	int fd;
	int (*fn)(struct profil_outside *s, int woken, void *arg);
	void *arg;
};

/* The options of `profil record`, as parsed; profil top fills them too. */
struct profil_cmd_record_opts {
	const char *hz;			/* as given, or NULL */
	unsigned long hzv;
	int stacks;
	int frame_pointers;		/* --call-graph fp */
	unsigned int stack_copy;	/* --call-graph cfi,SIZE; 0: the default */
	int wall;			/* --wall */
	int user_only;			/* --user-only: no kernel samples */
	const char *dir;		/* as given, or NULL */
	int noexec;
	const char *clock;		/* as given, or NULL (auto) */
	const char *pids;		/* -p */
	int append;			/* --append: add to the recording in dir */
	int quiet;			/* -q: no line at the start and end */
	int all;			/* -a: every process of the machine */
	const struct profil_cmd_watch *watch;	/* a live view, or NULL */
};

/*
 * profil_cmd_record_option - one option of what to record (-F, -g, --call-graph, -o,
 * --no-exec, -p, -a, --clock, --wall, --user-only, --append, -q; cmd/record.c) into o, for the
 * subcommands that record: 1 when c is one, 0 when not, -1 after saying what is wrong.
 */
int profil_cmd_record_option(int c, const char *arg, struct profil_cmd_record_opts *o);

struct profil_cmd_outdir;

/*
 * profil_cmd_outside_refused - whether perf events are refused for what o names (-a, -p or a
 * command, subject): after one line naming the sysctl or capability ("perf events refused
 * (...; kernel.perf_event_paranoid=N): <why>", why saying what the subcommand does then), 2
 * where the caller records from inside instead (inside set, never for -a), else 1; 0 when
 * they are not refused.
 */
int profil_cmd_outside_refused(const struct profil_cmd_record_opts *o, const char *subject,
    const char *why, int inside);

/*
 * profil_cmd_record_inside - records the command cmd from inside (the preloaded recorder, for
 * where perf events are refused) into out; o->watch, when set, is called with no session (s
 * NULL) every interval, and the profiles it reads are the recorder's periodic rewrites.  Returns
 * the exit status: the command's, 126 or 127 when it cannot run, 1 after a message (a static
 * program, which nothing preloads into).
 */
int profil_cmd_record_inside(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out);
/* Its steps, for profil record (cmd/inside.c): the command run with the recorder preloaded
 * (its exit status); the program execvp(3) would run for name, or execvp's -errno; whether an
 * ELF file has no interpreter (nothing preloads into it); the refusal of perf events said with
 * the way profil records instead. */
int profil_cmd_inside_run(const struct profil_cmd_record_opts *o, char **cmd,
    const struct profil_cmd_outdir *out);
int profil_cmd_resolve_command(const char *name, char *out, size_t cap);
int profil_cmd_is_static_elf(const char *path);
void profil_cmd_say_inside(int e, const char *cmd);

/*
 * cmd/outside.c.  profil_cmd_record_outside - records from outside into out (opened by the
 * caller): the processes o->pids, every process (o->all; cmd may be NULL), or the command cmd
 * started here; o->watch is called as it goes.  Returns the exit status: the command's, or 1
 * after a message (perf events refused included: no inside recorder stands in).
 */
int profil_cmd_record_outside(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out);
/* The same, where the caller has the inside recorder to fall back on: -1 when perf events
 * were refused before the command ran, *refused then their errno and nothing said. */
int profil_cmd_outside_run(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out, int *refused);

/*
 * cmd/inside.c, for `profil record` from inside.  report_open binds the abstract socket on which
 * the recorder reports profiles it could not write and names it in PROFIL_RECORD_REPORT for the
 * command: the socket, or -1 (nothing reported).  report_read says each profile whose last write
 * failed, with the error, and returns how many.  seccomp_filtered: 1 under a seccomp filter
 * (and how many in *filters, -1 if unknown, when filters is not NULL).
 * outside_probe: profil_outside_probe(), in a child process under a filter, where a killed probe
 * sets probe_killed and returns -ENOSYS.
 */
int profil_cmd_report_open(void);
int profil_cmd_report_read(int fd);
int profil_cmd_seccomp_filtered(long *filters);
int profil_cmd_outside_probe(void);

/* The status of a command that ended, as a shell gives it (128 + N for signal N, said on
 * stderr). */
int profil_cmd_command_status(int status, const char *cmd);
extern int profil_cmd_probe_killed;

#endif /* PROFIL_CMD_H */
