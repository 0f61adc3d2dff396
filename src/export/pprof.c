/*
 * pprof.c - the session as a pprof profile: perftools.profiles.Profile (google/pprof
 * proto/profile.proto), serialized by hand field by field and gzip-compressed, as pprof expects
 * on disk.  Field numbers are those of profile.proto; every id is non-zero and unique, string 0
 * is "", and every value vector has the length of sample_type (pprof's CheckValid rules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "export/pb.h"
#include "format/format.h"
#include "report/index.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* Ids of one kind of message, by a pair of keys: row i has id i + 1 (ids are non-zero). */
struct idtab {
	uint64_t (*keys)[2];
	size_t n, cap;
	struct profil_index index;
};

static uint64_t
id_hash(uint64_t a, uint64_t b)
{
	return profil_hash3(a, b + 0x632be59bd9b4e019ull, 0);
}

struct id_key {
	const struct idtab *t;
	uint64_t a, b;
};

static int
id_same(const void *arg, size_t i)
{
	const struct id_key *k = arg;

	return k->t->keys[i][0] == k->a && k->t->keys[i][1] == k->b;
}

/*
 * Messages go to the gzip stream as they are made, not into a whole profile in memory first:
 * protobuf lets fields come in any order, repeated ones keeping theirs, so samples, mappings,
 * locations, functions and strings interleave.  What is kept is what deduplication needs (ids
 * and the string table), not the output: a profile of deep distinct stacks is mostly output.
 *
 * Code nothing names is the exception: its function, module+0xoffset, belongs to its location
 * alone, so it is written with the location, under the next ids, and neither it nor its name
 * is kept (issue 19: those tables cost some 80 bytes a frame of deep distinct stacks).  A bare
 * offset two processes map is then two functions of one name, which pprof merges by name.
 */
struct pprof {
	struct pb tmp, tmp2, msg;
	struct idtab mapping_ids, location_ids, function_ids;
	uint64_t *function_of;		/* function_ids row -> function id */
	uint64_t nfunctions;		/* function ids given */
	struct profil_strtab strs;	/* the strings kept, by row */
	uint64_t *string_of;		/* strs row -> string table index */
	uint64_t nstrings;		/* strings written */
	size_t nfunction_of, nstring_of;	/* room in function_of and string_of */
	struct pb stage;		/* output not yet compressed: deflate takes it in
					   blocks, not a call per field */
	uint64_t *ids;			/* the sample's location ids */
	const struct profil_file *tid_file;	/* the thread name looked up last */
	uint32_t tid;
	const char *tid_name;
	int wall;			/* a --wall recording: a third value, wall time */
	z_stream z;
	FILE *out;
	uint8_t zbuf[65536];
	int error;
};

