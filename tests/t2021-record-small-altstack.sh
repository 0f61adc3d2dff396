#!/bin/sh
# Threads on a small alternate signal stack run as they do alone under every clock.  Issue 23:
# "a program on a 2048- or 3072-byte sigaltstack (MINSIGSTKSZ) that never takes a signal there
# runs fine alone and dies of SIGSEGV under --clock timer and --clock perf".  profil(1): the
# ticks never run on the program's alternate stack; the overflow of a program that catches its
# own still reaches its handler there.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'alone: two threads on 2048-byte alternate stacks, status 0' '
	"$REC/smallalt" 2048 0.5 2 > alone.out && grep -x done alone.out
'

for size in 2048 3072; do
	for clock in timer perf ring; do
		for stacks in 0 1; do
			test_expect_success "$size bytes, --clock $clock, stacks $stacks: as alone" '
				LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_STACKS=$stacks \
					PROFIL_RECORD_DIR=$PWD/$size$clock$stacks \
					PROFIL_RECORD_CLOCK=$clock "$REC/smallalt" $size 0.5 2 \
					> a.out 2> a.err
				rc=$? && echo "status $rc" && cat a.out a.err && test $rc -eq 0 &&
				cmp alone.out a.out && ! test -s a.err &&
				"$PROFIL" dump $size$clock$stacks/smallalt.*.profil > a.dump &&
				test "$(dump_total a.dump)" -gt 0
			'
		done
	done
done

# The fatal-signal flush catches SIGABRT on the thread's own stack: a frame that did not fit
# on the small alternate stack would turn it into SIGSEGV, status 139.
test_expect_success 'abort(3) on a 2048-byte alternate stack: status 134 as alone, flushed' '
	"$REC/smallalt" 2048 0.2 1 abort > /dev/null 2>&1; test $? -eq 134 &&
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/abort PROFIL_RECORD_CLOCK=timer \
		"$REC/smallalt" 2048 0.2 1 abort > /dev/null 2>&1
	rc=$? && echo "status $rc" && test $rc -eq 134 &&
	"$PROFIL" dump abort/smallalt.*.profil > abort.dump &&
	test "$(dump_field abort.dump exit)" = signal && test "$(dump_field abort.dump code)" = 6
'

# The overflow a program catches itself: its handler runs on its alternate stack, also when a
# tick lands on the thread's last bytes first.
test_expect_success 'alone: stack overflow caught on the alternate stack, status 7' '
	"$REC/smallalt" overflow > over.out; test $? -eq 7 && grep -x caught over.out
'
for clock in timer:1000 perf:10000 ring:10000; do
	test_expect_success "overflow under --clock ${clock%:*}: its handler, status 7" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/over${clock%:*} \
			PROFIL_RECORD_CLOCK=${clock%:*} PROFIL_RECORD_HZ=${clock#*:} \
			"$REC/smallalt" overflow > o.out 2> o.err
		rc=$? && echo "status $rc" && cat o.out o.err && test $rc -eq 7 &&
		cmp over.out o.out
	'
done

test_done
