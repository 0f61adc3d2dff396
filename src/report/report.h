/*
 * report.h - what `profil report` builds from profile files: a session that owns the files, the
 * symbolizer and the per-function aggregation, and the views printed from it.
 *
 * Files are added one by one (each one process image, read by src/format); samples are
 * attributed through that file's own mappings, so processes with different load addresses
 * merge by function and module.  Seconds come from each file's achieved rate (ticks per CPU
 * second), never from the requested one.  Views read the session and print; the session
 * never prints.  Not thread-safe.
 */
#ifndef PROFIL_REPORT_H
#define PROFIL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profil_file;
struct profil_module;
struct profil_report;

/* One row of the flat view: a function (or an unnamed place) of a module. */
struct profil_report_entry {
	const struct profil_module *module;	/* NULL: the PC was in no recorded mapping */
	const char *function;	/* NULL when unknown: shown as module+0xoffset */
	uint64_t offset;	/* file offset, for unknown functions */
	const char *file;	/* the function's source file, when the line table says so */
	uint64_t count;		/* ticks */
	double seconds;		/* sum over files of ticks / achieved rate */
};

/* A new, empty session.  NULL with errno ENOMEM. */
struct profil_report *profil_report_new(void);

/* Frees the session, every file added to it and every entry. */
void profil_report_free(struct profil_report *r);

/*
 * Adds a file read by profil_file_read(); the session takes ownership of it (also on error).
 * name is how views and messages call the file.  Returns 0 or -ENOMEM.
 */
int profil_report_add(struct profil_report *r, const char *name, struct profil_file *f);

/* Totals over every file added: ticks, seconds of CPU they stand for, files, dropped ticks. */
uint64_t profil_report_total(const struct profil_report *r);
double profil_report_seconds(const struct profil_report *r);
size_t profil_report_nfiles(const struct profil_report *r);
const struct profil_file *profil_report_file(const struct profil_report *r, size_t i,
    const char **name);

/*
 * The session's symbolizer and a file's rate (ticks per CPU second, as seconds are computed),
 * for views and exporters that walk whole stacks (report/stack.h) with the same answers.
 */
struct profil_symbolizer *profil_report_symbolizer(struct profil_report *r);
double profil_report_file_hz(const struct profil_report *r, size_t i);

/* The entries, heaviest first (ties by name); valid until the session is freed. */
const struct profil_report_entry *profil_report_entries(struct profil_report *r, size_t *n);

/*
 * The modules the samples touched that could not be fully symbolized, one call per module:
 * fn(arg, module).  Callers warn once per module with profil_module_status_str().
 */
void profil_report_modules(const struct profil_report *r,
    void (*fn)(void *arg, const struct profil_module *mod), void *arg);

/*
 * profil_share_interval - the 95% confidence interval of a share k/n of samples (Wilson score
 * interval, z = 1.96): sampling is a binomial draw of n ticks, so a function seen k times has
 * a true share in [*lo, *hi] with 95% confidence.  Stays inside [0, 1] and is sensible for
 * k = 0 and small n, unlike k/n +- z*sd.  n = 0 gives [0, 1].
 */
void profil_share_interval(uint64_t k, uint64_t n, double *lo, double *hi);

/* How the flat view prints. */
struct profil_flat_options {
	size_t limit;		/* rows at most; 0 for all */
	int tsv;		/* tab-separated values with a header line, for scripts */
};

/* Prints the flat view (gprof's columns plus the interval, function and module) to out.
 * Returns 0 or -errno of the write. */
int profil_report_flat_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out);

#endif /* PROFIL_REPORT_H */
