/*
 * window.c - the profile of a window of time from a recording that keeps growing (window.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "export/export.h"
#include "fleet/window.h"
#include "format/format.h"
#include "report/index.h"
#include "report/report.h"
#include "report/symbols.h"

/*
 * One file at the mark: its distinct (thread, epoch, stack) keys, as rows of its samples, and
 * the count of each still to subtract (the reader keeps duplicate samples: they are summed).
 */
struct profil_window_base {
	char *name;
	struct profil_file *f;		/* NULL: the image had ended, nothing more comes */
	size_t *rows;			/* key -> a sample of f holding it */
	uint64_t *counts;		/* key -> its count at the mark */
	size_t nkeys;
	struct profil_index index;
};

struct key {
	const struct profil_window_base *b;
	const struct profil_file_sample *s;
};

static uint64_t
sample_hash(const struct profil_file_sample *s)
{
	uint64_t h = 0;
	uint32_t i;

	for (i = 0; i < s->depth; i++)
		h = profil_hash3(h, s->pcs[i], i);
	return profil_hash3((uint64_t)s->tid << 32 | s->epoch, s->depth, h);
}

static int
sample_same(const void *arg, size_t row)
{
	const struct key *k = arg;
	const struct profil_file_sample *a = k->s, *b = &k->b->f->samples[k->b->rows[row]];

	return a->tid == b->tid && a->epoch == b->epoch && a->depth == b->depth &&
	    memcmp(a->pcs, b->pcs, a->depth * sizeof(*a->pcs)) == 0;
}

/* The key of sample s of b: its row, added (count 0) when new, or -ENOMEM. */
static ssize_t
key_get(struct profil_window_base *b, const struct profil_file_sample *s, size_t self)
{
	struct key k = { b, s };
	ssize_t i;

	i = profil_index_get(&b->index, sample_hash(s), sample_same, &k, b->nkeys);
	if (i >= 0 && (size_t)i == b->nkeys) {
		b->rows[i] = self;
		b->counts[i] = 0;
		b->nkeys++;
	}
	return i;
}

/* The row of s among b's keys, or -1. */
static ssize_t
key_find(const struct profil_window_base *b, const struct profil_file_sample *s)
{
	struct key k = { b, s };

	return profil_index_find(&b->index, sample_hash(s), sample_same, &k);
}

static void
base_release(struct profil_window_base *b)
{
	free(b->name);
	profil_file_free(b->f);
	free(b->rows);
	free(b->counts);
	profil_index_release(&b->index);
}

static int
base_index(struct profil_window_base *b)
{
	size_t i;
	ssize_t k;

	b->rows = malloc((b->f->nsamples + 1) * sizeof(*b->rows));
	b->counts = malloc((b->f->nsamples + 1) * sizeof(*b->counts));
	if (b->rows == NULL || b->counts == NULL)
		return -ENOMEM;
	for (i = 0; i < b->f->nsamples; i++) {
		k = key_get(b, &b->f->samples[i], i);
		if (k < 0)
			return (int)k;
		b->counts[k] = profil_count_add(b->counts[k], b->f->samples[i].count);
	}
	return 0;
}

static int
is_profile(const char *name)
{
	size_t len = strlen(name);

	/* The recorder's temporary files start with a dot and are never complete. */
	return name[0] != '.' && len >= 8 && strcmp(name + len - 7, ".profil") == 0;
}

static int
read_at(const char *dir, const char *name, struct profil_file **f)
{
	char path[4096], err[256];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return profil_file_read(path, f, err, sizeof(err));
}

int
profil_window_mark(struct profil_window *w, const char *dir, int prune)
{
	struct profil_window_base *b;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	w->start_ns = profil_clock_ns(CLOCK_REALTIME);
	w->dir = strdup(dir);
	d = opendir(dir);
	if (w->dir == NULL || d == NULL) {
		rc = d == NULL ? -errno : -ENOMEM;
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_profile(de->d_name))
			continue;
		if (w->nbase % 64 == 0) {
			b = realloc(w->base, (w->nbase + 64) * sizeof(*b));
			if (b == NULL) {
				rc = -ENOMEM;
				break;
			}
			w->base = b;
		}
		b = &w->base[w->nbase];
		memset(b, 0, sizeof(*b));
		if (read_at(dir, de->d_name, &b->f) != 0)
			continue;
		b->name = strdup(de->d_name);
		w->nbase++;
		if (b->name == NULL) {
			rc = -ENOMEM;
			break;
		}
		if (b->f->hdr.exit_kind != PROFIL_EXIT_RUNNING) {
			profil_file_free(b->f);
			b->f = NULL;
			if (prune)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if ((rc = base_index(b)) != 0)
			break;
	}
out:
	if (d != NULL)
		closedir(d);
	if (rc != 0)
		profil_window_release(w);
	return rc;
}

