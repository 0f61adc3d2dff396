/*
 * fork API - pcsample(2): "Like profil(), sampling continues across a call to fork(2)".  The
 * child keeps counting into its own copy of the buffer; the parent's copy never sees the child.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "../tap.h"
#include "work.h"

HOT(hot_parent)
HOT(hot_child)

static unsigned short bins[1 << 18];
static uintptr_t samples[4096];

static unsigned long
count(uintptr_t lo, uintptr_t hi, uintptr_t off)
{
	unsigned long n = 0;
	uintptr_t pc;

	for (pc = lo; pc < hi; pc += 2)
		n += bins[(pc - off) / 2];
	return n;
}

int
main(int argc, char **argv)
{
	uintptr_t off = HOT_START(hot_parent) < HOT_START(hot_child) ? HOT_START(hot_parent) :
	    HOT_START(hot_child);
	int pcs = argc > 1 && strcmp(argv[1], "pcsample") == 0;
	long before, n;
	pid_t pid;
	int status;

	profil_rate_set(1000, PROFIL_CLOCK_AUTO);
	if (pcs) {
		pcsample(samples, 4096);
		hot_parent(0.1);
		before = pcsample(samples, 4096);	/* restart: count from 0 */
		(void)before;
		hot_parent(0.1);
	} else {
		profil(bins, sizeof(bins), off, 65536);
		hot_parent(0.1);
	}
	pid = fork();
	if (pid == 0) {
		size_t at_fork = 0;
		struct profil_stats st;

		if (pcs)
			at_fork = in_range(samples, 4096, HOT_START(hot_parent), HOT_END(hot_parent));
		hot_child(0.3);
		profil_stats_get(&st);
		if (pcs) {
			n = pcsample(NULL, 0);
			tap_check(at_fork > 0 && n >= (long)at_fork + 200 &&
			    in_range(samples, (size_t)n, HOT_START(hot_child), HOT_END(hot_child)) >= 200,
			    "child: pcsample inherits position and count (%zu before fork, %ld after)",
			    at_fork, n);
		} else {
			tap_check(count(HOT_START(hot_child), HOT_END(hot_child), off) >= 200,
			    "child: profil keeps counting into the child's copy (%lu)",
			    count(HOT_START(hot_child), HOT_END(hot_child), off));
		}
		tap_check(st.running && st.threads == 1, "child: its one thread is armed");
		exit(tap_done());
	}
	hot_parent(0.3);
	waitpid(pid, &status, 0);
	tap_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exited 0");
	if (pcs) {
		n = pcsample(NULL, 0);
		tap_check(in_range(samples, (size_t)n, HOT_START(hot_child), HOT_END(hot_child)) == 0 &&
		    n >= 300, "parent: none of the child's samples (%ld own)", n);
	} else {
		tap_check(count(HOT_START(hot_child), HOT_END(hot_child), off) == 0 &&
		    count(HOT_START(hot_parent), HOT_END(hot_parent), off) >= 300,
		    "parent: none of the child's ticks in its buffer");
	}
	return tap_done();
}
