#!/bin/sh
# The mapping table has room for PROFIL_RECORD_MAX_MAPS (4096) mappings over a process's life;
# a program that maps more (5000 dlopen/dlclose cycles) is told, once, that later code is not
# named, instead of finding 78% of its profile [unmapped] with no word.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success '5000 dlopen/dlclose cycles: status 0, one line saying the table is full' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/d PROFIL_RECORD_CLOCK=timer \
		"$REC/dlcycle" "$PLUGIN" 5000 > c.out 2> c.err
	rc=$? && echo "status $rc" && cat c.out c.err && test $rc -eq 0 &&
	grep -x "cycles 5000" c.out && test $(wc -l < c.err) -eq 1 &&
	grep "^profil: mapping table full, code mapped from now on is not named" c.err
'

test_expect_success '1000 cycles fit: nothing said' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/e PROFIL_RECORD_CLOCK=timer \
		"$REC/dlcycle" "$PLUGIN" 1000 > e.out 2> e.err && ! test -s e.err
'

test_done
