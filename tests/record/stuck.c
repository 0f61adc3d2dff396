/*
 * stuck - a thread that runs for a while with its stack pointer where no signal frame fits,
 * then works normally.  A clock tick in the first part cannot be delivered: the kernel makes
 * it a SIGSEGV, which the program takes on its alternate stack and leaves by siglongjmp.  A
 * perf clock event disables itself at each overflow until the tick handler enables it again,
 * so without a way back the thread would never be sampled again (t2025).
 * Prints "no room" when that SIGSEGV came (si_code SI_KERNEL), "spin ended" when no tick came
 * during the spin (alone), then "done"; exits 0.
 * usage: stuck SECONDS (CPU time of the normal work after the spin)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "burn.h"

#define NOROOM_BYTES (64 * 1024)

BURNER(after_work)

static sigjmp_buf back;
static volatile sig_atomic_t segv_code;

static void
on_segv(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)uc;
	segv_code = si->si_code;
	siglongjmp(back, 1);
}

/* About a second of CPU with the stack pointer at the top of a mapping no one may touch. */
__attribute__((noinline)) static void
spin_without_stack(void *top)
{
#if defined(__x86_64__)
	__asm__ volatile(
	    "mov %%rsp, %%r12\n\t"
	    "mov %0, %%rsp\n\t"
	    "mov $3000000000, %%rcx\n"
	    "1:\n\t"
	    "dec %%rcx\n\t"
	    "jnz 1b\n\t"
	    "mov %%r12, %%rsp\n\t"
	    : : "r"(top) : "rcx", "r12", "memory", "cc");
#else
	(void)top;
#endif
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	struct sigaction sa;
	stack_t ss;
	char *noroom;

	memset(&ss, 0, sizeof(ss));
	ss.ss_size = 64 * 1024;
	ss.ss_sp = malloc(ss.ss_size);
	noroom = mmap(NULL, NOROOM_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == NULL || noroom == MAP_FAILED || sigaltstack(&ss, NULL) != 0) {
		perror("stuck");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(back, 1) == 0) {
		spin_without_stack(noroom + NOROOM_BYTES);
		puts("spin ended");
	} else {
		puts(segv_code == SI_KERNEL ? "no room" : "other fault");
	}
	fflush(stdout);
	after_work(seconds);
	puts("done");
	return 0;
}
