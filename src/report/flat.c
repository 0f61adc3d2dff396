/*
 * flat.c - the flat view: gprof's flat profile (share, cumulative and self seconds, samples)
 * by function and module, with the 95% interval of each share from its sample count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report/escape.h"
#include "report/json.h"
#include "report/report.h"
#include "report/symbols.h"
#include "report/view.h"

/* Names from the profile and the binaries, escaped (escape.h); buf is char[N]. */
#define SHOW(s, buf)	profil_escape((s), (buf), sizeof(buf))

/* A function's name, or module+0xoffset when nothing names it (gprof would drop the ticks). */
const char *
profil_report_entry_name(const struct profil_report_entry *e, char *buf, size_t len)
{
	char mod[512];

	if (e->function != NULL)
		return profil_escape(e->function, buf, len);
	if (e->module == NULL)
		return "[unmapped]";
	snprintf(buf, len, "%s+0x%" PRIx64, SHOW(profil_module_name(e->module), mod), e->offset);
	return buf;
}

const char *
profil_report_entry_module(const struct profil_report_entry *e, char *buf, size_t len)
{
	return e->module != NULL ? profil_escape(profil_module_name(e->module), buf, len) : "?";
}

/* The processes (files) of the program whose first file is first. */
static size_t
program_processes(const struct profil_report *r, size_t first)
{
	size_t i, n = 0;

	for (i = first; i < profil_report_nfiles(r); i++)
		n += profil_report_file_program(r, i) == first;
	return n;
}

int
profil_summary_build(struct profil_report *r, struct profil_summary *s)
{
	struct profil_summary_program *pg;
	size_t i, k, n = profil_report_nfiles(r), *slot;

	memset(s, 0, sizeof(*s));
	s->nfiles = n;
	s->time = calloc(n + 1, sizeof(*s->time));
	s->programs = calloc(n + 1, sizeof(*s->programs));
	/* A program's place among the programs, by its first file: one pass over the files
	 * however many programs a build has. */
	slot = calloc(n + 1, sizeof(*slot));
	if (s->time == NULL || s->programs == NULL || slot == NULL) {
		free(slot);
		profil_summary_release(s);
		return -ENOMEM;
	}
	/* From outside, processes without samples leave no file, but the others count them. */
	for (i = 0; i < n; i++)
		if (profil_report_file(r, i, NULL)->processes_seen > s->ran)
			s->ran = profil_report_file(r, i, NULL)->processes_seen;
	if (s->ran <= n)
		s->ran = 0;
	profil_report_time(r, PROFIL_REPORT_ALL, &s->all);
	for (i = 0; i < n; i++) {
		profil_report_time(r, i, &s->time[i]);
		if (profil_report_file_program(r, i) == i) {
			slot[i] = s->nprograms;
			s->programs[s->nprograms++].first = i;
		}
		if (profil_report_file(r, i, NULL)->nsamples == 0)
			continue;
		s->busy++;
		pg = &s->programs[slot[profil_report_file_program(r, i)]];
		pg->processes++;
		profil_report_time_add(&pg->time, &s->time[i]);
	}
	free(slot);
	/* The programs with samples alone, in the order of their first files. */
	for (i = 0, k = 0; i < s->nprograms; i++)
		if (s->programs[i].processes > 0)
			s->programs[k++] = s->programs[i];
	s->nprograms = k;
	return 0;
}

void
profil_summary_release(struct profil_summary *s)
{
	free(s->time);
	free(s->programs);
	memset(s, 0, sizeof(*s));
}

/* The exit of file f as the summary line words it, and its code when that line gives one. */
static const char *
file_exit(const struct profil_file *f, int *has_code)
{
	*has_code = (f->hdr.exit_kind == PROFIL_EXIT_NORMAL && f->hdr.exit_code >= 0) ||
	    f->hdr.exit_kind == PROFIL_EXIT_SIGNAL;
	return f->hdr.exit_kind == PROFIL_EXIT_NORMAL && f->hdr.exit_code < 0 ? "exited" :
	    profil_file_exit_name(f->hdr.exit_kind);
}

