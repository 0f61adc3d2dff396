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

/* Prints "profil: <what>: '<subject>'" (subject may be NULL) on stderr. */
void profil_cmd_error(const char *what, const char *subject);

#endif /* PROFIL_CMD_H */
