/*
 * mkphases.c - writes the profile of a known program with the project's writer, for the viewer
 * tests: two threads named "main" and "worker", two phases in time (phase A in the first
 * second, phase B in the next), known stacks of functions of this live process (so they are
 * named from its own symbols) and TIME records saying when each tick was taken, in slots of
 * 100 ms.  The counts are exact.
 *
 *   phase A, slots 0-9:   main    main_loop > phase_a                        A_TICKS (600)
 *                         worker  worker_loop > crunch                       200
 *                         worker  worker_loop > [wait: read, sleeping]       100
 *   phase B, slots 10-19: main    main_loop > phase_b                        300
 *                         main    main_loop > phase_b > shared_call          100
 *                         worker  worker_loop > crunch > hash_step           300
 *
 * usage: mkphases OUT.profil [A_TICKS] [hostile]
 * With "hostile", the main thread's name, a JIT function's name and a module's path hold
 * markup (</script><script>..., <img onerror=...>) and a line separator, each with 10 ticks
 * in slot 0.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "procmaps.h"

int shared_call(int (*cb)(int line));

#define SLOT_NS		UINT64_C(100000000)
#define HOSTILE_JIT	UINT64_C(0x7f0000001000)
#define HOSTILE_MOD	UINT64_C(0x7e0000001000)

/* Functions of the main PIE, each big enough that entry + 2 is inside it. */
#define WORK(name) \
	__attribute__((noinline)) static int name(int n) \
	{ volatile int x = 0; int i; for (i = 0; i < n; i++) x += i * 3; return x; }
WORK(main_loop)
WORK(phase_a)
WORK(phase_b)
WORK(worker_loop)
WORK(crunch)
WORK(hash_step)

static struct profil_writer w;
static struct profil_file_time times[4096];
static size_t ntimes;

/* count ticks of one stack (given root first, as people read them), spread evenly over slots
 * [from, to). */
static void
sample(uint64_t count, uint32_t tid, size_t depth, const uint64_t *root_first, uint32_t from,
    uint32_t to)
{
	uint64_t pcs[8];
	uint32_t s, index = (uint32_t)w.samples;
	size_t i;

	for (i = 0; i < depth; i++)
		pcs[i] = root_first[depth - 1 - i];
	profil_writer_sample(&w, count, tid, 0, (uint32_t)depth, pcs);
	for (s = from; s < to; s++) {
		times[ntimes].sample = index;
		times[ntimes].slot = s;
		times[ntimes].count = count / (to - from) + (s - from < count % (to - from));
		ntimes++;
	}
}

/* A function's PC: the leaf's inside it, a caller's a return address (looked up at pc - 1). */
static uint64_t
leaf(int (*fn)(int))
{
	return (uintptr_t)fn + 1;
}

static uint64_t
caller(int (*fn)(int))
{
	return (uintptr_t)fn + 2;
}

int
main(int argc, char **argv)
{
	struct profil_file_header h;
	uint64_t a_ticks = argc > 2 ? strtoull(argv[2], NULL, 10) : 600, st[4];
	uint32_t pid = (uint32_t)getpid(), wtid = pid + 1;
	int hostile = argc > 3 && strcmp(argv[3], "hostile") == 0, fd;
	static const char evil[] = "</script><script>window.pwned=1</script>"
	    "<img src=x onerror=\"window.pwned=2\">&amp;\xe2\x80\xa8" "end";

	if (argc < 2) {
		fprintf(stderr, "usage: mkphases OUT.profil [A_TICKS] [hostile]\n");
		return 2;
	}
	main_loop(1);
	phase_a(1);
	phase_b(1);
	worker_loop(1);
	crunch(1);
	hash_step(1);
	maps_read(0);
	if (hostile) {
		struct profil_file_mapping *m = &maps[nmaps++];

		memset(m, 0, sizeof(*m));
		m->start = HOSTILE_MOD;
		m->end = HOSTILE_MOD + 0x1000;
		m->unload_epoch = PROFIL_EPOCH_NEVER;
		m->prot = 5;
		m->path = "/tmp/</script><img src=x onerror=window.pwned=3>.so";
	}
	memset(&h, 0, sizeof(h));
	h.pid = pid;
	h.ppid = (uint32_t)getppid();
	h.requested_hz = 1000;
	h.clock = PROFIL_FILE_CLOCK_OUTSIDE;
	h.achieved_mhz = 1000000;
	h.start_ns = UINT64_C(1700000000000000000);
	h.end_ns = h.start_ns + 20 * SLOT_NS;
	h.samples = h.ticks = a_ticks + 1000 + (hostile ? 20 : 0);
	h.exit_kind = PROFIL_EXIT_NORMAL;
	h.threads = 2;
	h.max_depth = 8;
	h.flags = PROFIL_HDR_STACKS | PROFIL_HDR_WALL;
	h.progname = "phases";
	h.exe = "";
	fd = profile_begin(&w, argv[1], &h);
	if (fd < 0)
		return 1;
	if (hostile)
		profil_writer_code(&w, HOSTILE_JIT, 0x100, PROFIL_CODE_PERF_MAP, evil,
		    strlen(evil));
	profil_writer_thread(&w, pid, hostile ? "<img src=x onerror=window.pwned=4>" : "main");
	profil_writer_thread(&w, wtid, "worker");

	st[0] = caller(main_loop);
	st[1] = leaf(phase_a);
	sample(a_ticks, pid, 2, st, 0, 10);
	st[0] = caller(worker_loop);
	st[1] = leaf(crunch);
	sample(200, wtid, 2, st, 0, 10);
	st[1] = PROFIL_PC_WAIT(PROFIL_WAIT_SLEEPING, 0);	/* read(2) */
	sample(100, wtid, 2, st, 0, 10);
	st[0] = caller(main_loop);
	st[1] = leaf(phase_b);
	sample(300, pid, 2, st, 10, 20);
	st[1] = caller(phase_b);
	st[2] = (uintptr_t)shared_call + 1;
	sample(100, pid, 3, st, 10, 20);
	st[0] = caller(worker_loop);
	st[1] = caller(crunch);
	st[2] = leaf(hash_step);
	sample(300, wtid, 3, st, 10, 20);
	if (hostile) {
		st[0] = caller(main_loop);
		st[1] = HOSTILE_JIT + 0x10;
		sample(10, pid, 2, st, 0, 1);
		st[1] = HOSTILE_MOD + 0x10;
		sample(10, pid, 2, st, 0, 1);
	}
	profil_writer_time(&w, SLOT_NS, times, ntimes);
	if (profil_writer_finish(&w) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
