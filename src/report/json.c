/*
 * json.c - the JSON writer of the report's views (json.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/escape.h"
#include "report/json.h"

void
profil_json_init(struct profil_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->written[0] = 0;
}

/*
 * The comma before a member that is not the first, the member's line (objects and arrays at
 * the top four levels have one member a line: a view's rows are one a line), and its key.
 */
static void
member(struct profil_json *j, const char *key)
{
	int d = j->depth < PROFIL_JSON_DEPTH ? j->depth : PROFIL_JSON_DEPTH - 1;
	char shown[1024];

	if (j->depth > 0 && j->written[d])
		fputc(',', j->out);
	if (j->depth > 0 && j->depth <= 4)
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	else if (j->depth > 0 && j->written[d])
		fputc(' ', j->out);
	j->written[d] = 1;
	if (key != NULL)
		fprintf(j->out, "\"%s\": ", profil_escape_json(key, shown, sizeof(shown)));
}

void
profil_json_open(struct profil_json *j, const char *key, int c)
{
	member(j, key);
	fputc(c, j->out);
	j->depth++;
	if (j->depth < PROFIL_JSON_DEPTH)
		j->written[j->depth] = 0;
}

void
profil_json_close(struct profil_json *j, int c)
{
	int d = j->depth < PROFIL_JSON_DEPTH ? j->depth : PROFIL_JSON_DEPTH - 1;

	j->depth--;
	if (j->written[d] && j->depth < 4)
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	fputc(c == '{' ? '}' : c == '[' ? ']' : c, j->out);
	if (j->depth == 0)
		fputc('\n', j->out);
}

void
profil_json_str(struct profil_json *j, const char *key, const char *s)
{
	char shown[4 * 4096 + 8];

	member(j, key);
	if (s == NULL)
		fputs("null", j->out);
	else
		fprintf(j->out, "\"%s\"", profil_escape_json(s, shown, sizeof(shown)));
}

void
profil_json_u64(struct profil_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void
profil_json_i64(struct profil_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, v);
}

/* The fewest significant digits (of 15 to 17) that strtod() reads back as v exactly. */
void
profil_json_num(struct profil_json *j, const char *key, double v)
{
	char buf[64];
	int prec;

	member(j, key);
	if (!isfinite(v)) {
		fputs("null", j->out);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, j->out);
}

void
profil_json_bool(struct profil_json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void
profil_json_time(struct profil_json *j, const char *key, const struct profil_report_time *t)
{
	char said[256];

	profil_json_open(j, key, '{');
	profil_json_u64(j, "samples", t->samples);
	profil_json_num(j, "seconds", t->seconds);
	profil_json_u64(j, "cpu_samples", t->samples - t->waiting);
	profil_json_num(j, "cpu_seconds", t->seconds - t->waiting_seconds);
	profil_json_u64(j, "waiting_samples", t->waiting);
	profil_json_num(j, "waiting_seconds", t->waiting_seconds);
	profil_json_u64(j, "cpu_wait_samples", t->cpu_waiting);
	profil_json_num(j, "cpu_wait_seconds", t->cpu_waiting_seconds);
	profil_json_bool(j, "wall", t->wall);
	profil_json_bool(j, "wait_cpu", t->wait_cpu);
	profil_json_bool(j, "kernel", t->kernel);
	profil_json_bool(j, "user_only", t->user_only);
	profil_json_bool(j, "inside", t->scaled);
	profil_json_num(j, "kernel_unsampled_seconds", t->unsampled_seconds);
	profil_json_str(j, "says", profil_report_time_say(t, 1, said, sizeof(said)));
	profil_json_close(j, '{');
}
