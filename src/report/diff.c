/*
 * diff.c - two profiles compared function by function: which shares moved, and whether the move
 * is larger than what sampling alone would produce with these sample counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/json.h"
#include "report/report.h"
#include "report/symbols.h"
#include "report/view.h"

static int
name_cmp(const void *a, const void *b)
{
	const struct profil_diff_row *x = a, *y = b;
	int c = strcmp(x->function, y->function);

	return c != 0 ? c : strcmp(x->module, y->module);
}

static int
diff_cmp(const void *a, const void *b)
{
	const struct profil_diff_row *x = a, *y = b;

	if (fabs(x->diff) != fabs(y->diff))
		return fabs(x->diff) > fabs(y->diff) ? -1 : 1;
	return name_cmp(a, b);
}

/* Appends the entries of r as rows of side 0 (base) or 1. */
static int
rows_add(struct profil_diff_row *rows, size_t *n, struct profil_report *r, int side)
{
	const struct profil_report_entry *e;
	char buf[512], shown[512];
	size_t i, ne;

	e = profil_report_entries(r, &ne);
	if (e == NULL && ne > 0)
		return -ENOMEM;
	for (i = 0; i < ne; i++) {
		struct profil_diff_row *row = &rows[(*n)++];

		memset(row, 0, sizeof(*row));
		/* The names are only printed: escaped here, once (escape.h). */
		if (e[i].function != NULL)
			snprintf(buf, sizeof(buf), "%s", profil_escape(e[i].function, shown,
			    sizeof(shown)));
		else if (e[i].module == NULL)
			snprintf(buf, sizeof(buf), "[unmapped]");
		else
			snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
			    profil_escape(profil_module_name(e[i].module), shown, sizeof(shown)),
			    e[i].offset);
		row->function = strdup(buf);
		if (row->function == NULL)
			return -ENOMEM;
		row->module = e[i].module != NULL ? profil_module_name(e[i].module) : "?";
		row->k[side] = e[i].count;
	}
	return 0;
}

/*
 * The two-proportion z statistic: the difference of the shares over its standard error under
 * the hypothesis that both profiles sample the same share (pooled).
 */
static double
two_proportion_z(uint64_t k0, uint64_t n0, uint64_t k1, uint64_t n1)
{
	double p0 = (double)k0 / (double)n0, p1 = (double)k1 / (double)n1;
	double p = (double)(k0 + k1) / (double)(n0 + n1);
	double se = sqrt(p * (1 - p) * (1 / (double)n0 + 1 / (double)n1));

	return se > 0 ? (p1 - p0) / se : 0;
}

