/*
 * json.c - the JSON writer of `profil report --json` (src/report/json.h) and the escaper's
 * JSON mode (escape.h), with exact expectations: names as the text view shows them, then
 * quoted; anything left that would break a JSON string escaped; numbers that read back as the
 * same double, non-finite ones as null; commas and nesting.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "report/escape.h"
#include "report/json.h"

/* s through the text view's escape, then the JSON one, as the renderers chain them. */
static const char *
shown_json(const char *s, char *buf, size_t len)
{
	char shown[256];

	return profil_escape_json(profil_escape(s, shown, sizeof(shown)), buf, len);
}

static void
escapes(void)
{
	char buf[256];

	tap_check(strcmp(shown_json("main", buf, sizeof(buf)), "main") == 0, "a plain name passes");
	tap_check(strcmp(shown_json("caf\xc3\xa9", buf, sizeof(buf)), "caf\xc3\xa9") == 0,
	    "valid UTF-8 passes");
	tap_check(strcmp(shown_json("a\033]0;x\007b", buf, sizeof(buf)), "a\\\\033]0;x\\\\007b") ==
	    0, "control characters: as ls -b, the backslash quoted: %s", buf);
	tap_check(strcmp(shown_json("t\tn\n", buf, sizeof(buf)), "t\\\\tn\\\\n") == 0,
	    "tab and newline: %s", buf);
	tap_check(strcmp(shown_json("op\"\\", buf, sizeof(buf)), "op\\\"\\\\\\\\") == 0,
	    "a quote and a backslash: %s", buf);
	tap_check(strcmp(shown_json("x\xff\xfey", buf, sizeof(buf)), "x\\\\377\\\\376y") == 0,
	    "bytes that are not UTF-8: as the text shows them: %s", buf);
	/* Straight into the JSON mode, nothing can break the string either. */
	tap_check(strcmp(profil_escape_json("a\001\"\\\xff", buf, sizeof(buf)),
	    "a\\u0001\\\"\\\\\\ufffd") == 0, "raw: \\u00XX, quote, backslash, U+FFFD: %s", buf);
	/* Truncated at a whole escape, never inside one. */
	tap_check(strcmp(profil_escape_json("ab\"", buf, 4), "ab") == 0,
	    "truncation keeps whole escapes: %s", buf);
}

static void
numbers(void)
{
	static const double values[] = { 0.1, 0.6190000000000001, 49.11147011308562, 1e-300,
	    123456789.0, 1.0 / 3.0, 100.0 };
	struct profil_json j;
	char *buf = NULL, *p;
	size_t len, i;
	FILE *f;
	int ok = 1;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		f = open_memstream(&buf, &len);
		profil_json_init(&j, f);
		profil_json_num(&j, NULL, values[i]);
		fclose(f);
		ok &= strtod(buf, &p) == values[i] && *p == '\0';
		tap_diag("%.17g as %s", values[i], buf);
		free(buf);
	}
	tap_check(ok, "every number reads back as the same double");
	f = open_memstream(&buf, &len);
	profil_json_init(&j, f);
	profil_json_num(&j, NULL, 0.1);
	fclose(f);
	tap_check(strcmp(buf, "0.1") == 0, "0.1 with the fewest digits: %s", buf);
	free(buf);
	f = open_memstream(&buf, &len);
	profil_json_init(&j, f);
	profil_json_open(&j, NULL, '[');
	profil_json_num(&j, NULL, NAN);
	profil_json_num(&j, NULL, INFINITY);
	profil_json_u64(&j, NULL, UINT64_MAX);
	profil_json_close(&j, '[');
	fclose(f);
	tap_check(strcmp(buf, "[\n  null,\n  null,\n  18446744073709551615\n]\n") == 0,
	    "NaN and infinity as null, counts exact");
	free(buf);
}

static void
nesting(void)
{
	struct profil_report_time t;
	struct profil_json j;
	char *buf = NULL;
	size_t len;
	FILE *f;

	memset(&t, 0, sizeof(t));
	t.samples = 4;
	t.waiting = 1;
	t.seconds = 0.5;
	t.waiting_seconds = 0.125;
	t.wall = 1;
	f = open_memstream(&buf, &len);
	profil_json_init(&j, f);
	profil_json_open(&j, NULL, '{');
	profil_json_str(&j, "view", "flat");
	profil_json_open(&j, "empty", '[');
	profil_json_close(&j, '[');
	profil_json_open(&j, "rows", '[');
	profil_json_open(&j, NULL, '{');
	profil_json_bool(&j, "a", 1);
	profil_json_str(&j, "b", NULL);
	profil_json_i64(&j, "c", -1);
	profil_json_close(&j, '{');
	profil_json_close(&j, '[');
	profil_json_time(&j, "time", &t);
	profil_json_close(&j, '{');
	fclose(f);
	tap_check(strcmp(buf, "{\n  \"view\": \"flat\",\n  \"empty\": [],\n  \"rows\": [\n"
	    "    {\n      \"a\": true,\n      \"b\": null,\n      \"c\": -1\n    }\n  ],\n"
	    "  \"time\": {\n    \"samples\": 4,\n    \"seconds\": 0.5,\n"
	    "    \"cpu_samples\": 3,\n    \"cpu_seconds\": 0.375,\n"
	    "    \"waiting_samples\": 1,\n    \"waiting_seconds\": 0.125,\n"
	    "    \"cpu_wait_samples\": 0,\n    \"cpu_wait_seconds\": 0,\n"
	    "    \"wall\": true,\n    \"wait_cpu\": false,\n    \"kernel\": false,\n"
	    "    \"user_only\": false,\n    \"inside\": false,\n"
	    "    \"kernel_unsampled_seconds\": 0,\n"
	    "    \"says\": \"4 samples, 0.500 seconds of threads' time: "
	    "0.375 on a CPU, 0.125 waiting\"\n  }\n}\n") == 0, "commas, nesting and a time");
	free(buf);
}

int
main(void)
{
	escapes();
	numbers();
	nesting();
	return tap_failures != 0;
}