/* One line per program that has samples: its processes, samples and seconds. */
static void
summary_by_program(struct profil_report *r, const struct profil_summary *s, FILE *out)
{
	const struct profil_summary_program *pg;
	char prog[1024], said[256];
	size_t i;

	for (i = 0; i < s->nprograms; i++) {
		pg = &s->programs[i];
		fprintf(out, "  %s: %zu process%s with samples, %s\n",
		    SHOW(profil_report_file(r, pg->first, NULL)->hdr.progname, prog),
		    pg->processes, pg->processes == 1 ? "" : "es", profil_report_time_say(&pg->time,
		    1, said, sizeof(said)));
	}
}

/* One line per process that has samples: a fork-heavy shell script makes hundreds of empty
 * ones, which are counted instead; and a build's hundreds with samples, one line per program. */
static void
summary_text(struct profil_report *r, const struct profil_summary *s, const char *title,
    FILE *out)
{
	const struct profil_file *f;
	size_t i, empty = 0, n = s->nfiles;
	char prog[1024], procs[128], said[256];
	int has_code;

	if (s->ran > 0)
		snprintf(procs, sizeof(procs), "%zu process%s (%" PRIu64 " ran, the others took no "
		    "sample)", n, n == 1 ? "" : "es", s->ran);
	else
		snprintf(procs, sizeof(procs), "%zu process%s", n, n == 1 ? "" : "es");
	fprintf(out, "%s: %s, %s\n", title, procs, profil_report_time_say(&s->all, 1, said,
	    sizeof(said)));
	if (s->busy > PROFIL_SUMMARY_PROCESSES)
		summary_by_program(r, s, out);
	for (i = 0; i < n; i++) {
		f = profil_report_file(r, i, NULL);
		if (f->nsamples == 0) {
			empty++;
			continue;
		}
		if (s->busy > PROFIL_SUMMARY_PROCESSES)
			continue;
		/* The rows' count, not the header's ticks: the in-process recorder counts the
		 * CPU ticks alone there, and waiting threads' rows are in the table too. */
		fprintf(out, "  %s[%" PRIu32 "]: %s at %.1f Hz achieved (%" PRIu32 " Hz requested, "
		    "%s clock), %s", SHOW(f->hdr.progname, prog), f->hdr.pid,
		    profil_report_time_say(&s->time[i], 0, said, sizeof(said)),
		    (double)f->hdr.achieved_mhz / 1000.0, f->hdr.requested_hz,
		    profil_file_clock_name(f->hdr.clock), file_exit(f, &has_code));
		if (has_code)
			fprintf(out, " %" PRId32, f->hdr.exit_code);
		if (f->hdr.dropped > 0)
			fprintf(out, ", %" PRIu64 " ticks dropped", f->hdr.dropped);
		fprintf(out, "\n");
		if (profil_report_cpu_waits_say(r, i, said, sizeof(said)) != NULL)
			fprintf(out, "    %s\n", said);
	}
	if (empty > 0)
		fprintf(out, "  %zu process%s without samples\n", empty, empty == 1 ? "" : "es");
	fprintf(out, "\n");
}

int
profil_report_summary_print(struct profil_report *r, const char *title, FILE *out)
{
	struct profil_summary s;
	int err = profil_summary_build(r, &s);

	if (err != 0)
		return err;
	summary_text(r, &s, title, out);
	profil_summary_release(&s);
	return 0;
}

/* The heading as JSON: every file (with samples or not) and every program with samples. */
static void
summary_json(struct profil_report *r, const struct profil_summary *s, struct profil_json *j)
{
	const struct profil_summary_program *pg;
	const struct profil_file *f;
	const char *name;
	char shown[4096], said[256];
	size_t i;
	int has_code;

	profil_json_open(j, "heading", '{');
	profil_json_u64(j, "processes", s->nfiles);
	profil_json_u64(j, "processes_ran", s->ran > 0 ? s->ran : s->nfiles);
	profil_json_time(j, "time", &s->all);
	profil_json_open(j, "files", '[');
	for (i = 0; i < s->nfiles; i++) {
		f = profil_report_file(r, i, &name);
		profil_json_open(j, NULL, '{');
		profil_json_str(j, "file", SHOW(name, shown));
		profil_json_str(j, "progname", SHOW(f->hdr.progname, shown));
		profil_json_u64(j, "pid", f->hdr.pid);
		profil_json_u64(j, "program", profil_report_file_program(r, i));
		profil_json_num(j, "achieved_hz", (double)f->hdr.achieved_mhz / 1000.0);
		profil_json_u64(j, "requested_hz", f->hdr.requested_hz);
		profil_json_str(j, "clock", profil_file_clock_name(f->hdr.clock));
		profil_json_str(j, "exit", file_exit(f, &has_code));
		if (has_code)
			profil_json_i64(j, "exit_code", f->hdr.exit_code);
		else
			profil_json_str(j, "exit_code", NULL);
		profil_json_u64(j, "dropped", f->hdr.dropped);
		profil_json_time(j, "time", &s->time[i]);
		profil_json_str(j, "cpu_waits_says", profil_report_cpu_waits_say(r, i, said,
		    sizeof(said)));
		profil_json_close(j, '{');
	}
	profil_json_close(j, '[');
	profil_json_open(j, "programs", '[');
	for (i = 0; i < s->nprograms; i++) {
		pg = &s->programs[i];
		profil_json_open(j, NULL, '{');
		profil_json_str(j, "progname",
		    SHOW(profil_report_file(r, pg->first, NULL)->hdr.progname, shown));
		profil_json_u64(j, "first_file", pg->first);
		profil_json_u64(j, "processes", pg->processes);
		profil_json_time(j, "time", &pg->time);
		profil_json_close(j, '{');
	}
	profil_json_close(j, '[');
	profil_json_close(j, '{');
}

