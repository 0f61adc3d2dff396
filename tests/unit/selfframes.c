/*
 * selfframes - profil_stacks_drop_self(): the callers whose call lies in the recorder's own
 * code go, the sampled pc and everything else stays in order, markers included.
 */
#include <string.h>

#include "../tap.h"
#include "sample/stacks.h"

static int
same(const uint64_t *got, size_t n, const uint64_t *want, size_t m)
{
	return n == m && memcmp(got, want, n * sizeof(*got)) == 0;
}

int
main(void)
{
	struct profil_stacks s;
	uint64_t pcs[] = {
		0x1500,			/* sampled in the recorder: its own time, kept */
		0x3000,			/* the program */
		0x1001,			/* returns into the recorder: called from 0x1000 */
		0x2000,			/* called from 0x1fff, the recorder's last byte */
		0x2001,			/* called from 0x2000, past it */
		0,			/* a walk's end, not a frame of ours */
		PROFIL_PC_CUT_RULE,
	};
	const uint64_t want[] = { 0x1500, 0x3000, 0x2001, 0, PROFIL_PC_CUT_RULE };
	uint64_t copy[7];
	size_t n;

	memset(&s, 0, sizeof(s));
	memcpy(copy, pcs, sizeof(pcs));
	n = profil_stacks_drop_self(&s, copy, 7);
	tap_check(same(copy, n, pcs, 7), "no recorder code known: nothing dropped (%zu)", n);

	s.self_lo = 0x1000;
	s.self_hi = 0x2000;
	n = profil_stacks_drop_self(&s, pcs, 7);
	tap_check(same(pcs, n, want, 5), "the recorder's callers dropped, the rest in order (%zu)",
	    n);
	n = profil_stacks_drop_self(&s, pcs, 0);
	tap_check(n == 0, "an empty stack stays empty");
	pcs[0] = 0x1800;
	pcs[1] = 0x1800;
	n = profil_stacks_drop_self(&s, pcs, 2);
	tap_check(n == 1 && pcs[0] == 0x1800, "a stack all in the recorder keeps its pc (%zu)", n);
	return tap_failures != 0;
}
