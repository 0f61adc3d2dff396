/*
 * cfirows.c - unwind tables from hand-written call frame information (src/cfi) and the walk
 * over them (src/sample/walk.c), against what DWARF says each instruction means: the rows a
 * prologue makes, an epilogue's remember/restore_state, the rule an unreadable instruction
 * leaves (none: a cut), offsets after a CFA expression, the segment an lld-linked mapping
 * maps, and a walk through two frames and into a cut.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../bytes.h"
#include "../tap.h"
#include "cfi/cfi.h"

/* A .eh_frame at image address 0x10000: one CIE (x86-64's), then one FDE per call. */

static void
cie(struct test_bytes *s)
{
	/* "zR", code 1, data -8, ra 16, fde pcrel|sdata4; def_cfa rsp+8, offset r16 at cfa-8. */
	static const uint8_t body[] = { 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,
	    0x0c, 7, 8, 0x90, 1, 0, 0 };

	bytes_put32(s, 4 + sizeof(body));
	bytes_put32(s, 0);
	bytes_put(s, body, sizeof(body));
}

/* An FDE for [begin, begin + len) with instructions insns. */
static void
fde(struct test_bytes *s, uint64_t vaddr, uint64_t begin, uint32_t len, const uint8_t *insns,
    size_t ninsns)
{
	size_t at = s->n, pad = (4 - (8 + 4 + 4 + 1 + ninsns) % 4) % 4;
	uint32_t id;
	int32_t rel;

	bytes_put32(s, (uint32_t)(4 + 4 + 4 + 1 + ninsns + pad));
	id = (uint32_t)(s->n - 0);	/* from this field back to the CIE at 0 */
	bytes_put32(s, id);
	rel = (int32_t)(begin - (vaddr + s->n));
	bytes_put(s, &rel, 4);
	bytes_put32(s, len);
	bytes_put(s, "\0", 1);	/* augmentation data length */
	bytes_put(s, insns, ninsns);
	while (pad-- > 0)
		bytes_put(s, "\0", 1);
	(void)at;
}

static const struct profil_unwind_row *
at(const struct profil_unwind_table *t, uint64_t a)
{
	return profil_unwind_row_find(t, a);
}

