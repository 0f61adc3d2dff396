/*
 * flat.c - the flat view: gprof's flat profile (share, cumulative and self seconds, samples)
 * by function and module, with the 95% interval of each share from its sample count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "report/escape.h"
#include "report/report.h"
#include "report/symbols.h"

/* Names from the profile and the binaries, escaped (escape.h); buf is char[N]. */
#define SHOW(s, buf)	profil_escape((s), (buf), sizeof(buf))

/* A function's name, or module+0xoffset when nothing names it (gprof would drop the ticks). */
static const char *
entry_name(const struct profil_report_entry *e, char *buf, size_t len)
{
	char mod[512];

	if (e->function != NULL)
		return profil_escape(e->function, buf, len);
	if (e->module == NULL)
		return "[unmapped]";
	snprintf(buf, len, "%s+0x%" PRIx64, SHOW(profil_module_name(e->module), mod), e->offset);
	return buf;
}

static const char *
entry_module(const struct profil_report_entry *e, char *buf, size_t len)
{
	return e->module != NULL ? profil_escape(profil_module_name(e->module), buf, len) : "?";
}

/* The processes (files) of the program whose first file is first. */
static size_t
program_processes(const struct profil_report *r, size_t first)
{
	size_t i, n = 0;

	for (i = first; i < profil_report_nfiles(r); i++)
		n += profil_report_file_program(r, i) == first;
	return n;
}

/* One line per program that has samples: its processes, samples and seconds. */
static void
summary_by_program(struct profil_report *r, FILE *out)
{
	size_t i, j, n = profil_report_nfiles(r), procs;
	struct profil_report_time sum, t;
	const struct profil_file *f;
	char prog[1024], said[256];

	for (i = 0; i < n; i++) {
		if (profil_report_file_program(r, i) != i)
			continue;
		procs = 0;
		memset(&sum, 0, sizeof(sum));
		for (j = i; j < n; j++) {
			if (profil_report_file_program(r, j) != i ||
			    profil_report_file(r, j, NULL)->nsamples == 0)
				continue;
			procs++;
			profil_report_time(r, j, &t);
			profil_report_time_add(&sum, &t);
		}
		if (procs == 0)
			continue;
		f = profil_report_file(r, i, NULL);
		fprintf(out, "  %s: %zu process%s with samples, %s\n", SHOW(f->hdr.progname, prog),
		    procs, procs == 1 ? "" : "es", profil_report_time_say(&sum, 1, said,
		    sizeof(said)));
	}
}

/* One line per process that has samples: a fork-heavy shell script makes hundreds of empty
 * ones, which are counted instead; and a build's hundreds with samples, one line per program. */
