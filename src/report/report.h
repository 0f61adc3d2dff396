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
	/* With a split (profil_report_set_split), what the row belongs to; else 0, 0, "". */
	size_t proc;		/* index of the file (process image); PROFIL_SPLIT_PROGRAM: of
				   the first file of the program */
	uint32_t tid;		/* PROFIL_SPLIT_THREAD: the thread */
	const char *thread;	/* its name from the file's THREAD record, "" if none */
};

/*
 * What the rows of the flat view are split by: nothing (every process merged by function and
 * module), the file (one process image each: its own table), or the thread of a file (one
 * table, a row per function and thread).
 */
enum profil_report_split {
	PROFIL_SPLIT_NONE = 0,
	PROFIL_SPLIT_PROCESS,
	PROFIL_SPLIT_THREAD,
	PROFIL_SPLIT_PROGRAM,		/* the files of one program name together: a build's
					   hundreds of processes as a table per program */
};

/* A new, empty session.  NULL with errno ENOMEM. */
struct profil_report *profil_report_new(void);

/* Frees the session, every file added to it and every entry. */
void profil_report_free(struct profil_report *r);

/*
 * Settings, before the first file is added: the split of the rows, and the process whose files
 * alone are kept (pid; every other file given to profil_report_add() is freed and skipped, and
 * does not count in nfiles).  Defaults: no split, every process.
 */
void profil_report_set_split(struct profil_report *r, enum profil_report_split split);
void profil_report_set_pid(struct profil_report *r, uint32_t pid);
enum profil_report_split profil_report_get_split(const struct profil_report *r);

/*
 * Adds a file read by profil_file_read(); the session takes ownership of it (also on error).
 * name is how views and messages call the file.  Returns 0 or -ENOMEM.
 */
int profil_report_add(struct profil_report *r, const char *name, struct profil_file *f);

/* Totals over every file added: ticks, seconds they stand for (time), files. */
uint64_t profil_report_total(const struct profil_report *r);
double profil_report_seconds(const struct profil_report *r);

/*
 * What a set of samples stands for.  Without --wall every tick is a period of CPU time; with
 * it (PROFIL_HDR_WALL), the ticks of waiting threads (their leaf a wait frame) are wall time
 * spent waiting, and the others time on a CPU: together, the threads' time.  CPU time is user
 * and kernel time where the recorder sampled the kernel (PROFIL_HDR_KERNEL), else user time
 * alone, and then the kernel's own count of the time in the kernel (PROFIL_HDR_SYSTEM_NS) is
 * what the samples left out.
 */
struct profil_report_time {
	uint64_t samples;	/* ticks, of every row */
	uint64_t waiting;	/* of them, those of waiting threads */
	double seconds;		/* of all the ticks, each file's at its rate */
	double waiting_seconds;	/* of the waiting ones */
	uint64_t cpu_waiting;	/* of those, ticks of threads waiting for a CPU */
	double cpu_waiting_seconds;
	int wall;		/* a file was recorded with --wall */
	int wait_cpu;		/* and counted the waits for a CPU (PROFIL_HDR_WAIT_CPU) */
	int kernel;		/* a file has samples of the kernel too */
	int user_only;		/* a file has user samples alone, and the kernel's count */
	int scaled;		/* of such files, one whose seconds are all its CPU time (inside
				   the program: rates per CPU second, user and kernel) */
	double unsampled_seconds;	/* of such files: their time in the kernel */
};

/* The time of file i, or of every file with PROFIL_REPORT_ALL; sums of such times. */
#define PROFIL_REPORT_ALL	SIZE_MAX
void profil_report_time(const struct profil_report *r, size_t i, struct profil_report_time *t);
void profil_report_time_add(struct profil_report_time *sum, const struct profil_report_time *t);

/*
 * profil_report_time_say - the one way every header, title and export says what samples
 * stand for, so that wall time is never called CPU time and the counts are the rows':
 * "N samples, S seconds of CPU", or for --wall "N samples, S seconds of threads' time:
 * C on a CPU, W waiting", and when the waits for a CPU were counted " (R for a CPU)".  CPU is
 * "CPU, user and kernel" where the kernel was sampled, and "user CPU" where it was not and the
 * kernel counted its time, which follows: "; K seconds in the kernel, not sampled"; or from
 * inside the program, whose seconds are all its CPU time, "S seconds of CPU, K of them in the
 * kernel, not sampled there".  With --wall the same goes with the time on a CPU: "C on a CPU
 * (user; K more in the kernel, not sampled)", or "C on a CPU (K in the kernel, not sampled
 * there)".  With seconds 0, the counts alone: "N samples", or for --wall "N samples (C on a
 * CPU, W waiting)" (", R of them for a CPU" before the parenthesis closes).  Returns buf (len
 * bytes).
 */
const char *profil_report_time_say(const struct profil_report_time *t, int seconds, char *buf,
    size_t len);

/*
 * profil_report_cpu_waits_say - the time file i's threads waited for a CPU, in all and per
 * thread, the longest first: "waited for a CPU: 0.820 s; main[4242] 0.800 s, writer[4243]
 * 0.020 s" (beyond PROFIL_REPORT_CPU_WAITERS threads, the others summed as ", N more threads
 * S s").  NULL when the file did not count such time, or has none, or without memory.
 */