int
main(void)
{
	const uint64_t va = 0x10000;
	struct profil_unwind_table t;
	struct test_bytes s;
	const struct profil_unwind_row *r;

	/* A prologue: push rbp; mov rsp, rbp; ... an epilogue with remember/restore_state. */
	{
		static const uint8_t ins[] = {
			0x41, 0x0e, 16, 0x86, 2,	/* advance 1: cfa rsp+16, rbp at cfa-16 */
			0x43, 0x0d, 6,			/* advance 3: cfa rbp+16 */
			0x4a, 0x0a, 0x0c, 7, 8,		/* advance 10: remember; cfa rsp+8 */
			0x41, 0x0b,			/* advance 1: restore_state */
		};

		memset(&s, 0, sizeof(s));
		cie(&s);
		fde(&s, va, 0x1000, 0x40, ins, sizeof(ins));
		tap_check(profil_cfi_rows(s.b, s.n, va, 1, &t) == 0, "a prologue's FDE reads");
		r = at(&t, 0x1000);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_SP && r->cfa_off == 8, "entry: sp+8");
		r = at(&t, 0x1001);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_SP && r->cfa_off == 16 &&
		    r->fp == PROFIL_FP_AT_CFA && r->fp_off == -16, "after push rbp: sp+16, rbp saved");
		r = at(&t, 0x1004);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_FP && r->cfa_off == 16, "framed: fp+16");
		r = at(&t, 0x100e);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_SP && r->cfa_off == 8,
		    "after the epilogue's ret: sp+8");
		r = at(&t, 0x100f);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_FP && r->cfa_off == 16,
		    "restore_state brings the CFA rule back too");
		r = at(&t, 0x1040);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_NONE, "past the FDE: no rule");
		free((void *)t.rows);
	}

	/* An instruction nobody defines, after an advance: a cut from there, not the old rule. */
	{
		static const uint8_t ins[] = { 0x41, 0x0e, 16, 0x44, 0x0e, 24, 0x1c, 0x41, 0x0e, 8 };

		memset(&s, 0, sizeof(s));
		cie(&s);
		fde(&s, va, 0x2000, 0x100, ins, sizeof(ins));
		tap_check(profil_cfi_rows(s.b, s.n, va, 1, &t) == 0, "an FDE with a bad opcode reads");
		r = at(&t, 0x2001);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_SP && r->cfa_off == 16, "sp+16 before it");
		r = at(&t, 0x2005);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_BAD, "from the bad opcode on: a cut");
		r = at(&t, 0x20ff);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_BAD, "to the end of the FDE");
		free((void *)t.rows);
	}

	/* def_cfa_offset after a CFA expression: no longer a rule the walk can follow. */
	{
		static const uint8_t ins[] = { 0x41, 0x0f, 3, 0x76, 0x78, 0x06, 0x41, 0x0e, 64 };

		memset(&s, 0, sizeof(s));
		cie(&s);
		fde(&s, va, 0x3000, 0x10, ins, sizeof(ins));
		tap_check(profil_cfi_rows(s.b, s.n, va, 1, &t) == 0, "a realigning FDE reads");
		r = at(&t, 0x3001);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_FP_DEREF && r->cfa_off == -8,
		    "*(rbp - 8) is followed");
		r = at(&t, 0x3002);
		tap_check(r != NULL && r->cfa == PROFIL_CFA_BAD,
		    "an offset set on an expression is a cut, not *(rbp + 64)");
		free((void *)t.rows);
	}

	/* lld: R at offset 0, R E sharing its page at offset 0x520 but address 0x1520. */
	{
		struct profil_cfi_load loads[2] = {
			{ 0, 0, 0x520, PF_R }, { 0x520, 0x1520, 0x300, PF_R | PF_X },
		};
		struct profil_cfi_object o;
		uint64_t bias = 0;

		memset(&o, 0, sizeof(o));
		o.loads = loads;
		o.nloads = 2;
		int r0 = profil_cfi_object_bias(&o, 0x7f0000000000, 0, &bias);

		tap_check(r0 == 0 && bias == 0x7f0000000000 - 0x1000, "an lld mapping at pgoff 0 is "
		    "the R E segment's (bias %#llx)", (unsigned long long)bias);
	}

	/* A walk: leaf at sp+16 with rbp saved, its caller framed by rbp, then a cut. */
	{
		static const uint8_t ins[] = { 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6 };
		struct profil_unwind_module mod = { 0x555500000000, 0x555500010000, 0, NULL, 0 };
		struct profil_unwind_space space = { &mod, 1 };
		uint64_t stack[8], pcs[8];
		struct profil_unwind_memory mem;
		struct profil_unwind_regs regs;
		enum profil_unwind_end end;
		size_t n;

		memset(&s, 0, sizeof(s));
		cie(&s);
		fde(&s, va, 0x1000, 0x100, ins, sizeof(ins));
		tap_check(profil_cfi_rows(s.b, s.n, va, 1, &t) == 0, "the walk's table reads");
		mod.bias = mod.start;
		mod.table = &t;
		/* Leaf at 0x1002 (sp+16: [saved rbp][return into 0x1050]); caller framed. */
		stack[0] = 0x7ffc00000030;		/* saved rbp = the caller's frame */
		stack[1] = mod.start + 0x1050;		/* return address */
		stack[2] = 0;
		stack[3] = 0;
		stack[4] = 0;
		stack[5] = 0;
		stack[6] = 0;				/* the caller's saved rbp: the chain ends */
		stack[7] = 0x12;			/* its return address: no code there */
		mem.lo = 0x7ffc00000000;
		mem.hi = mem.lo + sizeof(stack);
		mem.data = (const uint8_t *)stack;
		regs.pc = mod.start + 0x1002;
		regs.sp = mem.lo;
		regs.fp = 0x1234;
		regs.bx = PROFIL_UNWIND_FP_UNKNOWN;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n >= 3 && pcs[0] == regs.pc && pcs[1] == mod.start + 0x1050,
		    "the leaf's caller from sp+16 (%zu frames)", n);
		tap_check(n == 3 && pcs[2] == 0x12 && end == PROFIL_UNWIND_COMPLETE,
		    "the caller's caller through rbp; the walk ends where nothing maps (end %d)", end);
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 2, &end);
		tap_check(n == 2 && pcs[1] == PROFIL_PC_CUT_DEPTH && end == PROFIL_UNWIND_DEPTH,
		    "a depth limit ends with its marker");
		mem.hi = mem.lo + 8;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 2 && pcs[1] == PROFIL_PC_CUT_STACK && end == PROFIL_UNWIND_SHORT,
		    "a copy too short for the return address ends with its marker");
		mod.cut = 1;
		mem.hi = mem.lo + sizeof(stack);
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 2 && pcs[1] == PROFIL_PC_CUT_RULE,
		    "code of an unreadable object is a cut, never a frame-pointer guess");
		free((void *)t.rows);
	}

	/*
	 * ld.so's lazy-binding trampoline keeps its CFA in rbx (push rbx; mov rsp, rbx; realign):
	 * a walk from a callee that saved rbx, or from a leaf whose rbx is known, goes through it.
	 */
	{
		/* At 0x2000: advance 1: cfa rsp+16, rbx at cfa-16; advance 3: cfa rbx+16. */
		static const uint8_t tramp[] = { 0x41, 0x0e, 16, 0x83, 2, 0x43, 0x0d, 3 };
		/* At 0x3000, the callee: advance 1: cfa rsp+16, rbx at cfa-16. */
		static const uint8_t callee[] = { 0x41, 0x0e, 16, 0x83, 2 };
		/* At 0x3100, a leaf that leaves rbx alone. */
		static const uint8_t leaf[] = { 0x41, 0x0e, 16 };
		struct profil_unwind_module mod = { 0x555500000000, 0x555500010000, 0, NULL, 0 };
		struct profil_unwind_space space = { &mod, 1 };
		uint64_t stack[10], pcs[8];
		struct profil_unwind_memory mem;
		struct profil_unwind_regs regs;
		enum profil_unwind_end end;
		size_t n;

		memset(&s, 0, sizeof(s));
		cie(&s);
		fde(&s, va, 0x2000, 0x40, tramp, sizeof(tramp));
		fde(&s, va, 0x3000, 0x40, callee, sizeof(callee));
		fde(&s, va, 0x3100, 0x40, leaf, sizeof(leaf));
		tap_check(profil_cfi_rows(s.b, s.n, va, 1, &t) == 0 &&
		    (r = profil_unwind_row_find(&t, 0x2004)) != NULL && r->cfa == PROFIL_CFA_BX &&
		    r->cfa_off == 16 && r->bx == PROFIL_FP_AT_CFA && r->bx_off == -16,
		    "a CFA in rbx, and rbx saved at cfa-16, are rows");
		mod.bias = mod.start;
		mod.table = &t;
		mem.lo = 0x7ffc00000000;
		mem.hi = mem.lo + sizeof(stack);
		mem.data = (const uint8_t *)stack;
		memset(stack, 0xee, sizeof(stack));
		stack[0] = mem.lo + 0x40;		/* the callee's save of the trampoline's rbx */
		stack[1] = mod.start + 0x2011;		/* return into the trampoline */
		stack[8] = 0x77;			/* the trampoline's save of its caller's rbx */
		stack[9] = mod.start + 0x1051;		/* return into code without rules */
		regs.pc = mod.start + 0x3002;
		regs.sp = mem.lo;
		regs.fp = 0;
		regs.bx = PROFIL_UNWIND_FP_UNKNOWN;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 3 && pcs[1] == mod.start + 0x2011 && pcs[2] == mod.start + 0x1051 &&
		    end == PROFIL_UNWIND_COMPLETE,
		    "through the trampoline by the rbx its callee saved (%zu frames, end %d)", n, end);
		/* The leaf that keeps rbx: it has to be known from the registers. */
		regs.pc = mod.start + 0x3102;
		stack[0] = 0;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 3 && pcs[2] == PROFIL_PC_CUT_RULE && end == PROFIL_UNWIND_NORULE,
		    "rbx unknown (a waiting thread's): a cut at the trampoline, not a guess");
		regs.bx = mem.lo + 0x40;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 3 && pcs[2] == mod.start + 0x1051 && end == PROFIL_UNWIND_COMPLETE,
		    "rbx from the registers: through the trampoline");
		/* Code between the entries (0x3040-0x3100: no rules) chains its frame pointers. */
		memset(stack, 0, sizeof(stack));
		stack[2] = mem.lo + 0x20;		/* frame record A: the caller's, B */
		stack[3] = mod.start + 0x3061;		/* return into more code without rules */
		stack[4] = 0;				/* frame record B: the chain ends */
		stack[5] = mod.start + 0x3071;
		regs.pc = mod.start + 0x3050;
		regs.sp = mem.lo;
		regs.fp = mem.lo + 0x10;
		n = profil_unwind_cfi(&space, &regs, &mem, pcs, 8, &end);
		tap_check(n == 3 && pcs[1] == mod.start + 0x3061 && pcs[2] == mod.start + 0x3071 &&
		    end == PROFIL_UNWIND_COMPLETE,
		    "a gap between entries walks by frame pointers (%zu frames, end %d)", n, end);
		free((void *)t.rows);
	}

	/* .eh_frame's rows, and .debug_frame's where .eh_frame has none (a Go program with C). */
	{
#define ROW(a, off, kind)	{ .addr = (a), .cfa_off = (off), .cfa = (kind) }
		static const struct profil_unwind_row ra[] = {
			ROW(0x0, 8, PROFIL_CFA_SP), ROW(0x10, 0, PROFIL_CFA_NONE),
			ROW(0x40, 24, PROFIL_CFA_SP), ROW(0x50, 0, PROFIL_CFA_NONE),
		};
		static const struct profil_unwind_row rb[] = {
			ROW(0x0, 16, PROFIL_CFA_SP), ROW(0x18, 32, PROFIL_CFA_SP),
			ROW(0x60, 0, PROFIL_CFA_NONE),
		};
#undef ROW
		/* a at 0x1000, b at 0x1008: b's rule at 0x1018 is 32, hidden by a's from 0x1040. */
		static const struct { uint64_t a; uint8_t cfa; int32_t off; } want[] = {
			{ 0x1000, PROFIL_CFA_SP, 8 }, { 0x1010, PROFIL_CFA_SP, 16 },
			{ 0x1020, PROFIL_CFA_SP, 32 }, { 0x1040, PROFIL_CFA_SP, 24 },
			{ 0x1050, PROFIL_CFA_SP, 32 }, { 0x1068, PROFIL_CFA_NONE, 0 },
		};
		const struct profil_unwind_table a = { 0x1000, ra, 4 }, b = { 0x1008, rb, 3 };
		size_t bad = 0;

		tap_check(profil_cfi_merge(&a, &b, &t) == 0 && t.base == 0x1000,
		    "two tables merge");
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			r = profil_unwind_row_find(&t, want[i].a);
			if (r == NULL || r->cfa != want[i].cfa || r->cfa_off != want[i].off)
				bad++;
		}
		tap_check(bad == 0 && t.nrows == 6,
		    "the first table's rules, the second's where it has none (%zu rows)", t.nrows);
		r = profil_unwind_row_find(&t, 0x0fff);
		tap_check(r == NULL, "nothing before either table");
		free((void *)t.rows);

		/* An empty table gives the other whole, wherever it lies. */
		const struct profil_unwind_table none = { 0, NULL, 0 };
		const struct profil_unwind_table high = { UINT64_C(5) << 30, ra, 4 };

		tap_check(profil_cfi_merge(&none, &high, &t) == 0 && t.nrows == 4 &&
		    t.base == high.base && (r = profil_unwind_row_find(&t, high.base + 0x40)) &&
		    r->cfa_off == 24, "an empty first table gives the second");
		free((void *)t.rows);
		tap_check(profil_cfi_merge(&high, &none, &t) == 0 && t.nrows == 4 &&
		    t.base == high.base, "an empty second table gives the first");
		free((void *)t.rows);
		/* b 5 GiB below a: a's rows stay, b's out of a's window are left out. */
		tap_check(profil_cfi_merge(&high, &b, &t) == 0 && t.base == high.base &&
		    (r = profil_unwind_row_find(&t, high.base)) && r->cfa_off == 8 &&
		    profil_unwind_row_find(&t, 0x1008) == NULL,
		    "a second table 5 GiB below the first leaves the first whole");
		free((void *)t.rows);
	}
	return tap_done();
}
