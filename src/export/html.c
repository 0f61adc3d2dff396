/*
 * html.c - the viewer: one self-contained HTML page (docs/viewer.md).  The page is the viewer's
 * style and script (src/export/viewer/, compiled into the command) and the profile as JSON data
 * in a <script type="application/json"> element, which the script reads and draws.  Nothing is
 * loaded from anywhere else, so the file works from file:// and offline.
 *
 * The data is the tree of frames the flame graph export draws (tree.h, named as `profil report`
 * names them), each sample record's leaf node, thread and count, the TIME records' slots, the
 * hottest source lines and, with a base, the --diff rows.  Names come from files anyone can
 * write (a perf map in /tmp, a program's own thread names): they are written as JSON strings in
 * which '<', '>' and '&' are \u escapes, so no name can end the element or start markup, and
 * the script only ever puts them into the page as text.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "export/export.h"
#include "export/threads.h"
#include "export/tree.h"
#include "export/viewer/assets.h"
#include "format/format.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"
#include "report/view.h"

/* Source line rows at most: the hottest, enough for any function a person looks at. */
#define HTML_MAX_LINES	20000

/* What the walk over the samples collects. */
struct html {
	struct profil_report *r;
	FILE *out;
	struct profil_strtab strs;	/* every string of the data, as shown */
	struct profil_thread_table threads;
	uint32_t **stack_of;		/* per file, per sample record: its stack number */
	size_t nstacks;
	/* The names of code nothing names (tree.h's bare nodes), module+0xoffset, the strings
	 * after strs' rows, made when written rather than interned: a file of deep distinct
	 * stacks has one for almost every frame, and interning each cost some 40 bytes a frame
	 * (issue 19). */
	struct bare_name *bare;
	size_t nbare;
	int err;
};

/* A bare name: its module (a row of strs, as shown) and offset; node while they are sorted. */
struct bare_name {
	uint64_t offset;
	uint32_t module;
	uint32_t node;
};

/*
 * A string shown as `profil report` shows it (profil_escape()), as JSON (profil_escape_json()),
 * with '<', '>', '&' and the two JavaScript line separators escaped too, so that the string is
 * data inside a <script> element whatever it holds.
 */
static void
json_str(FILE *out, const char *shown)
{
	char js[6 * 4 * 4096 + 8];
	const unsigned char *s;

	s = (const unsigned char *)profil_escape_json(shown, js, sizeof(js));
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '<' || *s == '>' || *s == '&')
			fprintf(out, "\\u%04x", *s);
		else if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) {
			fprintf(out, "\\u%04x", s[2] == 0xa8 ? 0x2028 : 0x2029);
			s += 2;
		} else
			fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * The number of string s in the data's table, or -1 for NULL or out of memory (said in
 * h->err).  The table holds names as shown: raw ones are escaped (escape.h) first.
 */
static long
str_shown_id(struct html *h, const char *s)
{
	ssize_t i;
	int added;

	if (s == NULL)
		return -1;
	i = profil_strtab_intern(&h->strs, s, &added);
	if (i < 0) {
		h->err = -ENOMEM;
		return -1;
	}
	return (long)i;
}

static long
str_id(struct html *h, const char *raw)
{
	char shown[4 * 4096 + 8];

	return raw == NULL ? -1 : str_shown_id(h, profil_escape(raw, shown, sizeof(shown)));
}

/* One sample record: "leaf node, thread, count, waiting" in the array "stacks". */
static int
add_stack(void *arg, const struct profil_stack *st, size_t leaf)
{
	struct html *h = arg;
	size_t k = (size_t)(st->sample - st->file->samples);
	ssize_t th = profil_thread_table_get(&h->threads, st->file_index, st->sample->tid);

	if (th < 0)
		return (int)th;
	h->stack_of[st->file_index][k] = (uint32_t)h->nstacks;
	fprintf(h->out, "%s%zu,%zd,%" PRIu64 ",%d", h->nstacks > 0 ? "," : "", leaf, th,
	    st->sample->count, profil_pc_is_wait(st->sample->pcs[0]));
	h->nstacks++;
	return 0;
}

