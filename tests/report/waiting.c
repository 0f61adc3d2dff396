/*
 * waiting.c - the walk of a waiting thread's stack (src/cfi/waiting.c) over hand-made code and
 * rows: rbp, which /proc leaves out, proved from the prologue of a function framed by it
 * (through an early epilogue's rows), never taken from a stale frame record lower on the
 * stack; and a cut, "[stack cut: frame pointer not known]", where the function moves rsp
 * after its prologue, where the record there does not return after a call, or where the
 * prologue is not one the code proves.  The code is read from this process, as the
 * recorders read the program's (process_vm_readv).
 */
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "cfi/cfi.h"

/*
 * f: a prologue, an early return, a 4-byte slot (a nop the checks make into other code), the
 * call the thread waits under, an epilogue.  leaf: the system call.  h and decoy: callers of
 * f, outermost.
 */
static uint8_t code[0x60] = {
	/* f */
	0x55,				/* 00 push %rbp */
	0x48, 0x89, 0xe5,		/* 01 mov %rsp,%rbp */
	0x53,				/* 04 push %rbx */
	0x48, 0x83, 0xec, 0x18,		/* 05 sub $0x18,%rsp */
	0xeb, 0x07,			/* 09 jmp 12 */
	0x48, 0x83, 0xc4, 0x18,		/* 0b add $0x18,%rsp */
	0x5b, 0x5d, 0xc3,		/* 0f pop %rbx; pop %rbp; ret */
	0x0f, 0x1f, 0x40, 0x00,		/* 12 nopl 0(%rax): the slot */
	0xe8, 0x15, 0x00, 0x00, 0x00,	/* 16 call leaf */
	0x48, 0x83, 0xc4, 0x18,		/* 1b add $0x18,%rsp */
	0x5b, 0x5d, 0xc3,		/* 1f pop %rbx; pop %rbp; ret */
	[0x30] = 0x0f, 0x05, 0xc3,	/* leaf: syscall; ret */
	[0x40] = 0x55, 0x48, 0x89, 0xe5, 0xe8, 0xb7, 0xff, 0xff, 0xff,	/* h: ...; call f */
	[0x50] = 0x55, 0x48, 0x89, 0xe5, 0xe8, 0xa7, 0xff, 0xff, 0xff,	/* decoy: ...; call f */
};

#define SP_SAME(a)	{ a, 8, 0, PROFIL_CFA_SP, PROFIL_FP_SAME, 0, 0, 0 }
#define SP8(a)		{ a, 8, -16, PROFIL_CFA_SP, PROFIL_FP_AT_CFA, 0, 0, 0 }
#define SP16(a)		{ a, 16, -16, PROFIL_CFA_SP, PROFIL_FP_AT_CFA, 0, 0, 0 }
#define FP16(a)		{ a, 16, -16, PROFIL_CFA_FP, PROFIL_FP_AT_CFA, 0, 0, 0 }
#define NONE(a)		{ a, 0, 0, PROFIL_CFA_NONE, 0, 0, 0, 0 }
#define END(a)		{ a, 0, 0, PROFIL_CFA_END, 0, 0, 0, 0 }

/* What .eh_frame says of them: the early epilogue's rows between the prologue and the call. */
static const struct profil_unwind_row rows[] = {
	SP_SAME(0x00), SP16(0x01), FP16(0x04), SP8(0x12), FP16(0x13), SP8(0x21), NONE(0x22),
	SP_SAME(0x30), NONE(0x33),
	END(0x40), NONE(0x49),
	END(0x50), NONE(0x59),
};

static uint64_t stack[16];