/* len bytes into the gzip stream; flush finishes it.  Errors are sticky in pp->error. */
static void
out_deflate(struct pprof *pp, const void *data, size_t len, int flush)
{
	size_t have;
	int zr;

	if (pp->error)
		return;
	pp->z.next_in = (Bytef *)(uintptr_t)data;
	pp->z.avail_in = (uInt)len;
	do {
		pp->z.next_out = pp->zbuf;
		pp->z.avail_out = sizeof(pp->zbuf);
		zr = deflate(&pp->z, flush);
		have = sizeof(pp->zbuf) - pp->z.avail_out;
		if (zr == Z_STREAM_ERROR || fwrite(pp->zbuf, 1, have, pp->out) != have) {
			pp->error = -EIO;
			return;
		}
	} while (pp->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
}

#define STAGE_BLOCK	65536

/* len bytes of output, staged; flush (Z_FINISH) compresses what is staged and ends it. */
static void
out_bytes(struct pprof *pp, const void *data, size_t len, int flush)
{
	profil_pb_bytes(&pp->stage, data, len);
	if (pp->stage.error)
		pp->error = pp->stage.error;
	if (pp->stage.len < STAGE_BLOCK && flush == Z_NO_FLUSH)
		return;
	out_deflate(pp, pp->stage.p, pp->stage.len, flush);
	pp->stage.len = 0;
}

/* sub as a length-delimited field of the profile, written out; sub is emptied. */
static void
out_msg(struct pprof *pp, unsigned field, struct pb *sub)
{
	if (sub->error)
		pp->error = sub->error;
	pp->msg.len = 0;
	profil_pb_varint(&pp->msg, (uint64_t)field << 3 | 2);
	profil_pb_varint(&pp->msg, sub->len);
	if (pp->msg.error)
		pp->error = pp->msg.error;
	out_bytes(pp, pp->msg.p, pp->msg.len, Z_NO_FLUSH);
	out_bytes(pp, sub->p, sub->len, Z_NO_FLUSH);
	sub->len = 0;
}

/* The id of (a, b) in t, *added when it is new; 0 when out of memory (pp->error says so). */
static uint64_t
id_get(struct pprof *pp, struct idtab *t, uint64_t a, uint64_t b, int *added)
{
	const struct id_key k = { t, a, b };
	ssize_t i;

	*added = 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		uint64_t (*keys)[2] = realloc(t->keys, cap * sizeof(*keys));

		if (keys == NULL)
			goto oom;
		t->keys = keys;
		t->cap = cap;
	}
	i = profil_index_get(&t->index, id_hash(a, b), id_same, &k, t->n);
	if (i < 0)
		goto oom;
	if ((size_t)i == t->n) {
		t->keys[i][0] = a;
		t->keys[i][1] = b;
		t->n++;
		*added = 1;
	}
	return (uint64_t)i + 1;
oom:
	pp->error = -ENOMEM;
	return 0;
}

static void
id_release(struct idtab *t)
{
	free(t->keys);
	profil_index_release(&t->index);
}

/* Room for row in *v, an array of *cap numbers grown to want; 0 or -ENOMEM in pp->error. */
static int
room_for(struct pprof *pp, uint64_t **v, size_t *cap, size_t row, size_t want)
{
	uint64_t *grown;

	if (row < *cap)
		return 0;
	grown = want > row ? realloc(*v, want * sizeof(**v)) : NULL;
	if (grown == NULL) {
		pp->error = -ENOMEM;
		return -ENOMEM;
	}
	*v = grown;
	*cap = want;
	return 0;
}

/* Writes s as the next string of the table; returns its index. */
static uint64_t
str_write(struct pprof *pp, const char *s)
{
	pp->msg.len = 0;
	profil_pb_len(&pp->msg, PROFILE_STRING_TABLE, s, strlen(s));
	if (pp->msg.error)
		pp->error = pp->msg.error;
	out_bytes(pp, pp->msg.p, pp->msg.len, Z_NO_FLUSH);
	return pp->nstrings++;
}

/* The string table index of s, added on first use. */
static uint64_t
str_id(struct pprof *pp, const char *s)
{
	ssize_t i;
	int added;

	i = profil_strtab_intern(&pp->strs, s, &added);
	if (i < 0) {
		pp->error = -ENOMEM;
		return 0;
	}
	if (!added)
		return pp->string_of[i];
	if (room_for(pp, &pp->string_of, &pp->nstring_of, (size_t)i, pp->strs.cap) != 0)
		return 0;
	pp->string_of[i] = str_write(pp, s);
	return pp->string_of[i];
}

