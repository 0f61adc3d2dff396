/*
 * stack.c - the symbolized-stack walker over a report session (see stack.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

/* Walks one file; mods caches each mapping's module, found once per file, not per sample. */
static int
walk_file(struct profil_report *r, size_t fi, struct profil_module **mods,
    struct profil_stack_frame *frames, int (*fn)(void *, const struct profil_stack *), void *arg)
{
	struct profil_symbolizer *sym = profil_report_symbolizer(r);
	struct profil_stack st;
	const struct profil_file *f;
	size_t i, d, m;
	int err;

	f = profil_report_file(r, fi, &st.file_name);
	st.file = f;
	st.file_index = fi;
	st.hz = profil_report_file_hz(r, fi);
	st.frames = frames;
	for (i = 0; i < f->nsamples; i++) {
		const struct profil_file_sample *s = &f->samples[i];

		for (d = 0; d < s->depth; d++) {
			struct profil_stack_frame *fr = &frames[d];

			fr->pc = s->pcs[d];
			/* A return address of 0 cannot be a call site; keep it from wrapping. */
			fr->lookup = d > 0 && fr->pc > 0 ? fr->pc - 1 : fr->pc;
			fr->map = profil_file_mapping_find(f, fr->lookup, s->epoch);
			fr->module = NULL;
			fr->loc = NULL;
			if (fr->map == NULL)
				continue;
			m = (size_t)(fr->map - f->maps);
			if (mods[m] == NULL) {
				mods[m] = profil_symbolizer_module(sym, fr->map->path,
				    fr->map->build_id, fr->map->build_id_len);
				if (mods[m] == NULL)
					return -ENOMEM;
			}
			fr->module = mods[m];
			err = profil_module_lookup(fr->module,
			    fr->lookup - fr->map->start + fr->map->offset, &fr->loc);
			if (err != 0)
				return err;
		}
		st.sample = s;
		st.nframes = s->depth;
		err = fn(arg, &st);
		if (err != 0)
			return err;
	}
	return 0;
}

int
profil_report_stacks(struct profil_report *r,
    int (*fn)(void *arg, const struct profil_stack *stack), void *arg)
{
	struct profil_stack_frame *frames;
	struct profil_module **mods;
	const struct profil_file *f;
	size_t i, n = profil_report_nfiles(r);
	int err = 0;

	/* The reader bounds every depth by PROFIL_FORMAT_MAX_DEPTH: one buffer serves all. */
	frames = calloc(PROFIL_FORMAT_MAX_DEPTH, sizeof(*frames));
	if (frames == NULL)
		return -ENOMEM;
	for (i = 0; i < n && err == 0; i++) {
		f = profil_report_file(r, i, NULL);
		mods = calloc(f->nmaps ? f->nmaps : 1, sizeof(*mods));
		if (mods == NULL) {
			err = -ENOMEM;
			break;
		}
		err = walk_file(r, i, mods, frames, fn, arg);
		free(mods);
	}
	free(frames);
	return err;
}

size_t
profil_stack_frame_levels(const struct profil_stack_frame *fr)
{
	return fr->loc != NULL ? fr->loc->nframes : 1;
}

int
profil_pc_is_marker(uint64_t pc)
{
	return pc >= PROFIL_PC_WAIT_MIN;
}

const char *
profil_pc_marker_name(uint64_t pc)
{
	static const char *const states[] = { "sleeping", "disk", "stopped", "waiting" };
	/* The few thousand wait names, made once each when first asked for. */
	static char *waits[4 << 10];
	size_t i = (size_t)(pc - PROFIL_PC_WAIT_MIN);
	unsigned int nr = (unsigned int)(pc & 0x3ff);
	const char *name, *state = states[(pc >> 10) & 3];
	char buf[96];

	switch (pc) {
	case PROFIL_PC_CUT_DEPTH:
		return "[stack cut: depth limit]";
	case PROFIL_PC_CUT_STACK:
		return "[stack cut: stack copy too short]";
	case PROFIL_PC_CUT_RULE:
		return "[stack cut: no unwind rule]";
	default:
		break;
	}
	if (pc >= PROFIL_PC_MARKER_MIN)
		return "[stack cut]";
	if (pc < PROFIL_PC_WAIT_MIN)
		return NULL;
	if (waits[i] != NULL)
		return waits[i];
	name = profil_syscall_name(nr);
	if (nr == PROFIL_WAIT_NO_SYSCALL)
		snprintf(buf, sizeof(buf), "[wait: %s]", state);
	else if (name != NULL)
		snprintf(buf, sizeof(buf), "[wait: %s, %s]", name, state);
	else
		snprintf(buf, sizeof(buf), "[wait: syscall %u, %s]", nr, state);
	waits[i] = strdup(buf);
	return waits[i] != NULL ? waits[i] : "[wait]";
}

const char *
profil_stack_frame_name(const struct profil_stack_frame *fr, size_t i, char *buf, size_t len)
{
	const char *marker;

	if (fr->loc == NULL && (marker = profil_pc_marker_name(fr->pc)) != NULL)
		return marker;
	if (fr->loc == NULL)
		return "[unmapped]";
	if (i < fr->loc->nframes && fr->loc->frames[i].function != NULL)
		return fr->loc->frames[i].function;
	snprintf(buf, len, "%s+0x%" PRIx64, profil_module_name(fr->module), fr->loc->offset);
	return buf;
}
