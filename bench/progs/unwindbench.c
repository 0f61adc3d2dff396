/*
 * unwindbench - what the in-process recorder's signal handler spends walking one stack, by
 * frame pointers (profil_unwind_fp) and by unwind tables (profil_unwind_context, the code the
 * handler runs with --call-graph cfi), on the same captured context: a recursion DEPTH frames
 * deep with frame pointers, and one without them.  The tables are built as the recorder builds
 * them (src/cfi, one per loaded object), once, outside the timing.  Prints, per case, the
 * frames each walk found and its nanoseconds per walk (best of 5 rounds of N walks).
 * usage: unwindbench [N]
 */
/* The table builder first: its DWARF register names are also <ucontext.h>'s. */
#include "../../src/cfi/frame.c"
#include "../../src/cfi/object.c"
#undef REG_RBP
#undef REG_RSP

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The walks themselves, as the recorder links them. */
#include "../../src/sample/context.c"
#include "../../src/sample/unwind.c"
#include "../../src/sample/walk.c"

#define MAX_MODS 256
static struct profil_unwind_module mods[MAX_MODS];
static struct profil_cfi_object objs[MAX_MODS];
static size_t nmods;
static struct profil_unwind_space space;
static struct profil_unwind_shared shared;

static int
mod_cmp(const void *a, const void *b)
{
	const struct profil_unwind_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int
add_object(struct dl_phdr_info *info, size_t size, void *unused)
{
	const char *name = info->dlpi_name;
	struct profil_cfi_object *o = &objs[nmods];
	int fd, err;

	(void)size;
	(void)unused;
	if (nmods >= MAX_MODS)
		return 1;
	if (name[0] == '\0')
		name = "/proc/self/exe";
	if (strstr(name, "vdso") != NULL) {
		err = profil_cfi_object_load_vdso(o);
	} else {
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		err = profil_cfi_object_load(o, fd, NULL);
		close(fd);
	}
	if (err < 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nmods < MAX_MODS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		mods[nmods].start = info->dlpi_addr + ph->p_vaddr;
		mods[nmods].end = mods[nmods].start + ph->p_memsz;
		mods[nmods].bias = info->dlpi_addr;
		mods[nmods].table = &o->table;
		nmods++;
		break;
	}
	return 0;
}

static long walks = 200000;
static ucontext_t uc;

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of 5 rounds: ns per walk; *frames: what one walk found. */
static double
measure(int cfi, size_t *frames)
{
	static uint64_t pcs[256];
	double best = 1e30;

	for (int round = 0; round < 5; round++) {
		double t0 = now_ns(), t;

		for (long i = 0; i < walks; i++) {
			*frames = cfi ? profil_unwind_context(&uc, &shared, pcs, 128) :
			    profil_unwind_fp(&uc, pcs, 128);
			__asm__ volatile("" : : "r"(pcs) : "memory");
		}
		t = (now_ns() - t0) / (double)walks;
		if (t < best)
			best = t;
	}
	return best;
}

static void
report(const char *what, int depth)
{
	size_t ffp, fcfi;
	double tfp = measure(0, &ffp), tcfi = measure(1, &fcfi);

	printf("%-22s %5d %9zu %9.0f %9zu %9.0f\n", what, depth, ffp, tfp, fcfi, tcfi);
}

static int depth_goal;

/* A recursion with frame pointers (the bench is built -fno-omit-frame-pointer)... */
__attribute__((noinline)) static int
deep_fp(int n)
{
	int r;

	if (n == 0) {
		getcontext(&uc);
		report("frame pointers", depth_goal);
		return 1;
	}
	r = deep_fp(n - 1);
	__asm__ volatile("" : : "r"(r) : "memory");
	return r + 1;
}

/* ... and one without. */
__attribute__((noinline, optimize("omit-frame-pointer"))) static int
deep_nofp(int n)
{
	int r;

	if (n == 0) {
		getcontext(&uc);
		report("no frame pointers", depth_goal);
		return 1;
	}
	r = deep_nofp(n - 1);
	__asm__ volatile("" : : "r"(r) : "memory");
	return r + 1;
}

int
main(int argc, char **argv)
{
	static const int depths[] = { 4, 16, 64, 120 };
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (argc > 1)
		walks = atol(argv[1]);
	if (pthread_getattr_np(pthread_self(), &attr) != 0 ||
	    pthread_attr_getstack(&attr, &addr, &size) != 0)
		return 1;
	profil_stack_bounds.lo = (uintptr_t)addr;
	profil_stack_bounds.hi = (uintptr_t)addr + size;
	dl_iterate_phdr(add_object, NULL);
	qsort(mods, nmods, sizeof(mods[0]), mod_cmp);
	space.mods = mods;
	space.nmods = nmods;
	atomic_store(&shared.slots[0].space, &space);
	printf("# unwindbench: %ld walks a round, %zu objects with tables\n", walks, nmods);
	printf("%-22s %5s %9s %9s %9s %9s\n", "# code", "depth", "fp frames", "fp ns",
	    "cfi frames", "cfi ns");
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		depth_goal = depths[i];
		deep_fp(depths[i]);
	}
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		depth_goal = depths[i];
		deep_nofp(depths[i]);
	}
	return 0;
}
