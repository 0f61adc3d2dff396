/*
 * Signal context: the walk by unwind tables (unwind.h), every read of stack memory checked
 * against its bounds.  Also linked into the profil command, where the outside recorder walks
 * the stack copies the kernel takes with its samples.
 */
#include "unwind.h"


/* The 8 bytes at a, little-endian, when mem holds all of them. */
static int
mem_read(const struct profil_unwind_memory *mem, uint64_t a, uint64_t *v)
{
	const uint8_t *p;
	uint64_t x = 0;

	if (mem->hi - mem->lo < 8 || a < mem->lo || a > mem->hi - 8)
		return -1;
	p = mem->data + (a - mem->lo);
	for (int i = 7; i >= 0; i--)
		x = x << 8 | p[i];
	*v = x;
	return 0;
}

const struct profil_unwind_row *
profil_unwind_row_find(const struct profil_unwind_table *t, uint64_t a)
{
	size_t lo = 0, hi;
	uint64_t off;

	if (t == NULL || t->nrows == 0 || a < t->base)
		return NULL;
	off = a - t->base;
	if (off > UINT32_MAX)
		return &t->rows[t->nrows - 1];
	hi = t->nrows;
	/* The last row at or before off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].addr <= off)
			lo = mid;
		else
			hi = mid;
	}
	return t->rows[lo].addr <= off ? &t->rows[lo] : NULL;
}

static const struct profil_unwind_module *
module_find(const struct profil_unwind_space *space, uint64_t pc)
{
	size_t lo = 0, hi = space->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct profil_unwind_module *m = &space->mods[mid];

		if (pc < m->start)
			hi = mid;
		else if (pc >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

/* Offsets in the kernel's x86-64 signal frame: the ucontext is at sp when its handler returns. */
#define UC_RBP	(40 + 10 * 8)
#define UC_RBX	(40 + 11 * 8)
#define UC_RSP	(40 + 15 * 8)
#define UC_RIP	(40 + 16 * 8)

/* One step from (pc, sp, fp) to the caller's; the enum says why there is none. */
struct walk {
	uint64_t pc, sp, fp, bx;
	int fp_ok;		/* fp holds the frame's value */
	int bx_ok;		/* likewise bx */
	int exact;		/* pc is where the frame is, not a return address */
};

/*
 * The caller's value of a callee-saved register (rbp, rbx) by rule, from its value v in this
 * frame; *ok says whether the result is known.  A slot below sp is free: an epilogue has
 * popped it, so the register already holds the caller's value (the rules are not updated for
 * pops).
 */
static uint64_t
saved(const struct profil_unwind_memory *mem, const struct walk *w, uint64_t cfa, uint8_t rule,
    int16_t off, uint64_t v, int *ok)
{
	uint64_t x = 0;

	switch (rule) {
	case PROFIL_FP_AT_CFA:
		if (cfa + (uint64_t)(int64_t)off < w->sp)
			return v;
		*ok = mem_read(mem, cfa + (uint64_t)(int64_t)off, &x) == 0;
		return x;
	case PROFIL_FP_AT_FP:
		*ok = w->fp_ok && mem_read(mem, w->fp + (uint64_t)(int64_t)off, &x) == 0;
		return x;
	case PROFIL_FP_LOST:
		*ok = 0;
		return 0;
	default:
		return v;
	}
}

static enum profil_unwind_end
step(const struct profil_unwind_space *space, const struct profil_unwind_memory *mem,
    struct walk *w, int *done)
{
	const uint64_t at = w->exact ? w->pc : w->pc - 1;
	const struct profil_unwind_module *mod = module_find(space, at);
	const struct profil_unwind_row *row = NULL;
	uint64_t cfa, ra, fp = w->fp, bx = w->bx;
	int fp_ok = w->fp_ok, bx_ok = w->bx_ok;

	*done = 0;
	if (mod != NULL && mod->table != NULL)
		row = profil_unwind_row_find(mod->table, at - mod->bias);
	if (mod != NULL && mod->cut)
		return PROFIL_UNWIND_NORULE;
	switch (row != NULL ? row->cfa : PROFIL_CFA_NONE) {
	case PROFIL_CFA_NONE:
		/* No tables: code built with frame pointers (JIT code, Go) chains them. */
		if (!w->fp_ok)
			return PROFIL_UNWIND_NORULE;
		if (w->fp == 0) {
			*done = 1;
			return PROFIL_UNWIND_COMPLETE;
		}
		if (w->fp < w->sp)
			return PROFIL_UNWIND_NORULE;
		cfa = w->fp + 16;
		if (mem_read(mem, w->fp, &fp) < 0)
			return PROFIL_UNWIND_SHORT;
		fp_ok = 1;
		bx_ok = 0;	/* code without rules may have saved it anywhere */
		break;
	case PROFIL_CFA_SP:
		cfa = w->sp + (uint64_t)(int64_t)row->cfa_off;
		break;
	case PROFIL_CFA_FP:
		if (!w->fp_ok)
			return PROFIL_UNWIND_NORULE;
		cfa = w->fp + (uint64_t)(int64_t)row->cfa_off;
		break;
	case PROFIL_CFA_FP_DEREF:
		if (!w->fp_ok)
			return PROFIL_UNWIND_NORULE;
		if (mem_read(mem, w->fp + (uint64_t)(int64_t)row->cfa_off, &cfa) < 0)
			return PROFIL_UNWIND_SHORT;
		break;
	case PROFIL_CFA_PLT:
		cfa = w->sp + (uint64_t)(int64_t)row->cfa_off +
		    ((at & 15) >= (uint64_t)row->fp_off ? 8 : 0);
		break;
	case PROFIL_CFA_BX:
		if (!w->bx_ok)
			return PROFIL_UNWIND_NORULE;
		cfa = w->bx + (uint64_t)(int64_t)row->cfa_off;
		break;
	case PROFIL_CFA_SIGNAL:
		/* The interrupted frame, whole: it is exact, with every register known. */
		if (mem_read(mem, w->sp + UC_RIP, &ra) < 0 ||
		    mem_read(mem, w->sp + UC_RSP, &cfa) < 0 ||
		    mem_read(mem, w->sp + UC_RBP, &fp) < 0 ||
		    mem_read(mem, w->sp + UC_RBX, &bx) < 0)
			return PROFIL_UNWIND_SHORT;
		/* A jump to 0 faulted: the frame it came from is unknown. */
		if (ra == 0)
			return PROFIL_UNWIND_NORULE;
		w->pc = ra;
		w->sp = cfa;
		w->fp = fp;
		w->fp_ok = 1;
		w->bx = bx;
		w->bx_ok = 1;
		w->exact = 1;
		return PROFIL_UNWIND_COMPLETE;
	case PROFIL_CFA_END:
		*done = 1;
		return PROFIL_UNWIND_COMPLETE;
	default:
		return PROFIL_UNWIND_NORULE;
	}
	/* The caller's frame lies above this one; anything else is not a stack. */
	if (cfa <= w->sp)
		return PROFIL_UNWIND_NORULE;
	if (mem_read(mem, cfa - 8, &ra) < 0)
		return PROFIL_UNWIND_SHORT;
	/* From what the CFA's rule left (the frame-pointer walk reads the caller's fp). */
	if (row != NULL) {
		bx = saved(mem, w, cfa, row->bx, row->bx_off, bx, &bx_ok);
		fp = saved(mem, w, cfa, row->fp, row->fp_off, fp, &fp_ok);
	}
	if (ra == 0) {
		*done = 1;
		return PROFIL_UNWIND_COMPLETE;
	}
	w->pc = ra;
	w->sp = cfa;
	w->fp = fp;
	w->fp_ok = fp_ok;
	w->bx = bx;
	w->bx_ok = bx_ok;
	w->exact = 0;
	return PROFIL_UNWIND_COMPLETE;
}

static uint64_t
marker(enum profil_unwind_end e)
{
	switch (e) {
	case PROFIL_UNWIND_DEPTH:
		return PROFIL_PC_CUT_DEPTH;
	case PROFIL_UNWIND_SHORT:
		return PROFIL_PC_CUT_STACK;
	default:
		return PROFIL_PC_CUT_RULE;
	}
}

size_t
profil_unwind_cfi_at(const struct profil_unwind_space *space,
    const struct profil_unwind_stop *from, const struct profil_unwind_memory *mem,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end, struct profil_unwind_stop *stop)
{
	const struct profil_unwind_regs *regs = &from->regs;
	struct walk w = { regs->pc, regs->sp, regs->fp, regs->bx,
	    regs->fp != PROFIL_UNWIND_FP_UNKNOWN, regs->bx != PROFIL_UNWIND_FP_UNKNOWN,
	    from->exact };
	size_t n = 0;
	int done;

	*end = PROFIL_UNWIND_COMPLETE;
	if (max == 0)
		return 0;
	pcs[n++] = w.pc;
	while (max > 1) {
		enum profil_unwind_end e = step(space, mem, &w, &done);

		if (done)
			break;
		/* A cut, or one more frame where only the marker's slot is left. */
		if (e == PROFIL_UNWIND_COMPLETE && n == max - 1)
			e = PROFIL_UNWIND_DEPTH;
		if (e != PROFIL_UNWIND_COMPLETE) {
			pcs[n++] = marker(e);
			*end = e;
			break;
		}
		pcs[n++] = w.pc;
	}
	if (stop != NULL) {
		stop->regs.pc = w.pc;
		stop->regs.sp = w.sp;
		stop->regs.fp = w.fp_ok ? w.fp : PROFIL_UNWIND_FP_UNKNOWN;
		stop->regs.bx = w.bx_ok ? w.bx : PROFIL_UNWIND_FP_UNKNOWN;
		stop->exact = w.exact;
	}
	return n;
}

size_t
profil_unwind_cfi(const struct profil_unwind_space *space,
    const struct profil_unwind_regs *regs, const struct profil_unwind_memory *mem,
    uint64_t *pcs, size_t max, enum profil_unwind_end *end)
{
	const struct profil_unwind_stop from = { *regs, 1 };

	return profil_unwind_cfi_at(space, &from, mem, pcs, max, end, NULL);
}
