/*
 * stack.c - the symbolized-stack walker over a report session (see stack.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

int
profil_locator_init(struct profil_locator *l, struct profil_symbolizer *sym,
    const struct profil_file *f)
{
	l->sym = sym;
	l->f = f;
	l->jit = NULL;
	l->fresh = 0;
	l->mods = calloc(f->nmaps ? f->nmaps : 1, sizeof(*l->mods));
	return l->mods != NULL ? 0 : -ENOMEM;
}

void
profil_locator_release(struct profil_locator *l)
{
	free(l->mods);
	l->mods = NULL;
}

/* Whether a pc in map (NULL: none) may be JIT code, named by the profile's CODE records. */
static int
jit_place(const struct profil_file_mapping *map)
{
	return map == NULL || map->path[0] == '[' || strncmp(map->path, "/memfd:", 7) == 0;
}

int
profil_locate(struct profil_locator *l, uint64_t pc, int caller, uint32_t epoch,
    struct profil_stack_frame *fr)
{
	const struct profil_file *f = l->f;
	size_t m;
	int kernel;

	fr->pc = pc;
	/* A return address of 0 cannot be a call site; keep it from wrapping. */
	fr->lookup = caller && pc > 0 ? pc - 1 : pc;
	fr->module = NULL;
	fr->offset = 0;
	fr->loc = NULL;
	fr->map = profil_file_mapping_find(f, fr->lookup, epoch);
	kernel = fr->map != NULL && strcmp(fr->map->path, PROFIL_KERNEL_PATH) == 0;
	if (f->ncodes > 0 && !kernel && jit_place(fr->map) &&
	    profil_file_code_find(f, fr->lookup) != NULL) {
		if (l->jit == NULL) {
			l->jit = profil_symbolizer_code_module(l->sym, f);
			if (l->jit == NULL)
				return -ENOMEM;
			l->fresh = 1;
		}
		fr->module = l->jit;
		fr->offset = fr->lookup;
		return profil_module_lookup(l->jit, fr->lookup, &fr->loc);
	}
	if (fr->map == NULL)
		return 0;
	m = (size_t)(fr->map - f->maps);
	if (l->mods[m] == NULL) {
		l->mods[m] = profil_symbolizer_module(l->sym, fr->map->path, fr->map->build_id,
		    fr->map->build_id_len);
		if (l->mods[m] == NULL)
			return -ENOMEM;
		l->fresh = 1;
	}
	fr->module = l->mods[m];
	/* The kernel's names are in each file, for the functions its own samples hit. */
	if (kernel)
		profil_module_set_file(fr->module, f);
	fr->offset = fr->lookup - fr->map->start + fr->map->offset;
	return profil_module_lookup(fr->module, fr->offset, &fr->loc);
}

/* Walks one file, every frame through the file's locator. */
static int
walk_file(struct profil_report *r, size_t fi, struct profil_stack_frame *frames,
    int (*fn)(void *, const struct profil_stack *), void *arg)
{
	struct profil_locator l;
	struct profil_stack st;
	const struct profil_file *f;
	size_t i, d;
	int err;

	f = profil_report_file(r, fi, &st.file_name);
	st.file = f;
	st.file_index = fi;
	st.frames = frames;
	err = profil_locator_init(&l, profil_report_symbolizer(r), f);
	for (i = 0; i < f->nsamples && err == 0; i++) {
		const struct profil_file_sample *s = &f->samples[i];

		/* Under a wait for a CPU, pcs[1] is a CPU sample's own pc, not a return. */
		for (d = 0; d < s->depth && err == 0; d++)
			err = profil_locate(&l, s->pcs[d], d > 1 || (d == 1 &&
			    s->pcs[0] != PROFIL_PC_WAIT_CPU), s->epoch, &frames[d]);
		if (err != 0)
			break;
		st.sample = s;
		st.seconds = profil_report_sample_seconds(r, fi, s);
		st.nframes = s->depth;
		err = fn(arg, &st);
	}
	profil_locator_release(&l);
	return err;
}

int
profil_report_stacks(struct profil_report *r,
    int (*fn)(void *arg, const struct profil_stack *stack), void *arg)
{
	struct profil_stack_frame *frames;
	size_t i, n = profil_report_nfiles(r);
	int err = 0;

	/* The reader bounds every depth by PROFIL_FORMAT_MAX_DEPTH: one buffer serves all. */
	frames = calloc(PROFIL_FORMAT_MAX_DEPTH, sizeof(*frames));
	if (frames == NULL)
		return -ENOMEM;
	for (i = 0; i < n && err == 0; i++)
		err = walk_file(r, i, frames, fn, arg);
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

int
profil_pc_is_wait(uint64_t pc)
{
	return pc >= PROFIL_PC_WAIT_MIN && pc < PROFIL_PC_MARKER_MIN;
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
	case PROFIL_PC_WAIT_CPU:
		return "[wait: CPU, runnable]";
	case PROFIL_PC_CUT_FP:
		return "[stack cut: frame pointer not known]";
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
	snprintf(buf, len, "%s+0x%" PRIx64, profil_module_name(fr->module), fr->offset);
	return buf;
}
