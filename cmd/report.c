/*
 * report.c - `profil report [PATH...]`: the views of recorded profiles.  PATHs are profile files
 * or directories of them (default ./profil.out/); every process they hold is merged unless
 * --pid picks one or --per-process splits them.  The flat view by default; --graph, --lines,
 * --annotate and --diff instead.  See profil(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "profile/profile.h"
#include "report/report.h"
#include "report/symbols.h"

#define REPORT_DEFAULT_DIR PROFIL_CMD_DEFAULT_DIR

enum report_view {
	VIEW_FLAT = 0,
	VIEW_GRAPH,
	VIEW_LINES,
	VIEW_ANNOTATE,
	VIEW_DIFF,
};

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil report [-n N] [--tsv | --json] [--pid PID]\n"
	    "           [--per-process | --per-program | --threads | --graph | --lines |\n"
	    "            --annotate FUNCTION | --diff BASE] [--no-demangle] [PATH...]\n"
	    "  PATH        a profile file or a directory of them (default " REPORT_DEFAULT_DIR ")\n"
	    "  -n, --limit N   print the N heaviest rows only\n"
	    "  --tsv       tab-separated values with a header line\n"
	    "  --json      one JSON document: the same rows, typed (docs/report-json.md)\n"
	    "  --pid PID   the files of process PID only\n"
	    "  --per-process   one flat view per file (process image)\n"
	    "  --per-program   one flat view per program, its processes merged\n"
	    "  --threads   flat view rows split by thread\n"
	    "  --graph     call graph from -g stacks: self, total, callers, callees\n"
	    "  --lines     hottest source lines\n"
	    "  --annotate FUNCTION   FUNCTION's samples by source line and address\n"
	    "  --diff BASE     compare with the profiles at BASE, function by function\n"
	    "  --no-demangle   C++ and Rust names as the symbol tables spell them\n");
	return f == stdout ? 0 : 2;
}

/* A positive decimal number that fits max, or 0. */
static unsigned long long
positive(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0 || v > max)
		return 0;
	return v;
}

/* The call graph needs stacks: say once if a file has none (recorded without -g). */
static void
warn_no_stacks(struct profil_report *r)
{
	const struct profil_file *f;
	const char *name;
	size_t i;

	for (i = 0; i < profil_report_nfiles(r); i++) {
		f = profil_report_file(r, i, &name);
		if (f->nsamples > 0 && (f->hdr.flags & PROFIL_HDR_STACKS) == 0) {
			profil_cmd_error("no call stacks (record with -g), leaf functions only",
			    name);
			return;
		}
	}
}

static int
print_view(struct profil_report *r, enum report_view view, const char *arg,
    const struct profil_flat_options *opt, int demangle)
{
	struct profil_report *base;
	int err;

	switch (view) {
	case VIEW_GRAPH:
		warn_no_stacks(r);
		err = profil_report_graph_print(r, opt, stdout);
		break;
	case VIEW_LINES:
		err = profil_report_lines_print(r, opt, stdout);
		break;
	case VIEW_ANNOTATE:
		err = profil_report_annotate_print(r, arg, opt, stdout);
		if (err == -ENOENT) {
			profil_cmd_error("no samples in function", arg);
			return 1;
		}
		break;
	case VIEW_DIFF:
		base = profil_cmd_load_base(arg, demangle);
		if (base == NULL)
			return 1;
		err = profil_report_diff_print(r, base, opt, stdout);
		profil_report_free(base);
		break;
	default:
		err = profil_report_flat_print(r, opt, stdout);
		break;
	}
	if (err == -ENOMEM) {
		profil_cmd_error("out of memory", NULL);
		return 1;
	}
	if (err != 0) {
		profil_cmd_error("cannot write the report", "stdout");
		return 1;
	}
	return 0;
}

int
profil_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' },
		{ "tsv", no_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "per-program", no_argument, NULL, 'G' },
		{ "threads", no_argument, NULL, 'T' },
		{ "graph", no_argument, NULL, 'g' },
		{ "lines", no_argument, NULL, 'l' },
		{ "annotate", required_argument, NULL, 'a' },
		{ "diff", required_argument, NULL, 'd' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum profil_report_split split = PROFIL_SPLIT_NONE;
	enum report_view view = VIEW_FLAT;
	struct profil_flat_options opt = { 0, 0, 0 };
	const char *arg = NULL, *pid_arg = NULL, *view_opt = NULL, *split_opt = NULL;
	unsigned long long pid = 0;
	struct profil_report *r;
	int c, rc = 0, nviews = 0, nsplits = 0, demangle = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.limit = (size_t)positive(optarg, SIZE_MAX);
			if (opt.limit == 0) {
				profil_cmd_error("--limit wants a positive number", optarg);
				return usage(stderr);
			}
			break;
		case 't':
			opt.tsv = 1;
			break;
		case 'j':
			opt.json = 1;
			break;
		case 'p':
			pid = positive(optarg, UINT32_MAX);
			if (pid == 0) {
				profil_cmd_error("--pid wants a process ID", optarg);
				return usage(stderr);
			}
			pid_arg = optarg;
			break;
		case 'P':
		case 'G':
		case 'T':
			split = c == 'P' ? PROFIL_SPLIT_PROCESS : c == 'G' ? PROFIL_SPLIT_PROGRAM :
			    PROFIL_SPLIT_THREAD;
			split_opt = c == 'P' ? "--per-process" : c == 'G' ? "--per-program" :
			    "--threads";
			nsplits++;
			break;
		case 'g':
		case 'l':
		case 'a':
		case 'd':
			view = c == 'g' ? VIEW_GRAPH : c == 'l' ? VIEW_LINES :
			    c == 'a' ? VIEW_ANNOTATE : VIEW_DIFF;
			arg = optarg;
			view_opt = c == 'g' ? "--graph" : c == 'l' ? "--lines" :
			    c == 'a' ? "--annotate" : "--diff";
			nviews++;
			break;
		case 'M':
			demangle = 0;
			break;
		case 'h':
			return usage(stdout);
		default:
			profil_cmd_bad_option(c, argv);
			return usage(stderr);
		}
	}
	if (opt.tsv && opt.json) {
		profil_cmd_error("options cannot be combined", "--json");
		return usage(stderr);
	}
	if (nviews > 1 || nsplits > 1 || (nviews > 0 && nsplits > 0)) {
		/* Each view has its own rows; a split applies to the flat view's. */
		profil_cmd_error("options cannot be combined", nviews > 0 && nsplits > 0 ?
		    split_opt : nviews > 1 ? view_opt : split_opt);
		return usage(stderr);
	}
	r = profil_report_new();
	if (r == NULL) {
		profil_cmd_error("out of memory", NULL);
		return 1;
	}
	profil_report_set_split(r, split);
	profil_symbolizer_set_demangle(profil_report_symbolizer(r), demangle);
	if (pid_arg != NULL)
		profil_report_set_pid(r, (uint32_t)pid);
	rc = profil_cmd_load(r, argc - optind, argv + optind);
	if (rc == 0 && pid_arg != NULL && profil_report_nfiles(r) == 0) {
		profil_cmd_error("no profile of process", pid_arg);
		rc = 1;
	}
	if (rc == 0) {
		profil_cmd_warn_modules(r, view == VIEW_LINES || view == VIEW_ANNOTATE);
		rc = print_view(r, view, arg, &opt, demangle);
	}
	profil_report_free(r);
	return rc;
}
