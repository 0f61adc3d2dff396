/*
 * mktimed.c - writes, with the project's writer, a profile of this live process whose samples
 * have known times (TIME records), as a recorder of a two-phase program with two named threads
 * would: the main thread "phases" runs phase_a for the first second and phase_b for the next;
 * the thread "worker" runs worker_fn all along, in the kernel at times, waits for a CPU for a
 * while and in read(2) at the end (--wall).  Some ticks have no time.  The counts are exact, so
 * an exporter's samples and their order in time can be checked exactly.
 *
 * usage: mktimed OUT.profil
 * Slots are 1 ms from start_ns = 1700000000 s; the expectations are in t4020.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "procmaps.h"

#define SLOT_NS		UINT64_C(1000000)
#define KERNEL_FN	UINT64_C(0xffffffff81000000)

/* Functions of the main PIE, big enough that entry + 2 is inside them. */
#define WORK(name) \
	__attribute__((noinline)) static int \
	name(int n) \
	{ \
		volatile int x = 0; \
		int i; \
		for (i = 0; i < n; i++) \
			x += i; \
		return x; \
	}
WORK(phase_a)
WORK(phase_b)
WORK(run_main)
WORK(worker_fn)
WORK(worker_main)

static struct profil_file_time times[8192];
static size_t ntimes;

static void
timed(uint32_t sample, uint32_t slot, uint64_t count)
{
	times[ntimes++] = (struct profil_file_time){ sample, slot, count };
}

int
main(int argc, char **argv)
{
	static struct profil_writer w;
	struct profil_file_header h;
	struct profil_file_mapping km;
	uint64_t a[2], b[2], wk[2], wait[2], kern[2], cpu[2];
	uint32_t pid, i;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mktimed OUT.profil\n");
		return 2;
	}
	phase_a(1);
	phase_b(1);
	run_main(1);
	worker_fn(1);
	worker_main(1);
	maps_read(0);
	pid = (uint32_t)getpid();
	a[0] = (uintptr_t)phase_a + 1;
	b[0] = (uintptr_t)phase_b + 1;
	a[1] = b[1] = (uintptr_t)run_main + 2;		/* return addresses: looked up at - 1 */
	wk[0] = (uintptr_t)worker_fn + 1;
	wk[1] = wait[1] = kern[1] = cpu[1] = (uintptr_t)worker_main + 2;
	wait[0] = PROFIL_PC_WAIT(PROFIL_WAIT_SLEEPING, 0);	/* read(2) */
	kern[0] = KERNEL_FN + 0x10;
	cpu[0] = PROFIL_PC_WAIT_CPU;

	memset(&h, 0, sizeof(h));
	h.pid = pid;
	h.ppid = (uint32_t)getppid();
	h.requested_hz = 1000;
	h.clock = PROFIL_FILE_CLOCK_OUTSIDE;
	h.achieved_mhz = 1000000;
	h.start_ns = UINT64_C(1700000000) * 1000000000;
	h.end_ns = h.start_ns + 2000 * SLOT_NS;
	h.samples = h.ticks = 2897;
	h.exit_kind = PROFIL_EXIT_NORMAL;
	h.threads = 2;
	h.max_depth = 2;
	h.flags = PROFIL_HDR_STACKS | PROFIL_HDR_WALL | PROFIL_HDR_WAIT_CPU | PROFIL_HDR_KERNEL;
	h.progname = "mktimed";
	h.exe = "";
	fd = profile_begin(&w, argv[1], &h);
	if (fd < 0)
		return 1;
	memset(&km, 0, sizeof(km));
	km.start = km.offset = PROFIL_PC_KERNEL_MIN;
	km.end = PROFIL_PC_WAIT_MIN;
	km.unload_epoch = PROFIL_EPOCH_NEVER;
	km.prot = 5;
	km.path = PROFIL_KERNEL_PATH;
	profil_writer_mapping(&w, &km);
	profil_writer_code(&w, KERNEL_FN, 0x100, PROFIL_CODE_KERNEL, "do_syscall_64", 13);
	profil_writer_thread(&w, pid, "phases");
	profil_writer_thread(&w, pid + 1, "worker");

	/* 0, 1: phase A in the first second, phase B in the next, a tick a slot. */
	profil_writer_sample(&w, 1000, pid, 0, 2, a);
	profil_writer_sample(&w, 1000, pid, 0, 2, b);
	for (i = 0; i < 1000; i++) {
		timed(0, i, 1);
		timed(1, 1000 + i, 1);
	}
	/* 2: the worker every third slot; 3: in the kernel, between, in the first 150 ms; 4:
	 * waiting in read(2) for the last 200 ms. */
	profil_writer_sample(&w, 600, pid + 1, 0, 2, wk);
	profil_writer_sample(&w, 50, pid + 1, 0, 2, kern);
	profil_writer_sample(&w, 200, pid + 1, 0, 2, wait);
	for (i = 0; i < 600; i++)
		timed(2, 3 * i, 1);
	for (i = 0; i < 50; i++)
		timed(3, 3 * i + 1, 1);
	for (i = 0; i < 200; i++)
		timed(4, 1800 + i, 1);
	/* 5: phase A ticks whose time was not kept; 6: phase B, 4 of 10 in one slot. */
	profil_writer_sample(&w, 7, pid, 0, 2, a);
	profil_writer_sample(&w, 10, pid, 0, 2, b);
	timed(6, 1500, 4);
	/* 7: the worker runnable, waiting for a CPU, for 30 ms. */
	profil_writer_sample(&w, 30, pid + 1, 0, 2, cpu);
	for (i = 0; i < 30; i++)
		timed(7, 1700 + i, 1);
	/* Entries in any order: the reader takes them so. */
	profil_writer_time(&w, SLOT_NS, times + ntimes / 2, ntimes - ntimes / 2);
	profil_writer_time(&w, SLOT_NS, times, ntimes / 2);
	if (profil_writer_finish(&w) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
