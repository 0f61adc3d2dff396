#!/bin/sh
# The -pg runtime under a seccomp filter in force from exec: a filter that kills a call of the
# profiling clock's (timer_create at 100 Hz, perf_event_open above) or membarrier(2) costs the
# program nothing.  Issue 23: "the in-process recorder and the -pg runtime decide before they
# arm".  profil(3): the clock is armed first in a probe child; the other clock is used if the
# filter would kill the one chosen.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/pg/gmon.sh"
REC=$B/tests/record

"$REC/seclaunch" timer_create process "$REC/exit3" 0.1 > probe.out 2>&1
if [ $? -ne 3 ]; then
	cat probe.out
	echo "ok - inherited seccomp filters # SKIP no seccomp filters here"
	test_done
fi

for call in timer_create perf_event_open membarrier; do
	for hz in 100 1000; do
		for kill in process thread; do
			test_expect_success "kill $kill on $call, -pg at $hz Hz: status 3, histogram" '
				d=$call$hz$kill && mkdir $d && (cd $d && PROFIL_HZ=$hz \
					"$REC/seclaunch" $call $kill "$PG/exit3" 0.3 > out 2> err)
				rc=$? && echo "status $rc" && cat $d/out $d/err && test $rc -eq 3 &&
				grep -x done $d/out && ! test -s $d/err && f=$(gmon_file $d) &&
				test -n "$f" && gprof -b -p "$PG/exit3" "$f" | grep -w exit3_work
			'
		done
	done
done

test_done