static const struct profil_window_base *
base_find(const struct profil_window *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nbase; i++)
		if (strcmp(w->base[i].name, name) == 0)
			return &w->base[i];
	return NULL;
}

static uint64_t
less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * f less the counts of b, in place: samples counted at the mark are taken off (a key's count
 * once, over its duplicates), those left with nothing removed.  left is b's counts, spent.
 */
static void
subtract(struct profil_file *f, const struct profil_window_base *b, uint64_t *left,
    uint64_t start_ns)
{
	size_t i, n = 0;
	ssize_t k;

	for (i = 0; i < f->nsamples; i++) {
		struct profil_file_sample *s = &f->samples[i];
		uint64_t d;

		if ((k = key_find(b, s)) >= 0) {
			d = s->count < left[k] ? s->count : left[k];
			left[k] -= d;
			s->count -= d;
		}
		if (s->count == 0) {
			free(s->pcs);
			continue;
		}
		f->samples[n++] = *s;
	}
	f->nsamples = n;
	f->hdr.samples = less(f->hdr.samples, b->f->hdr.samples);
	f->hdr.ticks = less(f->hdr.ticks, b->f->hdr.ticks);
	f->hdr.dropped = less(f->hdr.dropped, b->f->hdr.dropped);
	f->hdr.cpu_ns = less(f->hdr.cpu_ns, b->f->hdr.cpu_ns);
	f->hdr.system_ns = less(f->hdr.system_ns, b->f->hdr.system_ns);
	if (f->hdr.start_ns < start_ns)
		f->hdr.start_ns = start_ns;
}

int
profil_window_report(const struct profil_window *w, struct profil_report *r)
{
	const struct profil_window_base *b;
	struct profil_file *f;
	struct dirent *de;
	DIR *d = opendir(w->dir);
	int rc = 0;

	if (d == NULL)
		return -errno;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t *left = NULL;

		if (!is_profile(de->d_name))
			continue;
		b = base_find(w, de->d_name);
		/* Ended at the mark: its file has not changed since. */
		if (b != NULL && b->f == NULL)
			continue;
		if (read_at(w->dir, de->d_name, &f) != 0)
			continue;
		if (b != NULL) {
			left = malloc((b->nkeys + 1) * sizeof(*left));
			if (left == NULL) {
				profil_file_free(f);
				rc = -ENOMEM;
				break;
			}
			memcpy(left, b->counts, b->nkeys * sizeof(*left));
			subtract(f, b, left, w->start_ns);
			free(left);
		}
		rc = profil_report_add(r, de->d_name, f);
	}
	closedir(d);
	return rc;
}

int
profil_window_pprof(const struct profil_window *w, char **data, size_t *len)
{
	struct profil_report *r = profil_report_new();
	FILE *out;
	int rc;

	*data = NULL;
	*len = 0;
	if (r == NULL)
		return -ENOMEM;
	profil_symbolizer_set_demangle(profil_report_symbolizer(r), 1);
	rc = profil_window_report(w, r);
	out = rc == 0 ? open_memstream(data, len) : NULL;
	if (rc == 0 && out == NULL)
		rc = -errno;
	if (out != NULL) {
		rc = profil_export_pprof(r, out);
		if (fclose(out) != 0 && rc == 0)
			rc = -ENOMEM;
	}
	if (rc != 0) {
		free(*data);
		*data = NULL;
		*len = 0;
	}
	profil_report_free(r);
	return rc;
}

void
profil_window_release(struct profil_window *w)
{
	size_t i;

	for (i = 0; i < w->nbase; i++)
		base_release(&w->base[i]);
	free(w->base);
	free(w->dir);
	memset(w, 0, sizeof(*w));
}
