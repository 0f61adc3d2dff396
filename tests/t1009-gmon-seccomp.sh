#!/bin/sh
# The -pg runtime run directly under a seccomp filter in force from exec: no probe child of
# ours may be made there (the filter may kill the clone itself), so the profiling clock is not
# armed and membarrier(2) not used.  The program's status is its own, one line says the
# histogram is off, and gprof still reads the call counts.  profil(3): "run directly under a
# filter, it writes the call counts alone and says so in one line".
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
			test_expect_success "kill $kill on $call, -pg at $hz Hz: status 3, calls alone" '
				d=$call$hz$kill && mkdir $d && (cd $d && PROFIL_HZ=$hz \
					"$REC/seclaunch" $call $kill "$PG/exit3" 0.3 > out 2> err)
				rc=$? && echo "status $rc" && cat $d/out $d/err && test $rc -eq 3 &&
				grep -x done $d/out && test "$(wc -l < $d/err)" -eq 1 &&
				grep "^profil: gmon: no histogram: a seccomp filter is in force" $d/err &&
				f=$(gmon_file $d) && test -n "$f" &&
				gprof -b -p "$PG/exit3" "$f" > $d/flat && cat $d/flat &&
				grep "no time accumulated" $d/flat &&
				awk "\$NF == \"exit3_work\" && \$4 == 1 { ok = 1 } END { exit !ok }" $d/flat
			'
		done
	done
done

test_done
