/*
 * cpusplit - a CPU-bound workload with a known split of CPU time across three functions,
 * profiled with profil(3): ours (built with libprofil) or glibc's (the same source built
 * without it, -DBENCH_PLAIN).
 *
 * usage: cpusplit calibrate
 *        cpusplit st|mt HZ ITERS [ROUNDS [auto|timer|perf]]
 *
 * The work is fixed (ITERS loop iterations in all), so the time it takes shows the profiler's
 * overhead.  alpha, beta and gamma run the same loop body 5:3:2 times as often, in ROUNDS
 * rounds of long blocks; each call is timed on its thread's CPU clock, which is the ground
 * truth the samples are compared with.  st runs the three in turn on one thread; mt runs alpha
 * on one thread and beta then gamma on another, at the same time.  HZ 0 leaves profiling off;
 * otherwise profil() covers exactly the three functions' code, at HZ on the given clock (ours;
 * glibc's always ticks at 100 Hz).  Prints one line of key=value pairs for bench/profil.sh.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_PLAIN
#include <profil.h>
#endif

#define NFN 3

/*
 * Each function alone in its own section, so its code is exactly [__start_S, __stop_S).  noipa:
 * the three bodies are identical and GCC would otherwise fold them into one (-fipa-icf).  The
 * loop is a multiply-add chain: its speed is set by the multiplier's latency, the same in all
 * three, and no compiler turns it into a closed form.
 */
