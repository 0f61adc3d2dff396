/*
 * firefox.c - the session as a Gecko profile, the JSON the Firefox Profiler (profiler.firefox.com)
 * opens and `perf script report gecko` writes.  The format's definition is the profiler's
 * src/types/gecko-profile.ts; its importer, src/profile-logic/process-profile.ts, turns each
 * thread's frame, stack and string tables into the processed profile, and
 * gecko-profile-versioning.ts upgrades older versions.  We write version 27 (the frame table
 * without the "optimizations" column that version dropped): the upgraders after it only add an
 * empty source table, so every profiler since 2023 reads the file as its own.
 *
 * Frames are presymbolicated, named "function (in module)" as `profil report` names them (the
 * importer takes the module as the function's library), one frame per inline level.  A Gecko
 * sample has no weight (the importer sets weight null, process-profile.ts _processSamples), so
 * each tick is one sample, at the time the TIME records give it.  The tables are made by
 * firefox_tables.c; this file writes them, the samples in time and the gzip stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "export/firefox.h"
#include "format/format.h"
#include "report/escape.h"
#include "report/index.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

#define FIREFOX_VERSION		27

/* meta.categories: the colours are the profiler's names (src/utils/colors.ts); their
 * numbers are firefox.h's CAT_ and SUB_. */
static const char categories[] =
    "[{\"name\": \"Other\", \"color\": \"grey\", \"subcategories\": [\"Other\"]},\n"
    "{\"name\": \"User\", \"color\": \"yellow\", \"subcategories\": [\"Other\"]},\n"
    "{\"name\": \"Kernel\", \"color\": \"orange\", \"subcategories\": [\"Other\"]},\n"
    "{\"name\": \"Idle\", \"color\": \"transparent\", "
    "\"subcategories\": [\"Waiting\", \"Waiting for a CPU\"]}]";

/* Strings as JSON: the text view's escapes first, then JSON's. */
static void
json_str(FILE *out, const char *s)
{
	char shown[4 * 4096 + 8], json[4 * 4 * 4096 + 8];

	fprintf(out, "\"%s\"", profil_escape_json(profil_escape(s, shown, sizeof(shown)), json,
	    sizeof(json)));
}

/* ns as milliseconds with nanosecond digits, the unit of every time in the format. */
static void
json_ms(FILE *out, double ns)
{
	fprintf(out, "%.6f", ns / 1e6);
}

/* count ticks of one stack of a thread in one time slot, or without a time (UNTIMED). */
struct tick {
	uint32_t thread;
	uint32_t stack;
	uint64_t slot;			/* UNTIMED: placed at the start */
	uint64_t count;
	size_t order;			/* file order, for a stable sort */
};

#define UNTIMED	UINT64_MAX

static int
tick_cmp(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->slot != y->slot) {
		/* Untimed ticks first, at the start: before every slot. */
		if (x->slot == UNTIMED || y->slot == UNTIMED)
			return x->slot == UNTIMED ? -1 : 1;
		return x->slot < y->slot ? -1 : 1;
	}
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * A min-heap of a slot's entries by the position of each one's next tick, (j + 0.5) / count:
 * the ticks of one slot are spread evenly over it and its stacks interleaved in proportion,
 * for the file says no more than "count ticks of this stack in this slot".
 */
struct slot_heap {
	size_t *e;			/* entry numbers */
	uint64_t *next;			/* per entry of the run: ticks already placed */
	size_t n;
};

static double
heap_key(const struct slot_heap *h, const struct tick *run, size_t e)
{
	return ((double)h->next[e] + 0.5) / (double)run[e].count;
}

static int
heap_less(const struct slot_heap *h, const struct tick *run, size_t a, size_t b)
{
	double ka = heap_key(h, run, a), kb = heap_key(h, run, b);

	return ka < kb || (ka == kb && a < b);
}

