/*
 * export.c - `profil export --format=FMT [-o OUT] [PATH...]`: recorded profiles in other tools'
 * formats (gmon, pprof, folded, svg, firefox, html).  PATHs are read as `profil report` reads
 * them.  See profil(1), docs/viewer.md for html.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "export/export.h"
#include "profile/profile.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/symbols.h"

/* The file formats: the default output of each, "-" being standard output. */
static const struct export_format {
	const char *name;
	const char *default_out;
	const char *what;
} formats[] = {
	{ "gmon", ".", "gmon.out files for GNU gprof, one per object, in directory OUT" },
	{ "pprof", "profil.pb.gz", "gzip-compressed profile.proto for go tool pprof" },
	{ "folded", "-", "folded stacks for flamegraph.pl and speedscope" },
	{ "svg", "profil.svg", "an interactive flame graph" },
	{ "html", "profil.html", "the interactive viewer, one self-contained page" },
	{ "firefox", "profil.json.gz", "Gecko JSON for the Firefox Profiler, over time "
	    "(gzip when OUT ends in .gz)" },
	{ NULL, NULL, NULL },
};

static int
usage(FILE *f)
{
	const struct export_format *x;

	fprintf(f, "usage: profil export --format=FMT [-o OUT] [--per-process | --threads]\n"
	    "           [--diff BASE] [--no-demangle] [PATH...]\n"
	    "  PATH        a profile file or a directory of them (default "
	    PROFIL_CMD_DEFAULT_DIR ")\n"
	    "  -f, --format FMT  one of:\n");
	for (x = formats; x->name != NULL; x++)
		fprintf(f, "      %-8s %s (default -o %s)\n", x->name, x->what, x->default_out);
	fprintf(f, "  -o, --output OUT  where to write; - is standard output\n"
	    "  --per-process     folded, svg: stacks stand on their process, under their program\n"
	    "  --threads         folded, svg: and on their thread (name[tid]), under the process\n"
	    "  --diff BASE       html: colour each frame by its change from BASE\n"
	    "  --no-demangle     C++ and Rust names as the symbol tables spell them\n");
	return f == stdout ? 0 : 2;
}

static void
gmon_done(void *arg, const char *path, const struct profil_module *mod, uint64_t ticks)
{
	char shown[2][4 * 4096];

	(void)arg;
	printf("%s\t%s\t%" PRIu64 "\n", profil_escape(path, shown[0], sizeof(shown[0])),
	    profil_escape(profil_module_path(mod), shown[1], sizeof(shown[1])), ticks);
}

static void
gmon_skipped(void *arg, const struct profil_module *mod, uint64_t ticks, const char *why)
{
	char what[256];

	(void)arg;
	snprintf(what, sizeof(what), "%s (%" PRIu64 " samples not exported)", why, ticks);
	profil_cmd_error(what, mod != NULL ? profil_module_path(mod) : "[unmapped]");
}

/*
 * The Firefox Profiler shows samples over time, and a file recorded before TIME records has
 * none: its samples are exported at its start under "[no time recorded]"; say so once a file.
 */
static void
firefox_warn_untimed(struct profil_report *r)
{
	const char *name;
	size_t i;

	for (i = 0; i < profil_report_nfiles(r); i++) {
		const struct profil_file *f = profil_report_file(r, i, &name);

		if (f->slot_ns == 0 && f->nsamples > 0)
			profil_cmd_error("warning: no sample times in this recording: its samples "
			    "are at its start, under [no time recorded]", name);
	}
}

