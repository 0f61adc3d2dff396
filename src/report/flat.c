/*
 * flat.c - the flat view: gprof's flat profile (share, cumulative and self seconds, samples)
 * by function and module, with the 95% interval of each share from its sample count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "report/report.h"
#include "report/symbols.h"

/* A function's name, or module+0xoffset when nothing names it (gprof would drop the ticks). */
static const char *
entry_name(const struct profil_report_entry *e, char *buf, size_t len)
{
	if (e->function != NULL)
		return e->function;
	if (e->module == NULL)
		return "[unmapped]";
	snprintf(buf, len, "%s+0x%" PRIx64, profil_module_name(e->module), e->offset);
	return buf;
}

static const char *
entry_module(const struct profil_report_entry *e)
{
	return e->module != NULL ? profil_module_name(e->module) : "?";
}

/* One line per process that has samples: a fork-heavy shell script makes hundreds of empty
 * ones, which are counted instead. */
static void
print_summary(struct profil_report *r, FILE *out)
{
	const struct profil_file *f;
	size_t i, empty = 0, n = profil_report_nfiles(r);

	fprintf(out, "Flat profile: %zu process%s, %" PRIu64 " samples, %.3f seconds of CPU\n",
	    n, n == 1 ? "" : "es", profil_report_total(r), profil_report_seconds(r));
	for (i = 0; i < n; i++) {
		f = profil_report_file(r, i, NULL);
		if (f->nsamples == 0) {
			empty++;
			continue;
		}
		fprintf(out, "  %s[%" PRIu32 "]: %" PRIu64 " samples at %.1f Hz achieved (%" PRIu32
		    " Hz requested, %s clock), %s", f->hdr.progname, f->hdr.pid, f->hdr.ticks,
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
	}
	if (empty > 0)
		fprintf(out, "  %zu process%s without samples\n", empty, empty == 1 ? "" : "es");
	fprintf(out, "\n");
}

int
profil_report_flat_print(struct profil_report *r, const struct profil_flat_options *opt,
    FILE *out)
{
	const struct profil_report_entry *e;
	uint64_t total = profil_report_total(r);
	double lo, hi, cumulative = 0;
	char buf[512];
	size_t i, n, len, width = 8;

	e = profil_report_entries(r, &n);
	if (e == NULL && n > 0)
		return -ENOMEM;
	if (opt->limit > 0 && n > opt->limit)
		n = opt->limit;
	if (opt->tsv) {
		fprintf(out, "percent\tci_low\tci_high\tcumulative_s\tself_s\tsamples\tfunction\t"
		    "module\tfile\tpath\n");
	} else {
		print_summary(r, out);
		for (i = 0; i < n; i++) {
			len = strlen(entry_name(&e[i], buf, sizeof(buf)));
			if (len > width)
				width = len < 48 ? len : 48;
		}
		fprintf(out, " %%time  95%% interval   cumulative      self   samples  %-*s  "
		    "module\n", (int)width, "function");
	}
	for (i = 0; i < n; i++) {
		profil_share_interval(e[i].count, total, &lo, &hi);
		cumulative += e[i].seconds;
		if (opt->tsv)
			fprintf(out, "%.4f\t%.4f\t%.4f\t%.6f\t%.6f\t%" PRIu64 "\t%s\t%s\t%s\t%s\n",
			    100.0 * (double)e[i].count / (double)total, 100 * lo, 100 * hi,
			    cumulative, e[i].seconds, e[i].count,
			    entry_name(&e[i], buf, sizeof(buf)), entry_module(&e[i]),
			    e[i].file != NULL ? e[i].file : "",
			    e[i].module != NULL ? profil_module_path(e[i].module) : "");
		else
			fprintf(out, "%6.2f  %5.1f-%5.1f  %11.3f %9.3f %9" PRIu64 "  %-*s  %s\n",
			    100.0 * (double)e[i].count / (double)total, 100 * lo, 100 * hi,
			    cumulative, e[i].seconds, e[i].count, (int)width,
			    entry_name(&e[i], buf, sizeof(buf)), entry_module(&e[i]));
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