static uint64_t
mapping_id(struct pprof *pp, size_t file_index, const struct profil_file *file,
    const struct profil_file_mapping *m)
{
	char hex[2 * PROFIL_FORMAT_MAX_BUILD_ID + 1];
	uint32_t i;
	int added;
	uint64_t id = id_get(pp, &pp->mapping_ids, file_index, (uint64_t)(m - file->maps), &added);

	if (!added)
		return id;
	for (i = 0; i < m->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	hex[2 * i] = '\0';
	profil_pb_uint(&pp->tmp, MAPPING_ID, id);
	profil_pb_uint(&pp->tmp, MAPPING_START, m->start);
	profil_pb_uint(&pp->tmp, MAPPING_LIMIT, m->end);
	profil_pb_uint(&pp->tmp, MAPPING_OFFSET, m->offset);
	profil_pb_uint(&pp->tmp, MAPPING_FILENAME, str_id(pp, m->path));
	profil_pb_uint(&pp->tmp, MAPPING_BUILD_ID, str_id(pp, hex));
	/* profil has symbolized every location already: pprof must not redo it differently. */
	profil_pb_uint(&pp->tmp, MAPPING_HAS_FUNCTIONS, 1);
	profil_pb_uint(&pp->tmp, MAPPING_HAS_FILENAMES, 1);
	profil_pb_uint(&pp->tmp, MAPPING_HAS_LINE_NUMBERS, 1);
	profil_pb_uint(&pp->tmp, MAPPING_HAS_INLINE_FRAMES, 1);
	out_msg(pp, PROFILE_MAPPING, &pp->tmp);
	return id;
}

/* Writes the next function: names and file as string table indexes (0: none). */
static uint64_t
function_write(struct pprof *pp, uint64_t name, uint64_t system_name, uint64_t file)
{
	uint64_t id = ++pp->nfunctions;

	profil_pb_uint(&pp->tmp2, FUNCTION_ID, id);
	profil_pb_uint(&pp->tmp2, FUNCTION_NAME, name);
	profil_pb_uint(&pp->tmp2, FUNCTION_SYSTEM_NAME, system_name);
	profil_pb_uint(&pp->tmp2, FUNCTION_FILENAME, file);
	out_msg(pp, PROFILE_FUNCTION, &pp->tmp2);
	return id;
}

/* The function named name (in file, or NULL), written on first use. */
static uint64_t
function_id(struct pprof *pp, const char *name, const char *file)
{
	uint64_t n = str_id(pp, name), f = str_id(pp, file != NULL ? file : "");
	int added;
	uint64_t row = id_get(pp, &pp->function_ids, n, f, &added);

	if (row-- == 0)
		return 0;
	if (!added)
		return pp->function_of[row];
	if (room_for(pp, &pp->function_of, &pp->nfunction_of, row, pp->function_ids.cap) != 0)
		return 0;
	pp->function_of[row] = function_write(pp, n, n, f);
	return pp->function_of[row];
}

/* A function of code nothing names, module+0xoffset: written each time, with its name; it has
 * no symbol, so no system name. */
static uint64_t
function_bare(struct pprof *pp, const char *name, const char *file)
{
	uint64_t f = file != NULL ? str_id(pp, file) : 0;

	return function_write(pp, str_write(pp, name), 0, f);
}

/*
 * The location of a frame: its mapping and address, with a Line per inline level.
 *
 * A caller's frame in code nothing names is its mapping and address alone, no Line: pprof
 * shows such a location as its module ([deep.so]) by function, and by address with
 * -addresses, as it shows any code it could not symbolize.  A module+0xoffset function is a
 * name, a function and a string of its own for every address, what made the pprof of deep
 * distinct stacks 1.75 times its input (issue 19); the leaf keeps it, so that `go tool pprof
 * -top` still gives the flat view of `profil report`, row for row.  The two are kept apart:
 * a leaf's address can be a caller's return address minus one.
 */
static uint64_t
location_id(struct pprof *pp, const struct profil_stack *st, const struct profil_stack_frame *fr,
    int caller)
{
	uint64_t mid = fr->map != NULL ? mapping_id(pp, st->file_index, st->file, fr->map) : 0;
	const struct profil_frame *f;
	uint64_t id, fid;
	int added;
	struct pb line = { NULL, 0, 0, 0 };
	const char *name;
	char buf[256];
	size_t i, n = profil_stack_frame_levels(fr);
	int bare = caller && mid != 0 && fr->loc != NULL && n == 1 &&
	    fr->loc->frames[0].function == NULL;

	/* Unmapped PCs of different processes are different places; key them by file too. */
	id = id_get(pp, &pp->location_ids, (mid != 0 ? mid : (uint64_t)st->file_index << 32 |
	    1u << 31) | (uint64_t)bare << 63, fr->lookup, &added);
	if (!added)
		return id;
	profil_pb_uint(&pp->tmp, LOCATION_ID, id);
	profil_pb_uint(&pp->tmp, LOCATION_MAPPING_ID, mid);
	profil_pb_uint(&pp->tmp, LOCATION_ADDRESS, fr->lookup);
	if (bare)
		n = 0;
	/* profile.proto: the last Line is the caller the preceding ones were inlined into. */
	for (i = 0; i < n; i++) {
		f = fr->loc != NULL ? &fr->loc->frames[i] : NULL;
		name = profil_stack_frame_name(fr, i, buf, sizeof(buf));
		/* A location is written once: its bare function needs no table. */
		fid = f != NULL && f->function == NULL ?
		    function_bare(pp, name, f->file) : function_id(pp, name, f != NULL ? f->file : NULL);
		profil_pb_uint(&line, LINE_FUNCTION_ID, fid);
		profil_pb_uint(&line, LINE_LINE, f != NULL && f->line > 0 ? (uint64_t)f->line : 0);
		profil_pb_msg(&pp->tmp, LOCATION_LINE, &line);
	}
	free(line.p);
	if (line.error)
		pp->error = line.error;
	out_msg(pp, PROFILE_LOCATION, &pp->tmp);
	return id;
}

/* Seconds as int64 nanoseconds (profile.proto values are int64), saturated: a hostile file can
 * claim any count at any rate, and converting an out-of-range double is undefined. */
static uint64_t
nanoseconds(double seconds)
{
	double ns = seconds * 1e9 + 0.5;

	if (!(ns >= 0))
		return 0;
	return ns >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)ns;
}

