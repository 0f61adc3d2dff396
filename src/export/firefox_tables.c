/*
 * firefox_tables.c - each thread's frame, stack and string tables of a Gecko profile, made from
 * the session's stacks as the format shares them: a stack is its prefix and one frame, root
 * first, one frame per inline level (firefox.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/firefox.h"
#include "format/format.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbols.h"

/* Grows *p (of *cap elements of size) to hold n + 1.  Returns 0 or -ENOMEM. */
static int
grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (n < *cap)
		return 0;
	while (c <= n)
		c *= 2;
	q = realloc(*p, c * size);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

struct frame_key {
	const struct ff_thread *t;
	struct ff_frame fr;
};

static uint64_t
frame_hash(const struct ff_frame *f)
{
	return profil_hash3(f->location, f->line,
	    (uint64_t)f->bare << 16 | (uint64_t)f->category << 8 | f->subcategory);
}

static uint64_t
frame_rehash(const void *arg, size_t i)
{
	return frame_hash(&((const struct ff_thread *)arg)->frames[i]);
}

static int
frame_same(const void *arg, size_t i)
{
	const struct frame_key *k = arg;
	const struct ff_frame *f = &k->t->frames[i];

	return f->location == k->fr.location && f->line == k->fr.line && f->bare == k->fr.bare &&
	    f->category == k->fr.category && f->subcategory == k->fr.subcategory;
}

/*
 * The row of the frame named name in thread t, or, bare, of the code at offset line in the
 * module named name.  Returns the row or -ENOMEM.
 */
static int64_t
frame_get(struct ff_thread *t, const char *name, uint64_t line, int bare, int category,
    int sub)
{
	struct frame_key k = { t, { line, 0, (uint8_t)category, (uint8_t)sub, (uint8_t)bare } };
	ssize_t s, i;
	int added;

	s = profil_strtab_intern(&t->strs, name, &added);
	if (s < 0 || grow((void **)&t->frames, &t->frames_cap, t->nframes, sizeof(*t->frames)))
		return -ENOMEM;
	k.fr.location = (uint32_t)s;
	t->frame_index.rehash = frame_rehash;
	t->frame_index.arg = t;
	i = profil_index_rows_get(&t->frame_index, frame_hash(&k.fr), frame_same, &k,
	    t->nframes);
	if (i < 0)
		return -ENOMEM;
	if ((size_t)i == t->nframes)
		t->frames[t->nframes++] = k.fr;
	return i;
}

struct stack_key {
	const struct ff_thread *t;
	struct ff_stack st;
};

static int
stack_same(const void *arg, size_t i)
{
	const struct stack_key *k = arg;

	return k->t->stacks[i].prefix == k->st.prefix && k->t->stacks[i].frame == k->st.frame;
}

static uint64_t
stack_rehash(const void *arg, size_t i)
{
	const struct ff_stack *st = &((const struct ff_thread *)arg)->stacks[i];

	return profil_hash3(st->prefix, st->frame, 0);
}

/* The row of the stack (prefix, frame).  Returns the row or -ENOMEM. */
static int64_t
stack_get(struct ff_thread *t, uint32_t prefix, uint32_t frame)
{
	struct stack_key k = { t, { prefix, frame } };
	ssize_t i;

	if (grow((void **)&t->stacks, &t->stacks_cap, t->nstacks, sizeof(*t->stacks)))
		return -ENOMEM;
	t->stack_index.rehash = stack_rehash;
	t->stack_index.arg = t;
	i = profil_index_rows_get(&t->stack_index, profil_hash3(prefix, frame, 0), stack_same, &k,
	    t->nstacks);
	if (i < 0)
		return -ENOMEM;
	if ((size_t)i == t->nstacks)
		t->stacks[t->nstacks++] = k.st;
	return i;
}

/* What a frame is: waiting (the wait frame of --wall), the kernel, a marker, or user code. */
static void
frame_category(const struct profil_stack_frame *fr, int *category, int *sub)
{
	*sub = 0;
	if (profil_pc_is_wait(fr->pc)) {
		*category = CAT_IDLE;
		*sub = fr->pc == PROFIL_PC_WAIT_CPU ? SUB_WAIT_CPU : 0;
	} else if (profil_pc_is_marker(fr->pc)) {
		*category = CAT_OTHER;
	} else if (fr->pc >= PROFIL_PC_KERNEL_MIN) {
		*category = CAT_KERNEL;
	} else {
		*category = CAT_USER;
	}
}

/*
 * The stack of st's frames on top of prefix (UINT32_MAX: none), root first, one frame per
 * inline level, outermost first.  Returns the stack row or -ENOMEM.
 */
