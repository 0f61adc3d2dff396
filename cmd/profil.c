/* profil(1): the command-line side of profil.  One file per subcommand; this one dispatches. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "report/escape.h"

/* Each subcommand adds its line here; the functions live in cmd/<name>.c. */
const struct profil_cmd profil_cmds[] = {
	{ "record", profil_cmd_record, "run a command and record its profile" },
	{ "report", profil_cmd_report, "print the flat view of recorded profiles" },
	{ "dump", profil_cmd_dump, "print every field of profile files as text" },
	{ "export", profil_cmd_export, "write profiles for gprof, pprof, flame graphs" },
	{ "top", profil_cmd_top, "the hottest functions of running programs, live" },
	{ "serve", profil_cmd_serve, "keep recording; serve pprof profiles over HTTP" },
	{ "view", profil_cmd_view, "open recorded profiles in the browser's viewer" },
	{ NULL, NULL, NULL },
};

void
profil_cmd_error(const char *what, const char *subject)
{
	char shown[4096 + 64];

	/* Subjects are paths and names from files: escaped, so a message cannot drive the
	 * terminal it is printed on. */
	if (subject != NULL)
		fprintf(stderr, "profil: %s: '%s'\n", what,
		    profil_escape(subject, shown, sizeof(shown)));
	else
		fprintf(stderr, "profil: %s\n", what);
}

void
profil_cmd_bad_option(int c, char **argv)
{
	profil_cmd_error(c == ':' ? "option needs a value" : "unknown option", argv[optind - 1]);
}

static int
usage(FILE *f)
{
	const struct profil_cmd *c;

	fprintf(f, "usage: profil COMMAND [ARGS...]\n\ncommands:\n");
	for (c = profil_cmds; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nSee profil(1).\n");
	return f == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	const struct profil_cmd *c;

	if (argc < 2)
		return usage(stderr);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return usage(stdout);
	for (c = profil_cmds; c->name != NULL; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c->run(argc - 1, argv + 1);
	profil_cmd_error("unknown command", argv[1]);
	usage(stderr);
	return 2;
}