static void
heap_down(struct slot_heap *h, const struct tick *run, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, tmp;

		if (l < h->n && heap_less(h, run, h->e[l], h->e[m]))
			m = l;
		if (l + 1 < h->n && heap_less(h, run, h->e[l + 1], h->e[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h->e[i];
		h->e[i] = h->e[m];
		h->e[m] = tmp;
		i = m;
	}
}

/* Writes the samples of one slot's run (k entries): n ticks, each at its place in the slot. */
static void
write_run(FILE *out, const struct tick *run, size_t k, struct slot_heap *h, double start_ns,
    double width_ns, int *first)
{
	uint64_t n = 0, i;
	size_t j;

	for (j = 0; j < k; j++) {
		n = profil_count_add(n, run[j].count);
		h->e[j] = j;
		h->next[j] = 0;
	}
	h->n = k;
	for (j = k / 2 + 1; j-- > 0;)
		heap_down(h, run, j);
	for (i = 0; i < n && h->n > 0; i++) {
		size_t e = h->e[0];

		fprintf(out, "%s[%" PRIu32 ",", *first ? "" : ",\n", run[e].stack);
		json_ms(out, start_ns + width_ns * ((double)i + 0.5) / (double)n);
		fputs(",0]", out);
		*first = 0;
		if (++h->next[e] == run[e].count)
			h->e[0] = h->e[--h->n];
		heap_down(h, run, 0);
	}
}

/* The thread's samples: its ticks (run[0 .. n)), sorted by slot. */
static void
write_samples(FILE *out, const struct profil_file *f, uint64_t origin_ns, const struct tick *ticks,
    size_t n, struct slot_heap *h)
{
	double base = (double)(f->hdr.start_ns - origin_ns);
	int first = 1;
	size_t i, j;

	fputs("\"samples\": {\"schema\": {\"stack\": 0, \"time\": 1, \"responsiveness\": 2},\n"
	    "\"data\": [", out);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ticks[j].slot == ticks[i].slot; j++)
			;
		if (ticks[i].slot == UNTIMED)
			write_run(out, ticks + i, j - i, h, base, 0, &first);
		else
			write_run(out, ticks + i, j - i, h,
			    base + (double)ticks[i].slot * (double)f->slot_ns, (double)f->slot_ns,
			    &first);
	}
	fputs("]},\n", out);
}

/*
 * The thread's tables, a row a line.  A frame row ends at its last column we fill (the
 * importer's _toStructOfArrays reads a column past a row's end as null): the columns we leave
 * null come last, so a frame of code nothing names is "[location,false,category,sub]".  A
 * bare frame's name, module+0xoffset (in module), is the string after every row of strs in
 * the bare frames' order.
 */
static void
write_tables(FILE *out, const struct ff_thread *t)
{
	char name[2 * 4096 + 64];
	size_t i, bare = 0;

	fputs("\"markers\": {\"schema\": {\"name\": 0, \"startTime\": 1, \"endTime\": 2, "
	    "\"phase\": 3, \"category\": 4, \"data\": 5}, \"data\": []},\n", out);
	fputs("\"frameTable\": {\"schema\": {\"location\": 0, \"relevantForJS\": 1, "
	    "\"category\": 2, \"subcategory\": 3, \"line\": 4, \"innerWindowID\": 5, "
	    "\"implementation\": 6, \"column\": 7},\n\"data\": [", out);
	for (i = 0; i < t->nframes; i++) {
		const struct ff_frame *fr = &t->frames[i];

		fprintf(out, "%s[%zu,false,%u,%u", i ? ",\n" : "",
		    fr->bare ? t->strs.n + bare++ : fr->location, fr->category, fr->subcategory);
		if (!fr->bare && fr->line > 0)
			fprintf(out, ",%" PRIu64, fr->line);
		fputs("]", out);
	}
	fputs("]},\n\"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1},\n\"data\": [", out);
	for (i = 0; i < t->nstacks; i++) {
		if (t->stacks[i].prefix == UINT32_MAX)
			fprintf(out, "%s[null,%" PRIu32 "]", i ? ",\n" : "", t->stacks[i].frame);
		else
			fprintf(out, "%s[%" PRIu32 ",%" PRIu32 "]", i ? ",\n" : "",
			    t->stacks[i].prefix, t->stacks[i].frame);
	}
	fputs("]},\n\"stringTable\": [", out);
	for (i = 0; i < t->strs.n; i++) {
		fputs(i ? ",\n" : "", out);
		json_str(out, t->strs.strs[i]);
	}
	for (i = 0; i < t->nframes; i++) {
		const struct ff_frame *fr = &t->frames[i];

		if (!fr->bare)
			continue;
		snprintf(name, sizeof(name), "%s+0x%" PRIx64 " (in %s)",
		    t->strs.strs[fr->location], fr->line, t->strs.strs[fr->location]);
		fputs(",\n", out);
		json_str(out, name);
	}
	fputs("]", out);
}

