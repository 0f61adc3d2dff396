/*
 * load.c - the PATH arguments every reading subcommand takes (report, export): profile files or
 * directories of them, default ./profil.out/, added to one report session.  One loader, so all
 * subcommands read the same files and fail on the same bad ones with the same message.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "format/format.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/symbols.h"

static int
add_file(struct profil_report *r, const char *path)
{
	struct profil_file *f;
	char err[512];
	int rc;

	rc = profil_file_read(path, &f, err, sizeof(err));
	if (rc != 0) {
		if (rc == -ENOMEM)
			profil_cmd_error("out of memory reading", path);
		else
			profil_cmd_error(err[0] != '\0' ? err : strerror(-rc), path);
		return 1;
	}
	if (profil_report_add(r, path, f) != 0) {
		profil_cmd_error("out of memory symbolizing", path);
		return 1;
	}
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.profil of a directory, in name order so the output does not depend on readdir. */
static int
add_dir(struct profil_report *r, const char *dir)
{
	char **names = NULL, **grown, path[PATH_MAX];
	size_t i, n = 0, len;
	struct dirent *d;
	int rc = 0;
	DIR *dp;

	dp = opendir(dir);
	if (dp == NULL) {
		profil_cmd_error(strerror(errno), dir);
		return 1;
	}
	while ((d = readdir(dp)) != NULL) {
		len = strlen(d->d_name);
		/* The recorder's temporary files start with a dot and are never complete. */
		if (d->d_name[0] == '.' || len < 8 || strcmp(d->d_name + len - 7, ".profil") != 0)
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (grown == NULL || (grown[n] = strdup(d->d_name)) == NULL) {
			names = grown != NULL ? grown : names;
			profil_cmd_error("out of memory listing", dir);
			rc = 1;
			break;
		}
		names = grown;
		n++;
	}
	closedir(dp);
	if (rc == 0 && n == 0) {
		profil_cmd_error("no profiles (*.profil) in directory", dir);
		rc = 1;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && rc == 0; i++) {
		len = strlen(dir);
		snprintf(path, sizeof(path), "%s%s%s", dir,
		    len > 0 && dir[len - 1] == '/' ? "" : "/", names[i]);
		rc = add_file(r, path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int
add_path(struct profil_report *r, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		profil_cmd_error(strerror(errno), path);
		return 1;
	}
	if (S_ISDIR(st.st_mode))
		return add_dir(r, path);
	return add_file(r, path);
}

int
profil_cmd_load(struct profil_report *r, int npaths, char **paths)
{
	int i, rc = 0;

	/*
	 * debuginfod only when asked for: the symbolizer's own search never asks it, but libdwfl
	 * still would for dwz's alternate debug files, and each module without debug information
	 * would wait on the network.  PROFIL_DEBUGINFOD keeps DEBUGINFOD_URLS in effect.
	 */
	if (getenv("PROFIL_DEBUGINFOD") == NULL)
		unsetenv("DEBUGINFOD_URLS");

	if (npaths == 0)
		return add_path(r, PROFIL_CMD_DEFAULT_DIR);
	for (i = 0; i < npaths && rc == 0; i++)
		rc = add_path(r, paths[i]);
	return rc;
}

/* The modules without debug information, named in one line unless each gets its own. */
#define WARN_NAMES	3	/* named in that line; the rest counted */
struct warn_state {
	int each;
	size_t nodebug;
	const char *names[WARN_NAMES];
};

/*
 * One warning per module whose addresses stay numbers; one per module without debug
 * information (no file:line, no inlined functions) where the view shows lines, else one line
 * for them all: distribution binaries rarely have any, and a build's worth of them would bury
 * the report.
 */
static void
warn_module(void *arg, const struct profil_module *mod)
{
	struct warn_state *w = arg;
	enum profil_module_status s = profil_module_status(mod);

	if (s == PROFIL_MODULE_NO_DEBUG && !w->each) {
		if (w->nodebug < WARN_NAMES)
			w->names[w->nodebug] = profil_module_path(mod);
		w->nodebug++;
		return;
	}
	if (s == PROFIL_MODULE_MISSING || s == PROFIL_MODULE_CHANGED ||
	    s == PROFIL_MODULE_NOT_ELF || s == PROFIL_MODULE_NO_DEBUG)
		profil_cmd_error(profil_module_status_str(s), profil_module_path(mod));
}

void
profil_cmd_warn_modules(const struct profil_report *r, int each)
{
	struct warn_state w = { each, 0, { NULL } };
	char shown[PATH_MAX * PROFIL_ESCAPE_MAX + 1];
	size_t i, n;

	profil_report_modules(r, warn_module, &w);
	if (w.nodebug == 1) {
		profil_cmd_error(profil_module_status_str(PROFIL_MODULE_NO_DEBUG), w.names[0]);
	} else if (w.nodebug > 1) {
		n = w.nodebug < WARN_NAMES ? w.nodebug : WARN_NAMES;
		fprintf(stderr, "profil: no debug information in %zu modules, functions without "
		    "file:line:", w.nodebug);
		for (i = 0; i < n; i++) {
			const char *base = strrchr(w.names[i], '/');

			fprintf(stderr, "%s '%s'", i > 0 ? "," : "",
			    profil_escape(base != NULL ? base + 1 : w.names[i], shown, sizeof(shown)));
		}
		if (w.nodebug > n)
			fprintf(stderr, " and %zu more", w.nodebug - n);
		fprintf(stderr, " (--lines names each)\n");
	}
}

struct profil_report *
profil_cmd_load_base(const char *path, int demangle)
{
	struct profil_report *base = profil_report_new();
	char *paths[1];

	if (base == NULL) {
		profil_cmd_error("out of memory", NULL);
		return NULL;
	}
	profil_symbolizer_set_demangle(profil_report_symbolizer(base), demangle);
	paths[0] = (char *)(uintptr_t)path;
	if (profil_cmd_load(base, 1, paths) != 0) {
		profil_report_free(base);
		return NULL;
	}
	profil_cmd_warn_modules(base, 0);
	return base;
}

int
profil_cmd_sessions(int npaths, char **paths, int demangle, int split, const char *diff,
    struct profil_report **r, struct profil_report **base)
{
	int rc;

	*base = NULL;
	*r = profil_report_new();
	if (*r == NULL) {
		profil_cmd_error("out of memory", NULL);
		return 1;
	}
	profil_symbolizer_set_demangle(profil_report_symbolizer(*r), demangle);
	profil_report_set_split(*r, (enum profil_report_split)split);
	rc = profil_cmd_load(*r, npaths, paths);
	if (rc == 0 && diff != NULL && (*base = profil_cmd_load_base(diff, demangle)) == NULL)
		rc = 1;
	if (rc == 0)
		profil_cmd_warn_modules(*r, 0);
	return rc;
}
