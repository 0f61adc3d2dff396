/*
 * fpproof.c - the frame pointer of a waiting thread's frame, proved from its function's code
 * (waiting.c walks the stack; /proc gives sp and pc, not rbp).
 *
 * A function framed by rbp (push %rbp; mov %rsp,%rbp: CFA = rbp + 16) cannot be walked
 * through without rbp, and until one of its callees saves rbp on the stack the register alone
 * holds it.  The stack above sp is full of frame records (saved rbp, return address) that
 * look right and are not: those of calls that have returned, left in the locals of the
 * frames now live, and the live ones of the callers, each chaining to main through callers
 * that are not the real ones.  No search among them is sound, so rbp is proved from the
 * function's code instead, read from the process (process_vm_readv(2)).  Its rows lead back
 * to its prologue (CFA = rsp + 16 after push %rbp, rbp + 16 after mov %rsp,%rbp, over the
 * rows of early epilogues), whose bytes must say so; the instructions after it, decoded, give
 * rbp - sp where it waits: the registers it pushes and the room it takes with sub $N,%rsp.
 * The rest of the function, to the end of its rows, must hold no other 64-bit operation on
 * rsp (alloca(3), an array of variable length, a realignment, arguments pushed for a call and
 * taken back with add), and the frame record at sp plus that must return after a call
 * instruction.  What cannot be proved so ends the stack with PROFIL_PC_CUT_FP, "[stack cut:
 * frame pointer not known]".  What the proof still assumes: that the function pushes nothing
 * it pops back before the call it waits in (push and pop cannot be told apart from other
 * bytes), and that its code is not split into parts elsewhere (gcc's .cold) that move rsp.
 * Each proof costs two reads of the program's code (more past 4 KiB of function), when a
 * thread starts a new wait.
 */
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "cfi.h"
#include "cfi/fpproof.h"

static const struct profil_unwind_module *
module_of(const struct profil_unwind_space *space, uint64_t pc)
{
	size_t lo = 0, hi = space->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < space->mods[mid].start)
			hi = mid;
		else if (pc >= space->mods[mid].end)
			lo = mid + 1;
		else
			return &space->mods[mid];
	}
	return NULL;
}

/* Up to len bytes of pid's memory at addr (fewer where its mapping ends): how many. */
static size_t
code_read(pid_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n > 0 ? (size_t)n : 0;
}

/*
 * The length of a ModR/M operand (the ModR/M byte, any SIB byte and displacement) at m, of
 * which len bytes are there; 0 when they are not all there.
 */