/*
 * The thread's name: its own (comm), else the program's for the main thread.  image is the
 * number of files of the session with samples and its pid that started before it (an exec,
 * or a pid reused).
 */
static void
write_thread_head(FILE *out, const struct profil_file *f, size_t image,
    const struct ff_thread *t, uint64_t origin_ns)
{
	const char *name = "";
	char tidname[32];
	size_t i;

	for (i = 0; i < f->nthreads; i++)
		if (f->threads[i].tid == t->tid)
			name = f->threads[i].name;
	if (name[0] == '\0' && t->tid == f->hdr.pid)
		name = f->hdr.progname;
	if (name[0] == '\0') {
		snprintf(tidname, sizeof(tidname), "thread %" PRIu32, t->tid);
		name = tidname;
	}
	fputs("{\"name\": ", out);
	json_str(out, name);
	/* processName names the process track (tracks.ts); the pid groups threads into it. */
	fputs(", \"processName\": ", out);
	json_str(out, f->hdr.progname);
	/* The importer takes the pid as a string (`${thread.pid}`, process-profile.ts) and the
	 * viewer makes a process of the threads of one pid string (tracks.ts): a later image of
	 * a pid is "pid.image", a process of its own. */
	if (image == 0)
		fprintf(out, ", \"processType\": \"default\", \"pid\": %" PRIu32, f->hdr.pid);
	else
		fprintf(out, ", \"processType\": \"default\", \"pid\": \"%" PRIu32 ".%zu\"",
		    f->hdr.pid, image);
	fprintf(out, ", \"tid\": %" PRIu32 ",\n\"registerTime\": ", t->tid);
	json_ms(out, (double)(f->hdr.start_ns - origin_ns));
	fputs(", \"unregisterTime\": null,\n", out);
}

/* Every thread of file i (threads[first ..), in their order), with its ticks; image as
 * write_thread_head()'s. */
static int
write_file(FILE *out, const struct ff *ff, const struct profil_file *f, size_t i, size_t image,
    uint64_t origin_ns, int *first)
{
	const struct ff_sample *s = ff->samples[i];
	struct slot_heap h = { NULL, NULL, 0 };
	struct tick *ticks;
	size_t n = 0, k, t, maxrun = 1, run;

	if (s == NULL)
		return 0;		/* no samples: no thread */
	ticks = malloc((f->ntimes + f->nsamples + 1) * sizeof(*ticks));
	if (ticks == NULL)
		return -ENOMEM;
	/* Samples the walk did not meet have no thread: left out, as from every view. */
	for (k = 0; k < f->ntimes; k++) {
		const struct profil_file_time *tm = &f->times[k];

		if (s[tm->sample].thread == UINT32_MAX)
			continue;
		ticks[n] = (struct tick){ s[tm->sample].thread, s[tm->sample].stack, tm->slot,
		    tm->count, n };
		n++;
	}
	for (k = 0; k < f->nsamples; k++)
		if (s[k].thread != UINT32_MAX && s[k].timed < f->samples[k].count) {
			ticks[n] = (struct tick){ s[k].thread, s[k].untimed_stack, UNTIMED,
			    f->samples[k].count - s[k].timed, n };
			n++;
		}
	qsort(ticks, n, sizeof(*ticks), tick_cmp);
	for (k = 0, run = 0; k < n; k++) {
		run = k > 0 && ticks[k].thread == ticks[k - 1].thread &&
		    ticks[k].slot == ticks[k - 1].slot ? run + 1 : 1;
		if (run > maxrun)
			maxrun = run;
	}
	h.e = malloc(maxrun * sizeof(*h.e));
	h.next = malloc(maxrun * sizeof(*h.next));
	if (h.e == NULL || h.next == NULL) {
		free(h.e);
		free(h.next);
		free(ticks);
		return -ENOMEM;
	}
	for (t = 0, k = 0; t < ff->nthreads; t++) {
		size_t end;

		if (ff->threads[t].file != i)
			continue;
		for (end = k; end < n && ticks[end].thread == t; end++)
			;
		fputs(*first ? "" : ",\n", out);
		*first = 0;
		write_thread_head(out, f, image, &ff->threads[t], origin_ns);
		write_samples(out, f, origin_ns, ticks + k, end - k, &h);
		write_tables(out, &ff->threads[t]);
		fputs("}", out);
		k = end;
	}
	free(h.e);
	free(h.next);
	free(ticks);
	return 0;
}

