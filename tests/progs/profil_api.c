/*
 * profil_api - profil(3)'s arguments, errors and disable paths, one page sentence at a time.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_a)

/*
 * glibc's <unistd.h> declares profil()'s buffer nonnull although Linux profil(3) defines what a
 * NULL buffer does; passing it through a volatile keeps the compiler from rejecting the call.
 */
static unsigned short *volatile null_buf;

static unsigned long
sum(const unsigned short *b, size_t n)
{
	unsigned long s = 0;

	while (n-- > 0)
		s += b[n];
	return s;
}

/* POSIX timers the process holds now, from /proc/self/timers ("ID: n" lines). */
static int
posix_timers(void)
{
	FILE *f = fopen("/proc/self/timers", "r");
	char line[256];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "ID:", 3) == 0;
	fclose(f);
	return n;
}

static int
running(void)
{
	struct profil_stats st;

	profil_stats_get(&st);
	return st.running;
}

int
main(void)
{
	enum { N = 4096 };
	unsigned short *buf = calloc(N, 2), *buf2 = calloc(N, 2);
	uintptr_t off = HOT_START(hot_a);
	unsigned char *pages;
	unsigned long s1, s2;
	struct sigaction sa;
	int signo;

	profil_rate_set(1000, PROFIL_CLOCK_TIMER);

	/* BSD: "The scale argument ranges from 1 to 65536". */
	errno = 0;
	tap_check(profil(buf, N * 2, off, 65537) == -1 && errno == EINVAL && !running(),
	    "scale 65537: -1 with EINVAL, nothing armed");
	/* EFAULT: "The buffer samples contains an invalid address." */
	pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(pages + 4096, 4096, PROT_READ);
	errno = 0;
	tap_check(profil((unsigned short *)(pages + 4096), 4096, off, 65536) == -1 &&
	    errno == EFAULT && !running() && posix_timers() == 0,
	    "read-only buffer: -1 with EFAULT, nothing armed");
	errno = 0;
	tap_check(profil((unsigned short *)pages, 8192, off, 65536) == -1 && errno == EFAULT &&
	    !running(), "buffer writable for only part of its length: EFAULT");
	tap_check(profil((unsigned short *)(pages + 4096), 0, off, 65536) == 0 && running(),
	    "an empty buffer is a valid buffer");
	profil(null_buf, 0, 0, 0);

	/* Linux: "Zero is always returned" (on success). */
	tap_check(profil(buf, N * 2, off, 65536) == 0 && running(), "enable returns 0");
	tap_check(posix_timers() == 1, "one POSIX timer for the one thread (%d)", posix_timers());
	signo = 0;
	{
		struct profil_stats st;

		profil_stats_get(&st);
		signo = st.signo;
	}
	tap_check(signo >= SIGRTMIN && signo <= SIGRTMAX && signo != SIGPROF,
	    "the engine ticks on a real-time signal of its own (%d), not SIGPROF", signo);
	/*
	 * On a busy machine a CPU-time timer can miss every expiration of 0.1 s (README: threads
	 * that read their CPU clock often): burn until a sample is in, up to 5 s of CPU, so that
	 * the check of the disabled buffer below compares something.
	 */
	for (int i = 0; i < 50 && (i == 0 || sum(buf, N) == 0); i++)
		hot_a(0.1);
	/* Linux: "If buf is NULL, profiling is disabled." */
	tap_check(profil(null_buf, 0, 0, 0) == 0 && !running(), "a NULL buf disables");
	s1 = sum(buf, N);
	hot_a(0.1);
	tap_check(s1 > 0 && sum(buf, N) == s1, "no bin changes once disabled (%lu)", s1);
	tap_check(posix_timers() == 0, "no timer is left armed once disabled");
	sigaction(signo, NULL, &sa);
	tap_check(!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL,
	    "the signal's disposition is the program's again (SIG_DFL)");

	/* BSD: "A scale value of 0 disables profiling." */
	profil(buf, N * 2, off, 65536);
	hot_a(0.05);
	tap_check(profil(buf, N * 2, off, 0) == 0 && !running(), "scale 0 disables");
	s1 = sum(buf, N);
	hot_a(0.05);
	tap_check(sum(buf, N) == s1, "no bin changes after scale 0");

	/* A new call replaces the previous buffer. */
	profil(buf, N * 2, off, 65536);
	hot_a(0.05);
	profil(buf2, N * 2, off, 65536);
	s1 = sum(buf, N);
	hot_a(0.1);
	s2 = sum(buf2, N);
	profil(null_buf, 0, 0, 0);
	tap_check(sum(buf, N) == s1 && s2 > 0, "a second call replaces the buffer (%lu, %lu)", s1,
	    s2);

	/*
	 * "If the resulting value is less than bufsiz, then the corresponding entry in buf is
	 * incremented": with bufsiz 7 there are 3 whole bins, and byte 6 belongs to none.
	 * Scale 1 makes a bin 131072 bytes wide; hot_a is put in bin 2, then in bin 3.
	 */
	{
		unsigned char b[16];

		memset(b, 0, sizeof(b));
		profil((unsigned short *)b, 7, off - 2 * 131072, 1);
		hot_a(0.1);
		profil(null_buf, 0, 0, 0);
		tap_check((b[4] | b[5]) != 0, "scale 1: the pc lands in the last whole bin (bin 2)");
		memset(b, 0x5a, sizeof(b));
		profil((unsigned short *)b, 7, off - 3 * 131072, 1);
		hot_a(0.1);
		profil(null_buf, 0, 0, 0);
		tap_check(b[6] == 0x5a && b[7] == 0x5a && b[0] == 0x5a,
		    "odd bufsiz: the bin past bufsiz is never written");
	}

	/*
	 * The offset "is the lowest address at which the kernel takes program counter samples".
	 * The 8 KiB above hot_a's 64 KiB-aligned section hold only padding: nothing runs there.
	 */
	memset(buf, 0, N * 2);
	profil(buf, N * 2, HOT_END(hot_a), 65536);
	hot_a(0.1);
	profil(null_buf, 0, 0, 0);
	tap_check(sum(buf, N) == 0, "pcs below offset are not counted (%lu)", sum(buf, N));
	return tap_done();
}
