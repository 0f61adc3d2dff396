/*
 * top.c - profil top: the hottest functions of running programs, redrawn every few seconds, as
 * perf top and py-spy top show them.  It records from outside, as `profil record` does (a
 * command, -p or -a), into a directory of its own that it removes at the end: every refresh
 * has the recorder write what is running (the snapshot it writes about once a second anyway),
 * reads it as `profil report` does, and shows what each function took in the last interval
 * against what it had at the previous refresh, with the 95% interval of that share.  On a
 * terminal it draws in place (the alternate screen, plain escape sequences, any size) and reads
 * keys: q quits, t splits the rows by thread.  Elsewhere it prints a table every interval, one
 * after another (as top -b); with --once, one table after the first interval, and ends.  When
 * the recording ends first (the command exited, the processes ended), the table of the whole
 * run is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cmd.h"
#include "outdir.h"
#include "outside/outside.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/view.h"
#include "report/symbols.h"

/* A row's identity from one refresh to the next: module, function (or offset) and thread. */
struct top_key {
	char *key;
	uint64_t count;
};

struct top {
	char dir[PATH_MAX];		/* the recording: made for this run, removed after */
	uint64_t every_ns;
	size_t limit;			/* rows at most; 0: as many as the screen holds */
	int once;			/* one table after the first interval, then end */
	int tty;			/* redraw in place on the terminal */
	int keys;			/* the terminal's input is read (raw) */
	int threads;			/* rows per thread */
	int stacks;			/* -g: stacks recorded, so totals can be counted */
	int total;			/* rows by total (on the stack), not self (at the leaf) */
	uint32_t only;			/* --only: that process's rows alone; 0: all */
	uint32_t tid;			/* --tid: that thread's rows alone; 0: all */
	uint64_t prev_total;		/* the session's samples at the last refresh */
	int quit;			/* the view ended the recording */
	int drawn;			/* tables printed */
	uint64_t start_ns, last_ns;
	struct top_key *prev;		/* counts at the last refresh, sorted by key */
	size_t nprev;
	struct termios saved;
};

static int
usage(FILE *f)
{
	fprintf(f, "usage: profil top [-F HZ] [-g] [-d SECS] [-n ROWS] [--sort self|total]\n"
	    "           [--threads] [--only PID] [--tid TID] [--once]\n"
	    "           (-p PID[,PID...] | -a | -- COMMAND [ARGS...])\n"
	    "  -F, --freq HZ   samples per second of each thread's CPU time, 1..20000\n"
	    "                  (default 1000)\n"
	    "  -g              record call stacks, so functions can be sorted by total\n"
	    "  --sort KEY      self (at the leaf, the default) or total (anywhere on the\n"
	    "                  stack; needs -g)\n"
	    "  --only PID      the rows of process PID alone\n"
	    "  --tid TID       the rows of thread TID alone\n"
	    "  -d, --delay SECS  seconds between refreshes, 0.1 to 3600 (default 2)\n"
	    "  -n, --rows ROWS  rows at most (default: what the terminal holds, or 20)\n"
	    "  --threads       a row per function and thread\n"
	    "  --once          print one table after the first interval and end\n"
	    "  -p, --pid PIDS  running processes, until they exit or q\n"
	    "  -a, --all-cpus  every process of the machine (perf_event_paranoid 0, or\n"
	    "                  CAP_PERFMON)\n"
	    "  On a terminal: q quits, t toggles the rows per thread, s self or total (-g).\n");
	return f == stdout ? 0 : 2;
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct top_key *)a)->key, ((const struct top_key *)b)->key);
}

static void
keys_free(struct top_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].key);
	free(k);
}

static char *
row_key(const char *module, const char *name, uint32_t tid)
{
	char *k;

	if (asprintf(&k, "%s\t%s\t%" PRIu32, module, name, tid) < 0)
		return NULL;
	return k;
}

static uint64_t
prev_count(const struct top *t, const char *key)
{
	struct top_key want = { (char *)(uintptr_t)key, 0 }, *hit;

	hit = t->nprev > 0 ? bsearch(&want, t->prev, t->nprev, sizeof(*t->prev), key_cmp) : NULL;
	return hit != NULL ? hit->count : 0;
}

/* A row of the table: a function (and thread), as the flat view or the call graph counts it. */
struct top_row {
	char *key;			/* its identity from one refresh to the next */
	char *name, *module;		/* as shown (escaped) */
	uint32_t tid;
	uint64_t count;			/* since the start: self, or total with --sort total */
	uint64_t window;		/* since the last refresh */
};

static int
row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void
rows_free(struct top_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].key);
		free(rows[i].name);
		free(rows[i].module);
	}
	free(rows);
}