void
profil_report_summary_print(struct profil_report *r, const char *title, FILE *out)
{
	const struct profil_file *f;
	struct profil_report_time t;
	size_t i, empty = 0, n = profil_report_nfiles(r), busy = 0;
	char prog[1024], procs[128], said[256];
	uint64_t ran = 0;

	/* From outside, processes without samples leave no file, but the others count them. */
	for (i = 0; i < n; i++)
		if (profil_report_file(r, i, NULL)->processes_seen > ran)
			ran = profil_report_file(r, i, NULL)->processes_seen;
	if (ran > n)
		snprintf(procs, sizeof(procs), "%zu process%s (%" PRIu64 " ran, the others took no "
		    "sample)", n, n == 1 ? "" : "es", ran);
	else
		snprintf(procs, sizeof(procs), "%zu process%s", n, n == 1 ? "" : "es");
	profil_report_time(r, PROFIL_REPORT_ALL, &t);
	fprintf(out, "%s: %s, %s\n", title, procs, profil_report_time_say(&t, 1, said,
	    sizeof(said)));
	for (i = 0; i < n; i++)
		busy += profil_report_file(r, i, NULL)->nsamples > 0;
	if (busy > PROFIL_SUMMARY_PROCESSES)
		summary_by_program(r, out);
	for (i = 0; i < n; i++) {
		f = profil_report_file(r, i, NULL);
		if (f->nsamples == 0) {
			empty++;
			continue;
		}
		if (busy > PROFIL_SUMMARY_PROCESSES)
			continue;
		/* The rows' count, not the header's ticks: the in-process recorder counts the
		 * CPU ticks alone there, and waiting threads' rows are in the table too. */
		profil_report_time(r, i, &t);
		fprintf(out, "  %s[%" PRIu32 "]: %s at %.1f Hz achieved (%" PRIu32 " Hz requested, "
		    "%s clock), %s", SHOW(f->hdr.progname, prog), f->hdr.pid,
		    profil_report_time_say(&t, 0, said, sizeof(said)),
		    (double)f->hdr.achieved_mhz / 1000.0, f->hdr.requested_hz,
		    profil_file_clock_name(f->hdr.clock),
		    f->hdr.exit_kind == PROFIL_EXIT_NORMAL && f->hdr.exit_code < 0 ? "exited" :
		    profil_file_exit_name(f->hdr.exit_kind));
		if ((f->hdr.exit_kind == PROFIL_EXIT_NORMAL && f->hdr.exit_code >= 0) ||
		    f->hdr.exit_kind == PROFIL_EXIT_SIGNAL)
			fprintf(out, " %" PRId32, f->hdr.exit_code);
		if (f->hdr.dropped > 0)
			fprintf(out, ", %" PRIu64 " ticks dropped", f->hdr.dropped);
		fprintf(out, "\n");
		if (profil_report_cpu_waits_say(r, i, said, sizeof(said)) != NULL)
			fprintf(out, "    %s\n", said);
	}
	if (empty > 0)
		fprintf(out, "  %zu process%s without samples\n", empty, empty == 1 ? "" : "es");
	fprintf(out, "\n");
}

/*
 * The table of rows e[0 .. n) whose shares are of total ticks; with a split, the TSV rows say
 * whose they are (pid, progname, tid, thread) and with PROFIL_SPLIT_THREAD the table too.
 */
static void
print_rows(struct profil_report *r, const struct profil_report_entry *e, size_t n,
    uint64_t total, const struct profil_flat_options *opt, FILE *out)
{
	enum profil_report_split split = profil_report_get_split(r);
	const struct profil_file *f;
	double lo, hi, cumulative = 0;
	char buf[1024], mod[512], file[4096], path[4096], prog[1024], thread[128], tid[16];
	char pid[16];
	size_t i, len, width = 8;

	if (!opt->tsv) {
		for (i = 0; i < n; i++) {
			len = strlen(entry_name(&e[i], buf, sizeof(buf)));
			if (len > width)
				width = len < 48 ? len : 48;
		}
		fprintf(out, " %%time  95%% interval   cumulative      self   samples  %s%-*s  "
		    "module\n", split == PROFIL_SPLIT_THREAD ? "    tid  thread           " : "",
		    (int)width, "function");
	}
	for (i = 0; i < n; i++) {
		profil_share_interval(e[i].count, total, &lo, &hi);
		cumulative += e[i].seconds;
		if (opt->tsv) {
			fprintf(out, "%.4f\t%.4f\t%.4f\t%.6f\t%.6f\t%" PRIu64 "\t%s\t%s\t%s\t%s",
			    100.0 * (double)e[i].count / (double)total, 100 * lo, 100 * hi,
			    cumulative, e[i].seconds, e[i].count,
			    entry_name(&e[i], buf, sizeof(buf)), entry_module(&e[i], mod, sizeof(mod)),
			    e[i].file != NULL ? SHOW(e[i].file, file) : "",
			    e[i].module != NULL ? SHOW(profil_module_path(e[i].module), path) : "");
			if (split != PROFIL_SPLIT_NONE) {
				f = profil_report_file(r, e[i].proc, NULL);
				snprintf(tid, sizeof(tid), "%" PRIu32, e[i].tid);
				snprintf(pid, sizeof(pid), "%" PRIu32, f->hdr.pid);
				fprintf(out, "\t%s\t%s\t%s\t%s",
				    split == PROFIL_SPLIT_PROGRAM ? "" : pid,
				    SHOW(f->hdr.progname, prog), split == PROFIL_SPLIT_THREAD ? tid : "",
				    SHOW(e[i].thread, thread));
			}
			fprintf(out, "\n");
			continue;
		}
		fprintf(out, "%6.2f  %5.1f-%5.1f  %11.3f %9.3f %9" PRIu64 "  ",
		    100.0 * (double)e[i].count / (double)total, 100 * lo, 100 * hi,
		    cumulative, e[i].seconds, e[i].count);
		if (split == PROFIL_SPLIT_THREAD)
			fprintf(out, "%7" PRIu32 "  %-15s  ", e[i].tid, SHOW(e[i].thread, thread));
		fprintf(out, "%-*s  %s\n", (int)width, entry_name(&e[i], buf, sizeof(buf)),
		    entry_module(&e[i], mod, sizeof(mod)));
	}
}

