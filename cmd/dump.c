/*
 * dump.c - `profil dump FILE...`: every field of profile files as text, one record a line, for
 * tests and for looking inside a file.  Each pc is followed by its mapping and file offset when
 * a recorded mapping holds it: `0x7f12...=/usr/lib/libc.so.6+0x2a0b1`.  See docs/FORMAT.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "format/format.h"
#include "report/escape.h"

/* Names from the file, escaped (report/escape.h); buf is char[N]. */
#define SHOW(s, buf)	profil_escape((s), (buf), sizeof(buf))

static void
print_pc(const struct profil_file *f, uint64_t pc, uint32_t epoch)
{
	const struct profil_file_mapping *m = profil_file_mapping_find(f, pc, epoch);
	char path[4 * PROFIL_FORMAT_MAX_PATH + 1];

	if (m != NULL)
		printf(" 0x%" PRIx64 "=%s+0x%" PRIx64, pc, SHOW(m->path, path),
		    pc - m->start + m->offset);
	else
		printf(" 0x%" PRIx64 "=?", pc);
}

static void
dump(const struct profil_file *f)
{
	const struct profil_file_header *h = &f->hdr;
	char prog[4 * PROFIL_FORMAT_MAX_NAME + 1], path[4 * PROFIL_FORMAT_MAX_PATH + 1];
	size_t i, j;

	printf("header version=%u pid=%u ppid=%u progname=%s exe=%s requested_hz=%u "
	    "achieved_hz=%.3f clock=%s exit=%s code=%d samples=%" PRIu64 " ticks=%" PRIu64
	    " dropped=%" PRIu64 " cpu_ns=%" PRIu64 " start_ns=%" PRIu64 " end_ns=%" PRIu64
	    " flags=%#x max_depth=%u threads=%u thread_failures=%u system_ns=%" PRIu64 "\n",
	    f->version, h->pid,
	    h->ppid, SHOW(h->progname, prog), SHOW(h->exe, path), h->requested_hz,
	    (double)h->achieved_mhz / 1000.0,
	    profil_file_clock_name(h->clock), profil_file_exit_name(h->exit_kind), h->exit_code,
	    h->samples, h->ticks, h->dropped, h->cpu_ns, h->start_ns, h->end_ns, h->flags,
	    h->max_depth, h->threads, h->thread_failures, h->system_ns);
	for (i = 0; i < f->nmaps; i++) {
		const struct profil_file_mapping *m = &f->maps[i];

		printf("mapping 0x%" PRIx64 "-0x%" PRIx64 " offset=0x%" PRIx64 " epochs=%u-%d "
		    "build_id=", m->start, m->end, m->offset, m->load_epoch,
		    m->unload_epoch == PROFIL_EPOCH_NEVER ? -1 : (int)m->unload_epoch);
		for (j = 0; j < m->build_id_len; j++)
			printf("%02x", m->build_id[j]);
		printf("%s %s\n", m->build_id_len ? "" : "-", SHOW(m->path, path));
	}
	for (i = 0; i < f->nthreads; i++)
		printf("thread %u %s\n", f->threads[i].tid, SHOW(f->threads[i].name, prog));
	if (f->processes_seen > 0)
		printf("processes %" PRIu64 "\n", f->processes_seen);
	for (i = 0; i < f->ncodes; i++)
		printf("code 0x%" PRIx64 "-0x%" PRIx64 " %s %s\n", f->codes[i].start,
		    f->codes[i].start + f->codes[i].size,
		    f->codes[i].source == PROFIL_CODE_JITDUMP ? "jitdump" :
		    f->codes[i].source == PROFIL_CODE_KERNEL ? "kallsyms" : "perf-map",
		    SHOW(f->codes[i].name, path));
	for (i = 0; i < f->nsamples; i++) {
		const struct profil_file_sample *s = &f->samples[i];

		printf("sample %" PRIu64 " %u %u", s->count, s->tid, s->epoch);
		for (j = 0; j < s->depth; j++)
			print_pc(f, s->pcs[j], s->epoch);
		putchar('\n');
	}
	for (i = 0; i < f->ntimes; i++)
		printf("time %" PRIu64 " %u %u %" PRIu64 "\n", f->slot_ns, f->times[i].sample,
		    f->times[i].slot, f->times[i].count);
}

int
profil_cmd_dump(int argc, char **argv)
{
	struct profil_file *f;
	char err[512], path[4 * PROFIL_FORMAT_MAX_PATH + 1];
	int i, rc, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: profil dump FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		rc = profil_file_read(argv[i], &f, err, sizeof(err));
		if (rc < 0) {
			profil_cmd_error(err[0] != '\0' ? err : strerror(-rc), argv[i]);
			status = 1;
			continue;
		}
		printf("file %s\n", SHOW(argv[i], path));
		dump(f);
		profil_file_free(f);
	}
	if (fflush(stdout) != 0) {
		profil_cmd_error("cannot write output", strerror(errno));
		return 1;
	}
	return status;
}