#define BURNER(name)                                                                      \
	extern char __start_bench_##name[], __stop_bench_##name[];                        \
	__attribute__((noipa, section("bench_" #name), aligned(64))) static uint64_t      \
	name(uint64_t n, uint64_t x)                                                      \
	{                                                                                 \
		for (uint64_t i = 0; i < n; i++)                                          \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;          \
		return x;                                                                 \
	}

BURNER(alpha)
BURNER(beta)
BURNER(gamma)

static const char *const names[NFN] = { "alpha", "beta", "gamma" };
static const unsigned weight[NFN] = { 5, 3, 2 };
static uintptr_t lo[NFN], hi[NFN];

static uint64_t unit;		/* iterations per weight unit per round */
static unsigned rounds = 20;
static uint64_t truth_ns[NFN];	/* CPU time each function really used */
static volatile uint64_t sink;

static uint64_t
clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Runs function f for its block of one round and charges the thread CPU time it took. */
static void
block(int f)
{
	static uint64_t (*const fn[NFN])(uint64_t, uint64_t) = { alpha, beta, gamma };
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	sink = fn[f](unit * weight[f], (uint64_t)f + 1);
	__atomic_fetch_add(&truth_ns[f], clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0, __ATOMIC_RELAXED);
}

static void *
thread_alpha(void *unused)
{
	(void)unused;
	for (unsigned r = 0; r < rounds; r++)
		block(0);
	return NULL;
}

static void *
thread_beta_gamma(void *unused)
{
	(void)unused;
	for (unsigned r = 0; r < rounds; r++) {
		block(1);
		block(2);
	}
	return NULL;
}

/*
 * glibc declares profil() __nonnull((1)), yet a NULL buffer is how its own page says to stop
 * (a scale of 0 would keep glibc's timer ticking into bin 0).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull"
static void
profil_off(void)
{
	profil(NULL, 0, 0, 0);
}
#pragma GCC diagnostic pop

/* Iterations of the loop per second of CPU, so the script can size ITERS for this machine. */
static int
calibrate(void)
{
	uint64_t n = 1u << 20, t;

	for (;;) {
		t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		sink = alpha(n, 1);
		t = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t;
		if (t > 200000000ULL)
			break;
		n *= 2;
	}
	printf("iters_per_s=%.0f\n", (double)n * 1e9 / (double)t);
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned short *bins;
	size_t nbins, i;
	uintptr_t text_lo, text_hi;
	uint64_t samples[NFN] = { 0 }, in_text = 0, cpu0, wall0, cpu, wall;
	unsigned hz;
	int mt, f;
	const char *clock_name = "none";
	double achieved = 0;
	uint64_t signals = 0;

	if (argc == 2 && strcmp(argv[1], "calibrate") == 0)
		return calibrate();
	if (argc < 4 || (strcmp(argv[1], "st") != 0 && strcmp(argv[1], "mt") != 0)) {
		fprintf(stderr, "usage: cpusplit calibrate | "
		    "cpusplit st|mt HZ ITERS [ROUNDS [auto|timer|perf]]\n");
		return 2;
	}
	mt = strcmp(argv[1], "mt") == 0;
	hz = (unsigned)strtoul(argv[2], NULL, 10);
	if (argc > 4)
		rounds = (unsigned)strtoul(argv[4], NULL, 10);
	if (rounds == 0)
		rounds = 1;
	unit = strtoull(argv[3], NULL, 10) / 10 / rounds;

	lo[0] = (uintptr_t)__start_bench_alpha;
	hi[0] = (uintptr_t)__stop_bench_alpha;
	lo[1] = (uintptr_t)__start_bench_beta;
	hi[1] = (uintptr_t)__stop_bench_beta;
	lo[2] = (uintptr_t)__start_bench_gamma;
	hi[2] = (uintptr_t)__stop_bench_gamma;
	text_lo = lo[0];
	text_hi = hi[0];
	for (f = 1; f < NFN; f++) {
		text_lo = lo[f] < text_lo ? lo[f] : text_lo;
		text_hi = hi[f] > text_hi ? hi[f] : text_hi;
	}
	/* Scale 65536: one bin per 2 bytes of the functions' code, nothing else. */
	nbins = (text_hi - text_lo) / 2 + 1;
	bins = calloc(nbins, sizeof(*bins));
	if (bins == NULL) {
		perror("cpusplit");
		return 1;
	}

	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	wall0 = clock_ns(CLOCK_MONOTONIC);
	if (hz > 0) {
#ifdef BENCH_PLAIN
		clock_name = "itimer";
#else
		enum profil_clock clock = PROFIL_CLOCK_AUTO;

		if (argc > 5 && strcmp(argv[5], "timer") == 0)
			clock = PROFIL_CLOCK_TIMER;
		else if (argc > 5 && strcmp(argv[5], "perf") == 0)
			clock = PROFIL_CLOCK_PERF;
		if (profil_rate_set(hz, clock) != 0) {
			perror("cpusplit: profil_rate_set");
			return 1;
		}
#endif
		if (profil(bins, nbins * sizeof(*bins), text_lo, 65536) != 0) {
			perror("cpusplit: profil");
			return 1;
		}
	}
	if (mt) {
		pthread_t t1, t2;

		if (pthread_create(&t1, NULL, thread_alpha, NULL) != 0 ||
		    pthread_create(&t2, NULL, thread_beta_gamma, NULL) != 0) {
			fprintf(stderr, "cpusplit: pthread_create failed\n");
			return 1;
		}
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
	} else {
		for (unsigned r = 0; r < rounds; r++)
			for (f = 0; f < NFN; f++)
				block(f);
	}
	if (hz > 0) {
		profil_off();
#ifndef BENCH_PLAIN
		struct profil_stats st;

		if (profil_stats_get(&st) == 0) {
			clock_name = st.clock == PROFIL_CLOCK_PERF ? "perf" : "timer";
			achieved = st.achieved_hz;
			signals = st.signals;
		}
#endif
	}
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	wall = clock_ns(CLOCK_MONOTONIC) - wall0;

	for (i = 0; i < nbins; i++) {
		uintptr_t pc = text_lo + 2 * i;

		if (bins[i] == 0)
			continue;
		in_text += bins[i];
		for (f = 0; f < NFN; f++)
			if (pc >= lo[f] && pc < hi[f])
				samples[f] += bins[i];
	}
	/* glibc's profil() cannot say how many signals it took: one per sample. */
	if (signals == 0)
		signals = in_text;
	printf("mode=%s hz=%u clock=%s cpu_ns=%llu wall_ns=%llu samples=%llu signals=%llu "
	    "achieved_hz=%.1f", mt ? "mt" : "st", hz, clock_name, (unsigned long long)cpu,
	    (unsigned long long)wall, (unsigned long long)in_text, (unsigned long long)signals,
	    achieved);
	for (f = 0; f < NFN; f++)
		printf(" %s_ns=%llu %s_samples=%llu", names[f], (unsigned long long)truth_ns[f],
		    names[f], (unsigned long long)samples[f]);
	putchar('\n');
	free(bins);
	return 0;
}