static void
label_num(struct pprof *pp, struct pb *sample, const char *key, uint64_t v)
{
	struct pb label = { NULL, 0, 0, 0 };

	profil_pb_uint(&label, LABEL_KEY, str_id(pp, key));
	/* A zero num is still a value: write it explicitly. */
	profil_pb_varint(&label, LABEL_NUM << 3);
	profil_pb_varint(&label, v);
	profil_pb_msg(sample, SAMPLE_LABEL, &label);
	free(label.p);
}

/* A string label; an empty value is no label (perf_data_converter leaves unknown names out). */
static void
label_str(struct pprof *pp, struct pb *sample, const char *key, const char *v)
{
	struct pb label = { NULL, 0, 0, 0 };

	if (v[0] == '\0')
		return;
	profil_pb_uint(&label, LABEL_KEY, str_id(pp, key));
	profil_pb_uint(&label, LABEL_STR, str_id(pp, v));
	profil_pb_msg(sample, SAMPLE_LABEL, &label);
	free(label.p);
}

static int
add_sample(void *arg, const struct profil_stack *st)
{
	struct pprof *pp = arg;
	struct pb packed = { NULL, 0, 0, 0 }, sample = { NULL, 0, 0, 0 };
	uint64_t count = st->sample->count;
	size_t d;
	int waiting;

	/* Locations first: they add to tmp, which a sample must not share. */
	for (d = 0; d < st->nframes; d++)
		pp->ids[d] = location_id(pp, st, &st->frames[d], d > 0);
	for (d = 0; d < st->nframes; d++)
		profil_pb_varint(&packed, pp->ids[d]);
	profil_pb_msg(&sample, SAMPLE_LOCATION_ID, &packed);
	profil_pb_varint(&packed, count);
	/* A waiting thread's sample (its leaf a wait frame) is wall time, not CPU time. */
	waiting = st->nframes > 0 && profil_pc_is_wait(st->frames[0].pc);
	profil_pb_varint(&packed, waiting ? 0 : nanoseconds(st->seconds));
	if (pp->wall)
		profil_pb_varint(&packed, nanoseconds(st->seconds));
	profil_pb_msg(&sample, SAMPLE_VALUE, &packed);
	/* What the sample ran in, under perf_data_converter's keys: `go tool pprof -tags` shows
	 * them, -tagfocus=comm=cc1 picks a program, -tagroot=comm puts it at the root. */
	label_str(pp, &sample, "comm", st->file->hdr.progname);
	label_num(pp, &sample, "pid", st->file->hdr.pid);
	label_num(pp, &sample, "tid", st->sample->tid);
	if (pp->tid_file != st->file || pp->tid != st->sample->tid) {
		pp->tid_file = st->file;
		pp->tid = st->sample->tid;
		pp->tid_name = profil_report_thread_name(st->file, pp->tid);
	}
	label_str(pp, &sample, "thread_comm", pp->tid_name);
	out_msg(pp, PROFILE_SAMPLE, &sample);
	free(packed.p);
	free(sample.p);
	if (packed.error || sample.error)
		pp->error = -ENOMEM;
	return pp->error;
}

