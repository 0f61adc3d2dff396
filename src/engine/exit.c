/*
 * Every way a process ends, for the consumers that must write a profile then: normal exit
 * (a destructor), _exit(2) and _Exit(2) (interposed), and death by a fatal signal (a handler on
 * each fatal signal the program left at its default; it flushes, restores the default and lets
 * the same signal end the process, so the exit status is the one the program would have had).
 * SIGKILL cannot be caught: a consumer bounds that loss itself (periodic flush, or a file-backed
 * mapping that the kernel writes back).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "engine.h"

/* The fatal-signal flush's own stack: the flush needs a few KiB, static buffers do the rest. */
#define FLUSH_STACK_BYTES (64 * 1024)

static atomic_int armed;	/* an EXIT hook was registered (hooks.c) */
static atomic_int ran;		/* hooks run at most once per process */
static pid_t owner;		/* the process the hooks belong to; a vfork child is not it */

static const int fatal_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS,
	SIGFPE, SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS };

/*
 * A stack of our own for the fatal-signal flush, and the two contexts that switch to it and
 * back: used only by the one thread that wins `ran`, so never by two at once.
 */
static char *flush_stack;
static ucontext_t flush_ctx, fatal_ctx;
static int flush_why;

/* 1 if this call is the one that runs the hooks in this process. */
static int
exit_claim(void)
{
	if (owner != 0 && owner != getpid())
		return 0;
	return !atomic_exchange(&ran, 1);
}

static void
hooks_run(int why)
{
	profil_engine_hooks_run(PROFIL_HOOK_EXIT, why);
}

void
profil_exit_run(int why)
{
	if (exit_claim())
		hooks_run(why);
}

static void
flush_stack_main(void)
{
	hooks_run(flush_why);
}

static void
fatal_handler(int signo, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	/*
	 * The handler runs on whatever stack is left: the program's alternate stack, sized for
	 * its own handler (SA_ONSTACK), or the last bytes of an overflowing thread stack.  The
	 * flush moves to a stack of its own.  glibc's swapcontext is a few registers and one
	 * rt_sigprocmask; when the function returns, uc_link brings us back here.
	 */
	if (exit_claim()) {
		flush_why = signo;
		if (flush_stack != NULL && getcontext(&flush_ctx) == 0) {
			flush_ctx.uc_stack.ss_sp = flush_stack;
			flush_ctx.uc_stack.ss_size = FLUSH_STACK_BYTES;
			flush_ctx.uc_link = &fatal_ctx;
			makecontext(&flush_ctx, flush_stack_main, 0);
			if (swapcontext(&fatal_ctx, &flush_ctx) != 0)
				hooks_run(signo);
		} else {
			hooks_run(signo);
		}
	}
	/* The program's disposition, which was SIG_DFL when we took the signal. */
	profil_signal_give_back(signo);
	/*
	 * Send it again: it stays pending while this handler runs and ends the process with the
	 * default action as soon as the handler returns (a fault would also recur on return).
	 */
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
}

/*
 * Catches the fatal signals the program leaves at SIG_DFL; the program's own handlers stay,
 * and the program still sees SIG_DFL where it asks (signal.c).  SA_ONSTACK for SIGSEGV and
 * SIGBUS alone: a stack overflow leaves no room for the signal frame, and the process would die
 * unflushed; the flush itself runs on flush_stack, so the program's alternate stack only holds
 * the frame.  The other signals come on a thread's own stack: a program's alternate stack may
 * be too small for the frame (MINSIGSTKSZ), and a failed frame turns abort(3)'s SIGABRT into
 * SIGSEGV, another exit status.
 */
static void
fatal_install(void)
{
	struct sigaction sa, cur;
	size_t i;

	if (flush_stack == NULL) {
		void *p = mmap(NULL, FLUSH_STACK_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

		/* Without it the flush runs where the handler does, as it always could. */
		flush_stack = p == MAP_FAILED ? NULL : p;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int s = fatal_signals[i];

		sa.sa_flags = SA_SIGINFO | SA_RESTART |
		    (s == SIGSEGV || s == SIGBUS ? SA_ONSTACK : 0);
		if (profil_signal_owner(s) != PROFIL_SIGNAL_PROGRAM ||
		    profil_real.sigaction(s, NULL, &cur) != 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		profil_signal_take(s, &sa, PROFIL_SIGNAL_FATAL);
	}
}

/* Each EXIT hook registered (hooks.c): the hooks belong to this process, which they watch. */
void
profil_exit_arm(void)
{
	owner = getpid();
	if (profil_real.sigaction == NULL)
		profil_real_resolve();
	fatal_install();
	atomic_store(&armed, 1);
}

/* fork(2) child: the hooks now belong to it, and have not run in it. */
void
profil_exit_fork_child(void)
{
	if (!atomic_load(&armed))
		return;
	owner = getpid();
	atomic_store(&ran, 0);
}

__attribute__((destructor)) static void
exit_at_destructor(void)
{
	profil_exit_run(0);
}

PROFIL_API void
_exit(int status)
{
	profil_exit_run(0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

PROFIL_API void
_Exit(int status)
{
	_exit(status);
}