/* Fills row from what it shows; the key from the raw module path and name.  0 or -ENOMEM. */
static int
row_set(struct top_row *row, const char *path, const char *raw, const char *name,
    const char *module, uint32_t tid, uint64_t count)
{
	row->key = row_key(path, raw, tid);
	row->name = strdup(name);
	row->module = strdup(module);
	row->tid = tid;
	row->count = count;
	return row->key != NULL && row->name != NULL && row->module != NULL ? 0 : -ENOMEM;
}

/* The rows of the flat view (self): a function's samples at the leaf, by thread if asked. */
static int
rows_self(struct top *t, struct profil_report *r, struct top_row **out, size_t *nout)
{
	const struct profil_report_entry *e;
	struct top_row *rows;
	size_t n = 0, i, k = 0;
	char name[512], mod[256], raw[64];

	e = profil_report_entries(r, &n);
	rows = calloc(n > 0 ? n : 1, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (t->tid != 0 && e[i].tid != t->tid)
			continue;
		snprintf(raw, sizeof(raw), "+0x%" PRIx64, e[i].offset);
		if (row_set(&rows[k++], e[i].module != NULL ? profil_module_path(e[i].module) : "",
		    e[i].function != NULL ? e[i].function : raw,
		    profil_report_entry_name(&e[i], name, sizeof(name)),
		    profil_report_entry_module(&e[i], mod, sizeof(mod)), e[i].tid,
		    e[i].count) < 0) {
			rows_free(rows, k);
			return -ENOMEM;
		}
	}
	*out = rows;
	*nout = k;
	return 0;
}

/* The rows of the call graph (total): a function's samples with it anywhere on the stack. */
static int
rows_total(struct profil_report *r, struct top_row **out, size_t *nout)
{
	struct profil_graph_view v;
	struct top_row *rows;
	char raw[1024], name[1024], mod[256];
	size_t i;
	int rc = profil_graph_view_build(r, 0, &v);

	if (rc < 0)
		return rc;
	rows = calloc(v.nnodes > 0 ? v.nnodes : 1, sizeof(*rows));
	for (i = 0; rows != NULL && i < v.nnodes; i++) {
		const struct profil_graph_node *x = &v.nodes[i];
		const struct profil_module *m = profil_graph_node_module(x);
		const char *fn = profil_graph_node_name(x, raw, sizeof(raw)), *shown;

		shown = profil_escape(fn, name, sizeof(name));
		if (row_set(&rows[i], m != NULL ? profil_module_path(m) : "", fn,
		    shown, m != NULL ? profil_escape(profil_module_name(m), mod,
		    sizeof(mod)) : "?", 0, x->count) < 0) {
			rows_free(rows, i + 1);
			rows = NULL;
		}
	}
	*out = rows;
	*nout = rows != NULL ? v.nnodes : 0;
	profil_graph_view_release(&v);
	return rows != NULL ? 0 : -ENOMEM;
}

static void
screen_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* One line, cut to the screen's width on a terminal; each line clears the rest of its row. */
static void
line(const struct top *t, int cols, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t cut = cols > 0 ? (size_t)cols : sizeof(buf) - 1;

	if (t->tty && cut < sizeof(buf))
		buf[cut] = '\0';
	fputs(buf, stdout);
	fputs(t->tty ? "\033[K\n" : "\n", stdout);
}

/*
 * Reads the recording as it is now and prints the table: each function's samples since the
 * last refresh (all of them when whole), its share of the interval's samples and that share's
 * 95% interval, and its samples since the start.
 */
