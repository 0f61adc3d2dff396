/*
 * json.h - the writer behind `profil report --json` (docs/report-json.md): objects, arrays and
 * values written as they come, commas and indentation kept by the writer, strings through the
 * one escaper (escape.h).  Write errors show in the stream (ferror), as for every renderer.
 * Internal to the profil command.
 */
#ifndef PROFIL_REPORT_JSON_H
#define PROFIL_REPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* Nesting deeper than this is not indented further (the views nest six deep at most). */
#define PROFIL_JSON_DEPTH	16

struct profil_json {
	FILE *out;
	int depth;
	int written[PROFIL_JSON_DEPTH];	/* at each open level, whether a member came yet */
};

void profil_json_init(struct profil_json *j, FILE *out);

/*
 * Members: key is the member's name inside an object, NULL for an element of an array.  open
 * starts an object ('{') or an array ('['), close ends it (and with depth 0 the document, with
 * a newline).  A string is given as the text view shows it (profil_escape()) or is a word of
 * ours; NULL writes null.  A number is written with the fewest digits that read back as the
 * same double (a non-finite one as null); counts are exact integers.
 */
void profil_json_open(struct profil_json *j, const char *key, int c);
void profil_json_close(struct profil_json *j, int c);
void profil_json_str(struct profil_json *j, const char *key, const char *s);
void profil_json_u64(struct profil_json *j, const char *key, uint64_t v);
void profil_json_i64(struct profil_json *j, const char *key, int64_t v);
void profil_json_num(struct profil_json *j, const char *key, double v);
void profil_json_bool(struct profil_json *j, const char *key, int v);

/*
 * A time (report.h) as the object the header sentence is made from: samples and seconds, those
 * on a CPU, those waiting and of them those waiting for a CPU, whether --wall recorded it and
 * counted the waits for a CPU, and "says", the sentence itself
 * (profil_report_time_say(), which stays the one place that words a time).
 */
void profil_json_time(struct profil_json *j, const char *key, const struct profil_report_time *t);

#endif /* PROFIL_REPORT_JSON_H */
