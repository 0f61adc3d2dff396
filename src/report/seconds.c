/*
 * seconds.c - the report session's time: the ticks and seconds of each file (on a CPU,
 * waiting, waiting for a CPU, in the kernel unsampled), their sums, and the lines that say
 * them in a report's header.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/report.h"
#include "report/session.h"

void
profil_report_time_add(struct profil_report_time *sum, const struct profil_report_time *t)
{
	sum->samples = profil_count_add(sum->samples, t->samples);
	sum->waiting = profil_count_add(sum->waiting, t->waiting);
	sum->cpu_waiting = profil_count_add(sum->cpu_waiting, t->cpu_waiting);
	sum->seconds += t->seconds;
	sum->waiting_seconds += t->waiting_seconds;
	sum->cpu_waiting_seconds += t->cpu_waiting_seconds;
	sum->wall |= t->wall;
	sum->wait_cpu |= t->wait_cpu;
	sum->kernel |= t->kernel;
	sum->user_only |= t->user_only;
	sum->scaled |= t->scaled;
	sum->unsampled_seconds += t->unsampled_seconds;
}

void
profil_report_time(const struct profil_report *r, size_t i, struct profil_report_time *t)
{
	const struct report_file *rf;
	struct profil_report_time one;
	size_t j;

	memset(t, 0, sizeof(*t));
	for (j = 0; j < r->nfiles; j++) {
		if (i != PROFIL_REPORT_ALL && j != i)
			continue;
		rf = &r->files[j];
		one.samples = rf->total;
		one.waiting = rf->waiting;
		one.cpu_waiting = rf->cpu_waiting;
		one.seconds = rf->seconds;
		one.waiting_seconds = rf->waiting_seconds;
		one.cpu_waiting_seconds = rf->cpu_waiting_seconds;
		one.wall = (rf->f->hdr.flags & PROFIL_HDR_WALL) != 0;
		one.wait_cpu = one.wall && (rf->f->hdr.flags & PROFIL_HDR_WAIT_CPU) != 0;
		one.kernel = (rf->f->hdr.flags & PROFIL_HDR_KERNEL) != 0;
		one.user_only = !one.kernel && (rf->f->hdr.flags & PROFIL_HDR_SYSTEM_NS) != 0;
		one.unsampled_seconds = one.user_only ? (double)rf->f->hdr.system_ns / 1e9 : 0;
		one.scaled = one.user_only && rf->f->hdr.clock != PROFIL_FILE_CLOCK_OUTSIDE;
		profil_report_time_add(t, &one);
	}
}

const char *
profil_report_time_say(const struct profil_report_time *t, int seconds, char *buf, size_t len)
{
	/* Which CPU time the samples are: files of both kinds together are just "CPU". */
	int both = t->kernel && !t->user_only, user = t->user_only && !t->kernel && !t->scaled;
	int scaled = t->user_only && !t->kernel && t->scaled;
	const char *cpu = both ? "CPU, user and kernel" : user ? "user CPU" : "CPU";
	char on[96];
	int n = 0;

	/* With --wall, what the time on a CPU holds goes with it, before the waiting. */
	if (both)
		snprintf(on, sizeof(on), "on a CPU (user and kernel)");
	else if (user)
		snprintf(on, sizeof(on), "on a CPU (user; %.3f more in the kernel, not sampled)",
		    t->unsampled_seconds);
	else if (scaled)
		snprintf(on, sizeof(on), "on a CPU (%.3f in the kernel, not sampled there)",
		    t->unsampled_seconds);
	else
		snprintf(on, sizeof(on), "on a CPU");
	char waitcpu[64] = "";

	if (t->wait_cpu && !seconds)
		snprintf(waitcpu, sizeof(waitcpu), ", %" PRIu64 " of them for a CPU", t->cpu_waiting);
	else if (t->wait_cpu)
		snprintf(waitcpu, sizeof(waitcpu), " (%.3f for a CPU)", t->cpu_waiting_seconds);
	if (!t->wall && !seconds)
		n = snprintf(buf, len, "%" PRIu64 " samples", t->samples);
	else if (!t->wall)
		n = snprintf(buf, len, "%" PRIu64 " samples, %.3f seconds of %s", t->samples,
		    t->seconds, cpu);
	else if (!seconds)
		n = snprintf(buf, len, "%" PRIu64 " samples (%" PRIu64 " on a CPU, %" PRIu64
		    " waiting%s)", t->samples, t->samples - t->waiting, t->waiting, waitcpu);
	else
		n = snprintf(buf, len, "%" PRIu64 " samples, %.3f seconds of threads' time: %.3f "
		    "%s, %.3f waiting%s", t->samples, t->seconds, t->seconds - t->waiting_seconds,
		    on, t->waiting_seconds, waitcpu);
	/* The time the samples could not see, as the kernel counted it. */
	if (!seconds || !t->user_only || n < 0 || (size_t)n >= len || (t->wall && !t->kernel))
		return buf;
	if (scaled)
		snprintf(buf + n, len - (size_t)n, ", %.3f of them in the kernel, not sampled there",
		    t->unsampled_seconds);
	else
		snprintf(buf + n, len - (size_t)n, "; %.3f seconds in the kernel, not sampled",
		    t->unsampled_seconds);
	return buf;
}

