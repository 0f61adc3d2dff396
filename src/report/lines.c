/*
 * lines.c - the source line views: the hottest lines (--lines) and one function's ticks by line
 * and by address (--annotate).  A line is the leaf's: the interrupted PC's, never a caller's.
 * Lines are attributed inline-aware: the line executing in the innermost inlined function for
 * --lines, and the line executing in the annotated function (its call of the inlined code, if
 * the code is an inlined callee's) for --annotate.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/escape.h"
#include "report/json.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"
#include "report/tally.h"
#include "report/view.h"
#include "report/lines.h"

int
profil_lines_add_leaf(void *arg, const struct profil_stack *st)
{
	struct lines *ln = arg;
	const struct profil_stack_frame *fr = &st->frames[0];
	const struct profil_location *loc = fr->loc;
	const struct profil_frame *lf = NULL;
	uint64_t count = st->sample->count;
	size_t i = 0;
	ssize_t id;

	if (ln->function != NULL) {
		/* The innermost inline level that is the function asked for. */
		if (loc == NULL)
			return 0;
		for (i = 0; i < loc->nframes; i++)
			if (loc->frames[i].function != NULL &&
			    strcmp(loc->frames[i].function, ln->function) == 0)
				break;
		if (i == loc->nframes)
			return 0;
		ln->matched = profil_count_add(ln->matched, count);
		/* Odd third key: a place without a line, never merged with another. */
		id = profil_tally_get(&ln->addrs, (uintptr_t)fr->module, fr->offset, 1);
		if (id < 0)
			return (int)id;
		ln->addrs.rows[id].count[0] = profil_count_add(ln->addrs.rows[id].count[0], count);
		ln->addrs.rows[id].seconds[0] += st->seconds;
		ln->addrs.rows[id].ptr[0] = loc;
		ln->addrs.rows[id].ptr[1] = fr->module;
	}
	if (loc != NULL)
		lf = &loc->frames[i];
	if (lf != NULL && lf->file != NULL && lf->line > 0)
		id = profil_tally_get(&ln->t, (uintptr_t)fr->module, (uintptr_t)lf->file,
		    (uint64_t)lf->line << 1);
	else if (loc != NULL && loc->known)
		id = profil_tally_get(&ln->t, (uintptr_t)fr->module, loc->function_start,
		    loc->known == PROFIL_LOCATION_UNWIND ? 7 : 1);
	else if (loc != NULL)
		id = profil_tally_get(&ln->t, (uintptr_t)fr->module, fr->offset, 3);
	else
		id = profil_tally_get(&ln->t, 0, 0, 5);
	if (id < 0)
		return (int)id;
	if (ln->t.rows[id].count[0] == 0) {
		ln->t.rows[id].ptr[0] = loc;
		ln->t.rows[id].ptr[1] = fr->module;
		ln->t.rows[id].count[1] = i;	/* the inline level that named it */
	}
	ln->t.rows[id].count[0] = profil_count_add(ln->t.rows[id].count[0], count);
	ln->t.rows[id].seconds[0] += st->seconds;
	return 0;
}

/* Fills row from a tally row: names from the location that was first seen there. */
static int
row_fill(struct profil_line_row *row, const struct profil_tally_row *t)
{
	const struct profil_location *loc = t->ptr[0];
	size_t i = (size_t)t->count[1];
	char buf[256];

	memset(row, 0, sizeof(*row));
	row->module = t->ptr[1];
	row->count = t->count[0];
	row->seconds = t->seconds[0];
	if (loc == NULL) {
		row->label = strdup("[unmapped]");
		return row->label != NULL ? 0 : -ENOMEM;
	}
	/* A bare location is its module's, shared: the row's key holds the offset. */
	row->offset = t->key[2] == 3 ? t->key[1] : loc->offset;
	row->function = loc->frames[i].function;
	if (i + 1 < loc->nframes)
		row->outer = loc->frames[loc->nframes - 1].function;
	if ((t->key[2] & 1) == 0) {
		row->file = loc->frames[i].file;
		row->line = loc->frames[i].line;
		row->comp_dir = loc->comp_dir;
	}
	if (row->function == NULL) {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, profil_module_name(row->module),
		    row->offset);
		row->label = strdup(buf);
		return row->label != NULL ? 0 : -ENOMEM;
	}
	return 0;
}

