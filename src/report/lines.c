/*
 * lines.c - the source line views: the hottest lines (--lines) and one function's ticks by line
 * and by address (--annotate).  A line is the leaf's: the interrupted PC's, never a caller's.
 * Lines are attributed inline-aware: the line executing in the innermost inlined function for
 * --lines, and the line executing in the annotated function (its call of the inlined code, if
 * the code is an inlined callee's) for --annotate.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"
#include "report/tally.h"

/* Names from the profile and the binaries, escaped (escape.h); buf is char[N]. */
#define SHOW(s, buf)	profil_escape((s), (buf), sizeof(buf))

/*
 * A row of either view after merging: rows are counted by (module, file pointer, line) while
 * walking, and merged by file name and line afterwards, since each compilation unit has its
 * own copy of a header's name.
 */
struct line_row {
	const char *file;		/* NULL: no line information, by function or address */
	const char *comp_dir;		/* where a relative file is */
	int line;
	const char *function;		/* innermost function (--lines) */
	const char *outer;		/* the function it is inlined into, or NULL */
	const struct profil_module *module;
	char *label;			/* module+0xoffset or [unmapped]: when nothing names it */
	uint64_t offset;		/* --annotate's addresses */
	uint64_t count;
	double seconds;
};

struct lines {
	struct profil_tally t;		/* ptr[0] the location, ptr[1] the module */
	const char *function;		/* --annotate: the function, else NULL */
	uint64_t matched;		/* --annotate: ticks in it */
	struct profil_tally addrs;	/* --annotate: by module and offset */
};

static int
add_leaf(void *arg, const struct profil_stack *st)
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
		id = profil_tally_get(&ln->addrs, (uintptr_t)fr->module, loc->offset, 1);
		if (id < 0)
			return (int)id;
		ln->addrs.rows[id].count[0] = profil_count_add(ln->addrs.rows[id].count[0], count);
		ln->addrs.rows[id].seconds[0] += (double)count / st->hz;
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
		id = profil_tally_get(&ln->t, (uintptr_t)fr->module, loc->offset, 3);
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
	ln->t.rows[id].seconds[0] += (double)count / st->hz;
	return 0;
}

/* Fills row from a tally row: names from the location that was first seen there. */
static int
row_fill(struct line_row *row, const struct profil_tally_row *t)
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
	row->offset = loc->offset;
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
		    loc->offset);
		row->label = strdup(buf);
		return row->label != NULL ? 0 : -ENOMEM;
	}
	return 0;
}

static const char *
row_function(const struct line_row *row)
{
	return row->function != NULL ? row->function : row->label;
}

static const char *
row_module(const struct line_row *row)
{
	return row->module != NULL ? profil_module_name(row->module) : "?";
}

static int
str_cmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b ? 0 : a == NULL ? 1 : -1;
	return strcmp(a, b);
}

/* Where a row is: file and line, then function and module (rows without a line). */
static int
place_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	int c = str_cmp(x->file, y->file);

	if (c != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->file != NULL)
		return 0;
	c = str_cmp(row_function(x), row_function(y));
	if (c != 0)
		return c;
	c = strcmp(row_module(x), row_module(y));
	if (c != 0)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int
count_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return place_cmp(a, b);
}

static void
rows_free(struct line_row *rows, size_t n)
{
	size_t i;

	for (i = 0; rows != NULL && i < n; i++)
		free(rows[i].label);
	free(rows);
}