/* Whether path names a gzip file: the Firefox Profiler opens .json and .json.gz alike. */
static int
ends_gz(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* gmon: a directory of files; the others: one file. */
static int
run_export(struct profil_report *r, struct profil_report *base, const struct export_format *x,
    const char *out)
{
	struct profil_output o;
	char title[512];
	int err;

	if (strcmp(x->name, "gmon") == 0) {
		struct stat st;

		if (mkdir(out, 0777) != 0 && errno != EEXIST) {
			profil_cmd_error(strerror(errno), out);
			return 1;
		}
		/* A symbolic link another user planted where the directory goes is not followed. */
		if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != geteuid()) {
			profil_cmd_error("a symbolic link of another user, not followed", out);
			return 1;
		}
		err = profil_export_gmon(r, out, gmon_done, gmon_skipped, NULL);
		if (err != 0) {
			profil_cmd_error(profil_output_strerror(err), out);
			return 1;
		}
		return 0;
	}
	if (strcmp(x->name, "firefox") == 0 && profil_report_total(r) > PROFIL_FIREFOX_MAX_TICKS) {
		/* Checked before a file is made: the format has one entry per tick. */
		snprintf(title, sizeof(title), "%" PRIu64 " samples: the Firefox Profiler's format "
		    "takes one entry per sample, and profil writes %" PRIu64 " at most",
		    profil_report_total(r), PROFIL_FIREFOX_MAX_TICKS);
		profil_cmd_error(title, out);
		return 1;
	}
	/* The Firefox Profiler refuses a profile without threads ("This profile has no
	 * threads"), and a thread is made of samples. */
	if (strcmp(x->name, "firefox") == 0 && profil_report_total(r) == 0) {
		profil_cmd_error("no samples: the Firefox Profiler opens no profile without them",
		    out);
		return 1;
	}
	if ((strcmp(x->name, "svg") == 0 || strcmp(x->name, "html") == 0) &&
	    profil_report_total(r) == 0) {
		profil_cmd_error("no samples to draw", out);
		return 1;
	}
	err = profil_output_open(&o, out);
	if (err != 0) {
		profil_cmd_error(profil_output_strerror(err), out);
		return 1;
	}
	if (strcmp(x->name, "folded") == 0)
		err = profil_export_folded(r, o.f);
	else if (strcmp(x->name, "svg") == 0)
		err = profil_export_svg(r, profil_export_title(r, title, sizeof(title)), o.f);
	else if (strcmp(x->name, "firefox") == 0) {
		firefox_warn_untimed(r);
		err = profil_export_firefox(r, profil_export_title(r, title, sizeof(title)),
		    ends_gz(out), o.f);
	} else if (strcmp(x->name, "html") == 0) {
		err = profil_export_html(r, base, profil_export_title(r, title, sizeof(title)),
		    o.f);
	} else
		err = profil_export_pprof(r, o.f);
	if (err != 0) {
		err = profil_output_abort(&o, err);
		profil_cmd_error(strerror(-err), out);
		return 1;
	}
	err = profil_output_commit(&o);
	if (err != 0) {
		profil_cmd_error(profil_output_strerror(err), out);
		return 1;
	}
	return 0;
}

int
profil_cmd_export_to(struct profil_report *r, struct profil_report *base, const char *format,
    const char *out)
{
	const struct export_format *x;

	for (x = formats; x->name != NULL; x++)
		if (strcmp(x->name, format) == 0)
			return run_export(r, base, x, out);
	profil_cmd_error("unknown format", format);
	return 1;
}

int
profil_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "threads", no_argument, NULL, 'T' },
		{ "diff", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct export_format *x = NULL;
	const char *out = NULL, *diff = NULL;
	struct profil_report *r, *base;
	enum profil_report_split split = PROFIL_SPLIT_NONE;
	int c, rc, demangle = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			for (x = formats; x->name != NULL; x++)
				if (strcmp(x->name, optarg) == 0)
					break;
			if (x->name == NULL) {
				profil_cmd_error("unknown format", optarg);
				return usage(stderr);
			}
			break;
		case 'o':
			if (optarg[0] == '\0') {
				profil_cmd_error("empty output name", optarg);
				return usage(stderr);
			}
			out = optarg;
			break;
		case 'M':
			demangle = 0;
			break;
		case 'P':
		case 'T':
			if (split != PROFIL_SPLIT_NONE) {
				profil_cmd_error("one of --per-process and --threads at a time",
				    NULL);
				return usage(stderr);
			}
			split = c == 'P' ? PROFIL_SPLIT_PROCESS : PROFIL_SPLIT_THREAD;
			break;
		case 'd':
			diff = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			profil_cmd_bad_option(c, argv);
			return usage(stderr);
		}
	}
	if (x == NULL) {
		profil_cmd_error("--format is required", NULL);
		return usage(stderr);
	}
	if (out == NULL)
		out = x->default_out;
	/* pprof labels every sample with its program, process and thread anyway; gmon has
	 * no stacks to stand on anything. */
	if (split != PROFIL_SPLIT_NONE && strcmp(x->name, "folded") != 0 &&
	    strcmp(x->name, "svg") != 0) {
		profil_cmd_error("--per-process and --threads are for folded and svg, not",
		    x->name);
		return usage(stderr);
	}
	if (diff != NULL && strcmp(x->name, "html") != 0) {
		profil_cmd_error("--diff is for --format=html, not", x->name);
		return usage(stderr);
	}
	if (strcmp(x->name, "gmon") == 0 && strcmp(out, "-") == 0) {
		profil_cmd_error("gmon writes one file per object into a directory, not", out);
		return usage(stderr);
	}
	rc = profil_cmd_sessions(argc - optind, argv + optind, demangle, split, diff, &r, &base);
	if (rc == 0)
		rc = run_export(r, base, x, out);
	profil_report_free(base);
	profil_report_free(r);
	return rc;
}
