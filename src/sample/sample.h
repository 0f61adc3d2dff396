/*
 * sample.h - the code that runs in signal context, and the state it shares with the control
 * paths in src/engine.  Everything declared here is async-signal-safe: no allocation, no stdio,
 * no locks, only lock-free atomics and raw system calls (`make` checks the undefined symbols of
 * these objects against tools/signal-safe.allow).
 */
#ifndef PROFIL_SAMPLE_H
#define PROFIL_SAMPLE_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One profiling clock tick, as the handler hands it to a sink. */
struct profil_tick {
	uintptr_t pc;		/* the interrupted user program counter */
	uint32_t weight;	/* 1 plus the expirations the kernel could not deliver */
	const void *uc;		/* the ucontext_t, for unwinders */
	/*
	 * A perf event's tick: its handler makes a system call anyway (the event's refresh), so
	 * the thread is in no seccomp strict mode, and its time may read the TSC (times.c).
	 */
	int precise;
};

/* A consumer of ticks.  fn runs in signal context, on the thread that used the CPU. */
struct profil_sink {
	void (*fn)(const struct profil_tick *tick, void *arg);
	void *arg;
};

/* Marks the si_value of our timers' signals, so a stray sigqueue() is never taken for a tick. */
#define PROFIL_TIMER_COOKIE 0x70726f66
/* A kick timer's value (engine.c): this tag with the perf event's descriptor in the low bits. */
#define PROFIL_KICK_TAG 0x6b690000
#define PROFIL_KICK_FD_MASK 0xffff

/* perf event fds below this bound are tracked in a bitmap the handler can read. */
#define PROFIL_MAX_PERF_FD 65536

/* What the handler reads and the control paths write.  One instance: profil_ticks. */
struct profil_tickstate {
	_Atomic(const struct profil_sink *) sink;
	atomic_int armed;		/* perf events may be refreshed */
	atomic_uint running;		/* handlers in flight; stop waits for 0 */
	atomic_uint_least64_t signals;	/* ticks handed to a sink */
	atomic_uint_least64_t ticks;	/* the same, weighted */
	atomic_uchar perf_fds[PROFIL_MAX_PERF_FD / 8];
	atomic_uchar perf_seen[PROFIL_MAX_PERF_FD];	/* a tick came since the last look */
};

extern struct profil_tickstate profil_ticks;

/* The signal handler for every clock of the engine (SA_SIGINFO). */
void profil_tick_handler(int signo, siginfo_t *si, void *uc);

/* The user program counter saved in a signal's ucontext. */
uintptr_t profil_pc_from_ucontext(const void *uc);

/*
 * profil(3)'s bin for pc: [(pc - offset) / 2] * scale / 65536, in that order, in unsigned
 * arithmetic (a pc below offset wraps to a huge index and is dropped by the caller's bound).
 */
size_t profil_bin_index(uintptr_t pc, uintptr_t offset, unsigned int scale);

/* profil(3)'s buffer: 16-bit bins that wrap. */
struct profil_bins {
	unsigned short *buf;
	size_t nbins;
	uintptr_t offset;
	unsigned int scale;
};

void profil_bins_tick(const struct profil_tick *tick, void *arg);

/* pcsample(2)'s array: raw program counters until full. */
struct profil_pcstore {
	uintptr_t *samples;
	size_t size;
	atomic_size_t count;	/* slots claimed; never exceeds size */
};

void profil_pcstore_tick(const struct profil_tick *tick, void *arg);

#endif /* PROFIL_SAMPLE_H */
