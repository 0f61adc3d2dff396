/*
 * annotate.c - one function's ticks by source line and by address (--annotate; lines.c says
 * how lines are attributed), with the source file's text, as text and as JSON.
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
#include "report/json.h"
#include "report/lines.h"
#include "report/report.h"
#include "report/symbols.h"

/* A source file larger than this is not shown (its counted lines still are). */
#define SOURCE_MAX_BYTES	(64u << 20)

/*
 * The text of a source file for --annotate, or NULL.  The path comes from debug information,
 * which is input like any other: a FIFO there must not block, and a symbolic link to /dev/zero
 * is a line without end, so only a regular file is read, non-blocking to open, and no more of
 * it than its size said (a /proc file says 0).  The stream reads a copy in memory.
 */
FILE *
profil_source_open(const char *path, char **buf)
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
print_source(const struct profil_line_row *rows, size_t n, const struct profil_flat_options *opt,
    FILE *out)
{
	char text[4096], path[4096], *buf = NULL, shown[4 * 4096];
	int line = 0, first, last;
	size_t i = 0;
	FILE *src;
	const char *file = profil_line_row_path(&rows[0], path, sizeof(path));

	first = rows[0].line > 3 ? rows[0].line - 3 : 1;
	last = rows[n - 1].line + 3;
	src = opt->tsv ? NULL : profil_source_open(file, &buf);
	if (!opt->tsv)
		fprintf(out, "%s%s\n", SHOW(file, shown),
		    src == NULL ? " (not readable: lines with samples only)" : "");
	if (src == NULL) {
		for (i = 0; i < n; i++)
			if (opt->tsv)
				fprintf(out, "line\t%s\t%d\t%" PRIu64 "\t%.4f\t%.6f\n",
				    SHOW(file, shown),
				    rows[i].line, rows[i].count, rows[i].percent,
				    rows[i].seconds);
			else
				fprintf(out, "%9" PRIu64 " %6.2f %6d\n", rows[i].count,
				    rows[i].percent, rows[i].line);
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
			    rows[i].percent, line,
			    profil_escape_text(text, shown, sizeof(shown)));
		else
			fprintf(out, "%9s %6s %6d  %s\n", ".", "", line,
			    profil_escape_text(text, shown, sizeof(shown)));
	}
	fclose(src);
	free(buf);
}

int
profil_annotate_view_build(struct profil_report *r, const char *function,
    struct profil_annotate_view *v)
{
	struct lines ln;
	size_t i;
	int err;

	memset(v, 0, sizeof(*v));
	memset(&ln, 0, sizeof(ln));
	v->function = function;
	v->total = profil_report_total(r);
	ln.function = function;
	err = profil_report_stacks(r, profil_lines_add_leaf, &ln);
	if (err == 0 && ln.matched == 0)
		err = -ENOENT;
	if (err == 0) {
		v->matched = ln.matched;
		v->lines = profil_lines_rows_make(&ln.t, profil_lines_place_cmp, &v->nlines);
		v->addrs = profil_lines_rows_make(&ln.addrs, profil_lines_place_cmp, &v->naddrs);
		if (v->lines == NULL || v->addrs == NULL)
			err = -ENOMEM;
	}
	profil_tally_release(&ln.t);
	profil_tally_release(&ln.addrs);
	if (err != 0) {
		profil_annotate_view_release(v);
		return err;
	}
	for (i = 0; i < v->nlines; i++)
		v->lines[i].percent = 100.0 * (double)v->lines[i].count / (double)v->matched;
	for (i = 0; i < v->naddrs; i++)
		v->addrs[i].percent = 100.0 * (double)v->addrs[i].count / (double)v->matched;
	return 0;
}

void
profil_annotate_view_release(struct profil_annotate_view *v)
{
	profil_lines_rows_free(v->lines, v->nlines);
	profil_lines_rows_free(v->addrs, v->naddrs);
	memset(v, 0, sizeof(*v));
}

