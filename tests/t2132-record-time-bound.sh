#!/bin/sh
# t2132-record-time-bound: a long or fast recording keeps a bounded timeline (issue 21: "at a
# bounded cost").  Slots start a sampling period wide; a file whose timeline would pass 65536
# entries doubles its slots and merges them (src/profile/timeline.c), so its TIME records stay
# under 1 MiB.  tests/unit/timeline.c feeds the timeline an hour of ticks at 1 kHz; here a
# real run at 20 kHz (two threads, 80000 ticks at 50 us slots, more than the bound) from
# outside and with the ring clock: at most 65536 entries, slots widened, every tick timed, each
# thread's phases still apart within one of the wider slots.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 binutils:readelf

P=$PROGS/phases
CHECK="python3 $TEST_DIR/timecheck.py"

test_run_prog timeline "$B/tests/unit/timeline"

if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here"
	test_done
fi

for clock in outside ring; do
	test_expect_success "--clock $clock -F 20000: at most 65536 entries, slots widened" '
		"$PROFIL" record -q --clock $clock -F 20000 -o fast$clock -- "$P" 1 2 > $clock.sw &&
		"$PROFIL" dump fast$clock/phases.*.profil > $clock.dump &&
		n=$(grep -c "^time " $clock.dump) &&
		w=$(awk "\$1 == \"time\" { print \$2; exit }" $clock.dump) &&
		echo "$n entries, slots of $w ns" && test "$n" -le 65536 && test "$w" -gt 50000 &&
		$CHECK $clock.dump "$P" $clock.sw 10000
	'
done

test_done