int
profil_report_heading_json(struct profil_report *r, struct profil_json *j)
{
	struct profil_summary s;
	int err = profil_summary_build(r, &s);

	if (err != 0)
		return err;
	summary_json(r, &s, j);
	profil_summary_release(&s);
	return 0;
}

/* The rows of table t: its nentries entries e[], the first limit of them (0: all). */
static int
table_fill(struct profil_flat_table *t, const struct profil_report_entry *e, size_t limit)
{
	double cumulative = 0;
	size_t i;

	t->nrows = limit > 0 && t->nentries > limit ? limit : t->nentries;
	t->rows = calloc(t->nrows + 1, sizeof(*t->rows));
	if (t->rows == NULL)
		return -ENOMEM;
	for (i = 0; i < t->nrows; i++) {
		t->rows[i].e = &e[i];
		t->rows[i].percent = 100.0 * (double)e[i].count / (double)t->total;
		profil_share_interval(e[i].count, t->total, &t->rows[i].lo, &t->rows[i].hi);
		cumulative += e[i].seconds;
		t->rows[i].cumulative = cumulative;
	}
	return 0;
}

int
profil_flat_view_build(struct profil_report *r, size_t limit, struct profil_flat_view *v)
{
	const struct profil_report_entry *e;
	struct profil_flat_table *t;
	struct profil_report_time time;
	size_t i, j, fi, n;
	int err;

	memset(v, 0, sizeof(*v));
	v->split = profil_report_get_split(r);
	e = profil_report_entries(r, &n);
	if (e == NULL && n > 0)
		return -ENOMEM;
	if (v->split != PROFIL_SPLIT_PROCESS && v->split != PROFIL_SPLIT_PROGRAM) {
		v->tables = calloc(1, sizeof(*v->tables));
		if (v->tables == NULL)
			return -ENOMEM;
		v->ntables = 1;
		t = &v->tables[0];
		t->processes = 1;
		t->total = profil_report_total(r);
		t->nentries = n;
		profil_report_time(r, PROFIL_REPORT_ALL, &t->time);
		err = table_fill(t, e, limit);
		if (err != 0)
			profil_flat_view_release(v);
		return err;
	}
	/* One table per file (program), its shares of that file's (program's) ticks, the limit
	 * per table.  Entries come grouped (profil_report_entries). */
	v->tables = calloc(n + 1, sizeof(*v->tables));
	if (v->tables == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		t = &v->tables[v->ntables++];
		t->proc = e[i].proc;
		for (j = i; j < n && e[j].proc == e[i].proc; j++)
			t->total = profil_count_add(t->total, e[j].count);
		t->nentries = j - i;
		t->processes = v->split == PROFIL_SPLIT_PROGRAM ? program_processes(r, t->proc) : 1;
		/* The table's rows are its file's (program's) samples, all of them. */
		for (fi = t->proc; fi < profil_report_nfiles(r); fi++) {
			if (fi != t->proc && (v->split == PROFIL_SPLIT_PROCESS ||
			    profil_report_file_program(r, fi) != t->proc))
				continue;
			profil_report_time(r, fi, &time);
			profil_report_time_add(&t->time, &time);
		}
		err = table_fill(t, e + i, limit);
		if (err != 0) {
			profil_flat_view_release(v);
			return err;
		}
	}
	return 0;
}

