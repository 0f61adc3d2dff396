/*
 * outside.c - `profil record` from outside the program (src/outside): on a command started
 * with the events already on it, on running processes (-p) or on every process (-a); and
 * whether perf events are refused for what it was asked to record.  The recorder's run loop
 * and attach are the library's (src/outside/run.c); this is the command's side: options,
 * messages, the output directory and the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd.h"
#include "outdir.h"
#include "outside/outside.h"

/*
 * The outside recorder's options from record's: out is the directory opened already, or NULL
 * (-p opens it once attached); -p follows every exec of what it attached to.
 */
static void
outside_opts(const struct profil_cmd_record_opts *o, const struct profil_cmd_outdir *out,
    struct profil_outside_opts *so)
{
	so->hz = (unsigned int)o->hzv;
	so->depth = o->stacks ? 128 : 1;
	so->frame_pointers = o->frame_pointers;
	so->stack_copy = o->stack_copy;
	so->wall = o->wall;
	so->user_only = o->user_only;
	so->follow_exec = !o->noexec || o->pids != NULL;
	so->system_wide = o->all;
	so->dirfd = out != NULL ? out->fd : -1;
}

/* What profil record -p and -a do once the events are on. */
struct outside_ready {
	const struct profil_cmd_record_opts *o;
	struct profil_cmd_outdir *out;
	const pid_t *pids;
	size_t n;
};

static int
outside_ready(struct profil_outside *s, int threads, void *arg)
{
	const struct outside_ready *a = arg;
	const struct profil_cmd_record_opts *o = a->o;
	char list[PROFIL_OUTSIDE_ATTACH_MAX * 12];
	size_t i, len = 0;

	if (o->pids == NULL) {
		if (!o->quiet)
			fprintf(stderr, "profil: recording every process; ^C stops\n");
		return 0;
	}
	/*
	 * Attached, which is what fails on a mistyped pid: only now is the directory rotated
	 * (unless the caller opened it: profil top's own).
	 */
	if (a->out->fd < 0 && profil_cmd_outdir_open(a->out, o->dir != NULL ? o->dir :
	    "profil.out", o->append) != 0)
		return -1;
	profil_outside_set_dirfd(s, a->out->fd);
	for (i = 0; i < a->n; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", i > 0 ? ", " : "",
		    (int)a->pids[i]);
	if (!o->quiet)
		fprintf(stderr, "profil: attached to %zu process%s (%s), %d thread%s\n", a->n,
		    a->n == 1 ? "" : "es", list, threads, threads == 1 ? "" : "s");
	return 0;
}

/* -p PID[,PID...]: the pids, or 0 after a message. */
static size_t
parse_pids(const char *arg, pid_t *pids)
{
	const char *p = arg;
	size_t n = 0;

	while (*p != '\0') {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || end == p || v <= 0 || v > INT32_MAX || (*end != ',' &&
		    *end != '\0') || n == PROFIL_OUTSIDE_ATTACH_MAX) {
			n = 0;
			break;
		}
		pids[n++] = (pid_t)v;
		p = *end == ',' ? end + 1 : end;
	}
	if (n == 0)
		profil_cmd_error("-p takes up to 64 process ids, separated by commas", arg);
	return n;
}

int
profil_cmd_outside_run(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out, int *refused)
{
	struct profil_outside_opts so = { 0 };
	struct profil_outside_watch watch;
	struct profil_outside_run ro = { 0 };
	struct profil_outside *s;
	pid_t pids[PROFIL_OUTSIDE_ATTACH_MAX];
	struct outside_ready ready = { o, out, pids, 0 };
	char err[512] = "";
	int status = 0, r, rc;

	if (o->pids != NULL && (ready.n = parse_pids(o->pids, pids)) == 0)
		return 2;
	outside_opts(o, o->pids != NULL ? NULL : out, &so);
	if (profil_outside_new(&so, &s) < 0) {
		profil_cmd_error("cannot start recording", strerror(errno));
		return 1;
	}
	ro.wall_ns = o->wall ? 1000000000 / o->hzv : 0;
	if (o->watch != NULL) {
		watch.every_ns = o->watch->every_ns;
		watch.fd = o->watch->fd;
		watch.fn = o->watch->fn;
		watch.arg = o->watch->arg;
		ro.watch = &watch;
	}
	ro.say = profil_cmd_error;
	ro.ready = outside_ready;
	ro.arg = &ready;
	if (o->pids != NULL)
		r = profil_outside_run_attach(s, pids, ready.n, &ro);
	else if (cmd == NULL)
		r = profil_outside_run_system(s, &ro);
	else
		r = profil_outside_run_command(s, cmd, &ro, &status, err, sizeof(err));
	if (r < 0) {
		profil_outside_free(s);
		/* Every process is recorded from outside or not at all. */
		if (cmd != NULL && !o->all && (r == -EACCES || r == -EPERM || r == -ENOSYS ||
		    r == -ENOENT) && err[0] != '\0') {
			*refused = -r;
			return -1;
		}
		if (err[0] != '\0')
			profil_cmd_error(err, cmd[0]);
		return 1;
	}
	rc = profil_outside_notes(s, out->path, profil_cmd_error);
	profil_outside_free(s);
	if (!o->quiet)
		profil_cmd_outdir_summary(out);
	if (cmd == NULL || o->pids != NULL)
		return rc < 0 ? 1 : 0;
	r = profil_cmd_command_status(status, cmd[0]);
	return r == 0 && rc < 0 ? 1 : r;
}

int
profil_cmd_outside_refused(const struct profil_cmd_record_opts *o, const char *subject,
    const char *why, int inside)
{
	char what[300], v[32];
	int rc;

	if (o->all) {
		if (profil_outside_probe_system(what, sizeof(what)) < 0) {
			profil_cmd_error(what, "-a");
			return 1;
		}
		return 0;
	}
	if ((rc = profil_cmd_outside_probe()) < 0) {
		profil_outside_sysctl("perf_event_paranoid", v, sizeof(v));
		snprintf(what, sizeof(what), "perf events refused (%s; kernel.perf_event_paranoid="
		    "%s): %s", strerror(-rc), v, why);
		profil_cmd_error(what, subject);
		return inside ? 2 : 1;
	}
	return 0;
}

int
profil_cmd_record_outside(const struct profil_cmd_record_opts *o, char **cmd,
    struct profil_cmd_outdir *out)
{
	int refused = 0, r;

	r = profil_cmd_outside_run(o, cmd, out, &refused);
	if (r < 0) {
		char what[160];

		snprintf(what, sizeof(what), "perf events refused (%s)", strerror(refused));
		profil_cmd_error(what, cmd[0]);
		return 1;
	}
	return r;
}