static int
draw(struct top *t, int whole)
{
	struct profil_report *r = profil_report_new();
	struct top_row *rows = NULL;
	struct top_key *cur = NULL;
	uint64_t now = profil_monotonic_ns(), window = 0, total = 0;
	char *paths[1] = { t->dir };
	size_t n = 0, i, shown;
	int srows, cols, rc;

	if (r == NULL)
		return -ENOMEM;
	if ((t->threads || t->tid != 0) && !t->total)
		profil_report_set_split(r, PROFIL_SPLIT_THREAD);
	if (t->only != 0)
		profil_report_set_pid(r, t->only);
	profil_symbolizer_set_demangle(profil_report_symbolizer(r), 1);
	if (profil_cmd_load(r, 1, paths) != 0) {
		profil_report_free(r);
		return -EIO;
	}
	rc = t->total ? rows_total(r, &rows, &n) : rows_self(t, r, &rows, &n);
	if (rc < 0)
		goto out;
	cur = calloc(n > 0 ? n : 1, sizeof(*cur));
	if (cur == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint64_t before = whole ? 0 : prev_count(t, rows[i].key);

		rows[i].window = rows[i].count > before ? rows[i].count - before : 0;
		/* The samples of the interval: the rows' own sum, self rows being disjoint. */
		if (!t->total) {
			window += rows[i].window;
			total += rows[i].count;
		}
	}
	/* With --sort total a sample counts in every function on its stack: shares are of the
	 * samples, which the session counts (restricted to --only's process when given). */
	if (t->total) {
		total = profil_report_total(r);
		window = total > t->prev_total && !whole ? total - t->prev_total : total;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	screen_size(&srows, &cols);
	shown = t->limit > 0 ? t->limit : t->tty ? (size_t)(srows > 4 ? srows - 4 : 1) : 20;
	if (t->tty)
		fputs("\033[H", stdout);
	line(t, cols, "profil top: %zu process%s, %" PRIu64 " samples %s %.1f s (%" PRIu64
	    " since the start, %.0f s), by %s%s", profil_report_nfiles(r),
	    profil_report_nfiles(r) == 1 ? "" : "es", whole ? total : window,
	    whole ? "in all," : "in the last", (double)(now - (whole ? t->start_ns : t->last_ns)) /
	    1e9, total, (double)(now - t->start_ns) / 1e9, t->total ? "total" : "self",
	    !t->keys ? "" : t->stacks ? "; q quits, t threads, s self/total" :
	    "; q quits, t threads");
	line(t, cols, "");
	line(t, cols, "%6s %13s %9s %9s  %s%-36s %s", t->total ? "total%" : "%", "95% interval",
	    "samples", "total", t->threads && !t->total ? "    tid  " : "", "function", "module");
	for (i = 0; i < n && i < shown; i++) {
		uint64_t k = whole ? rows[i].count : rows[i].window, of = whole ? total : window;
		char tid[16] = "";
		double lo, hi;

		if (rows[i].window == 0 && !whole)
			break;
		profil_share_interval(k, of, &lo, &hi);
		if (t->threads && !t->total)
			snprintf(tid, sizeof(tid), "%7" PRIu32 "  ", rows[i].tid);
		line(t, cols, "%6.2f %6.1f-%6.1f %9" PRIu64 " %9" PRIu64 "  %s%-36s %s",
		    of > 0 ? 100.0 * (double)k / (double)of : 0.0, 100 * lo, 100 * hi, k,
		    rows[i].count, tid, rows[i].name, rows[i].module);
	}
	if (t->tty)
		fputs("\033[J", stdout);
	/* A reader gone (| head): the view ends, and the recording with it. */
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = -EPIPE;
	t->drawn++;
	for (i = 0; i < n; i++) {
		cur[i].key = rows[i].key;
		cur[i].count = rows[i].count;
		rows[i].key = NULL;
	}
	qsort(cur, n, sizeof(*cur), key_cmp);
	keys_free(t->prev, t->nprev);
	t->prev = cur;
	t->nprev = n;
	t->prev_total = profil_report_total(r);
	cur = NULL;
	t->last_ns = now;
out:
	free(cur);
	rows_free(rows, n);
	profil_report_free(r);
	return rc;
}

/* What the rows were counted by changed: the next table starts its interval afresh. */
static void
forget(struct top *t)
{
	keys_free(t->prev, t->nprev);
	t->prev = NULL;
	t->nprev = 0;
	t->prev_total = 0;
}

/* The recorder's watch: a key, or the interval's end. */
static int
watch(struct profil_outside *s, int woken, void *arg)
{
	struct top *t = arg;
	char c;

	if (woken) {
		while (t->keys && read(STDIN_FILENO, &c, 1) == 1) {
			if (c == 'q' || c == 'Q' || c == 3 /* ^C in raw mode */) {
				t->quit = 1;
				return 1;
			}
			if (c == 't' || c == 'T') {
				t->threads = !t->threads;
				forget(t);
			}
			if ((c == 's' || c == 'S') && t->stacks && t->tid == 0) {
				t->total = !t->total;
				forget(t);
			}
		}
		return 0;
	}
	/* From inside, the recorder in the program rewrites its profile about once a second. */
	if (s != NULL)
		profil_outside_snapshot(s);
	if (draw(t, 0) < 0 || t->once) {
		t->quit = 1;
		return 1;
	}
	return 0;
}

static void
terminal_enter(struct top *t)
{
	if (t->tty)
		fputs("\033[?1049h\033[?25l\033[H\033[J", stdout);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved) == 0) {
		struct termios raw = t->saved;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
			t->keys = 1;
	}
	fflush(stdout);
}

