/* Signal context: the frame-pointer walk, every read validated against the thread's stack. */
#include <ucontext.h>

#include "stacks.h"

__thread struct profil_stack_bounds profil_stack_bounds
    __attribute__((tls_model("initial-exec")));

size_t
profil_unwind_fp(const void *ucv, uint64_t *pcs, size_t max)
{
	const ucontext_t *uc = ucv;
	uintptr_t lo, hi, fp, sp;
	size_t n = 1;

	if (max == 0)
		return 0;
#if defined(__x86_64__)
	pcs[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#else
	pcs[0] = profil_pc_from_ucontext(uc);
	return 1;
#endif
	lo = profil_stack_bounds.lo;
	hi = profil_stack_bounds.hi;
	/* Only [sp, top) is known to be mapped: below sp may be a guard page or unmapped. */
	if (hi == 0 || sp < lo || sp >= hi)
		return 1;
	lo = sp;
	while (n < max) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next, ret;

		if (fp < lo || fp > hi - 2 * sizeof(uintptr_t) || (fp & (sizeof(uintptr_t) - 1)))
			break;
		next = frame[0];
		ret = frame[1];
		if (ret < 4096)
			break;
		pcs[n++] = ret;
		/* The caller's frame lies above this one; anything else is not a frame chain. */
		if (next <= fp)
			break;
		lo = fp + 2 * sizeof(uintptr_t);
		fp = next;
	}
	return n;
}