static void
write_meta(FILE *out, struct profil_report *r, const char *title, uint64_t origin_ns,
    double end_ns)
{
	uint32_t hz = 0;
	int stacks = 0;
	size_t i;

	for (i = 0; i < profil_report_nfiles(r); i++) {
		const struct profil_file *f = profil_report_file(r, i, NULL);

		if (f->hdr.requested_hz > hz)
			hz = f->hdr.requested_hz;
		stacks |= (f->hdr.flags & PROFIL_HDR_STACKS) != 0;
	}
	fprintf(out, "{\"meta\": {\"version\": %d, \"product\": ", FIREFOX_VERSION);
	json_str(out, title);
	/* Times are ms after startTime, itself ms since the epoch; interval is the period. */
	fputs(", \"startTime\": ", out);
	json_ms(out, (double)origin_ns);
	fprintf(out, ", \"shutdownTime\": null,\n\"profilingStartTime\": 0, "
	    "\"profilingEndTime\": ");
	json_ms(out, end_ns);
	fprintf(out, ", \"interval\": %g, \"processType\": 0, \"stackwalk\": %d, \"debug\": 0, "
	    "\"gcpoison\": 0, \"asyncstack\": 0, \"presymbolicated\": true, "
	    "\"platform\": \"Linux\",\n\"markerSchema\": [],\n\"categories\": %s},\n",
	    1000.0 / (hz ? hz : 1), stacks, categories);
	/* No libraries: the frames are named already, and addresses would only be looked up in
	 * them to be symbolicated again. */
	fputs("\"libs\": [], \"pausedRanges\": [], \"processes\": [],\n\"threads\": [", out);
}

struct file_pid {
	uint32_t pid;
	uint64_t start_ns;
	size_t file;
};

