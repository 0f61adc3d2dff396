/*
 * view.c - `profil view [--diff BASE] [PATH...]`: the viewer page (profil export --format=html)
 * written to a private temporary file and opened in the user's browser ($BROWSER, else
 * xdg-open), or its path printed where there is none.  See profil(1), docs/viewer.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report.h"

/* Whether an executable named cmd is on $PATH (or is a path to one). */
static int
on_path(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(cmd, '/') != NULL)
		return access(cmd, X_OK) == 0;
	for (p = path != NULL ? path : "/usr/bin:/bin";; p = end + 1) {
		end = strchrnul(p, ':');
		/* An empty entry is the current directory. */
		snprintf(buf, sizeof(buf), "%.*s/%s", end == p ? 1 : (int)(end - p),
		    end == p ? "." : p, cmd);
		if (access(buf, X_OK) == 0)
			return 1;
		if (*end == '\0')
			break;
	}
	return 0;
}

/*
 * Opens file with the browser: the first command of $BROWSER (a list separated by ':', as
 * Python's webbrowser and xdg-utils read it; "%s" in it stands for the file, else the file is
 * its argument), else xdg-open.  The command runs without a shell, so nothing in the path is
 * interpreted, and is waited for (a terminal browser needs the terminal; xdg-open returns at
 * once).  Returns 1 when a browser was started and succeeded, 0 when there is none.
 */
static int
open_browser(const char *file)
{
	const char *env = getenv("BROWSER");
	char cmd[1024], *arg[3];
	const char *pct;
	pid_t pid;
	int status;

	if (env != NULL && env[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "%.*s", (int)strcspn(env, ":"), env);
		pct = strstr(cmd, "%s");
		if (pct != NULL)
			/* "CMD %s": the command is what comes before, the file its argument. */
			cmd[pct - cmd] = '\0';
		cmd[strcspn(cmd, " ")] = '\0';
	} else {
		snprintf(cmd, sizeof(cmd), "xdg-open");
	}
	if (cmd[0] == '\0' || !on_path(cmd))
		return 0;
	arg[0] = cmd;
	arg[1] = (char *)(uintptr_t)file;
	arg[2] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		execvp(cmd, arg);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil view [--diff BASE] [--no-demangle] [PATH...]\n"
	    "  PATH        a profile file or a directory of them (default "
	    PROFIL_CMD_DEFAULT_DIR ")\n"
	    "  --diff BASE       colour each frame by its change from the profiles at BASE\n"
	    "  --no-demangle     C++ and Rust names as the symbol tables spell them\n"
	    "Writes the viewer page to a private temporary file and opens it with $BROWSER or\n"
	    "xdg-open; prints its path.\n");
	return f == stdout ? 0 : 2;
}

int
profil_cmd_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "diff", required_argument, NULL, 'd' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profil_report *r, *base;
	const char *diff = NULL, *tmp = getenv("TMPDIR");
	char dir[4096], file[4096 + 32];
	int c, rc, demangle = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			diff = optarg;
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
	rc = profil_cmd_sessions(argc - optind, argv + optind, demangle, PROFIL_SPLIT_NONE, diff,
	    &r, &base);
	if (rc == 0) {
		/* A directory only the user can enter: the page shows what the program ran. */
		snprintf(dir, sizeof(dir), "%s/profil-view.XXXXXX",
		    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
		if (mkdtemp(dir) == NULL) {
			profil_cmd_error(strerror(errno), dir);
			rc = 1;
		}
	}
	if (rc == 0) {
		snprintf(file, sizeof(file), "%s/profile.html", dir);
		rc = profil_cmd_export_to(r, base, "html", file);
		if (rc != 0)
			rmdir(dir);
	}
	if (rc == 0) {
		if (!open_browser(file))
			fprintf(stderr, "profil: no browser ($BROWSER or xdg-open) opened "
			    "the page; open it yourself\n");
		printf("%s\n", file);
	}
	profil_report_free(base);
	profil_report_free(r);
	return rc;
}