static void
terminal_leave(struct top *t)
{
	if (t->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
	if (t->tty)
		fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
}

int
profil_cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "delay", required_argument, NULL, 'd' },
		{ "rows", required_argument, NULL, 'n' },
		{ "threads", no_argument, NULL, 'T' },
		{ "once", no_argument, NULL, 'O' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "sort", required_argument, NULL, 'S' },
		{ "only", required_argument, NULL, 'P' },
		{ "tid", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profil_cmd_record_opts o = { .hzv = 1000, .quiet = 1 };
	struct profil_cmd_watch w;
	struct profil_cmd_outdir out;
	struct top t;
	char *end;
	unsigned long ul;
	double d;
	int c, rc, inside = 0;

	memset(&t, 0, sizeof(t));
	t.every_ns = 2000000000u;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:gd:n:p:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || !(d >= 0.1 && d <= 3600)) {
				profil_cmd_error("delay must be 0.1 to 3600 seconds", optarg);
				return 2;
			}
			t.every_ns = (uint64_t)(d * 1e9);
			break;
		case 'n':
			errno = 0;
			t.limit = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || t.limit < 1 || t.limit > 100000) {
				profil_cmd_error("rows must be 1 to 100000", optarg);
				return 2;
			}
			break;
		case 'S':
			if (strcmp(optarg, "self") != 0 && strcmp(optarg, "total") != 0) {
				profil_cmd_error("--sort is self or total", optarg);
				return 2;
			}
			t.total = strcmp(optarg, "total") == 0;
			break;
		case 'P':
		case 'I':
			errno = 0;
			ul = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || ul < 1 || ul > INT32_MAX) {
				profil_cmd_error(c == 'P' ? "--only wants a process ID" :
				    "--tid wants a thread ID", optarg);
				return 2;
			}
			*(c == 'P' ? &t.only : &t.tid) = (uint32_t)ul;
			break;
		case 'T':
			t.threads = 1;
			break;
		case 'O':
			t.once = 1;
			break;
		case 'h':
			return usage(stdout);
		default:
			rc = profil_cmd_record_option(c, optarg, &o);
			if (rc < 0)
				return 2;
			if (rc == 0)
				return usage(stderr);
		}
	}
	t.stacks = o.stacks;
	if (t.total && !t.stacks) {
		profil_cmd_error("--sort total counts functions on the stack: it needs -g", NULL);
		return 2;
	}
	if (t.tid != 0 && t.total) {
		profil_cmd_error("--tid picks rows of the flat view: not with --sort total", NULL);
		return 2;
	}
	if ((o.pids != NULL) + o.all + (optind < argc) != 1) {
		profil_cmd_error("what to watch: -p PIDS, -a or a command, one of them", NULL);
		return usage(stderr);
	}
	if (o.all) {
		char err[300];

		if (profil_outside_probe_system(err, sizeof(err)) < 0) {
			profil_cmd_error(err, "-a");
			return 1;
		}
	} else if ((rc = profil_cmd_outside_probe()) < 0) {
		char what[200], v[32];

		/* A command can still be watched from inside it; running processes cannot. */
		profil_outside_sysctl("perf_event_paranoid", v, sizeof(v));
		snprintf(what, sizeof(what), "perf events refused (%s; kernel.perf_event_paranoid="
		    "%s): %s", strerror(-rc), v, o.pids != NULL ? "-p records from outside" :
		    "recording from inside the program, refreshed about once a second");
		profil_cmd_error(what, o.pids != NULL ? o.pids : argv[optind]);
		if (o.pids != NULL)
			return 1;
		inside = 1;
	}
	if (profil_cmd_outdir_private(&out, t.dir, sizeof(t.dir), "profil-top") != 0)
		return 1;
	o.dir = t.dir;
	t.tty = isatty(STDOUT_FILENO) && !t.once;
	signal(SIGPIPE, SIG_IGN);
	w.every_ns = t.every_ns;
	w.fn = watch;
	w.arg = &t;
	o.watch = &w;
	t.start_ns = t.last_ns = profil_monotonic_ns();
	if (t.tty)
		terminal_enter(&t);
	w.fd = t.keys ? STDIN_FILENO : -1;
	rc = inside ? profil_cmd_record_inside(&o, argv + optind, &out) :
	    profil_cmd_record_outside(&o, optind < argc ? argv + optind : NULL, &out);
	if (t.tty)
		terminal_leave(&t);
	/* Ended by itself (the command exited): the whole run, once, where it stays readable. */
	if (!t.quit || t.drawn == 0) {
		int tty = t.tty;

		t.tty = 0;
		draw(&t, 1);
		t.tty = tty;
	}
	keys_free(t.prev, t.nprev);
	profil_cmd_outdir_release(&out);
	profil_cmd_outdir_remove(t.dir);
	return t.quit ? 0 : rc;
}