static int
file_pid_cmp(const void *a, const void *b)
{
	const struct file_pid *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* For each of the n files of r, the number of files with samples and its pid that started
 * before it (or with it, and come first): a file without samples is no process in the
 * profile.  NULL: no memory. */
static size_t *
images(struct profil_report *r, const struct ff *ff, size_t n)
{
	struct file_pid *by = malloc((n + 1) * sizeof(*by));
	size_t *image = malloc((n + 1) * sizeof(*image));
	size_t i, k;

	if (by == NULL || image == NULL) {
		free(by);
		free(image);
		return NULL;
	}
	for (i = 0, k = 0; i < n; i++) {
		const struct profil_file *f = profil_report_file(r, i, NULL);

		image[i] = 0;
		if (ff->samples[i] != NULL)
			by[k++] = (struct file_pid){ f->hdr.pid, f->hdr.start_ns, i };
	}
	qsort(by, k, sizeof(*by), file_pid_cmp);
	for (i = 1; i < k; i++)
		if (by[i - 1].pid == by[i].pid)
			image[by[i].file] = image[by[i - 1].file] + 1;
	free(by);
	return image;
}

/* The JSON of the session; 0, -ENOMEM, -EFBIG or -EIO of the stream. */
static int
write_profile(struct profil_report *r, const char *title, FILE *out)
{
	struct ff ff;
	size_t *image;
	uint64_t origin = UINT64_MAX;
	double end = 0;
	int err, first = 1;
	size_t i;

	memset(&ff, 0, sizeof(ff));
	ff.nfiles = profil_report_nfiles(r);
	ff.samples = calloc(ff.nfiles + 1, sizeof(*ff.samples));
	if (ff.samples == NULL)
		return -ENOMEM;
	err = profil_report_stacks(r, profil_firefox_add_stack, &ff);
	if (err == 0 && ff.ticks > PROFIL_FIREFOX_MAX_TICKS)
		err = -EFBIG;
	for (i = 0; i < ff.nfiles; i++) {
		const struct profil_file *f = profil_report_file(r, i, NULL);

		if (f->hdr.start_ns < origin)
			origin = f->hdr.start_ns;
	}
	if (origin == UINT64_MAX)
		origin = 0;
	for (i = 0; i < ff.nfiles; i++) {
		const struct profil_file *f = profil_report_file(r, i, NULL);
		double start = (double)(f->hdr.start_ns - origin);
		size_t k;

		if (f->hdr.end_ns > origin && (double)(f->hdr.end_ns - origin) > end)
			end = (double)(f->hdr.end_ns - origin);
		/* A slot's ticks can lie past the last flush's time; the range holds them. */
		for (k = 0; k < f->ntimes; k++)
			if (start + ((double)f->times[k].slot + 1) * (double)f->slot_ns > end)
				end = start + ((double)f->times[k].slot + 1) * (double)f->slot_ns;
	}
	if (err == 0) {
		write_meta(out, r, title, origin, end);
		image = images(r, &ff, ff.nfiles);
		err = image == NULL ? -ENOMEM : 0;
		for (i = 0; i < ff.nfiles && err == 0; i++)
			err = write_file(out, &ff, profil_report_file(r, i, NULL), i, image[i],
			    origin, &first);
		free(image);
		fputs("]}\n", out);
	}
	for (i = 0; i < ff.nthreads; i++) {
		profil_strtab_release(&ff.threads[i].strs);
		profil_index_rows_release(&ff.threads[i].frame_index);
		profil_index_rows_release(&ff.threads[i].stack_index);
		free(ff.threads[i].frames);
		free(ff.threads[i].stacks);
	}
	for (i = 0; i < ff.nfiles; i++)
		free(ff.samples[i]);
	free(ff.samples);
	free(ff.threads);
	profil_thread_table_release(&ff.ids);
	if (err == 0 && ferror(out))
		err = -EIO;
	return err;
}

/*
 * gzip through zlib's deflate, as a stdio stream over out: the profile is written as it is
 * made, so it is never held whole in memory.
 */
struct gz {
	z_stream z;
	FILE *out;
	int error;
	uint8_t buf[65536];
};

static int
gz_push(struct gz *g, const void *data, size_t len, int flush)
{
	int zr;

	g->z.next_in = (Bytef *)(uintptr_t)data;
	g->z.avail_in = (uInt)len;
	do {
		size_t have;

		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		zr = deflate(&g->z, flush);
		have = sizeof(g->buf) - g->z.avail_out;
		if (zr == Z_STREAM_ERROR || fwrite(g->buf, 1, have, g->out) != have) {
			g->error = 1;
			return -1;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

static ssize_t
gz_write(void *cookie, const char *data, size_t len)
{
	struct gz *g = cookie;

	/* Short: stdio marks the stream in error. */
	if (g->error || gz_push(g, data, len, Z_NO_FLUSH) != 0)
		return 0;
	return (ssize_t)len;
}

static int
gz_close(void *cookie)
{
	struct gz *g = cookie;

	if (!g->error)
		gz_push(g, NULL, 0, Z_FINISH);
	deflateEnd(&g->z);
	return g->error ? -1 : 0;
}

int
profil_export_firefox(struct profil_report *r, const char *title, int gzip, FILE *out)
{
	static const cookie_io_functions_t io = { NULL, gz_write, NULL, gz_close };
	struct gz *g;
	FILE *z;
	int err, cerr;

	if (!gzip)
		return write_profile(r, title, out);
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->out = out;
	/* gzip: windowBits 15 + 16; level 6, JSON of repeated rows compresses some 10 to 1. */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	z = fopencookie(g, "w", io);
	if (z == NULL) {
		deflateEnd(&g->z);
		free(g);
		return -ENOMEM;
	}
	err = write_profile(r, title, z);
	cerr = fclose(z);
	if (err == 0 && (cerr != 0 || g->error))
		err = -EIO;
	free(g);
	return err;
}
