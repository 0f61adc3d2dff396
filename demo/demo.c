/*
 * demo - profiles itself with profil(3) and prints where its time went.
 *
 * Three functions burn CPU in the proportion 60:30:10; profil() counts the program counter into
 * bins that cover the program's text, and the hottest bins are named with dladdr(3).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <profil.h>

extern char __executable_start[], etext[];

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each burns the CPU for the given seconds; noinline keeps them apart in the profile. */
#define BURNER(name)                                                    \
	unsigned long name(double s);                                  \
	__attribute__((noinline)) unsigned long name(double s) \
	{                                                               \
		volatile unsigned long x = 0;                           \
		double end = cpu_seconds() + s;                         \
		while (cpu_seconds() < end)                             \
			for (int i = 0; i < 100000; i++)                \
				x += (unsigned long)i * i;              \
		return x;                                               \
	}
BURNER(parse_input)
BURNER(compute_model)
BURNER(write_output)

struct fn {
	const char *name;
	unsigned long count;
};

static int
by_count(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return (y->count > x->count) - (y->count < x->count);
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	/* Two linker symbols, not one object: subtract addresses, not pointers (C11 6.5.6). */
	size_t text = (size_t)((uintptr_t)etext - (uintptr_t)__executable_start);
	size_t nbins = text / 2 + 1;	/* scale 65536: one bin per 2 bytes */
	unsigned short *bins = calloc(nbins, sizeof(*bins));
	struct fn fns[64];
	size_t nfns = 0, i, j;
	unsigned long total = 0;
	struct profil_stats st;

	if (bins == NULL || seconds <= 0) {
		fprintf(stderr, "usage: demo [SECONDS]\n");
		return 2;
	}
	if (profil(bins, nbins * sizeof(*bins), (size_t)__executable_start, 65536) != 0) {
		perror("demo: profil");
		return 1;
	}
	compute_model(seconds * 0.6);
	parse_input(seconds * 0.3);
	write_output(seconds * 0.1);
	profil(NULL, 0, 0, 0);
	profil_stats_get(&st);

	for (i = 0; i < nbins; i++) {
		Dl_info info;
		const char *name = "(unknown)";

		if (bins[i] == 0)
			continue;
		total += bins[i];
		if (dladdr(__executable_start + 2 * i, &info) && info.dli_sname != NULL)
			name = info.dli_sname;
		for (j = 0; j < nfns && strcmp(fns[j].name, name) != 0; j++)
			;
		if (j == nfns && nfns < 64)
			fns[nfns++] = (struct fn){ name, 0 };
		if (j < nfns)
			fns[j].count += bins[i];
	}
	qsort(fns, nfns, sizeof(fns[0]), by_count);
	printf("profil demo: %lu samples at %.0f Hz (requested %u Hz, %s clock)\n", total,
	    st.achieved_hz, st.requested_hz, st.clock == PROFIL_CLOCK_PERF ? "perf" : "timer");
	printf("  %%time  samples  function\n");
	for (i = 0; i < nfns; i++)
		printf("  %5.1f  %7lu  %s\n", 100.0 * (double)fns[i].count / (double)total,
		    fns[i].count, fns[i].name);
	printf("expected: compute_model 60%%, parse_input 30%%, write_output 10%%\n");
	return 0;
}
