#!/bin/sh
# t9004-install: `make install` lays out what a user builds against, and a program built with
# nothing but `pkg-config --cflags --libs profil` calls OUR profil(): glibc's returns 0 for a
# scale of 70000, ours fails with EINVAL as the BSD page says.  DESTDIR stages the same tree
# without leaking the staging directory into the installed files.
. "$(dirname "$0")/lib.sh"
P=$TRASH/p
BUILD=$(cd "$B" && pwd)

test_expect_success 'make install PREFIX=... succeeds' '
	make -C "$ROOT" -s B="$BUILD" install PREFIX="$P" > log 2>&1 || { cat log; false; }
'

test_expect_success 'headers, command, libraries, pkg-config file and man pages are installed' '
	for f in bin/profil include/profil.h include/pcsample.h lib/libprofil.a \
	    lib/libprofil.so.0.1.0 lib/pkgconfig/profil.pc share/man/man3/profil.3 \
	    share/man/man3/pcsample.3 share/man/man3/profil_rate_set.3; do
		test -f "$P/$f" || { echo "missing $f"; exit 1; }
	done &&
	test -x "$P/bin/profil" &&
	test "$(readlink "$P/lib/libprofil.so.0")" = libprofil.so.0.1.0 &&
	test "$(readlink "$P/lib/libprofil.so")" = libprofil.so.0 &&
	test "$(readlink "$P/share/man/man3/profil_stats_get.3")" = profil_rate_set.3 &&
	for page in "$ROOT"/man/man3/*.3; do
		cmp "$page" "$P/share/man/man3/$(basename "$page")" || exit 1
	done
'

test_expect_success 'the shared library has the versioned soname and exports only the API' '
	readelf -d "$P/lib/libprofil.so.0.1.0" > dyn &&
	grep "(SONAME).*\[libprofil\.so\.0\]" dyn &&
	nm -D --defined-only "$P/lib/libprofil.so.0.1.0" | awk "{ print \$3 }" > syms &&
	grep -qx profil syms && grep -qx pcsample syms && grep -qx profil_rate_set syms &&
	grep -qx profil_stats_get syms &&
	! grep -e "^profil_engine" -e "^profil_bins" -e "^profil_tick" syms
'

test_expect_success 'the static library holds the classic calls' '
	nm "$P/lib/libprofil.a" > anm &&
	grep -q " T profil\$" anm && grep -q " T pcsample\$" anm
'

test_expect_success 'the installed man pages render, the link included' '
	for page in "$P"/share/man/man3/*.3; do
		mandoc -Tascii "$page" > out && test -s out || exit 1
	done
'

cat > prog.c <<'PROG'
/* glibc declares its profil() only for _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef WITH_PROFIL
#include <pcsample.h>
#endif

static unsigned short bins[64];

int
main(void)
{
	int r;

	errno = 0;
	r = profil(bins, sizeof(bins), 0, 70000);
	printf("profil %d %s\n", r, r == 0 ? "0" : strerror(errno));
#ifdef WITH_PROFIL
	uintptr_t pcs[4];
	long n;

	errno = 0;
	n = pcsample(pcs, -1);
	printf("pcsample %ld %s\n", n, n == 0 ? "0" : strerror(errno));
	printf("clock %d\n", profil_rate_set(1000, PROFIL_CLOCK_AUTO));
#endif
	profil(bins, 0, 0, 0);
	return 0;
}
PROG

test_expect_success 'pkg-config --cflags --libs profil builds a program that runs ours' '
	flags=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs profil) &&
	echo "$flags" &&
	case "$flags" in *"-I$P/include"*) ;; *) exit 1 ;; esac &&
	cc -std=c11 -Wall -Werror -DWITH_PROFIL -o ours prog.c $flags &&
	./ours > out && cat out &&
	grep -qx "profil -1 Invalid argument" out &&
	grep -qx "pcsample -1 Invalid argument" out &&
	grep -qx "clock 0" out &&
	ldd ./ours | grep "libprofil\.so\.0 => $P/lib/libprofil\.so\.0"
'

test_expect_success 'the same call without libprofil is glibc'"'"'s, which returns 0' '
	cc -std=c11 -Wall -Werror -o glibc prog.c &&
	./glibc > out && cat out &&
	grep -qx "profil 0 0" out
'

test_expect_success 'DESTDIR stages the tree under PREFIX, and no file names the stage' '
	make -C "$ROOT" -s B="$BUILD" install DESTDIR="$TRASH/stage" PREFIX=/opt/profil > log 2>&1 ||
	    { cat log; false; } &&
	test -f "$TRASH/stage/opt/profil/include/profil.h" &&
	test -f "$TRASH/stage/opt/profil/lib/libprofil.so.0.1.0" &&
	test -f "$TRASH/stage/opt/profil/share/man/man3/pcsample.3" &&
	test "$(readlink "$TRASH/stage/opt/profil/lib/libprofil.so")" = libprofil.so.0 &&
	test "$(readlink "$TRASH/stage/opt/profil/share/man/man3/profil_stats_get.3")" = \
	    profil_rate_set.3 &&
	! test -e /opt/profil &&
	grep -qx "prefix=/opt/profil" "$TRASH/stage/opt/profil/lib/pkgconfig/profil.pc" &&
	! grep -r "$TRASH" "$TRASH/stage/opt/profil/lib/pkgconfig"
'
test_done