/* The rows of t, merged by place (same file name and line) and sorted by cmp; *n rows. */
static struct line_row *
rows_make(const struct profil_tally *t, int (*cmp)(const void *, const void *), size_t *n)
{
	struct line_row *rows = calloc(t->n + 1, sizeof(*rows));
	size_t i, k = 0;

	*n = 0;
	if (rows == NULL)
		return NULL;
	for (i = 0; i < t->n; i++) {
		if (row_fill(&rows[i], &t->rows[i]) != 0) {
			rows_free(rows, i + 1);
			return NULL;
		}
	}
	qsort(rows, t->n, sizeof(*rows), place_cmp);
	for (i = 0; i < t->n; i++) {
		if (k > 0 && rows[i].file != NULL && place_cmp(&rows[k - 1], &rows[i]) == 0) {
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

/* A row's file as it can be opened: DWARF names files as the compiler was given them,
 * relative to its directory. */
static const char *
row_path(const struct line_row *row, char *buf, size_t len)
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
profil_report_lines_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	uint64_t total = profil_report_total(r);
	struct lines ln;
	struct line_row *rows;
	char place[512], path[4096], shown[4 * 4096], fn[1024], outer[1024], mod[512];
	double lo, hi;
	size_t i, n = 0, nrows = 0;
	int err;

	memset(&ln, 0, sizeof(ln));
	err = profil_report_stacks(r, add_leaf, &ln);
	rows = err == 0 ? rows_make(&ln.t, count_cmp, &nrows) : NULL;
	if (err == 0 && rows == NULL)
		err = -ENOMEM;
	profil_tally_release(&ln.t);
	if (err != 0)
		return err;
	n = opt->limit > 0 && nrows > opt->limit ? opt->limit : nrows;
	if (opt->tsv)
		fprintf(out, "percent\tci_low\tci_high\tself_s\tsamples\tfile\tline\tfunction\t"
		    "inlined_into\tmodule\n");
	else {
		profil_report_summary_print(r, "Source lines", out);
		fprintf(out, " %%time  95%% interval       self   samples  %-28s  function "
		    "(inlined into)  module\n", "file:line");
	}
	for (i = 0; i < n; i++) {
		profil_share_interval(rows[i].count, total, &lo, &hi);
		if (opt->tsv) {
			fprintf(out, "%.4f\t%.4f\t%.4f\t%.6f\t%" PRIu64 "\t%s\t%d\t%s\t%s\t%s\n",
			    100.0 * (double)rows[i].count / (double)total, 100 * lo, 100 * hi,
			    rows[i].seconds, rows[i].count,
			    SHOW(row_path(&rows[i], path, sizeof(path)), shown), rows[i].line,
			    SHOW(row_function(&rows[i]), fn),
			    rows[i].outer != NULL ? SHOW(rows[i].outer, outer) : "",
			    SHOW(row_module(&rows[i]), mod));
			continue;
		}
		if (rows[i].file != NULL)
			snprintf(place, sizeof(place), "%s:%d",
			    SHOW(base_name(rows[i].file), shown), rows[i].line);
		else
			snprintf(place, sizeof(place), "??");
		fprintf(out, "%6.2f  %5.1f-%5.1f  %9.3f %9" PRIu64 "  %-28s  %s%s%s%s  %s\n",
		    100.0 * (double)rows[i].count / (double)total, 100 * lo, 100 * hi,
		    rows[i].seconds, rows[i].count, place, SHOW(row_function(&rows[i]), fn),
		    rows[i].outer != NULL ? " (" : "",
		    rows[i].outer != NULL ? SHOW(rows[i].outer, outer) : "",
		    rows[i].outer != NULL ? ")" : "", SHOW(row_module(&rows[i]), mod));
	}
	rows_free(rows, nrows);
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

/* A source file larger than this is not shown (its counted lines still are). */
#define SOURCE_MAX_BYTES	(64u << 20)

/*
 * The text of a source file for --annotate, or NULL.  The path comes from debug information,
 * which is input like any other: a FIFO there must not block, and a symbolic link to /dev/zero
 * is a line without end, so only a regular file is read, non-blocking to open, and no more of
 * it than its size said (a /proc file says 0).  The stream reads a copy in memory.
 */
static FILE *
source_open(const char *path, char **buf)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	FILE *f;
	int fd;

	*buf = NULL;
	fd = profil_file_open_regular(path, &st);
	if (fd < 0)
		return NULL;
	if (st.st_size <= 0 ||
	    (uint64_t)st.st_size > SOURCE_MAX_BYTES || (*buf = malloc((size_t)st.st_size)) == NULL) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	f = got > 0 ? fmemopen(*buf, got, "r") : NULL;
	if (f == NULL) {
		free(*buf);
		*buf = NULL;
	}
	return f;
}

/*
 * The source of one file from line first to last, each line with its ticks; a file that
 * cannot be read prints the counted lines alone (the caller said so once).
 */
static void
print_source(const struct line_row *rows, size_t n, uint64_t matched,
    const struct profil_flat_options *opt, FILE *out)
{
	char text[4096], path[4096], *buf = NULL, shown[4 * 4096];
	int line = 0, first, last;
	size_t i = 0;
	FILE *src;
	const char *file = row_path(&rows[0], path, sizeof(path));

	first = rows[0].line > 3 ? rows[0].line - 3 : 1;
	last = rows[n - 1].line + 3;
	src = opt->tsv ? NULL : source_open(file, &buf);
	if (!opt->tsv)
		fprintf(out, "%s%s\n", SHOW(file, shown),
		    src == NULL ? " (not readable: lines with samples only)" : "");
	if (src == NULL) {
		for (i = 0; i < n; i++)
			if (opt->tsv)
				fprintf(out, "line\t%s\t%d\t%" PRIu64 "\t%.4f\t%.6f\n",
				    SHOW(file, shown),
				    rows[i].line, rows[i].count,
				    100.0 * (double)rows[i].count / (double)matched,
				    rows[i].seconds);
			else
				fprintf(out, "%9" PRIu64 " %6.2f %6d\n", rows[i].count,
				    100.0 * (double)rows[i].count / (double)matched, rows[i].line);
		return;
	}
	while (fgets(text, sizeof(text), src) != NULL && ++line <= last) {
		/* A line longer than the buffer: its rest is not a line of its own. */
		while (strchr(text, '\n') == NULL && !feof(src)) {
			char rest[4096];

			if (fgets(rest, sizeof(rest), src) == NULL)
				break;
			if (strchr(rest, '\n') != NULL)
				break;
		}
		text[strcspn(text, "\n")] = '\0';
		if (line < first)
			continue;
		while (i < n && rows[i].line < line)
			i++;
		if (i < n && rows[i].line == line)
			fprintf(out, "%9" PRIu64 " %6.2f %6d  %s\n", rows[i].count,
			    100.0 * (double)rows[i].count / (double)matched, line,
			    profil_escape_text(text, shown, sizeof(shown)));
		else
			fprintf(out, "%9s %6s %6d  %s\n", ".", "", line,
			    profil_escape_text(text, shown, sizeof(shown)));
	}
	fclose(src);
	free(buf);
}

int
profil_report_annotate_print(struct profil_report *r, const char *function,
    const struct profil_flat_options *opt, FILE *out)
{
	struct line_row *rows = NULL, *addrs = NULL;
	size_t i, j, n = 0, na = 0;
	struct lines ln;
	int err;

	memset(&ln, 0, sizeof(ln));
	ln.function = function;
	err = profil_report_stacks(r, add_leaf, &ln);
	if (err == 0 && ln.matched == 0)
		err = -ENOENT;
	if (err == 0) {
		rows = rows_make(&ln.t, place_cmp, &n);
		addrs = rows_make(&ln.addrs, place_cmp, &na);
		if (rows == NULL || addrs == NULL)
			err = -ENOMEM;
	}
	profil_tally_release(&ln.t);
	profil_tally_release(&ln.addrs);
	if (err != 0) {
		rows_free(rows, n);
		rows_free(addrs, na);
		return err;
	}
	if (opt->tsv) {
		fprintf(out, "kind\tplace\tline\tsamples\tpercent\tself_s\n");
	} else {
		profil_report_summary_print(r, "Annotation", out);
		fprintf(out, "%s: %" PRIu64 " samples, %.2f%% of all\n\n", function, ln.matched,
		    100.0 * (double)ln.matched / (double)profil_report_total(r));
		fprintf(out, "  samples      %%   line  source\n");
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && str_cmp(rows[j].file, rows[i].file) == 0; j++)
			;
		if (rows[i].file == NULL)
			continue;
		if (!opt->tsv && i > 0)
			fprintf(out, "\n");
		print_source(rows + i, j - i, ln.matched, opt, out);
	}
	if (!opt->tsv)
		fprintf(out, "\nBy address:\n  samples      %%  address\n");
	for (i = 0; i < na; i++) {
		char where[512], mod[512];

		snprintf(where, sizeof(where), "%s+0x%" PRIx64, SHOW(row_module(&addrs[i]), mod),
		    addrs[i].offset);
		if (opt->tsv)
			fprintf(out, "address\t%s\t\t%" PRIu64 "\t%.4f\t%.6f\n", where,
			    addrs[i].count, 100.0 * (double)addrs[i].count / (double)ln.matched,
			    addrs[i].seconds);
		else
			fprintf(out, "%9" PRIu64 " %6.2f  %s\n", addrs[i].count,
			    100.0 * (double)addrs[i].count / (double)ln.matched, where);
	}
	rows_free(rows, n);
	rows_free(addrs, na);
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
