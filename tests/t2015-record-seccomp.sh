#!/bin/sh
# A seccomp filter that kills open and rename never turns into a kill of the program.  Issue 8:
# "A seccomp filter that kills openat/rename turns exit status 3 into 159 (SIGSYS), because the
# exit flush opens /proc/self/maps; with TSYNC the flusher kills the program mid-run."
# profil(1): a filter on one thread leaves the files to the recorder's thread; one on every
# thread (TSYNC) stops the recorder's writing, and the file keeps the last periodic flush.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

"$REC/seckill" thread 0.1 > probe.out 2>&1
if [ $? -ne 3 ]; then
	cat probe.out
	echo "ok - seccomp filters # SKIP no seccomp filters here"
	test_done
fi

for clock in timer ring; do
	test_expect_success "filter on the main thread ($clock clock): status 3, complete file" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/t$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/seckill" thread 0.4 > t.out 2> t.err
		rc=$? && echo "status $rc" && cat t.out t.err && test $rc -eq 3 &&
		grep -x done t.out && ! test -s t.err &&
		"$PROFIL" dump t$clock/seckill.*.profil > t.dump &&
		test "$(dump_field t.dump exit)" = exit && test "$(dump_total t.dump)" -gt 0
	'
	# 2.5 s: the periodic flush (every second) comes while the filter is in force.
	test_expect_success "TSYNC filter ($clock clock): runs to the end, status 3, file stays" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/s$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/seckill" tsync 2.5 > s.out 2> s.err
		rc=$? && echo "status $rc" && cat s.out s.err && test $rc -eq 3 &&
		grep -x done s.out && "$PROFIL" dump s$clock/seckill.*.profil > s.dump &&
		test "$(dump_field s.dump exit)" = running
	'
done

test_done