void
profil_flat_view_release(struct profil_flat_view *v)
{
	size_t i;

	for (i = 0; v->tables != NULL && i < v->ntables; i++)
		free(v->tables[i].rows);
	free(v->tables);
	memset(v, 0, sizeof(*v));
}

/*
 * The rows of table t; with a split, the TSV rows say whose they are (pid, progname, tid,
 * thread) and with PROFIL_SPLIT_THREAD the table too.
 */
static void
print_rows(struct profil_report *r, enum profil_report_split split,
    const struct profil_flat_table *t, const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_report_entry *e;
	const struct profil_flat_row *row;
	const struct profil_file *f;
	char buf[1024], mod[512], file[4096], path[4096], prog[1024], thread[128], tid[16];
	char pid[16];
	size_t i, len, width = 8;

	if (!opt->tsv) {
		for (i = 0; i < t->nrows; i++) {
			len = strlen(profil_report_entry_name(t->rows[i].e, buf, sizeof(buf)));
			if (len > width)
				width = len < 48 ? len : 48;
		}
		fprintf(out, " %%time  95%% interval   cumulative      self   samples  %s%-*s  "
		    "module\n", split == PROFIL_SPLIT_THREAD ? "    tid  thread           " : "",
		    (int)width, "function");
	}
	for (i = 0; i < t->nrows; i++) {
		row = &t->rows[i];
		e = row->e;
		if (opt->tsv) {
			fprintf(out, "%.4f\t%.4f\t%.4f\t%.6f\t%.6f\t%" PRIu64 "\t%s\t%s\t%s\t%s",
			    row->percent, 100 * row->lo, 100 * row->hi, row->cumulative, e->seconds,
			    e->count, profil_report_entry_name(e, buf, sizeof(buf)),
			    profil_report_entry_module(e, mod, sizeof(mod)),
			    e->file != NULL ? SHOW(e->file, file) : "",
			    e->module != NULL ? SHOW(profil_module_path(e->module), path) : "");
			if (split != PROFIL_SPLIT_NONE) {
				f = profil_report_file(r, e->proc, NULL);
				snprintf(tid, sizeof(tid), "%" PRIu32, e->tid);
				snprintf(pid, sizeof(pid), "%" PRIu32, f->hdr.pid);
				fprintf(out, "\t%s\t%s\t%s\t%s",
				    split == PROFIL_SPLIT_PROGRAM ? "" : pid,
				    SHOW(f->hdr.progname, prog), split == PROFIL_SPLIT_THREAD ? tid : "",
				    SHOW(e->thread, thread));
			}
			fprintf(out, "\n");
			continue;
		}
		fprintf(out, "%6.2f  %5.1f-%5.1f  %11.3f %9.3f %9" PRIu64 "  ", row->percent,
		    100 * row->lo, 100 * row->hi, row->cumulative, e->seconds, e->count);
		if (split == PROFIL_SPLIT_THREAD)
			fprintf(out, "%7" PRIu32 "  %-15s  ", e->tid, SHOW(e->thread, thread));
		fprintf(out, "%-*s  %s\n", (int)width,
		    profil_report_entry_name(e, buf, sizeof(buf)),
		    profil_report_entry_module(e, mod, sizeof(mod)));
	}
}

/* The text and --tsv renderers of the flat view. */
static int
flat_text(struct profil_report *r, const struct profil_flat_view *v,
    const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_flat_table *t;
	const struct profil_file *f;
	const char *name;
	char prog[1024], shown[4096], said[256];
	size_t i;
	int err;

	if (opt->tsv) {
		fprintf(out, "percent\tci_low\tci_high\tcumulative_s\tself_s\tsamples\tfunction\t"
		    "module\tfile\tpath%s\n", v->split == PROFIL_SPLIT_NONE ? "" :
		    "\tpid\tprogname\ttid\tthread");
	} else {
		err = profil_report_summary_print(r, "Flat profile", out);
		if (err != 0)
			return err;
	}
	for (i = 0; i < v->ntables; i++) {
		t = &v->tables[i];
		f = profil_report_file(r, t->proc, &name);
		if (!opt->tsv && v->split == PROFIL_SPLIT_PROCESS)
			fprintf(out, "%s%s[%" PRIu32 "]: %s (%s)\n", i > 0 ? "\n" : "",
			    SHOW(f->hdr.progname, prog), f->hdr.pid,
			    profil_report_time_say(&t->time, 1, said, sizeof(said)),
			    SHOW(name, shown));
		else if (!opt->tsv && v->split == PROFIL_SPLIT_PROGRAM)
			fprintf(out, "%s%s: %zu process%s, %s\n", i > 0 ? "\n" : "",
			    SHOW(f->hdr.progname, prog), t->processes,
			    t->processes == 1 ? "" : "es",
			    profil_report_time_say(&t->time, 1, said, sizeof(said)));
		print_rows(r, v->split, t, opt, out);
	}
	return 0;
}