static void
value_type(struct pprof *pp, unsigned field, const char *type, const char *unit)
{
	profil_pb_uint(&pp->tmp, VALUE_TYPE_TYPE, str_id(pp, type));
	profil_pb_uint(&pp->tmp, VALUE_TYPE_UNIT, str_id(pp, unit));
	out_msg(pp, field, &pp->tmp);
}

/* The profile-wide fields: types, period, times.  The period is the average one; each
 * sample's cpu value uses its own file's rate. */
static void
header(struct pprof *pp, struct profil_report *r)
{
	const struct profil_file *f;
	uint64_t start = UINT64_MAX, end = 0;
	double seconds = profil_report_seconds(r);
	uint64_t total = profil_report_total(r);
	size_t i;

	for (i = 0; i < profil_report_nfiles(r); i++)
		if (profil_report_file(r, i, NULL)->hdr.flags & PROFIL_HDR_WALL)
			pp->wall = 1;
	value_type(pp, PROFILE_SAMPLE_TYPE, "samples", "count");
	value_type(pp, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	/* --wall: threads' time on a CPU and waiting, shown first (pprof's default). */
	if (pp->wall)
		value_type(pp, PROFILE_SAMPLE_TYPE, "wall", "nanoseconds");
	/* With --wall a tick is a period of the wall clock, whether the thread ran or not. */
	value_type(pp, PROFILE_PERIOD_TYPE, pp->wall ? "wall" : "cpu", "nanoseconds");
	if (pp->wall) {
		uint64_t wall = str_id(pp, "wall");

		profil_pb_uint(&pp->tmp, PROFILE_DEFAULT_SAMPLE_TYPE, wall);
	}
	if (total > 0)
		profil_pb_uint(&pp->tmp, PROFILE_PERIOD, nanoseconds(seconds / (double)total));
	for (i = 0; i < profil_report_nfiles(r); i++) {
		f = profil_report_file(r, i, NULL);
		/* A file without a clock reading (start 0) says nothing about when it ran. */
		if (f->hdr.start_ns == 0 || f->hdr.end_ns < f->hdr.start_ns)
			continue;
		if (f->hdr.start_ns < start)
			start = f->hdr.start_ns;
		if (f->hdr.end_ns > end)
			end = f->hdr.end_ns;
	}
	if (start != UINT64_MAX) {
		profil_pb_uint(&pp->tmp, PROFILE_TIME_NANOS, start);
		if (end > start)
			profil_pb_uint(&pp->tmp, PROFILE_DURATION_NANOS, end - start);
	}
	/* Scalars of the profile itself: tmp holds fields, not one message. */
	if (pp->tmp.error)
		pp->error = pp->tmp.error;
	out_bytes(pp, pp->tmp.p, pp->tmp.len, Z_NO_FLUSH);
	pp->tmp.len = 0;
}

/*
 * profile.proto: "mapping[0] will be the main binary", the one pprof names in its heading
 * ("File: python3"); so the executables' mappings are numbered before any library's, those
 * of the program with the most samples first: in a recording of a build or of a shell that
 * runs the program, the first file read is make's or the shell's (issue 21).
 */
static void
main_mappings(struct pprof *pp, struct profil_report *r)
{
	size_t main = profil_export_main_program(r);
	const struct profil_file *f;
	size_t i, j;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < profil_report_nfiles(r); i++) {
			if ((profil_report_file_program(r, i) == main) != (pass == 0))
				continue;
			f = profil_report_file(r, i, NULL);
			for (j = 0; j < f->nmaps; j++)
				if (f->hdr.exe[0] != '\0' &&
				    strcmp(f->maps[j].path, f->hdr.exe) == 0)
					mapping_id(pp, i, f, &f->maps[j]);
		}
	}
}

