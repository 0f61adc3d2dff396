/*
 * The signal handler driven by hand with a synthetic siginfo and ucontext: exact counts, the
 * 16-bit wrap, the si_overrun weight, the bound of bufsiz, pcsample's stop when full, errno.
 */
#include <errno.h>
#include <string.h>
#include <ucontext.h>

#include "../tap.h"
#include "sample/sample.h"

static ucontext_t uc;

static void
set_pc(uintptr_t pc)
{
#if defined(__x86_64__)
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
#elif defined(__aarch64__)
	uc.uc_mcontext.pc = pc;
#endif
}

static void
timer_tick(uintptr_t pc, int overrun)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_TIMER;
	si.si_value.sival_int = PROFIL_TIMER_COOKIE;
	si.si_overrun = overrun;
	set_pc(pc);
	profil_tick_handler(SIGRTMAX - 1, &si, &uc);
}

int
main(void)
{
	unsigned short buf[8];
	struct profil_bins bins = { buf, 4, 0x1000, 65536 };	/* only 4 of the 8 bins are ours */
	struct profil_sink bsink = { profil_bins_tick, &bins };
	uintptr_t samples[4] = { 0 };
	struct profil_pcstore store = { samples, 3, 0 };	/* only 3 of the 4 slots are ours */
	struct profil_sink psink = { profil_pcstore_tick, &store };
	unsigned short before;
	siginfo_t si;
	int i;

	memset(buf, 0, sizeof(buf));
	atomic_store(&profil_ticks.sink, &bsink);
	timer_tick(0x1000, 0);
	timer_tick(0x1001, 0);
	timer_tick(0x1006, 2);
	tap_check(buf[0] == 2 && buf[3] == 3 && buf[1] == 0 && buf[2] == 0,
	    "bins count each tick by the formula, weighted by si_overrun (%u %u %u %u)", buf[0],
	    buf[1], buf[2], buf[3]);
	timer_tick(0x1008, 0);
	timer_tick(0x0fff, 0);
	tap_check(buf[4] == 0 && buf[5] == 0 && buf[6] == 0 && buf[7] == 0,
	    "no bin at or past bufsiz is written, nor below offset");
	buf[1] = 65535;
	timer_tick(0x1002, 0);
	tap_check(buf[1] == 0, "a 16-bit bin wraps at 65536 as the classic implementations do");

	memset(&si, 0, sizeof(si));
	si.si_code = SI_USER;
	set_pc(0x1000);
	profil_tick_handler(SIGRTMAX - 1, &si, &uc);
	si.si_code = SI_TIMER;
	si.si_value.sival_int = 42;
	profil_tick_handler(SIGRTMAX - 1, &si, &uc);
	tap_check(buf[0] == 2, "a signal sent by hand, or another timer's, is not a tick");

	errno = 1234;
	timer_tick(0x1000, 0);
	tap_check(errno == 1234, "the handler preserves errno");

	atomic_store(&profil_ticks.sink, &psink);
	for (i = 0; i < 5; i++)
		timer_tick(0x4000 + (uintptr_t)i, 0);
	tap_check(samples[0] == 0x4000 && samples[1] == 0x4001 && samples[2] == 0x4002 &&
	    samples[3] == 0 && atomic_load(&store.count) == 3,
	    "pcsample stores raw pcs and \"stops writing to the array when it is full\"");
	atomic_store(&store.count, 0);
	timer_tick(0x5000, 1);
	tap_check(samples[0] == 0x5000 && samples[1] == 0x5000 && atomic_load(&store.count) == 2,
	    "a coalesced tick is stored once per expiration");

	atomic_store(&profil_ticks.sink, NULL);
	before = buf[0];
	timer_tick(0x1000, 0);
	tap_check(buf[0] == before && atomic_load(&profil_ticks.running) == 0,
	    "with no sink a tick changes nothing and leaves no handler counted as running");
	return tap_done();
}