/* The text and --tsv renderers of --annotate. */
static int
annotate_text(struct profil_report *r, const struct profil_annotate_view *v,
    const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_line_row *rows = v->lines, *addrs = v->addrs;
	size_t i, j, n = v->nlines, na = v->naddrs;
	int err;

	if (opt->tsv) {
		fprintf(out, "kind\tplace\tline\tsamples\tpercent\tself_s\n");
	} else {
		err = profil_report_summary_print(r, "Annotation", out);
		if (err != 0)
			return err;
		fprintf(out, "%s: %" PRIu64 " samples, %.2f%% of all\n\n", v->function, v->matched,
		    100.0 * (double)v->matched / (double)v->total);
		fprintf(out, "  samples      %%   line  source\n");
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && profil_lines_str_cmp(rows[j].file, rows[i].file) == 0; j++)
			;
		if (rows[i].file == NULL)
			continue;
		if (!opt->tsv && i > 0)
			fprintf(out, "\n");
		print_source(rows + i, j - i, opt, out);
	}
	if (!opt->tsv)
		fprintf(out, "\nBy address:\n  samples      %%  address\n");
	for (i = 0; i < na; i++) {
		char where[512], mod[512];

		snprintf(where, sizeof(where), "%s+0x%" PRIx64,
		    SHOW(profil_line_row_module(&addrs[i]), mod), addrs[i].offset);
		if (opt->tsv)
			fprintf(out, "address\t%s\t\t%" PRIu64 "\t%.4f\t%.6f\n", where,
			    addrs[i].count, addrs[i].percent, addrs[i].seconds);
		else
			fprintf(out, "%9" PRIu64 " %6.2f  %s\n", addrs[i].count, addrs[i].percent,
			    where);
	}
	return 0;
}

/* The JSON renderer of --annotate (docs/report-json.md): no source text, which --tsv has
 * not either; lines and addresses with their counts. */
static int
annotate_json(struct profil_report *r, const struct profil_annotate_view *v, FILE *out)
{
	const struct profil_line_row *row;
	struct profil_json j;
	char path[4096], shown[4 * 4096];
	size_t i;
	int err;

	profil_json_init(&j, out);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "annotate");
	err = profil_report_heading_json(r, &j);
	if (err != 0)
		return err;
	profil_json_str(&j, "function", SHOW(v->function, shown));
	profil_json_u64(&j, "samples", v->matched);
	profil_json_num(&j, "percent", 100.0 * (double)v->matched / (double)v->total);
	profil_json_u64(&j, "total", v->total);
	profil_json_open(&j, "lines", '[');
	for (i = 0; i < v->nlines; i++) {
		row = &v->lines[i];
		if (row->file == NULL)
			continue;
		profil_json_open(&j, NULL, '{');
		profil_json_str(&j, "file", SHOW(profil_line_row_path(row, path, sizeof(path)),
		    shown));
		profil_json_i64(&j, "line", row->line);
		profil_json_u64(&j, "samples", row->count);
		profil_json_num(&j, "percent", row->percent);
		profil_json_num(&j, "self_s", row->seconds);
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_open(&j, "addresses", '[');
	for (i = 0; i < v->naddrs; i++) {
		row = &v->addrs[i];
		profil_json_open(&j, NULL, '{');
		profil_json_str(&j, "module", SHOW(profil_line_row_module(row), shown));
		profil_json_u64(&j, "offset", row->offset);
		profil_json_u64(&j, "samples", row->count);
		profil_json_num(&j, "percent", row->percent);
		profil_json_num(&j, "self_s", row->seconds);
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_close(&j, '{');
	return 0;
}

int
profil_report_annotate_print(struct profil_report *r, const char *function,
    const struct profil_flat_options *opt, FILE *out)
{
	struct profil_annotate_view v;
	int err;

	err = profil_annotate_view_build(r, function, &v);
	if (err != 0)
		return err;
	err = opt->json ? annotate_json(r, &v, out) : annotate_text(r, &v, opt, out);
	profil_annotate_view_release(&v);
	if (err != 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
