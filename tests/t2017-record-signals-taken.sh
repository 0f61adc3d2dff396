#!/bin/sh
# A program that takes every real-time signal (the Go runtime does) is told why its profile
# stops, in one line on stderr, under the signal clocks.  Issue 8: "with --clock timer|perf the
# Go runtime takes every real-time signal and the profile has 0 samples, with no message."
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

for clock in timer perf; do
	test_expect_success "every real-time signal through sigaction ($clock clock): told" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/a$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/allsignals" 0.2 > a.out 2> a.err
		rc=$? && echo "status $rc" && cat a.out a.err && test $rc -eq 0 &&
		grep -x done a.out && test $(wc -l < a.err) -eq 1 &&
		took="the program took every real-time signal" &&
		grep -x "profil: no more samples: $took: .allsignals." a.err
	'
	test_expect_success "... through a raw rt_sigaction ($clock clock): told" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/r$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/allsignals" 0.2 raw > r.out 2> r.err
		rc=$? && echo "status $rc" && cat r.out r.err && test $rc -eq 0 &&
		grep -x done r.out && test $(wc -l < r.err) -eq 1 &&
		grep "^profil: no more samples: the program replaced the handler of the" r.err
	'
done

test_expect_success 'the ring clock needs no signal: nothing said, samples taken' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/ring PROFIL_RECORD_CLOCK=ring \
		"$REC/allsignals" 0.2 > g.out 2> g.err && ! test -s g.err &&
	"$PROFIL" dump ring/allsignals.*.profil > g.dump && test "$(dump_total g.dump)" -gt 50
'

test_done