const char *
profil_line_row_function(const struct profil_line_row *row)
{
	return row->function != NULL ? row->function : row->label;
}

const char *
profil_line_row_module(const struct profil_line_row *row)
{
	return row->module != NULL ? profil_module_name(row->module) : "?";
}

int
profil_lines_str_cmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b ? 0 : a == NULL ? 1 : -1;
	return strcmp(a, b);
}

/* Where a row is: file and line, then function and module (rows without a line). */
int
profil_lines_place_cmp(const void *a, const void *b)
{
	const struct profil_line_row *x = a, *y = b;
	int c = profil_lines_str_cmp(x->file, y->file);

	if (c != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->file != NULL)
		return 0;
	c = profil_lines_str_cmp(profil_line_row_function(x), profil_line_row_function(y));
	if (c != 0)
		return c;
	c = strcmp(profil_line_row_module(x), profil_line_row_module(y));
	if (c != 0)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int
count_cmp(const void *a, const void *b)
{
	const struct profil_line_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return profil_lines_place_cmp(a, b);
}

void
profil_lines_rows_free(struct profil_line_row *rows, size_t n)
{
	size_t i;

	for (i = 0; rows != NULL && i < n; i++)
		free(rows[i].label);
	free(rows);
}

/* The rows of t, merged by place (same file name and line) and sorted by cmp; *n rows. */
struct profil_line_row *
profil_lines_rows_make(const struct profil_tally *t, int (*cmp)(const void *, const void *),
    size_t *n)
{
	struct profil_line_row *rows = calloc(t->n + 1, sizeof(*rows));
	size_t i, k = 0;

	*n = 0;
	if (rows == NULL)
		return NULL;
	for (i = 0; i < t->n; i++) {
		if (row_fill(&rows[i], &t->rows[i]) != 0) {
			profil_lines_rows_free(rows, i + 1);
			return NULL;
		}
	}
	qsort(rows, t->n, sizeof(*rows), profil_lines_place_cmp);
	for (i = 0; i < t->n; i++) {
		if (k > 0 && rows[i].file != NULL &&
		    profil_lines_place_cmp(&rows[k - 1], &rows[i]) == 0) {
			rows[k - 1].count = profil_count_add(rows[k - 1].count, rows[i].count);
			rows[k - 1].seconds += rows[i].seconds;
			free(rows[i].label);
			continue;
		}
		rows[k++] = rows[i];
	}
	qsort(rows, k, sizeof(*rows), cmp);
	*n = k;
	return rows;
}

const char *
profil_line_row_path(const struct profil_line_row *row, char *buf, size_t len)
{
	if (row->file == NULL)
		return "";
	if (row->file[0] == '/' || row->comp_dir == NULL)
		return row->file;
	snprintf(buf, len, "%s/%s", row->comp_dir, row->file);
	return buf;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

int
profil_lines_view_build(struct profil_report *r, size_t limit, struct profil_lines_view *v)
{
	struct profil_line_row *row;
	struct lines ln;
	size_t i;
	int err;

	memset(v, 0, sizeof(*v));
	memset(&ln, 0, sizeof(ln));
	v->total = profil_report_total(r);
	err = profil_report_stacks(r, profil_lines_add_leaf, &ln);
	v->rows = err == 0 ? profil_lines_rows_make(&ln.t, count_cmp, &v->nall) : NULL;
	if (err == 0 && v->rows == NULL)
		err = -ENOMEM;
	profil_tally_release(&ln.t);
	if (err != 0)
		return err;
	v->nrows = limit > 0 && v->nall > limit ? limit : v->nall;
	for (i = 0; i < v->nrows; i++) {
		row = &v->rows[i];
		row->percent = 100.0 * (double)row->count / (double)v->total;
		profil_share_interval(row->count, v->total, &row->lo, &row->hi);
	}
	return 0;
}

void
profil_lines_view_release(struct profil_lines_view *v)
{
	profil_lines_rows_free(v->rows, v->nall);
	memset(v, 0, sizeof(*v));
}

/* The text and --tsv renderers of --lines. */
static void
lines_text(const struct profil_lines_view *v, const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_line_row *row;
	char place[512], path[4096], shown[4 * 4096], fn[1024], outer[1024], mod[512];
	size_t i;

	if (opt->tsv)
		fprintf(out, "percent\tci_low\tci_high\tself_s\tsamples\tfile\tline\tfunction\t"
		    "inlined_into\tmodule\n");
	else
		fprintf(out, " %%time  95%% interval       self   samples  %-28s  function "
		    "(inlined into)  module\n", "file:line");
	for (i = 0; i < v->nrows; i++) {
		row = &v->rows[i];
		if (opt->tsv) {
			fprintf(out, "%.4f\t%.4f\t%.4f\t%.6f\t%" PRIu64 "\t%s\t%d\t%s\t%s\t%s\n",
			    row->percent, 100 * row->lo, 100 * row->hi, row->seconds, row->count,
			    SHOW(profil_line_row_path(row, path, sizeof(path)), shown), row->line,
			    SHOW(profil_line_row_function(row), fn),
			    row->outer != NULL ? SHOW(row->outer, outer) : "",
			    SHOW(profil_line_row_module(row), mod));
			continue;
		}
		if (row->file != NULL)
			snprintf(place, sizeof(place), "%s:%d", SHOW(base_name(row->file), shown),
			    row->line);
		else
			snprintf(place, sizeof(place), "??");
		fprintf(out, "%6.2f  %5.1f-%5.1f  %9.3f %9" PRIu64 "  %-28s  %s%s%s%s  %s\n",
		    row->percent, 100 * row->lo, 100 * row->hi, row->seconds, row->count, place,
		    SHOW(profil_line_row_function(row), fn), row->outer != NULL ? " (" : "",
		    row->outer != NULL ? SHOW(row->outer, outer) : "",
		    row->outer != NULL ? ")" : "", SHOW(profil_line_row_module(row), mod));
	}
}

/* The JSON renderer of --lines (docs/report-json.md): the TSV's columns, typed. */
static int
lines_json(struct profil_report *r, const struct profil_lines_view *v, FILE *out)
{
	const struct profil_line_row *row;
	struct profil_json j;
	char path[4096], shown[4 * 4096];
	size_t i;
	int err;

	profil_json_init(&j, out);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "lines");
	err = profil_report_heading_json(r, &j);
	if (err != 0)
		return err;
	profil_json_u64(&j, "total", v->total);
	profil_json_u64(&j, "nrows_all", v->nall);
	profil_json_open(&j, "rows", '[');
	for (i = 0; i < v->nrows; i++) {
		row = &v->rows[i];
		profil_json_open(&j, NULL, '{');
		profil_json_num(&j, "percent", row->percent);
		profil_json_num(&j, "ci_low", 100 * row->lo);
		profil_json_num(&j, "ci_high", 100 * row->hi);
		profil_json_num(&j, "self_s", row->seconds);
		profil_json_u64(&j, "samples", row->count);
		profil_json_str(&j, "file", row->file == NULL ? NULL :
		    SHOW(profil_line_row_path(row, path, sizeof(path)), shown));
		profil_json_str(&j, "file_name", row->file == NULL ? NULL :
		    SHOW(base_name(row->file), shown));
		if (row->file != NULL)
			profil_json_i64(&j, "line", row->line);
		else
			profil_json_str(&j, "line", NULL);
		profil_json_str(&j, "function", SHOW(profil_line_row_function(row), shown));
		profil_json_str(&j, "inlined_into", row->outer == NULL ? NULL :
		    SHOW(row->outer, shown));
		profil_json_str(&j, "module", SHOW(profil_line_row_module(row), shown));
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_close(&j, '{');
	return 0;
}

int
profil_report_lines_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	struct profil_lines_view v;
	int err;

	err = profil_lines_view_build(r, opt->limit, &v);
	if (err == 0 && opt->json)
		err = lines_json(r, &v, out);
	else if (err == 0 && !opt->tsv)
		err = profil_report_summary_print(r, "Source lines", out);
	if (err == 0 && !opt->json)
		lines_text(&v, opt, out);
	profil_lines_view_release(&v);
	if (err != 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