int
profil_report_flat_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	const struct profil_report_entry *e;
	enum profil_report_split split;
	const struct profil_file *f;
	const char *name;
	char prog[1024], shown[4096], said[256];
	size_t i, j, k, n;

	e = profil_report_entries(r, &n);
	if (e == NULL && n > 0)
		return -ENOMEM;
	if (opt->tsv) {
		fprintf(out, "percent\tci_low\tci_high\tcumulative_s\tself_s\tsamples\tfunction\t"
		    "module\tfile\tpath%s\n", profil_report_get_split(r) == PROFIL_SPLIT_NONE ? "" :
		    "\tpid\tprogname\ttid\tthread");
	} else {
		profil_report_summary_print(r, "Flat profile", out);
	}
	split = profil_report_get_split(r);
	if (split != PROFIL_SPLIT_PROCESS && split != PROFIL_SPLIT_PROGRAM) {
		print_rows(r, e, opt->limit > 0 && n > opt->limit ? opt->limit : n,
		    profil_report_total(r), opt, out);
	} else {
		/* One table per file (program), its shares of that file's (program's) ticks, the
		 * limit per table. */
		for (i = 0; i < n; i = j) {
			struct profil_report_time sum, t;
			uint64_t total = 0;
			size_t fi;

			for (j = i; j < n && e[j].proc == e[i].proc; j++)
				total = profil_count_add(total, e[j].count);
			k = opt->limit > 0 && j - i > opt->limit ? opt->limit : j - i;
			/* The table's rows are its file's (program's) samples, all of them. */
			memset(&sum, 0, sizeof(sum));
			for (fi = e[i].proc; fi < profil_report_nfiles(r); fi++) {
				if (fi != e[i].proc && (split == PROFIL_SPLIT_PROCESS ||
				    profil_report_file_program(r, fi) != e[i].proc))
					continue;
				profil_report_time(r, fi, &t);
				profil_report_time_add(&sum, &t);
			}
			f = profil_report_file(r, e[i].proc, &name);
			if (!opt->tsv && split == PROFIL_SPLIT_PROCESS)
				fprintf(out, "%s%s[%" PRIu32 "]: %s (%s)\n", i > 0 ? "\n" : "",
				    SHOW(f->hdr.progname, prog), f->hdr.pid,
				    profil_report_time_say(&sum, 1, said, sizeof(said)),
				    SHOW(name, shown));
			else if (!opt->tsv)
				fprintf(out, "%s%s: %zu process%s, %s\n", i > 0 ? "\n" : "",
				    SHOW(f->hdr.progname, prog), program_processes(r, e[i].proc),
				    program_processes(r, e[i].proc) == 1 ? "" : "es",
				    profil_report_time_say(&sum, 1, said, sizeof(said)));
			print_rows(r, e + i, k, total, opt, out);
		}
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
