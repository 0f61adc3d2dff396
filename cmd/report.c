/*
 * report.c - `profil report [PATH...]`: the flat view of recorded profiles, by function and
 * module.  PATHs are profile files or directories of them (default ./profil.out/); every process
 * they hold is merged.  See profil(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "format/format.h"
#include "report/report.h"
#include "report/symbols.h"

#define REPORT_DEFAULT_DIR PROFIL_CMD_DEFAULT_DIR

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil report [-n N] [--tsv] [PATH...]\n"
	    "  PATH        a profile file or a directory of them (default " REPORT_DEFAULT_DIR ")\n"
	    "  -n, --limit N   print the N heaviest functions only\n"
	    "  --tsv       tab-separated values with a header line\n");
	return f == stdout ? 0 : 2;
}

int
profil_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' },
		{ "tsv", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profil_flat_options opt = { 0, 0 };
	struct profil_report *r;
	unsigned long long v;
	char *end;
	int c, rc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (optarg[0] == '\0' || optarg[0] == '-' || *end != '\0' || errno != 0 ||
			    v == 0) {
				profil_cmd_error("--limit wants a positive number", optarg);
				return usage(stderr);
			}
			opt.limit = (size_t)v;
			break;
		case 't':
			opt.tsv = 1;
			break;
		case 'h':
			return usage(stdout);
		case ':':
			profil_cmd_error("option needs a value", argv[optind - 1]);
			return usage(stderr);
		default:
			profil_cmd_error("unknown option", argv[optind - 1]);
			return usage(stderr);
		}
	}
	r = profil_report_new();
	if (r == NULL) {
		profil_cmd_error("out of memory", NULL);
		return 1;
	}
	rc = profil_cmd_load(r, argc - optind, argv + optind);
	if (rc == 0) {
		profil_cmd_warn_modules(r);
		if (profil_report_flat_print(r, &opt, stdout) != 0) {
			profil_cmd_error("cannot write the report", "stdout");
			rc = 1;
		}
	}
	profil_report_free(r);
	return rc;
}
