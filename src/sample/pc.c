/* Signal context: reads the interrupted program counter out of a ucontext. */
#include <ucontext.h>

#include "sample.h"

uintptr_t
profil_pc_from_ucontext(const void *ucv)
{
	const ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
#error "profil: no program counter extraction for this architecture"
#endif
}