struct cpu_wait {
	uint32_t tid;
	uint64_t count;
};

static int
cpu_wait_cmp(const void *a, const void *b)
{
	const struct cpu_wait *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

const char *
profil_report_cpu_waits_say(const struct profil_report *r, size_t i, char *buf, size_t len)
{
	const struct report_file *rf = &r->files[i];
	const struct profil_file *f = rf->f;
	struct cpu_wait *w = NULL, *p;
	size_t n = 0, j, k, at;
	uint64_t rest = 0;

	if ((f->hdr.flags & (PROFIL_HDR_WALL | PROFIL_HDR_WAIT_CPU)) !=
	    (PROFIL_HDR_WALL | PROFIL_HDR_WAIT_CPU) || rf->cpu_waiting == 0)
		return NULL;
	for (j = 0; j < f->nsamples; j++) {
		const struct profil_file_sample *s = &f->samples[j];

		if (s->depth == 0 || s->pcs[0] != PROFIL_PC_WAIT_CPU)
			continue;
		for (k = 0; k < n && w[k].tid != s->tid; k++)
			;
		if (k == n) {
			p = realloc(w, (n + 1) * sizeof(*w));
			if (p == NULL) {
				free(w);
				return NULL;
			}
			w = p;
			w[n].tid = s->tid;
			w[n++].count = 0;
		}
		w[k].count = profil_count_add(w[k].count, s->count);
	}
	qsort(w, n, sizeof(*w), cpu_wait_cmp);
	at = (size_t)snprintf(buf, len, "waited for a CPU: %.3f s;", rf->cpu_waiting_seconds);
	for (k = 0; k < n; k++) {
		char shown[256];
		const char *name = profil_escape(profil_report_thread_name(f, w[k].tid), shown,
		    sizeof(shown));

		/* The longest waits by name, the others in one sum, so the line stays a line. */
		if (k >= PROFIL_REPORT_CPU_WAITERS) {
			rest = profil_count_add(rest, w[k].count);
			continue;
		}
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s %s[%" PRIu32 "] %.3f s",
			    k > 0 ? "," : "", name[0] != '\0' ? name : "?", w[k].tid,
			    (double)w[k].count / rf->wait_hz);
	}
	if (rest > 0 && at < len)
		snprintf(buf + at, len - at, ", %zu more threads %.3f s",
		    n - PROFIL_REPORT_CPU_WAITERS, (double)rest / rf->wait_hz);
	free(w);
	return buf;
}
