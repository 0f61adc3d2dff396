/*
 * spin.h - the three CPU burners of the -pg workloads, shared by the gmon tests
 * (tests/pg/gmon-work.c) and the gmon benchmark (bench/progs/gmonbench.c) so that both measure
 * the same code.  Each is its own function with its own constants, so gprof keeps them apart;
 * sink keeps the compiler from dropping the loops.  Include it once, in the program's only file.
 */
#ifndef PROFIL_PG_SPIN_H
#define PROFIL_PG_SPIN_H

static volatile unsigned long sink;

void spin_a(unsigned long n);
void spin_b(unsigned long n);
void spin_c(unsigned long n);

void
spin_a(unsigned long n)
{
	unsigned long x = sink;

	while (n-- > 0)
		x = x * 2862933555777941757UL + 3037000493UL;
	sink = x;
}

void
spin_b(unsigned long n)
{
	unsigned long x = sink;

	while (n-- > 0)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

void
spin_c(unsigned long n)
{
	unsigned long x = sink;

	while (n-- > 0)
		x = x * 3935559000370003845UL + 2691343689449507681UL;
	sink = x;
}

#endif /* PROFIL_PG_SPIN_H */
