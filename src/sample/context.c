/*
 * Signal context: the interrupted thread's stack walked by the unwind tables the control side
 * published (struct profil_unwind_shared), reading the stack in place between the interrupted
 * sp and the thread's stack top, the only part known to be mapped.
 */
#include <ucontext.h>

#include "stacks.h"

/* See struct profil_unwind_shared for why the re-check is enough. */
const struct profil_unwind_space *
profil_unwind_enter(struct profil_unwind_shared *u, struct profil_unwind_slot **slotp)
{
	struct profil_unwind_slot *slot;
	unsigned int i;

	for (;;) {
		i = atomic_load(&u->cur) % PROFIL_UNWIND_SLOTS;
		slot = &u->slots[i];
		atomic_fetch_add(&slot->inflight, 1);
		if (atomic_load(&u->cur) % PROFIL_UNWIND_SLOTS == i)
			break;
		atomic_fetch_sub(&slot->inflight, 1);
	}
	*slotp = slot;
	return atomic_load(&slot->space);
}

void
profil_unwind_leave(struct profil_unwind_slot *slot)
{
	atomic_fetch_sub(&slot->inflight, 1);
}

size_t
profil_unwind_context(const void *ucv, struct profil_unwind_shared *u, uint64_t *pcs, size_t max)
{
#if defined(__x86_64__)
	const ucontext_t *uc = ucv;
	struct profil_unwind_regs regs;
	struct profil_unwind_memory mem;
	struct profil_unwind_space none = { NULL, 0 };
	const struct profil_unwind_space *space;
	struct profil_unwind_slot *slot;
	enum profil_unwind_end end;
	uintptr_t hi = profil_stack_bounds.hi;
	size_t n;

	if (max == 0)
		return 0;
	regs.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	regs.sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	regs.fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	regs.bx = (uint64_t)uc->uc_mcontext.gregs[REG_RBX];
	pcs[0] = regs.pc;
	/* A sigaltstack, or a thread whose bounds are not known: nothing else is safe to read. */
	if (hi == 0 || regs.sp < profil_stack_bounds.lo || regs.sp >= hi)
		return 1;
	mem.lo = regs.sp;
	mem.hi = hi;
	mem.data = (const uint8_t *)(uintptr_t)regs.sp;
	space = profil_unwind_enter(u, &slot);
	n = profil_unwind_cfi(space != NULL ? space : &none, &regs, &mem, pcs, max, &end);
	profil_unwind_leave(slot);
	return n;
#else
	(void)u;
	return profil_unwind_fp(ucv, pcs, max);
#endif
}
