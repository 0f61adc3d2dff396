/*
 * title.c - what a picture of a whole recording is called, and which program is its main
 * one: the program that has most of its samples, not the first file read, which in a
 * recording of `pyenv`'s python3 or of a build is a shell or make with a handful of samples
 * (issue 21).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/export.h"
#include "profile/profile.h"
#include "report/escape.h"
#include "report/report.h"

/* Samples and processes with samples of each program, by the number of its first file. */
struct program_sums {
	uint64_t *samples;
	size_t *processes;
};

static int
program_sums(const struct profil_report *r, struct program_sums *s)
{
	size_t i, p, n = profil_report_nfiles(r);
	uint64_t ticks;

	s->samples = calloc(n + 1, sizeof(*s->samples));
	s->processes = calloc(n + 1, sizeof(*s->processes));
	if (s->samples == NULL || s->processes == NULL) {
		free(s->samples);
		free(s->processes);
		return -1;
	}
	for (i = 0; i < n; i++) {
		ticks = profil_report_file_total(r, i);
		if (ticks == 0)
			continue;
		p = profil_report_file_program(r, i);
		s->samples[p] = profil_count_add(s->samples[p], ticks);
		s->processes[p]++;
	}
	return 0;
}

/* The heaviest program of s, ties to the first; its samples in *ticks. */
static size_t
heaviest(const struct program_sums *s, size_t n, uint64_t *ticks)
{
	size_t i, best = 0;

	for (i = 1; i < n; i++)
		if (s->samples[i] > s->samples[best])
			best = i;
	*ticks = n > 0 ? s->samples[best] : 0;
	return best;
}

size_t
profil_export_main_program(const struct profil_report *r)
{
	struct program_sums s;
	uint64_t ticks;
	size_t best;

	if (program_sums(r, &s) != 0)
		return 0;
	best = heaviest(&s, profil_report_nfiles(r), &ticks);
	free(s.samples);
	free(s.processes);
	return best;
}

const char *
profil_export_title(const struct profil_report *r, char *buf, size_t len)
{
	size_t i, n = profil_report_nfiles(r), best, programs = 0, processes = 0;
	char shown[4 * PROFIL_FORMAT_MAX_NAME], pid[48];
	const struct profil_file *f;
	const char *prog;
	struct program_sums s;
	uint64_t ticks;

	if (n == 0 || program_sums(r, &s) != 0) {
		snprintf(buf, len, "profil");
		return buf;
	}
	best = heaviest(&s, n, &ticks);
	for (i = 0; i < n; i++) {
		programs += s.processes[i] > 0;
		processes += s.processes[i];
	}
	f = profil_report_file(r, best, NULL);
	prog = profil_escape(f->hdr.progname, shown, sizeof(shown));
	/* A process is named by its pid; a program of several by how many there were. */
	if (s.processes[best] <= 1)
		snprintf(pid, sizeof(pid), " [%" PRIu32 "]", f->hdr.pid);
	else
		snprintf(pid, sizeof(pid), ": %zu processes", s.processes[best]);
	if (programs <= 1)
		snprintf(buf, len, "%s%s", prog, pid);
	else
		snprintf(buf, len, "%s%s, %.1f%% of samples; %zu more program%s, "
		    "%zu processes in all", prog, pid, 100.0 * (double)ticks / (double)profil_report_total(r), programs - 1,
		    programs > 2 ? "s" : "", processes);
	free(s.samples);
	free(s.processes);
	return buf;
}