static int64_t
stack_of(struct ff_thread *t, const struct profil_stack *st, uint32_t prefix)
{
	char buf[256], loc[4096 + 512];
	int64_t frame, stack = prefix;
	int category, sub;
	size_t d, i;

	for (d = st->nframes; d-- > 0;) {
		const struct profil_stack_frame *fr = &st->frames[d];
		const char *module = fr->module != NULL && fr->loc != NULL ?
		    profil_module_name(fr->module) : NULL;

		frame_category(fr, &category, &sub);
		for (i = profil_stack_frame_levels(fr); i-- > 0;) {
			const char *name = module;
			uint64_t line = fr->offset;
			/* profil_stack_frame_name()'s module+0xoffset, made when written. */
			int bare = module != NULL &&
			    (i >= fr->loc->nframes || fr->loc->frames[i].function == NULL);

			if (!bare) {
				name = profil_stack_frame_name(fr, i, buf, sizeof(buf));
				/* "name (in module)": the importer's regular expression for native
				 * code (process-profile.ts _extractCppFunction) makes module the
				 * library. */
				if (module != NULL) {
					snprintf(loc, sizeof(loc), "%s (in %s)", name, module);
					name = loc;
				}
				line = fr->loc != NULL && i < fr->loc->nframes &&
				    fr->loc->frames[i].line > 0 ? (uint64_t)fr->loc->frames[i].line : 0;
			}
			frame = frame_get(t, name, line, bare, category, sub);
			if (frame < 0)
				return frame;
			stack = stack_get(t, (uint32_t)stack, (uint32_t)frame);
			if (stack < 0)
				return stack;
		}
	}
	return stack;
}

/* The thread tid of file i, made on first use.  Returns its number or -ENOMEM. */
static int64_t
thread_get(struct ff *ff, size_t file, uint32_t tid)
{
	struct ff_thread *t;
	ssize_t i;

	if (grow((void **)&ff->threads, &ff->threads_cap, ff->nthreads, sizeof(*ff->threads)))
		return -ENOMEM;
	i = profil_thread_table_get(&ff->ids, file, tid);
	if (i < 0 || (size_t)i < ff->nthreads)
		return i;
	t = &ff->threads[ff->nthreads];
	memset(t, 0, sizeof(*t));
	t->file = file;
	t->tid = tid;
	t->untimed_root = UINT32_MAX;
	return (int64_t)ff->nthreads++;
}

/* The per-sample table of file i, with the ticks each sample's TIME entries place. */
static struct ff_sample *
file_samples(struct ff *ff, const struct profil_file *f, size_t i)
{
	size_t k;

	if (ff->samples[i] != NULL)
		return ff->samples[i];
	ff->samples[i] = calloc(f->nsamples ? f->nsamples : 1, sizeof(*ff->samples[i]));
	if (ff->samples[i] == NULL)
		return NULL;
	for (k = 0; k < f->nsamples; k++)
		ff->samples[i][k].thread = UINT32_MAX;	/* until the walk meets it */
	for (k = 0; k < f->ntimes; k++)
		ff->samples[i][f->times[k].sample].timed = profil_count_add(
		    ff->samples[i][f->times[k].sample].timed, f->times[k].count);
	return ff->samples[i];
}

int
profil_firefox_add_stack(void *arg, const struct profil_stack *st)
{
	struct ff *ff = arg;
	struct ff_sample *s, *all = file_samples(ff, st->file, st->file_index);
	struct ff_thread *t;
	int64_t n, stack;

	if (all == NULL)
		return -ENOMEM;
	s = &all[st->sample - st->file->samples];
	n = thread_get(ff, st->file_index, st->sample->tid);
	if (n < 0)
		return (int)n;
	t = &ff->threads[n];
	s->thread = (uint32_t)n;
	ff->ticks = profil_count_add(ff->ticks, st->sample->count);
	/* Only the stacks ticks are drawn at: a sample none of whose ticks has a time is
	 * drawn under UNTIMED_FRAME alone, and its stack without it would double the table. */
	if (s->timed > 0) {
		stack = stack_of(t, st, UINT32_MAX);
		if (stack < 0)
			return (int)stack;
		s->stack = (uint32_t)stack;
	}
	if (s->timed >= st->sample->count)
		return 0;
	if (t->untimed_root == UINT32_MAX) {
		int64_t fr = frame_get(t, UNTIMED_FRAME, 0, 0, CAT_OTHER, 0);

		stack = fr < 0 ? fr : stack_get(t, UINT32_MAX, (uint32_t)fr);
		if (stack < 0)
			return (int)stack;
		t->untimed_root = (uint32_t)stack;
	}
	stack = stack_of(t, st, t->untimed_root);
	if (stack < 0)
		return (int)stack;
	s->untimed_stack = (uint32_t)stack;
	return 0;
}