static size_t
modrm_len(const uint8_t *m, size_t len)
{
	unsigned int mod = m[0] >> 6, rm = m[0] & 7;
	size_t n = 1;

	if (len < 1)
		return 0;
	if (mod != 3 && rm == 4) {
		if (len < 2)
			return 0;
		n++;
		if (mod == 0 && (m[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= len ? n : 0;
}

/* Whether the 7 bytes before a return address end with a call: call rel32, or call *r/m. */
static int
after_call(const uint8_t *c)
{
	if (c[2] == 0xe8)
		return 1;
	for (size_t s = 0; s < 6; s++) {
		size_t i = s + ((c[s] & 0xf0) == 0x40);

		if (i + 2 <= 7 && c[i] == 0xff && (c[i + 1] >> 3 & 7) == 2 &&
		    i + 1 + modrm_len(c + i + 1, 7 - i - 1) == 7)
			return 1;
	}
	return 0;
}

/* Registers as ModR/M numbers them (with the REX bit): sp and bp, which a prologue sets. */
#define REG_SP	4
#define REG_BP	5
#define CODE_PIECE	4096	/* the code of a function read at once */
#define ROWS_BACK	256	/* the rows of one function, at most, looked through */
#define FUNCTION_MAX	(256 << 10)	/* the code of one function, at most, read */

/* What a prologue takes below rbp: the registers it pushes, then sub $room,%rsp at sub. */
struct frame_shape {
	int64_t pushed, room;
	uint64_t sub;		/* 0: no sub */
};

/* One instruction of a prologue, as far as it matters to rsp. */
enum insn_kind {
	INSN_OTHER,		/* leaves rsp and rbp alone */
	INSN_PUSH,
	INSN_SUB_SP,		/* sub $imm, %rsp */
	INSN_CALL
};

struct insn {
	size_t len;
	enum insn_kind kind;
	int64_t imm;
};

/* Which operand a ModR/M instruction writes: its reg field, its r/m, or none. */
enum { WRITES_REG, WRITES_RM, WRITES_NONE };

/* The one-byte opcodes of a prologue with a ModR/M operand: what each writes, its immediate. */
static int
modrm_op(unsigned int op, int *writes, size_t *imm)
{
	*imm = 0;
	switch (op) {
	case 0x00: case 0x01: case 0x08: case 0x09: case 0x20: case 0x21: case 0x28: case 0x29:
	case 0x30: case 0x31: case 0x88: case 0x89: case 0xd1: case 0xd3:
		*writes = WRITES_RM;
		return 0;
	case 0x02: case 0x03: case 0x0a: case 0x0b: case 0x22: case 0x23: case 0x2a: case 0x2b:
	case 0x32: case 0x33: case 0x63: case 0x8a: case 0x8b: case 0x8d:
		*writes = WRITES_REG;
		return 0;
	case 0x38: case 0x39: case 0x3a: case 0x3b: case 0x84: case 0x85:
		*writes = WRITES_NONE;
		return 0;
	case 0x80: case 0x83: case 0xc0: case 0xc1: case 0xc6:
		*writes = WRITES_RM;
		*imm = 1;
		return 0;
	case 0x81: case 0xc7:
		*writes = WRITES_RM;
		*imm = 4;
		return 0;
	case 0x69:
		*writes = WRITES_REG;
		*imm = 4;
		return 0;
	case 0x6b:
		*writes = WRITES_REG;
		*imm = 1;
		return 0;
	default:
		return -1;
	}
}

/* The same for the two-byte (0f) opcodes: moves and arithmetic of SSE, cmov, movzx, imul. */
static int
modrm_op_0f(unsigned int op, int *writes)
{
	switch (op) {
	case 0x10: case 0x11: case 0x1f: case 0x28: case 0x29: case 0x2a: case 0x57: case 0x58:
	case 0x59: case 0x5c: case 0x5e: case 0x6e: case 0x6f: case 0x7f: case 0xd6: case 0xef:
		*writes = WRITES_NONE;	/* an xmm register, or memory */
		return 0;
	case 0x2c: case 0x2d: case 0xaf: case 0xb6: case 0xb7: case 0xbe: case 0xbf:
		*writes = WRITES_REG;
		return 0;
	case 0x7e:			/* movd %xmm, r/m with 0x66 */
		*writes = WRITES_RM;
		return 0;
	default:
		if (op >= 0x40 && op <= 0x4f) {	/* cmov */
			*writes = WRITES_REG;
			return 0;
		}
		return -1;
	}
}

/*
 * Decodes the instruction at c[0..len): 0, or -1 for one this reader does not know, or one
 * that writes rsp or rbp other than as INSN_PUSH or INSN_SUB_SP.  Enough for the moves,
 * arithmetic and stores compilers put between a prologue's pushes and its sub.
 */
static int
insn_decode(const uint8_t *c, size_t len, struct insn *in)
{
	unsigned int rex = 0, op, reg, rm;
	int writes;
	size_t i = 0, m, imm;

	/* Segment and operand size prefixes, and SSE's mandatory ones. */
	while (i < len && (c[i] == 0x64 || c[i] == 0x65 || c[i] == 0x66 || c[i] == 0xf2 ||
	    c[i] == 0xf3))
		i++;
	if (i < len && (c[i] & 0xf0) == 0x40)
		rex = c[i++];
	if (i >= len)
		return -1;
	op = c[i++];
	in->kind = INSN_OTHER;
	in->imm = 0;
	if (op >= 0x50 && op <= 0x57) {
		in->kind = INSN_PUSH;
		in->len = i;
		return 0;
	}
	if (op >= 0xb8 && op <= 0xbf) {		/* mov $imm, %reg */
		reg = (op & 7) | (rex & 1) << 3;
		in->len = i + (rex & 8 ? 8 : 4);
		return reg == REG_SP || reg == REG_BP || in->len > len ? -1 : 0;
	}
	if (op == 0x98 || op == 0x99) {			/* cltq, cqto */
		in->len = i;
		return 0;
	}
	if (op == 0xe8) {
		in->kind = INSN_CALL;
		in->len = i + 4;
		return in->len > len ? -1 : 0;
	}
	if (op == 0xff) {
		if (i >= len || (c[i] >> 3 & 7) != 2 || (m = modrm_len(c + i, len - i)) == 0)
			return -1;
		in->kind = INSN_CALL;
		in->len = i + m;
		return 0;
	}
	if (op == 0x0f) {
		if (i >= len || modrm_op_0f(c[i++], &writes) < 0)
			return -1;
		imm = 0;
	} else if (modrm_op(op, &writes, &imm) < 0) {
		return -1;
	}
	if (i >= len || (m = modrm_len(c + i, len - i)) == 0 || i + m + imm > len)
		return -1;
	reg = (c[i] >> 3 & 7) | (rex & 4) << 1;
	rm = (c[i] & 7) | (rex & 1) << 3;
	if ((op == 0x81 || op == 0x83) && c[i] == (0xc0 | 5 << 3 | REG_SP) && (rex & 0xf9) == 0x48) {
		in->kind = INSN_SUB_SP;
		in->imm = op == 0x83 ? (int8_t)c[i + 1] : (int32_t)((uint32_t)c[i + 1] |
		    (uint32_t)c[i + 2] << 8 | (uint32_t)c[i + 3] << 16 | (uint32_t)c[i + 4] << 24);
		in->len = i + m + imm;
		return 0;
	}
	if ((op == 0x80 || op == 0x81 || op == 0x83) && (c[i] >> 3 & 7) == 7)
		writes = WRITES_NONE;	/* cmp */
	if ((writes == WRITES_REG && (reg == REG_SP || reg == REG_BP)) ||
	    (writes == WRITES_RM && c[i] >> 6 == 3 && (rm == REG_SP || rm == REG_BP)))
		return -1;
	in->len = i + m + imm;
	return 0;
}

/*
 * The shape of the frame at f, in the function whose prologue begins (after mov %rsp,%rbp)
 * at c[0..len), address x: the registers it pushes, then sub $N,%rsp, with only instructions
 * between them that leave rsp and rbp alone (insn_decode); or, where f comes before the sub,
 * what was pushed by then.  0, or -1 for any other code: nothing is proved.
 */
static int
prologue_shape(const uint8_t *c, size_t len, uint64_t x, const struct profil_unwind_stop *f,
    struct frame_shape *shape)
{
	uint64_t at = f->exact ? f->regs.pc : f->regs.pc - 1;
	struct insn in;

	memset(shape, 0, sizeof(*shape));
	for (size_t i = 0; i < len && x + i <= at; i += in.len) {
		if (f->exact && x + i == f->regs.pc)
			return 0;
		if (insn_decode(c + i, len - i, &in) < 0)
			return -1;
		switch (in.kind) {
		case INSN_PUSH:
			shape->pushed += 8;
			break;
		case INSN_SUB_SP:
			/* The prologue's last instruction, before where f is. */
			if (in.imm < 0 || x + i + in.len > at)
				return -1;
			shape->room = in.imm;
			shape->sub = x + i;
			return 0;
		case INSN_CALL:
			/* The call f returns from, straight after the pushes. */
			return !f->exact && x + i + in.len == f->regs.pc ? 0 : -1;
		default:
			break;
		}
	}
	return -1;
}

/*
 * Whether code c[0..len) at address a (patterns that begin before c + starts), of a function
 * shaped so, may move rsp other than by its prologue's sub and its epilogues' add of the same
 * room: sub or and on rsp (alloca(3), an array of variable length, a realignment), sub or add
 * of a register, a move or lea into it, an add of another amount (arguments pushed for a
 * call, taken back).  Byte patterns of 64-bit operations on rsp, wherever they are, not
 * decoded instructions: a false match only cuts the stack.  Pushes and pops cannot be told
 * from other bytes so: arguments pushed and popped back are not seen.
 */
static int
moves_sp(const uint8_t *c, size_t len, size_t starts, uint64_t a, const struct frame_shape *shape)
{
	for (size_t j = 0; j < starts && j + 3 <= len; j++) {
		unsigned int rex = c[j], op = c[j + 1], m = c[j + 2];
		int rm_sp = m >> 6 == 3 && (m & 7) == REG_SP && !(rex & 1);
		int reg_sp = (m >> 3 & 7) == REG_SP && !(rex & 4);
		int64_t imm;

		if ((rex & 0xf8) != 0x48)
			continue;
		switch (op) {
		case 0x81:
		case 0x83:
			if (!rm_sp || (m >> 3 & 7) == 7)	/* cmp */
				break;
			if ((m >> 3 & 7) == 5 && a + j == shape->sub)
				break;
			if ((m >> 3 & 7) != 0)
				return 1;
			if (j + (op == 0x83 ? 4 : 7) > len)
				return 1;
			imm = op == 0x83 ? (int8_t)c[j + 3] : (int32_t)((uint32_t)c[j + 3] |
			    (uint32_t)c[j + 4] << 8 | (uint32_t)c[j + 5] << 16 |
			    (uint32_t)c[j + 6] << 24);
			if (imm != shape->room)
				return 1;
			break;
		case 0x01: case 0x29: case 0x89:
			if (rm_sp)
				return 1;
			break;
		case 0x03: case 0x2b: case 0x8b:
			if (reg_sp)
				return 1;
			break;
		case 0x8d:
			if (reg_sp && m >> 6 != 3)
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Where the function ends: the first row after row that does not keep rbp saved at CFA - 16. */
static uint64_t
function_end(const struct profil_unwind_module *mod, const struct profil_unwind_row *row)
{
	const struct profil_unwind_table *t = mod->table;
	const struct profil_unwind_row *r = row, *last = t->rows + t->nrows;

	while (r < last && r - row < ROWS_BACK && r->fp == PROFIL_FP_AT_CFA && r->fp_off == -16)
		r++;
	return r == last || r - row == ROWS_BACK ? 0 : t->base + r->addr + mod->bias;
}

/*
 * moves_sp over the function's code [lo, hi), whose first piece c[0..have) holds; the rest is
 * read from pid into c in pieces that overlap by an instruction's length.  1 when it may move
 * rsp, or cannot be read.
 */
static int
function_moves_sp(pid_t pid, uint64_t lo, uint64_t hi, uint8_t *c, size_t have,
    const struct frame_shape *shape)
{
	for (uint64_t a = lo;; a += CODE_PIECE - 8) {
		size_t want = hi - a < CODE_PIECE ? (size_t)(hi - a) : CODE_PIECE, starts = want;

		/* Patterns that begin in the last 8 bytes of a piece are the next one's. */
		if (a + want < hi)
			starts = want - 8;
		if ((a == lo ? have : code_read(pid, a, c, want)) != want ||
		    moves_sp(c, want, starts, a, shape))
			return 1;
		if (a + want == hi)
			return 0;
	}
}

/* Why a walk stopped at f: its rule needs the frame pointer (1), or not (0). */
int
profil_unwind_fp_needed(const struct profil_unwind_space *space, const struct profil_unwind_stop *f,
    const struct profil_unwind_module **mod, const struct profil_unwind_row **row)
{
	uint64_t at = f->exact ? f->regs.pc : f->regs.pc - 1;

	*mod = module_of(space, at);
	*row = NULL;
	if (*mod != NULL && (*mod)->cut)
		return 0;
	if (*mod != NULL && (*mod)->table != NULL)
		*row = profil_unwind_row_find((*mod)->table, at - (*mod)->bias);
	switch (*row != NULL ? (*row)->cfa : PROFIL_CFA_NONE) {
	case PROFIL_CFA_NONE:
	case PROFIL_CFA_FP:
	case PROFIL_CFA_FP_DEREF:
		return 1;
	default:
		return 0;
	}
}

/*
 * The frame pointer of frame f, whose row says CFA = rbp + 16, proved from its function's
 * code (the header comment): 0 and *fp, or -1.  The rows before f's show the prologue: CFA =
 * rsp + 16 with the caller's rbp at CFA - 16 from just after push %rbp, CFA = rbp + 16 from
 * just after mov %rsp,%rbp, and the code at both places says so too.
 */
int
profil_unwind_fp_prove(pid_t pid, const struct profil_unwind_module *mod,
    const struct profil_unwind_row *row, const struct profil_unwind_memory *mem,
    const struct profil_unwind_stop *f, uint64_t *fp)
{
	const struct profil_unwind_table *t;
	const struct profil_unwind_row *first = row;
	uint8_t c[CODE_PIECE], before[7];
	uint64_t push, x, lo, hi, ret;
	struct frame_shape shape;
	size_t len, skip;

	/* No row: code without tables (JIT code), or in no mapping. */
	if (row == NULL || row->cfa != PROFIL_CFA_FP || row->cfa_off != 16)
		return -1;
	t = mod->table;
	/*
	 * Back to the prologue over the function's rows, its epilogues' among them (CFA = rsp +
	 * 8 after pop %rbp, the caller's rbp still said to be at CFA - 16); a row without that
	 * is before the function, and nothing is proved.
	 */
	for (size_t k = 0;; k++, first--) {
		if (first == t->rows || k == ROWS_BACK || first->fp != PROFIL_FP_AT_CFA ||
		    first->fp_off != -16)
			return -1;
		if (first->cfa == PROFIL_CFA_FP && first->cfa_off == 16 &&
		    first[-1].cfa == PROFIL_CFA_SP && first[-1].cfa_off == 16 &&
		    first[-1].fp == PROFIL_FP_AT_CFA && first[-1].fp_off == -16)
			break;
	}
	push = t->base + first[-1].addr + mod->bias;
	x = t->base + first->addr + mod->bias;
	lo = push - 1;
	hi = function_end(mod, row);
	if (x < push + 3 || x - push > 32 || lo < mod->start || hi <= x || hi > mod->end ||
	    hi - lo > FUNCTION_MAX)
		return -1;
	/* push %rbp (55) just before the first row, mov %rsp,%rbp (48 89 e5 or 48 8b ec) before x. */
	skip = (size_t)(x - lo);
	len = hi - lo < sizeof(c) ? (size_t)(hi - lo) : sizeof(c);
	if (len <= skip || code_read(pid, lo, c, len) != len || c[0] != 0x55 ||
	    c[skip - 3] != 0x48 || !((c[skip - 2] == 0x89 && c[skip - 1] == 0xe5) ||
	    (c[skip - 2] == 0x8b && c[skip - 1] == 0xec)))
		return -1;
	if (prologue_shape(c + skip, len - skip, x, f, &shape) < 0 ||
	    function_moves_sp(pid, lo, hi, c, len, &shape))
		return -1;
	*fp = f->regs.sp + (uint64_t)(shape.pushed + shape.room);
	/* Beyond the copy, the walk says the copy ended; within it, a frame record or nothing. */
	if (*fp < mem->lo || *fp + 16 > mem->hi)
		return 0;
	memcpy(&ret, mem->data + (*fp + 8 - mem->lo), 8);
	if (ret < 7 || code_read(pid, ret - 7, before, sizeof(before)) != sizeof(before) ||
	    !after_call(before))
		return -1;
	return 0;
}
