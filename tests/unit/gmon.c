/*
 * Unit tests of the gmon runtime's pure parts: the merge of the per-thread arc tables at exit
 * (exact expectations) and the file name.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gmon/gmon.h"
#include "../tap.h"

static void
set(struct profil_gmon_arc *a, uint64_t from, uint64_t to, uint32_t count)
{
	a->tag = PROFIL_GMON_TAG_ARC;
	a->from_pc = from;
	a->self_pc = to;
	a->count = count;
}

int
main(void)
{
	struct profil_gmon_arc arcs[12];
	char name[256], want[256];
	long n;

	memset(arcs, 0, sizeof(arcs));
	/* Two "tables" of six slots: the same arc in both, one arc twice in one, empty slots. */
	set(&arcs[1], 0x1100, 0x2000, 5);
	set(&arcs[3], 0x1200, 0x2000, 1);
	set(&arcs[4], 0x1100, 0x3000, 7);
	set(&arcs[6], 0x1100, 0x2000, 10);
	set(&arcs[9], 0x1200, 0x2000, UINT32_MAX - 1);
	/* An insertion a signal cut short: from set, self not yet; it is no arc. */
	arcs[11].from_pc = 0x1300;
	n = profil_gmon_merge(arcs, 12);
	tap_check(n == 3, "three distinct arcs remain (got %ld)", n);
	tap_check(arcs[0].from_pc == 0x1100 && arcs[0].self_pc == 0x2000 && arcs[0].count == 15,
	    "the arc in both tables is one record with the sum, 15");
	tap_check(arcs[1].from_pc == 0x1200 && arcs[1].self_pc == 0x2000 &&
	    arcs[1].count == UINT32_MAX, "a sum beyond 32 bits saturates at 4294967295");
	tap_check(arcs[2].from_pc == 0x1100 && arcs[2].self_pc == 0x3000 && arcs[2].count == 7,
	    "an arc found once keeps its count");
	tap_check(arcs[0].tag == 1 && arcs[1].tag == 1 && arcs[2].tag == 1,
	    "every merged record carries the arc tag 1");
	memset(arcs, 0, sizeof(arcs));
	tap_check(profil_gmon_merge(arcs, 12) == 0, "empty tables merge into nothing");

	profil_gmon_name(name, sizeof(name), 4242);
	snprintf(want, sizeof(want), "gmon.%s.4242.out", program_invocation_short_name);
	tap_check(strcmp(name, want) == 0, "the file name is gmon.progname.pid.out: %s", name);
	return tap_done();
}
