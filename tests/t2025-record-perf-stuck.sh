#!/bin/sh
# A perf clock tick that cannot be delivered (no room for the signal frame: the kernel makes it
# the program's SIGSEGV) leaves the thread's event disabled, as only the tick handler enables
# it again after an overflow.  Seen in t2010: 0 samples at 10 kHz when the first tick came on a
# thread's last frames.  The recorder's watchdog sees the thread run without ticks and kicks
# it (src/engine/clock.c, profil_clock_watch): the work after the lost tick is sampled.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'alone: no tick, the spin ends' '
	"$REC/stuck" 0.01 > alone.out && cat alone.out && grep -x "spin ended" alone.out
'

# 0.4 s of CPU after the lost tick: about 400 samples at 1 kHz; the watchdog looks every 50 ms
# of wall time and kicks after 8 periods of CPU without a tick, so a quarter of them is far
# below what a working clock gives, and far above the 0 of an event left disabled.
for clock in perf timer; do
	test_expect_success "--clock $clock: the work after the lost tick is sampled" '
		rm -rf d$clock &&
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/d$clock \
			PROFIL_RECORD_CLOCK=$clock PROFIL_RECORD_HZ=1000 \
			"$REC/stuck" 0.4 > s.out 2> s.err
		rc=$? && echo "status $rc" && cat s.out s.err && test $rc -eq 0 &&
		grep -x "no room" s.out && grep -x done s.out &&
		"$PROFIL" report --tsv d$clock > s.tsv &&
		n=$(report_samples s.tsv after_work) && echo "after_work: $n samples" &&
		test "$n" -ge 100
	'
done

test_done
