/*
 * cmd.h - the subcommands of the profil(1) command, one file each in cmd/.  Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the exit status: 0 success,
 * 1 error, 2 usage.  Messages follow "profil: <problem>: '<subject>'".
 */
#ifndef PROFIL_CMD_H
#define PROFIL_CMD_H

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

/* Prints "profil: <what>: '<subject>'" (subject may be NULL) on stderr. */
void profil_cmd_error(const char *what, const char *subject);

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
 * Warns once per module the samples touched that stays unsymbolized (missing, changed, not ELF)
 * and, each or all in one line, of those without debug information.
 */
void profil_cmd_warn_modules(const struct profil_report *r, int each);

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
extern int profil_cmd_probe_killed;

#endif /* PROFIL_CMD_H */
