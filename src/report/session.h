/*
 * session.h - the report session's own state (report.c), shared with the parts of it kept in
 * files of their own (seconds.c); private to src/report.
 */
#ifndef PROFIL_REPORT_SESSION_H
#define PROFIL_REPORT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "report/index.h"
#include "report/report.h"

struct report_file {
	char *name;
	size_t program;			/* the first file of the same progname */
	struct profil_file *f;
	double hz;			/* ticks per CPU second, to turn ticks into seconds */
	double wait_hz;			/* waits' samples per second of the wait (--wall) */
	uint64_t total;			/* ticks of the file */
	uint64_t waiting;		/* of them, waiting threads' (--wall) */
	uint64_t cpu_waiting;		/* of those, threads' waiting for a CPU */
	double seconds;
	double waiting_seconds;
	double cpu_waiting_seconds;
};

/*
 * An entry and what identifies it: the owning function's start, or the offset when unnamed,
 * and with a split the file (and thread) the ticks came from.
 */
struct report_entry {
	struct profil_report_entry e;
	uint64_t key;
	int known;
	uint64_t group;
};

struct profil_report {
	struct profil_symbolizer *sym;
	struct report_file *files;
	size_t nfiles;
	struct report_entry *entries;
	size_t nentries;
	size_t cap;
	struct profil_index index;	/* (module, key, known, group) -> entry */
	struct profil_strtab prognames;	/* progname -> program number */
	size_t *program_first;		/* program number -> its first file */
	size_t nprograms;
	struct profil_report_entry *sorted;	/* what profil_report_entries() returned */
	const struct profil_module **touched;	/* modules samples landed in, each once */
	size_t ntouched;
	uint64_t total;
	double seconds;
	enum profil_report_split split;
	int pid_only;			/* keep the files of pid alone */
	uint32_t pid;
};

#endif /* PROFIL_REPORT_SESSION_H */
