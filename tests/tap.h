/*
 * tap.h - what the C test programs print: one "ok - ..." or "not ok - ..." line per check, read
 * by tests/run.sh.  Header-only so each test program stays one file.
 */
#ifndef PROFIL_TAP_H
#define PROFIL_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_failures;

__attribute__((format(printf, 2, 3), unused)) static int
tap_check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		tap_failures++;
	return ok;
}

__attribute__((format(printf, 1, 2), unused)) static void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * A share from sampling: hits of n samples should be p.  The bound is TAP_Z standard deviations
 * of the binomial, sqrt(p(1-p)/n), plus `quantum` whole samples of rounding that the test's own
 * construction allows (a periodic clock splits each CPU segment to within one tick).
 * TAP_Z = 5 makes a false failure about one in 1.7 million checks.
 */
#define TAP_Z 5.0

static __attribute__((unused)) int
tap_share(double hits, double n, double p, double quantum, const char *what)
{
	double sd = sqrt(p * (1 - p) / n);
	double bound = TAP_Z * sd + quantum / n;
	double got = n > 0 ? hits / n : 0;

	return tap_check(n > 0 && fabs(got - p) <= bound,
	    "%s: share %.4f of %.0f samples, expected %.4f +- %.4f", what, got, n, p, bound);
}

static __attribute__((unused)) int
tap_done(void)
{
	return tap_failures ? 1 : 0;
}

#endif /* PROFIL_TAP_H */