/* The title (profil_export_title) and how to see each program, as the profile's comments,
 * which `go tool pprof -comments` prints. */
static void
comments(struct pprof *pp, struct profil_report *r)
{
	char title[1024];
	uint64_t c[2];
	int i;

	c[0] = str_id(pp, profil_export_title(r, title, sizeof(title)));
	c[1] = str_id(pp, "samples labelled comm (the program), pid, tid and thread_comm: "
	    "go tool pprof -tags; -tagroot=comm,pid puts them at the root of every stack");
	for (i = 0; i < 2; i++) {
		profil_pb_varint(&pp->tmp, PROFILE_COMMENT << 3);
		profil_pb_varint(&pp->tmp, c[i]);
	}
	if (pp->tmp.error)
		pp->error = pp->tmp.error;
	out_bytes(pp, pp->tmp.p, pp->tmp.len, Z_NO_FLUSH);
	pp->tmp.len = 0;
}

int
profil_export_pprof(struct profil_report *r, FILE *out)
{
	struct pprof *pp;
	int err;

	pp = calloc(1, sizeof(*pp));
	if (pp == NULL)
		return -ENOMEM;
	pp->out = out;
	/*
	 * gzip: windowBits 15 + 16.  Level 3, not the default 6: a profile is runs of short
	 * messages alike but for a varint, where the lazy matcher of levels 4 and up walks
	 * long hash chains for nothing.  On 500,000 distinct frames level 6 took 4.6 s of a
	 * 4.7 s export for 6.85 MB, level 3 1.1 s for 6.75 MB (issue 19).
	 */
	if (deflateInit2(&pp->z, 3, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		free(pp);
		return -ENOMEM;
	}
	pp->ids = calloc(PROFIL_FORMAT_MAX_DEPTH, sizeof(*pp->ids));
	if (pp->ids == NULL)
		pp->error = -ENOMEM;
	/* profile.proto: string_table[0] must be "", so it is the first string in. */
	str_id(pp, "");
	header(pp, r);
	comments(pp, r);
	main_mappings(pp, r);
	err = pp->error != 0 ? pp->error : profil_report_stacks(r, add_sample, pp);
	if (err == 0)
		err = pp->error;
	if (err == 0) {
		out_bytes(pp, NULL, 0, Z_FINISH);
		err = pp->error;
	}
	deflateEnd(&pp->z);
	free(pp->tmp.p);
	free(pp->tmp2.p);
	free(pp->msg.p);
	free(pp->stage.p);
	free(pp->function_of);
	free(pp->string_of);
	id_release(&pp->mapping_ids);
	id_release(&pp->location_ids);
	id_release(&pp->function_ids);
	profil_strtab_release(&pp->strs);
	free(pp->ids);
	free(pp);
	return err;
}
