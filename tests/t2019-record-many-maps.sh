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

# -g: each dlopen and dlclose builds the unwind tables and publishes a new space for the signal
# handler, which ticks 10000 times a second meanwhile; old spaces and tables are freed as soon as
# no handler is inside, so 5000 cycles take no more memory than 1000.
test_expect_success '-g (cfi) at 10000 Hz: 5000 cycles peak within 2 MiB of 1000 cycles' '
	for n in 1000 5000; do
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/g$n PROFIL_RECORD_CLOCK=timer \
			PROFIL_RECORD_STACKS=cfi PROFIL_RECORD_HZ=10000 "$REC/dlcycle" "$PLUGIN" $n \
			> g$n.out 2> /dev/null || return 1
	done
	cat g1000.out g5000.out &&
	a=$(sed -n "s/^hwm //p" g1000.out) && b=$(sed -n "s/^hwm //p" g5000.out) &&
	test -n "$a" && test "$b" -le $((a + 2048))
'

# A fork while other threads rebuild the tables: the child gets the builders' lock as new, and
# its own dlopen finds the tables of its parent's mappings.
for clock in timer ring; do
	test_expect_success "-g (cfi), --clock $clock: forks while threads dlopen, no child hangs" '
		rm -rf "$PWD/k" &&
		timeout 120 env LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/k \
			PROFIL_RECORD_CLOCK=$clock PROFIL_RECORD_STACKS=cfi PROFIL_RECORD_HZ=10000 \
			"$REC/forkdl" "$PLUGIN" > k.out 2> k.err
		rc=$? && echo "status $rc" && cat k.out k.err && test $rc -eq 0 &&
		grep -x done k.out && test "$(ls k | wc -l)" -eq 61
	'
done

test_done
