#!/bin/sh
# The issue's promise, literally: "a program compiled with -pg and linked with
# $(pkg-config --libs profil) uses ours instead of glibc's".  Installed with make install, built
# with nothing but pkg-config, run, read by gprof: the file name and the rate say it is ours.
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof pkg-config:pkg-config
P=$TRASH/p
BUILD=$(cd "$B" && pwd)

cat > prog.c <<'SRC'
void hot(void);
void once(void);
volatile unsigned long sink;

void
hot(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink = sink * 31 + i;
}

void
once(void)
{
	sink++;
}

int
main(void)
{
	int i;

	for (i = 0; i < 2000; i++)
		hot();
	once();
	return 0;
}
SRC

test_expect_success 'make install, then cc -pg with pkg-config --cflags --libs profil' '
	make -C "$ROOT" -s B="$BUILD" install PREFIX="$P" > log 2>&1 &&
	PKG_CONFIG_PATH=$P/lib/pkgconfig cc -O1 -fno-inline -pg -o prog prog.c \
	    $(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs profil) &&
	readelf -d prog | grep -q "NEEDED.*libprofil"
'

PROFIL_HZ=250 ./prog &
pid=$!
wait $pid
test_expect_success 'the program writes gmon.prog.<pid>.out, not glibc'"'"'s gmon.out' '
	test -f gmon.prog.$pid.out && ! test -e gmon.out
'
test_expect_success 'gprof reads our rate (250 Hz) and the exact calls (hot 2000, once 1)' '
	gprof -b -p prog gmon.prog.$pid.out > flat &&
	grep -q "Each sample counts as 0.004 seconds" flat &&
	awk "NF == 7 && \$7 == \"hot\" && \$4 == 2000 { h = 1 }
	    NF == 7 && \$7 == \"once\" && \$4 == 1 { o = 1 } END { exit !(h && o) }" flat
'
test_expect_success 'the installed man page documents it: moncontrol(3), profil_gmon(3)' '
	test -f "$P/share/man/man3/moncontrol.3" &&
	test "$(readlink "$P/share/man/man3/profil_gmon.3")" = moncontrol.3
'
test_done
