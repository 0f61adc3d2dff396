/*
 * graph_print.c - the call graph view (graph.c builds it) as text, gprof's layout, and as
 * JSON (docs/report-json.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/escape.h"
#include "report/json.h"
#include "report/report.h"
#include "report/symbols.h"
#include "report/view.h"

/* The same escaped, for printing (escape.h). */
static const char *
node_name(const struct profil_graph_node *row, char *buf, size_t len)
{
	const char *name, *shown;
	char tmp[1024];

	name = profil_graph_node_name(row, tmp, sizeof(tmp));
	shown = profil_escape(name, buf, len);
	if (shown == tmp) {
		snprintf(buf, len, "%s", tmp);
		return buf;
	}
	return shown;
}

static const char *
node_module(const struct profil_graph_node *row, char *buf, size_t len)
{
	const struct profil_module *m = profil_graph_node_module(row);

	return m != NULL ? profil_escape(profil_module_name(m), buf, len) : "?";
}

/* The caller (k = 1) or callee (k = 0) lines of node, the index-th function of the view. */
static void
print_arcs(const struct profil_graph_view *v, int k, size_t node,
    const struct profil_flat_options *opt, size_t index, FILE *out)
{
	const struct profil_graph_arc *arc;
	const struct profil_graph_node *peer;
	const char *what = k == 0 ? "callee" : "caller";
	char buf[1024], mod[512];
	size_t i, end;

	profil_graph_view_arcs(v, node, k, &i, &end);
	for (; i < end; i++) {
		arc = &v->arcs[v->by_arc[k][i]];
		peer = &v->nodes[arc->key[!k]];
		if (opt->tsv)
			fprintf(out, "%s\t%zu\t%zu\t%" PRIu64 "\t\t%.6f\t\t%s\t%s%s\n", what, index,
			    (size_t)v->rank[arc->key[!k]] + 1, arc->count, arc->seconds,
			    node_name(peer, buf, sizeof(buf)), node_module(peer, mod, sizeof(mod)),
			    v->wall ? "\t" : "");
		else
			fprintf(out, "%13s %9.3f %*s%9s %9" PRIu64 " %9s      %s [%zu]\n", "",
			    arc->seconds, v->wall ? 10 : 0, "", "", arc->count, "",
			    node_name(peer, buf, sizeof(buf)), (size_t)v->rank[arc->key[!k]] + 1);
	}
}

/* The text and --tsv renderers of the call graph. */
static int
graph_text(struct profil_report *r, const struct profil_graph_view *v,
    const struct profil_flat_options *opt, FILE *out)
{
	const struct profil_graph_node *row;
	const struct profil_graph_self *me;
	char buf[1024], mod[512], idx[32];
	uint64_t total = v->total;
	size_t i;
	int err;

	if (opt->tsv) {
		fprintf(out, "kind\tindex\tpeer\ttotal\tself\ttotal_s\tself_s\tfunction\tmodule%s\n",
		    v->wall ? "\twaiting_s" : "");
	} else {
		err = profil_report_summary_print(r, "Call graph", out);
		if (err != 0)
			return err;
	}
	if (!opt->tsv && v->wall) {
		fprintf(out, "Counts are sampled stack counts, not call counts: total is the "
		    "samples with the function\nanywhere on the stack (once per sample, also in "
		    "recursion), self those with it at the\nleaf; waiting the part of total when "
		    "threads waited, not on a CPU (--wall).\n\n");
		fprintf(out, "               -------------seconds------------- ------samples------\n"
		    "index  %%total     total   waiting      self     total      self  function "
		    "[index]  module\n");
	} else if (!opt->tsv) {
		fprintf(out, "Counts are sampled stack counts, not call counts: total is the "
		    "samples with the function\nanywhere on the stack (once per sample, also in "
		    "recursion), self those with it at the\nleaf; a caller's or callee's line is "
		    "the samples whose stack held that call.\n\n");
		fprintf(out, "               ------seconds------ ------samples------\n"
		    "index  %%total     total      self     total      self  function [index]  "
		    "module\n");
	}
	for (i = 0; i < v->nrows; i++) {
		row = &v->nodes[v->order[i]];
		me = profil_graph_node_self(v->self, row);
		if (opt->tsv) {
			print_arcs(v, 1, v->order[i], opt, i + 1, out);
			fprintf(out, "function\t%zu\t%zu\t%" PRIu64 "\t%" PRIu64
			    "\t%.6f\t%.6f\t%s\t%s", i + 1, i + 1, row->count, me->count,
			    row->seconds, me->seconds, node_name(row, buf, sizeof(buf)),
			    node_module(row, mod, sizeof(mod)));
			if (v->wall)
				fprintf(out, "\t%.6f", v->waiting[v->order[i]]);
			fputc('\n', out);
			print_arcs(v, 0, v->order[i], opt, i + 1, out);
			continue;
		}
		print_arcs(v, 1, v->order[i], opt, i + 1, out);
		snprintf(idx, sizeof(idx), "[%zu]", i + 1);
		fprintf(out, "%-6s %6.2f %9.3f ", idx,
		    total > 0 ? 100.0 * (double)row->count / (double)total : 0.0,
		    row->seconds);
		if (v->wall)
			fprintf(out, "%9.3f ", v->waiting[v->order[i]]);
		fprintf(out, "%9.3f %9" PRIu64 " %9" PRIu64 "  %s [%zu]  %s\n", me->seconds,
		    row->count, me->count, node_name(row, buf, sizeof(buf)), i + 1,
		    node_module(row, mod, sizeof(mod)));
		print_arcs(v, 0, v->order[i], opt, i + 1, out);
		fprintf(out, "-----------------------------------------------\n");
	}
	return 0;
}

