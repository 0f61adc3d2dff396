#!/bin/sh
# A program that catches its own stack overflow on a sigaltstack runs as it does alone under
# every signal clock.  Issue 8: "dies of SIGSEGV under --clock timer (2 of 5 runs) and --clock
# perf (5 of 5): the tick handler is not SA_ONSTACK".  The test program spins on its last
# frames before the guard page, so ticks arrive where no signal frame fits on the thread's stack.
# Since issue 23 (t2021) the tick is not SA_ONSTACK again: a tick whose frame does not fit is
# the program's SIGSEGV, a tick with less than 4 KiB left is dropped, and this still holds.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'alone: three overflows caught on the alternate stack' '
	"$REC/altstack" 3 > alone.out && grep -x "recovered 3" alone.out
'

for run in timer:1000:0 timer:1000:1 perf:10000:0 perf:10000:1; do
	clock=${run%%:*} rest=${run#*:} hz=${rest%:*} stacks=${run##*:}
	test_expect_success "--clock $clock -F $hz, stacks $stacks: same output, status 0" '
		PROFIL_RECORD_STACKS=$stacks LD_PRELOAD=$B/libprofil-record.so \
			PROFIL_RECORD_DIR=$PWD/a$clock$stacks PROFIL_RECORD_CLOCK=$clock \
			PROFIL_RECORD_HZ=$hz "$REC/altstack" 3 > a.out 2> a.err
		rc=$? && echo "status $rc" && cat a.out a.err && test $rc -eq 0 &&
		cmp alone.out a.out && ! test -s a.err &&
		"$PROFIL" dump a$clock$stacks/altstack.*.profil > a.dump &&
		echo "$(dump_field a.dump clock) clock, $(dump_total a.dump) samples," \
			"$(dump_field a.dump dropped) dropped" &&
		test "$(dump_field a.dump clock)" = $clock && test "$(dump_total a.dump)" -gt 0
	'
done

# The fatal-signal flush: SIGSEGV left at its default, the overflow reaches the recorder's
# handler only on the alternate stack, and the flush runs on a stack of the recorder's own.
test_expect_success 'overflow with SIGSEGV at default: flushed, then dies of SIGSEGV' '
	"$REC/altstack" 1 die > /dev/null 2>&1; test $? -eq 139 &&
	PROFIL_RECORD_CLOCK=timer LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/die \
		"$REC/altstack" 1 die > /dev/null 2> die.err
	rc=$? && echo "status $rc" && cat die.err && test $rc -eq 139 &&
	"$PROFIL" dump die/altstack.*.profil > die.dump &&
	test "$(dump_field die.dump exit)" = signal && test "$(dump_field die.dump code)" = 11 &&
	test "$(dump_total die.dump)" -gt 0
'

test_done