static const char *const split_names[] = { "none", "process", "thread", "program" };

/* The JSON renderer of the flat view (docs/report-json.md): the TSV's columns, typed. */
static int
flat_json(struct profil_report *r, const struct profil_flat_view *v, FILE *out)
{
	const struct profil_flat_table *t;
	const struct profil_report_entry *e;
	const struct profil_file *f;
	struct profil_json j;
	const char *name;
	char buf[1024], shown[4096];
	size_t i, k;
	int err;

	profil_json_init(&j, out);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "flat");
	profil_json_str(&j, "split", split_names[v->split]);
	err = profil_report_heading_json(r, &j);
	if (err != 0)
		return err;
	profil_json_open(&j, "tables", '[');
	for (i = 0; i < v->ntables; i++) {
		t = &v->tables[i];
		profil_json_open(&j, NULL, '{');
		if (v->split == PROFIL_SPLIT_PROCESS || v->split == PROFIL_SPLIT_PROGRAM) {
			f = profil_report_file(r, t->proc, &name);
			profil_json_str(&j, "progname", SHOW(f->hdr.progname, shown));
			if (v->split == PROFIL_SPLIT_PROCESS) {
				profil_json_u64(&j, "pid", f->hdr.pid);
				profil_json_str(&j, "file", SHOW(name, shown));
			}
			profil_json_u64(&j, "first_file", t->proc);
			profil_json_u64(&j, "processes", t->processes);
		}
		profil_json_u64(&j, "total", t->total);
		profil_json_u64(&j, "nrows_all", t->nentries);
		profil_json_time(&j, "time", &t->time);
		profil_json_open(&j, "rows", '[');
		for (k = 0; k < t->nrows; k++) {
			e = t->rows[k].e;
			profil_json_open(&j, NULL, '{');
			profil_json_num(&j, "percent", t->rows[k].percent);
			profil_json_num(&j, "ci_low", 100 * t->rows[k].lo);
			profil_json_num(&j, "ci_high", 100 * t->rows[k].hi);
			profil_json_num(&j, "cumulative_s", t->rows[k].cumulative);
			profil_json_num(&j, "self_s", e->seconds);
			profil_json_u64(&j, "samples", e->count);
			profil_json_str(&j, "function",
			    profil_report_entry_name(e, buf, sizeof(buf)));
			profil_json_str(&j, "module",
			    profil_report_entry_module(e, shown, sizeof(shown)));
			profil_json_str(&j, "file", e->file != NULL ? SHOW(e->file, shown) : NULL);
			profil_json_str(&j, "path", e->module != NULL ?
			    SHOW(profil_module_path(e->module), shown) : NULL);
			if (v->split != PROFIL_SPLIT_NONE) {
				f = profil_report_file(r, e->proc, NULL);
				if (v->split != PROFIL_SPLIT_PROGRAM)
					profil_json_u64(&j, "pid", f->hdr.pid);
				profil_json_str(&j, "progname", SHOW(f->hdr.progname, shown));
			}
			if (v->split == PROFIL_SPLIT_THREAD) {
				profil_json_u64(&j, "tid", e->tid);
				profil_json_str(&j, "thread", SHOW(e->thread, shown));
			}
			profil_json_close(&j, '{');
		}
		profil_json_close(&j, '[');
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_close(&j, '{');
	return 0;
}

int
profil_report_flat_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	struct profil_flat_view v;
	int err;

	err = profil_flat_view_build(r, opt->limit, &v);
	if (err != 0)
		return err;
	err = opt->json ? flat_json(r, &v, out) : flat_text(r, &v, opt, out);
	profil_flat_view_release(&v);
	if (err != 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