static size_t
walk(uint64_t pc, uint64_t sp, uint64_t *pcs, enum profil_unwind_end *end)
{
	struct profil_unwind_table t = { 0, rows, sizeof(rows) / sizeof(rows[0]) };
	struct profil_unwind_module mod = { (uintptr_t)code, (uintptr_t)code + sizeof(code),
	    (uintptr_t)code, &t, 0 };
	struct profil_unwind_space space = { &mod, 1 };
	struct profil_unwind_memory mem = { 0x7ffc00000000, 0x7ffc00000000 + sizeof(stack),
	    (const uint8_t *)stack };
	struct profil_unwind_regs regs = { pc, sp, PROFIL_UNWIND_FP_UNKNOWN,
	    PROFIL_UNWIND_FP_UNKNOWN };

	return profil_unwind_waiting(&space, &regs, &mem, getpid(), pcs, 8, end);
}

/* The walk from the system call in leaf, whose caller f is cut (want 0) or not. */
static void
check(int whole, const char *what)
{
	const uint64_t c = (uintptr_t)code, sp = 0x7ffc00000000;
	enum profil_unwind_end end;
	uint64_t pcs[8];
	size_t n = walk(c + 0x32, sp, pcs, &end);

	if (whole)
		tap_check(n == 3 && pcs[0] == c + 0x32 && pcs[1] == c + 0x1b && pcs[2] == c + 0x49 &&
		    end == PROFIL_UNWIND_COMPLETE, "%s: leaf, f, h (%zu frames, the last h+%#llx)",
		    what, n, (unsigned long long)(pcs[n - 1] - c - 0x40));
	else
		tap_check(n == 3 && pcs[1] == c + 0x1b && pcs[2] == PROFIL_PC_CUT_FP &&
		    end == PROFIL_UNWIND_NORULE, "%s: leaf, f, [stack cut: frame pointer not known]"
		    " (%zu frames)", what, n);
}

static void
slot(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	code[0x12] = a;
	code[0x13] = b;
	code[0x14] = c;
	code[0x15] = d;
}

int
main(void)
{
	const uint64_t c = (uintptr_t)code, sp = 0x7ffc00000000;
	enum profil_unwind_end end;
	uint64_t pcs[8];
	size_t n;

	/*
	 * leaf's frame: f's return address.  f's: rsp = sp + 8, rbx pushed, 0x18 of room, so
	 * rbp = sp + 0x28, where h's frame record is.  Lower, in f's room, a stale record of a
	 * call from decoy, the first a search up the stack meets.
	 */
	stack[0] = c + 0x1b;
	stack[2] = sp + 0x60;
	stack[3] = c + 0x59;
	stack[5] = sp + 0x60;
	stack[6] = c + 0x49;
	check(1, "rbp from f's prologue, not the stale record below it");

	n = walk(c + 0x16, sp + 8, pcs, &end);
	tap_check(n == 2 && pcs[0] == c + 0x16 && pcs[1] == c + 0x49,
	    "waiting in f itself (its pc exact): f, h (%zu frames)", n);

	slot(0x48, 0x83, 0xc4, 0x18);
	check(1, "an add of the room the prologue took (another epilogue)");
	slot(0x48, 0x29, 0xc4, 0x90);
	check(0, "sub %rax,%rsp in f (alloca, an array of variable length)");
	slot(0x48, 0x83, 0xc4, 0x08);
	check(0, "add $8,%rsp in f (an argument pushed for a call, taken back)");
	slot(0x48, 0x8d, 0x65, 0xf8);
	check(0, "lea -8(%rbp),%rsp in f");
	slot(0x0f, 0x1f, 0x40, 0x00);

	stack[6] = c + 0x48;
	check(0, "a record there that does not return after a call");
	stack[6] = c + 0x49;

	code[4] = 0x90;
	check(0, "an instruction the prologue's reader does not know before its sub");
	code[4] = 0x53;
	code[0] = 0x90;
	check(0, "no push %rbp where the rows say it is");
	code[0] = 0x55;
	check(1, "and back");

	n = walk(0x1234, sp, pcs, &end);
	tap_check(n == 2 && pcs[0] == 0x1234 && pcs[1] == PROFIL_PC_CUT_FP,
	    "a pc in no mapping: itself, then [stack cut: frame pointer not known] (%zu frames)", n);
	return tap_done();
}
