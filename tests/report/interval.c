/*
 * interval.c - the 95% interval of a share (Wilson score, z = 1.96) against values derived
 * independently: the closed forms at k = 0 and k = n, a value computed elsewhere, and the
 * 1/sqrt(n) narrowing that makes more samples worth taking.
 */
#include <math.h>
#include <stdint.h>

#include "../tap.h"
#include "report/report.h"

static int
near(double got, double want)
{
	return fabs(got - want) < 1e-9;
}

int
main(void)
{
	const double z2 = 1.959963984540054 * 1.959963984540054;
	double lo, hi, lo2, hi2;

	/* Nothing seen in n samples: the share is below z^2 / (n + z^2), never negative. */
	profil_share_interval(0, 10, &lo, &hi);
	tap_check(lo == 0 && near(hi, z2 / (10 + z2)), "0 of 10: [%.6f, %.6f]", lo, hi);
	/* Everything seen: the mirror image, never above 1. */
	profil_share_interval(10, 10, &lo, &hi);
	tap_check(near(lo, 10 / (10 + z2)) && near(hi, 1), "10 of 10: [%.6f, %.6f]", lo, hi);
	/* 500 of 1005, as computed with Python's math module from the textbook formula. */
	profil_share_interval(500, 1005, &lo, &hi);
	tap_check(near(lo, 0.4666686342134375) && near(hi, 0.5283751856491552),
	    "500 of 1005: [%.9f, %.9f]", lo, hi);
	tap_check(lo < 500.0 / 1005 && 500.0 / 1005 < hi, "the interval holds the share");
	/* A hundred times the samples, a tenth of the width (to within the z^2/n terms). */
	profil_share_interval(50, 100, &lo, &hi);
	profil_share_interval(5000, 10000, &lo2, &hi2);
	tap_check(fabs((hi - lo) / (hi2 - lo2) - 10) < 0.2, "width 100x samples: %.4f vs %.4f",
	    hi - lo, hi2 - lo2);
	/* No samples at all say nothing; a count above the total is not a share. */
	profil_share_interval(0, 0, &lo, &hi);
	tap_check(lo == 0 && hi == 1, "0 of 0: [0, 1]");
	profil_share_interval(11, 10, &lo, &hi);
	tap_check(lo == 0 && hi == 1, "11 of 10: [0, 1]");
	return tap_done();
}