void
profil_diff_view_release(struct profil_diff_view *v)
{
	size_t i;

	for (i = 0; v->rows != NULL && i < v->nall; i++)
		free(v->rows[i].function);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

int
profil_diff_view_build(struct profil_report *r, struct profil_report *base, size_t limit,
    struct profil_diff_view *v)
{
	uint64_t n0 = profil_report_total(base), n1 = profil_report_total(r);
	struct profil_diff_row *rows;
	size_t i, k, n = 0, nb, nr;
	int err;

	memset(v, 0, sizeof(*v));
	v->total[0] = n0;
	v->total[1] = n1;
	profil_report_entries(base, &nb);
	profil_report_entries(r, &nr);
	rows = calloc(nb + nr + 1, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	v->rows = rows;
	err = rows_add(rows, &n, base, 0);
	if (err == 0)
		err = rows_add(rows, &n, r, 1);
	v->nall = n;
	if (err != 0) {
		profil_diff_view_release(v);
		return err;
	}
	/* Merge the two sides by name and module. */
	qsort(rows, n, sizeof(*rows), name_cmp);
	for (i = 0, k = 0; i < n; i++) {
		if (k > 0 && name_cmp(&rows[k - 1], &rows[i]) == 0) {
			rows[k - 1].k[0] = profil_count_add(rows[k - 1].k[0], rows[i].k[0]);
			rows[k - 1].k[1] = profil_count_add(rows[k - 1].k[1], rows[i].k[1]);
			free(rows[i].function);
			continue;
		}
		rows[k++] = rows[i];
	}
	n = v->nall = k;
	for (i = 0; i < n; i++) {
		rows[i].p[0] = n0 > 0 ? (double)rows[i].k[0] / (double)n0 : 0;
		rows[i].p[1] = n1 > 0 ? (double)rows[i].k[1] / (double)n1 : 0;
		rows[i].diff = 100 * (rows[i].p[1] - rows[i].p[0]);
		if (n0 > 0 && n1 > 0)
			rows[i].z = two_proportion_z(rows[i].k[0], n0, rows[i].k[1], n1);
	}
	qsort(rows, n, sizeof(*rows), diff_cmp);
	v->nrows = limit > 0 && n > limit ? limit : n;
	return 0;
}

/* The text and --tsv renderers of --diff. */
static int
diff_text(struct profil_report *r, struct profil_report *base, const struct profil_diff_view *v,
    const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_diff_row *row;
	char mod[512];
	size_t i;
	int err;

	if (opt->tsv) {
		fprintf(out, "base_percent\tpercent\tdiff\tz\tbeyond_noise\tbase_samples\tsamples\t"
		    "function\tmodule\n");
	} else {
		err = profil_report_summary_print(r, "Difference", out);
		if (err != 0)
			return err;
		fprintf(out, "Base: %zu process%s, %" PRIu64 " samples.  Largest change first; "
		    "'*': |z| >= 1.96, beyond the\nsampling noise of the two sample counts at 95%% "
		    "(two-proportion z test).\n\n", profil_report_nfiles(base),
		    profil_report_nfiles(base) == 1 ? "" : "es", v->total[0]);
		fprintf(out, "%6s   %6s  %7s  %7s %8s %8s  function  module\n", "base%", "now%",
		    "diff", "z", "base", "now");
	}
	for (i = 0; i < v->nrows; i++) {
		row = &v->rows[i];
		if (opt->tsv)
			fprintf(out, "%.4f\t%.4f\t%+.4f\t%+.3f\t%s\t%" PRIu64 "\t%" PRIu64
			    "\t%s\t%s\n",
			    100 * row->p[0], 100 * row->p[1], row->diff, row->z,
			    fabs(row->z) >= PROFIL_DIFF_Z ? "yes" : "no", row->k[0], row->k[1],
			    row->function, profil_escape(row->module, mod, sizeof(mod)));
		else
			fprintf(out, "%6.2f   %6.2f  %+7.2f%s %+7.2f %8" PRIu64 " %8" PRIu64
			    "  %s  %s\n",
			    100 * row->p[0], 100 * row->p[1], row->diff,
			    fabs(row->z) >= PROFIL_DIFF_Z ? "*" : " ", row->z, row->k[0],
			    row->k[1], row->function, profil_escape(row->module, mod, sizeof(mod)));
	}
	return 0;
}

/* The JSON renderer of --diff (docs/report-json.md): both headings, the TSV's columns typed. */
static int
diff_json(struct profil_report *r, struct profil_report *base, const struct profil_diff_view *v,
    FILE *out)
{
	const struct profil_diff_row *row;
	struct profil_json j;
	char mod[512];
	size_t i;
	int err;

	profil_json_init(&j, out);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "diff");
	err = profil_report_heading_json(r, &j);
	if (err != 0)
		return err;
	profil_json_open(&j, "base", '{');
	err = profil_report_heading_json(base, &j);
	if (err != 0)
		return err;
	profil_json_close(&j, '{');
	profil_json_u64(&j, "base_total", v->total[0]);
	profil_json_u64(&j, "total", v->total[1]);
	profil_json_u64(&j, "nrows_all", v->nall);
	profil_json_open(&j, "rows", '[');
	for (i = 0; i < v->nrows; i++) {
		row = &v->rows[i];
		profil_json_open(&j, NULL, '{');
		profil_json_num(&j, "base_percent", 100 * row->p[0]);
		profil_json_num(&j, "percent", 100 * row->p[1]);
		profil_json_num(&j, "diff", row->diff);
		profil_json_num(&j, "z", row->z);
		profil_json_bool(&j, "beyond_noise", fabs(row->z) >= PROFIL_DIFF_Z);
		profil_json_u64(&j, "base_samples", row->k[0]);
		profil_json_u64(&j, "samples", row->k[1]);
		profil_json_str(&j, "function", row->function);
		profil_json_str(&j, "module", profil_escape(row->module, mod, sizeof(mod)));
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_close(&j, '{');
	return 0;
}

int
profil_report_diff_print(struct profil_report *r, struct profil_report *base,
    const struct profil_flat_options *opt, FILE *out)
{
	struct profil_diff_view v;
	int err;

	err = profil_diff_view_build(r, base, opt->limit, &v);
	if (err != 0)
		return err;
	err = opt->json ? diff_json(r, base, &v, out) : diff_text(r, base, &v, opt, out);
	profil_diff_view_release(&v);
	if (err != 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