/* The callers (k = 1) or callees (k = 0) of node as a JSON array named key. */
static void
arcs_json(const struct profil_graph_view *v, int k, size_t node, const char *key,
    struct profil_json *j)
{
	const struct profil_graph_arc *arc;
	const struct profil_graph_node *peer;
	char buf[1024], mod[512];
	size_t i, end;

	profil_json_open(j, key, '[');
	profil_graph_view_arcs(v, node, k, &i, &end);
	for (; i < end; i++) {
		arc = &v->arcs[v->by_arc[k][i]];
		peer = &v->nodes[arc->key[!k]];
		profil_json_open(j, NULL, '{');
		profil_json_u64(j, "index", (uint64_t)v->rank[arc->key[!k]] + 1);
		profil_json_u64(j, "samples", arc->count);
		profil_json_num(j, "seconds", arc->seconds);
		profil_json_str(j, "function", node_name(peer, buf, sizeof(buf)));
		profil_json_str(j, "module", node_module(peer, mod, sizeof(mod)));
		profil_json_close(j, '{');
	}
	profil_json_close(j, '[');
}

/* The JSON renderer of the call graph (docs/report-json.md). */
static int
graph_json(struct profil_report *r, const struct profil_graph_view *v, FILE *out)
{
	const struct profil_graph_node *row;
	const struct profil_graph_self *me;
	struct profil_json j;
	char buf[1024], mod[512];
	size_t i;
	int err;

	profil_json_init(&j, out);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "graph");
	err = profil_report_heading_json(r, &j);
	if (err != 0)
		return err;
	profil_json_u64(&j, "total", v->total);
	profil_json_bool(&j, "wall", v->wall);
	profil_json_u64(&j, "nfunctions_all", v->nnodes);
	profil_json_open(&j, "functions", '[');
	for (i = 0; i < v->nrows; i++) {
		row = &v->nodes[v->order[i]];
		me = profil_graph_node_self(v->self, row);
		profil_json_open(&j, NULL, '{');
		profil_json_u64(&j, "index", i + 1);
		profil_json_num(&j, "percent_total", v->total > 0 ?
		    100.0 * (double)row->count / (double)v->total : 0.0);
		profil_json_u64(&j, "total", row->count);
		profil_json_u64(&j, "self", me->count);
		profil_json_num(&j, "total_s", row->seconds);
		profil_json_num(&j, "self_s", me->seconds);
		if (v->wall)
			profil_json_num(&j, "waiting_s", v->waiting[v->order[i]]);
		profil_json_str(&j, "function", node_name(row, buf, sizeof(buf)));
		profil_json_str(&j, "module", node_module(row, mod, sizeof(mod)));
		arcs_json(v, 1, v->order[i], "callers", &j);
		arcs_json(v, 0, v->order[i], "callees", &j);
		profil_json_close(&j, '{');
	}
	profil_json_close(&j, '[');
	profil_json_close(&j, '{');
	return 0;
}

int
profil_report_graph_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	struct profil_graph_view v;
	int err;

	err = profil_graph_view_build(r, opt->limit, &v);
	if (err != 0)
		return err;
	err = opt->json ? graph_json(r, &v, out) : graph_text(r, &v, opt, out);
	profil_graph_view_release(&v);
	if (err != 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
