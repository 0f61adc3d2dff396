/*
 * export.h - writers of other tools' formats from a report session: gmon.out for GNU gprof,
 * profile.proto for pprof, folded stacks for flamegraph.pl and speedscope, a self-contained
 * SVG flame graph, and the Firefox Profiler's Gecko JSON.  Each reads the session through
 * report/stack.h, so every format names and attributes frames the way `profil report` does.
 *
 * Writers return 0 or -errno; they never print.  Output files are written under a temporary
 * name and renamed into place (struct profil_output), so a reader never sees half a file.
 * Not thread-safe (the session is not).
 */
#ifndef PROFIL_EXPORT_H
#define PROFIL_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profil_module;
struct profil_report;

/*
 * An output file: opened as path.XXXXXX in the same directory, renamed to path by
 * profil_output_commit().  path "-" is standard output, written in place.
 */
struct profil_output_sink;

struct profil_output {
	FILE *f;
	char *path;
	char *tmp;			/* NULL for standard output */
	struct profil_output_sink *sink;	/* f's writes, and the errno of the first failed */
};

/*
 * Returns 0 or -errno of the creation.  An existing path is replaced only when it is a regular
 * file of the effective user with one link, and the new file keeps its mode; otherwise the
 * output is refused: -ELOOP a symbolic link, -EEXIST not a regular file, -EPERM another
 * user's, -EMLINK other hard links.  A new file gets open(2)'s mode (0666 less the umask).
 */
int profil_output_open(struct profil_output *o, const char *path);
/* The sentence for an error of the output functions: the refusals above, else strerror. */
const char *profil_output_strerror(int err);
/*
 * Flushes, closes and renames; on any error removes the temporary.  Returns 0 or -errno: a
 * failed write's own (-ENOSPC on a full disk), not the stream's -EIO.
 */
int profil_output_commit(struct profil_output *o);
/*
 * Closes and removes the temporary, after err (-errno) from a writer.  Returns err, or, when err
 * is the -EIO a writer says of a stream in error, the -errno of the write that failed.
 */
int profil_output_abort(struct profil_output *o, int err);

/*
 * profil_export_title - what a picture of the session is called, in buf (len bytes): the
 * program with the most samples, "python3 [4242]" or "cc1: 12 processes", and when others
 * have samples too, its share and how many more programs and processes there are.  Names are
 * escaped as the report's (report/escape.h).
 */
const char *profil_export_title(const struct profil_report *r, char *buf, size_t len);

/* The program with the most samples, as the number of its first file
 * (profil_report_file_program); 0 without files or memory. */
size_t profil_export_main_program(const struct profil_report *r);

/*
 * profil_export_folded - one line per distinct stack, "program;root;...;leaf count": every
 * stack stands on its program (the file's progname), with the session's split
 * PROFIL_SPLIT_PROCESS on "progname[pid]" too, and PROFIL_SPLIT_THREAD on that and
 * "thread[tid]"; then frames named as the flat view names them, inline frames expanded
 * (outermost first), ';' in names written as ':'.  Stacks come depth first with callees in
 * name order, so the output does not depend on the order samples were recorded in; the counts
 * sum to the session's ticks.
 */
int profil_export_folded(struct profil_report *r, FILE *out);

/* profil_export_svg - the same stacks as one self-contained SVG with inline script and
 * style, drawn as an icicle (the root on top, so the first screen shows where the samples
 * are): hover names a frame with its samples and share, a click zooms to it, a search box
 * highlights matches.  title heads the graph (profil_export_title). */
int profil_export_svg(struct profil_report *r, const char *title, FILE *out);

/*
 * profil_export_html - the interactive viewer as one self-contained HTML page (docs/viewer.md):
 * its script and style and the profile as data in the page, nothing loaded from elsewhere.
 * The data: the tree of frames (as folded names them), each sample record's leaf, thread,
 * count and whether it waited (--wall), the TIME records' slots, the processes and threads,
 * the hottest source lines, and, when base is not NULL, the --diff rows against base.  title
 * heads the page.  Names are data: no name can end the data's element or become markup.
 */
int profil_export_html(struct profil_report *r, struct profil_report *base, const char *title,
    FILE *out);

/*
 * profil_export_pprof - a gzip-compressed profile.proto (pprof): sample types samples/count and
 * cpu/nanoseconds, one Mapping per recorded mapping that holds samples (with its file's real
 * addresses), one Location per distinct (mapping, address) with one Line per inline level, and
 * Functions named as the flat view names them.  Caller addresses are written as return address
 * minus one.  Each sample is labelled with what it ran in, under the keys of perf's converter
 * (perf_data_converter): comm (the program) and thread_comm (the thread's name, when recorded)
 * as strings, pid and tid as numbers.  Mapping 0, which pprof names in its heading, is the
 * executable of the program with the most samples, and the profile's comment is the title.
 */
int profil_export_pprof(struct profil_report *r, FILE *out);

/*
 * profil_export_firefox - a Gecko profile (JSON) for the Firefox Profiler, gzip-compressed when
 * gzip is set: one thread per recorded thread of each file (pid, tid, name, its program as the
 * process name; a later image of a pid, after an exec, is pid "pid.1", a process of its own),
 * frames named as the flat view names them ("function (in module)", one per
 * inline level), categories User, Kernel, Idle (the wait frames of --wall) and Other (markers),
 * and one sample per tick at its time from the TIME records: a slot's ticks spread evenly over
 * the slot, its stacks interleaved in proportion.  Ticks without a time sit at their file's
 * start under a root frame "[no time recorded]".  title is the profile's product name.
 * Returns 0, -ENOMEM, -EFBIG beyond PROFIL_FIREFOX_MAX_TICKS ticks, or -EIO.
 */
#define PROFIL_FIREFOX_MAX_TICKS	UINT64_C(50000000)
int profil_export_firefox(struct profil_report *r, const char *title, int gzip, FILE *out);

/*
 * profil_export_gmon - one gmon.out file per object that holds samples, in directory dir: the
 * histogram of leaf PCs over the object's own ELF virtual addresses (what `gprof OBJECT FILE`
 * expects), 2 bytes per bin, prof_rate the achieved rate, and no call arcs (a sampled stack is
 * no call count).  For each file written, done(arg, path, module, ticks) is called; for each
 * object that cannot be converted (binary missing or changed, not ELF, PCs in no mapping),
 * skipped(arg, module or NULL, ticks, why).  Returns 0 or -errno.
 */
int profil_export_gmon(struct profil_report *r, const char *dir,
    void (*done)(void *arg, const char *path, const struct profil_module *mod, uint64_t ticks),
    void (*skipped)(void *arg, const struct profil_module *mod, uint64_t ticks, const char *why),
    void *arg);

#endif /* PROFIL_EXPORT_H */