#define PROFIL_REPORT_CPU_WAITERS	5
const char *profil_report_cpu_waits_say(const struct profil_report *r, size_t i, char *buf,
    size_t len);
size_t profil_report_nfiles(const struct profil_report *r);
const struct profil_file *profil_report_file(const struct profil_report *r, size_t i,
    const char **name);

/*
 * The session's symbolizer and the seconds a sample stands for, for views and exporters that
 * walk whole stacks (report/stack.h) with the same answers.
 */
struct profil_symbolizer *profil_report_symbolizer(struct profil_report *r);
/* The seconds sample s of file i stands for: its ticks at the file's achieved rate, or, for a
 * waiting thread's sample (--wall), at the requested rate its waits were sampled at. */
struct profil_file_sample;
double profil_report_sample_seconds(const struct profil_report *r, size_t i,
    const struct profil_file_sample *s);

/*
 * profil_count_add - a + b, or UINT64_MAX when the sum does not fit.  Every sum of sample
 * counts a view or an exporter makes goes through it: counts come from files, and one file's
 * sum fits 64 bits (the reader refuses one that does not) but a session's need not, and a
 * wrapped sum shows a few samples where there were 2^64.
 */
uint64_t profil_count_add(uint64_t a, uint64_t b);

/* The ticks of file i (the sum of its samples' counts). */
uint64_t profil_report_file_total(const struct profil_report *r, size_t i);

/* The name thread tid of file f was recorded with (its THREAD record), "" when the recorder
 * never saw it alive.  Linear in the file's threads: callers that ask often keep the answer. */
const char *profil_report_thread_name(const struct profil_file *f, uint32_t tid);

/*
 * The program of file i: the number of the first file with the same progname, so files of one
 * program share it.  Out of range gives i.
 */
size_t profil_report_file_program(const struct profil_report *r, size_t i);

/*
 * The entries, heaviest first (ties by name), and with PROFIL_SPLIT_PROCESS (PROGRAM) grouped
 * by file (program) first, in file order; valid until the session is freed or a file is added.
 */
const struct profil_report_entry *profil_report_entries(struct profil_report *r, size_t *n);

/*
 * How the views show an entry, escaped (escape.h) into buf: its function, or module+0xoffset
 * when nothing names it, "[unmapped]" outside every mapping; its module's name, or "?".
 */
const char *profil_report_entry_name(const struct profil_report_entry *e, char *buf, size_t len);
const char *profil_report_entry_module(const struct profil_report_entry *e, char *buf,
    size_t len);

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

/* How the views print (the flat view, and the others below with the same options). */
struct profil_flat_options {
	size_t limit;		/* rows at most; 0 for all */
	int tsv;		/* tab-separated values with a header line, for scripts */
	int json;		/* one JSON document (docs/report-json.md), for scripts */
};

/* Prints the flat view (gprof's columns plus the interval, function and module) to out.
 * Returns 0 or -errno of the write. */
int profil_report_flat_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out);

/*
 * The lines every view starts with: "<title>: N processes, " and what the samples stand for
 * (profil_report_time_say), then one line per process that has samples (program, pid, samples
 * as the rows count them, achieved and requested rate, clock, how it ended), and a count of
 * those without.  Beyond PROFIL_SUMMARY_PROCESSES
 * processes with samples, one line per program instead (its processes, samples, seconds).
 * Returns 0 or -ENOMEM (the heading is built as data first: view.h).
 */
#define PROFIL_SUMMARY_PROCESSES	16
int profil_report_summary_print(struct profil_report *r, const char *title, FILE *out);

/*
 * The call graph of -g recordings, from sampled stacks (report/stack.h): per function, the
 * ticks with it at the leaf (self) and on the stack at all (total, each sample once however
 * often recursion puts the function on it), and its callers and callees with the ticks whose
 * stack held that call.  Functions are named as in the flat view (the owner of the machine
 * code), heaviest total first; opt->limit bounds the functions shown.  Returns 0, -ENOMEM or
 * -EIO.
 */
int profil_report_graph_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out);

/*
 * The hottest source lines: the leaf's innermost inline frame's file:line (the line that
 * executed, even when inlined), with its function.  Code without line information counts by
 * function.  Returns 0, -ENOMEM or -EIO.
 */
int profil_report_lines_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out);

/*
 * The ticks of one function by source line, with the source text when the file can be read,
 * and by address (module+0xoffset).  function matches any inline level of the leaf frame, the
 * line being the one executing in that function.  Returns 0, -ENOENT when no sample is in
 * function, -ENOMEM or -EIO.
 */
int profil_report_annotate_print(struct profil_report *r, const char *function,
    const struct profil_flat_options *opt, FILE *out);

/*
 * Compares r with base function by function (by name and module): each share in base and in
 * r, the difference in percentage points and the two-proportion z statistic, largest |diff|
 * first; |z| >= 1.96 is beyond the sampling noise of the two sample counts at 95%.  Returns 0,
 * -ENOMEM or -EIO.
 */
int profil_report_diff_print(struct profil_report *r, struct profil_report *base,
    const struct profil_flat_options *opt, FILE *out);

#endif /* PROFIL_REPORT_H */