static int
bare_cmp(const void *a, const void *b)
{
	const struct bare_name *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * The names of t's bare nodes: the distinct ones sorted in h->bare (h->nbare of them), and
 * each node's in id[] (h->bare's row).  module+0xoffset is one function wherever it is
 * called from, so its nodes share one string, as interned names do.  Returns 0 or -ENOMEM.
 */
static int
bare_names(struct html *h, const struct profil_tree *t, uint32_t *id)
{
	struct bare_name *b, *shrunk;
	size_t n, k = 0, i;

	for (n = 1; n < t->n; n++)
		k += t->nodes[n].bare;
	b = malloc((k + 1) * sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	for (n = 1, k = 0; n < t->n; n++) {
		long m;

		if (!t->nodes[n].bare)
			continue;
		if ((m = str_id(h, t->nodes[n].module)) < 0) {
			free(b);
			return -ENOMEM;
		}
		b[k++] = (struct bare_name){ t->nodes[n].u.offset, (uint32_t)m, (uint32_t)n };
	}
	qsort(b, k, sizeof(*b), bare_cmp);
	/* Each distinct name moved down to its number, below every entry still to be read. */
	for (i = 0, n = 0; i < k; i++) {
		uint32_t node = b[i].node;

		if (n == 0 || bare_cmp(&b[n - 1], &b[i]) != 0)
			b[n++] = b[i];
		id[node] = (uint32_t)(n - 1);
	}
	shrunk = realloc(b, (n + 1) * sizeof(*b));
	h->bare = shrunk != NULL ? shrunk : b;
	h->nbare = n;
	return 0;
}

/* The tree's nodes but the root: "parent, name, module, flags" (1 inlined, 2 unnamed, 4 a
 * label: the program, process or thread the code ran in, tree.h); a bare node's name is the
 * string after every row of strs given by id[node] (bare_names()), so every other name is
 * interned first. */
static int
print_nodes(struct html *h, const struct profil_tree *t, const uint32_t *id)
{
	size_t n, base;

	for (n = 1; n < t->n; n++) {
		if (!t->nodes[n].bare)
			str_id(h, t->nodes[n].u.name);
		str_id(h, t->nodes[n].module);
	}
	base = h->strs.n;
	fputs(",\n\"nodes\":[", h->out);
	for (n = 1; n < t->n; n++) {
		const struct profil_tree_node *nd = &t->nodes[n];
		long name;
		int flags = nd->inlined | nd->label << 2;

		if (nd->bare) {
			name = (long)(base + id[n]);
			flags |= 2;
		} else {
			name = str_id(h, nd->u.name);
			flags |= (strcmp(nd->u.name, "[unmapped]") == 0 ||
			    strncmp(nd->u.name, "[stack cut", 10) == 0) << 1;
		}
		fprintf(h->out, "%s%u,%ld,%ld,%d", n > 1 ? "," : "", nd->parent, name,
		    str_id(h, nd->module), flags);
	}
	fputs("]", h->out);
	return h->err;
}

/* The files (processes): "pid, program, start and end (ns after the first start), slot
 * width" each, and their threads: "file, tid, name". */
static void
print_processes(struct html *h, uint64_t start)
{
	size_t i, k, n = profil_report_nfiles(h->r);

	fputs(",\n\"processes\":[", h->out);
	for (i = 0; i < n; i++) {
		const struct profil_file *f = profil_report_file(h->r, i, NULL);

		fprintf(h->out, "%s[%" PRIu32 ",%ld,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
		    i > 0 ? "," : "", f->hdr.pid, str_id(h, f->hdr.progname),
		    f->hdr.start_ns - start,
		    (f->hdr.end_ns > f->hdr.start_ns ? f->hdr.end_ns : f->hdr.start_ns) - start,
		    f->slot_ns);
	}
	fputs("],\n\"threads\":[", h->out);
	for (i = 0; i < h->threads.n; i++) {
		const struct profil_thread_id *id = &h->threads.ids[i];
		const struct profil_file *f = profil_report_file(h->r, id->file, NULL);
		const char *name = "";

		for (k = 0; k < f->nthreads; k++)
			if (f->threads[k].tid == id->tid)
				name = f->threads[k].name;
		fprintf(h->out, "%s%zu,%" PRIu32 ",%ld", i > 0 ? "," : "", id->file, id->tid,
		    str_id(h, name));
	}
	fputs("]", h->out);
}

static int
time_cmp(const void *a, const void *b)
{
	const struct profil_file_time *x = a, *y = b;

	if (x->sample != y->sample)
		return x->sample < y->sample ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * When the ticks were taken, by stack: "stack, n" then n entries in slot order (slots of the
 * stack's file), each "slot - the previous slot (0 first), count", or, for a count of 1 (most
 * of them), the one number -(difference) - 1.  A minute of a million ticks is 6 MB so, not 13.
 */
static int
print_times(struct html *h)
{
	size_t i, k, n = profil_report_nfiles(h->r), nt = 0, first = 1, group;
	struct profil_file_time *t;

	for (i = 0; i < n; i++)
		nt += profil_report_file(h->r, i, NULL)->ntimes;
	t = malloc((nt + 1) * sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	nt = 0;
	for (i = 0; i < n; i++) {
		const struct profil_file *f = profil_report_file(h->r, i, NULL);

		for (k = 0; k < f->ntimes; k++) {
			uint32_t s = h->stack_of[i][f->times[k].sample];

			if (s == UINT32_MAX)
				continue;
			t[nt] = f->times[k];
			t[nt++].sample = s;
		}
	}
	/* Grouped by stack and in slot order; a (stack, slot) pair seen twice is added. */
	qsort(t, nt, sizeof(*t), time_cmp);
	for (i = 0, k = 0; i < nt; i++) {
		if (k > 0 && t[k - 1].sample == t[i].sample && t[k - 1].slot == t[i].slot)
			t[k - 1].count = profil_count_add(t[k - 1].count, t[i].count);
		else
			t[k++] = t[i];
	}
	nt = k;
	fputs(",\n\"times\":[", h->out);
	for (i = 0; i < nt; i = group) {
		uint32_t prev = 0;

		for (group = i; group < nt && t[group].sample == t[i].sample; group++)
			;
		fprintf(h->out, "%s%" PRIu32 ",%zu", first ? "" : ",", t[i].sample, group - i);
		first = 0;
		for (k = i; k < group; k++) {
			if (t[k].count == 1)
				fprintf(h->out, ",-%" PRIu32, t[k].slot - prev + 1);
			else
				fprintf(h->out, ",%" PRIu32 ",%" PRIu64, t[k].slot - prev,
				    t[k].count);
			prev = t[k].slot;
		}
	}
	fputs("]", h->out);
	free(t);
	return 0;
}

/* A source line as the page shows it: tabs as spaces, at most 240 bytes, no line break. */
static long
line_text(struct html *h, const char *line)
{
	char text[256];
	size_t i, k = 0;

	for (i = 0; line[i] != '\0' && line[i] != '\n' && k + 5 < sizeof(text) - 12; i++) {
		if (line[i] == '\t') {
			memcpy(text + k, "    ", 4);
			k += 4;
		} else if (line[i] != '\r') {
			text[k++] = line[i];
		}
	}
	text[k] = '\0';
	return str_id(h, text);
}

struct line_ref {
	char *path;
	int line;
	size_t row;
};

static int
line_ref_cmp(const void *a, const void *b)
{
	const struct line_ref *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* The text of each row's line, -1 where its file cannot be read: each file read once. */
static int
line_texts(struct html *h, const struct profil_lines_view *v, long *text)
{
	struct line_ref *refs = calloc(v->nrows + 1, sizeof(*refs));
	size_t i, n = 0, g;
	char path[4096];
	int err = 0;

	if (refs == NULL)
		return -ENOMEM;
	for (i = 0; i < v->nrows; i++) {
		text[i] = -1;
		if (v->rows[i].file == NULL)
			continue;
		refs[n].path = strdup(profil_line_row_path(&v->rows[i], path, sizeof(path)));
		if (refs[n].path == NULL) {
			err = -ENOMEM;
			break;
		}
		refs[n].line = v->rows[i].line;
		refs[n++].row = i;
	}
	qsort(refs, n, sizeof(*refs), line_ref_cmp);
	for (i = 0; err == 0 && i < n; i = g) {
		char *buf, *line = NULL;
		size_t cap = 0;
		int at = 0;
		FILE *f = profil_source_open(refs[i].path, &buf);

		for (g = i; g < n && strcmp(refs[g].path, refs[i].path) == 0; g++) {
			while (f != NULL && at < refs[g].line && getline(&line, &cap, f) >= 0)
				at++;
			if (f != NULL && at == refs[g].line && line != NULL)
				text[refs[g].row] = line_text(h, line);
		}
		free(line);
		if (f != NULL) {
			fclose(f);
			free(buf);
		}
	}
	for (i = 0; i < n; i++)
		free(refs[i].path);
	free(refs);
	return err != 0 ? err : h->err;
}

/* The hottest source lines: "function, file, line, ticks, text" (text -1: not readable). */
static int
print_lines(struct html *h)
{
	struct profil_lines_view v;
	char path[4096];
	size_t i, first = 1;
	long *text;
	int err;

	err = profil_lines_view_build(h->r, HTML_MAX_LINES, &v);
	if (err != 0)
		return err;
	text = calloc(v.nrows + 1, sizeof(*text));
	err = text == NULL ? -ENOMEM : line_texts(h, &v, text);
	fputs(",\n\"lines\":[", h->out);
	for (i = 0; err == 0 && i < v.nrows; i++) {
		const struct profil_line_row *row = &v.rows[i];

		if (row->file == NULL)
			continue;
		fprintf(h->out, "%s%ld,%ld,%d,%" PRIu64 ",%ld", first ? "" : ",",
		    str_id(h, profil_line_row_function(row)),
		    str_id(h, profil_line_row_path(row, path, sizeof(path))), row->line,
		    row->count, text[i]);
		first = 0;
	}
	fputs("]", h->out);
	free(text);
	profil_lines_view_release(&v);
	return err != 0 ? err : h->err;
}

/* --diff's rows: "function, module, base ticks, ticks, z"; the function as the report shows
 * it already (view.h), so not escaped twice. */
static int
print_diff(struct html *h, struct profil_report *base)
{
	struct profil_diff_view v;
	size_t i;
	int err;

	if (base == NULL)
		return 0;
	err = profil_diff_view_build(h->r, base, 0, &v);
	if (err != 0)
		return err;
	fprintf(h->out, ",\n\"diff\":{\"z\":%.2f,\"base_total\":%" PRIu64 ",\"total\":%" PRIu64
	    ",\"base_processes\":%zu,\"rows\":[", PROFIL_DIFF_Z, v.total[0], v.total[1],
	    profil_report_nfiles(base));
	for (i = 0; i < v.nrows; i++) {
		const struct profil_diff_row *row = &v.rows[i];

		fprintf(h->out, "%s%ld,%ld,%" PRIu64 ",%" PRIu64 ",%.4f", i > 0 ? "," : "",
		    str_shown_id(h, row->function), str_id(h, row->module), row->k[0], row->k[1],
		    isfinite(row->z) ? row->z : 0.0);
	}
	fputs("]}", h->out);
	profil_diff_view_release(&v);
	return h->err;
}

/* The strings: strs, then the bare names (as profil_tree_name() makes them). */
static void
print_strings(struct html *h)
{
	char name[4 * 1024 + 32];
	size_t i;

	fputs(",\n\"strings\":[", h->out);
	for (i = 0; i < h->strs.n; i++) {
		if (i > 0)
			fputc(',', h->out);
		json_str(h->out, h->strs.strs[i]);
	}
	for (i = 0; i < h->nbare; i++) {
		snprintf(name, sizeof(name), "%s+0x%" PRIx64, h->strs.strs[h->bare[i].module],
		    h->bare[i].offset);
		fputs(h->strs.n + i > 0 ? "," : "", h->out);
		json_str(h->out, name);
	}
	fputs("]", h->out);
}

/* The earliest start of a file with samples (of any file when none has). */
static uint64_t
first_start(struct profil_report *r)
{
	size_t i, n = profil_report_nfiles(r);
	uint64_t start = UINT64_MAX, any = UINT64_MAX;

	for (i = 0; i < n; i++) {
		const struct profil_file *f = profil_report_file(r, i, NULL);

		if (f->hdr.start_ns < any)
			any = f->hdr.start_ns;
		if (f->nsamples > 0 && f->hdr.start_ns < start)
			start = f->hdr.start_ns;
	}
	return start != UINT64_MAX ? start : any != UINT64_MAX ? any : 0;
}

static int
print_data(struct html *h, struct profil_report *base, const char *title)
{
	struct profil_report_time time;
	struct profil_tree t;
	uint32_t *id;
	char said[512];
	uint64_t start = first_start(h->r);
	size_t i, n = profil_report_nfiles(h->r);
	int err;

	h->stack_of = calloc(n + 1, sizeof(*h->stack_of));
	if (h->stack_of == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct profil_file *f = profil_report_file(h->r, i, NULL);

		h->stack_of[i] = malloc((f->nsamples + 1) * sizeof(**h->stack_of));
		if (h->stack_of[i] == NULL)
			return -ENOMEM;
		memset(h->stack_of[i], 0xff, (f->nsamples + 1) * sizeof(**h->stack_of));
	}
	profil_report_time(h->r, PROFIL_REPORT_ALL, &time);
	fprintf(h->out, "{\"version\":1,\"title\":%ld,\"says\":%ld", str_id(h, title),
	    str_shown_id(h, profil_report_time_say(&time, 1, said, sizeof(said))));
	fprintf(h->out, ",\"wall\":%s,\"start_ns\":\"%" PRIu64 "\",\n\"stacks\":[",
	    time.wall ? "true" : "false", start);
	err = profil_tree_build_each(&t, h->r, add_stack, h);
	fputs("]", h->out);
	if (err == 0) {
		print_processes(h, start);
		err = print_times(h);
	}
	if (err == 0)
		err = print_lines(h);
	if (err == 0)
		err = print_diff(h, base);
	/* The nodes last, every other string numbered: the bare names come after them all. */
	id = err == 0 ? malloc(t.n * sizeof(*id)) : NULL;
	if (err == 0)
		err = id == NULL ? -ENOMEM : bare_names(h, &t, id);
	if (err == 0)
		err = print_nodes(h, &t, id);
	free(id);
	profil_tree_release(&t);
	if (err == 0 && h->err == 0)
		print_strings(h);
	fputs("}", h->out);
	return err != 0 ? err : h->err;
}

int
profil_export_html(struct profil_report *r, struct profil_report *base, const char *title,
    FILE *out)
{
	unsigned char nonce[16];
	char hex[2 * sizeof(nonce) + 1];
	struct html h;
	size_t i;
	int err;

	memset(&h, 0, sizeof(h));
	h.r = r;
	h.out = out;
	/*
	 * No network at all, and no script but ours: the page's script carries a nonce the
	 * policy names, so even a name that escaped its string could not run (the escaping
	 * above is the first wall, this the second).  Styles and data: images are inline.
	 */
	if (getrandom(nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce)) {
		struct timespec ts;

		/* Without entropy yet (early boot): still unguessable by the names' authors,
		 * who write them before the page exists. */
		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(nonce, &ts, sizeof(ts) < sizeof(nonce) ? sizeof(ts) : sizeof(nonce));
	}
	for (i = 0; i < sizeof(nonce); i++)
		snprintf(hex + 2 * i, 3, "%02x", nonce[i]);
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "script-src 'nonce-%s'; style-src 'unsafe-inline'; img-src data:\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<title>profil</title>\n<style>\n", hex);
	fwrite(profil_viewer_css, 1, profil_viewer_css_len, out);
	fputs("</style>\n</head>\n<body>\n<noscript><p>This profile viewer needs JavaScript; "
	    "<code>profil report</code> shows the same figures as text.</p></noscript>\n"
	    "<script type=\"application/json\" id=\"profil-data\">", out);
	err = print_data(&h, base, title);
	fprintf(out, "</script>\n<script nonce=\"%s\">\n", hex);
	fwrite(profil_viewer_js, 1, profil_viewer_js_len, out);
	fputs("</script>\n</body>\n</html>\n", out);
	for (i = 0; h.stack_of != NULL && i < profil_report_nfiles(r); i++)
		free(h.stack_of[i]);
	free(h.stack_of);
	profil_thread_table_release(&h.threads);
	profil_strtab_release(&h.strs);
	free(h.bare);
	if (err == 0 && ferror(out))
		err = -EIO;
	return err;
}
