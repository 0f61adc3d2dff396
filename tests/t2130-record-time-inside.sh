#!/bin/sh
# t2130-record-time-inside: every sample of the in-process recorder knows when it was taken
# (issue 21, docs/FORMAT.md TIME).  tests/progs/phases runs two threads side by side, one
# burning phase_a for 0.6 s of CPU and then phase_b as long, the other the other way round,
# and prints when each switched.  Under every inside clock, flat and with -g, and with --wall:
# each thread's ticks of its first phase lie no later than one slot after its switch, those of
# its second no earlier than one before (tests/timecheck.py), at least half of each phase's
# expected ticks are timed (0.6 s at the rate), and every tick of the file has a time.  The
# text views are those of the same file without its TIME records, which still reads.  The ring
# clock's times are the kernel's, the perf clock's CLOCK_MONOTONIC, the timer clock's two kernel
# ticks wide (CLOCK_MONOTONIC_COARSE).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 binutils:readelf

P=$PROGS/phases
CHECK="python3 $TEST_DIR/timecheck.py"
ring=1
clock_ok ring || ring=0

# phases NAME MIN_TICKS RECORD-OPTIONS...: records phases 0.6 with two threads and checks
# its times.
phases() {
	name=$1 min=$2
	shift 2
	"$PROFIL" record -q "$@" -o "$name" -- "$P" 0.6 2 > "$name.sw" &&
	"$PROFIL" dump "$name"/phases.*.profil > "$name.dump" &&
	$CHECK "$name.dump" "$P" "$name.sw" "$min"
}

for clock in timer perf ring; do
	if [ $clock != timer ] && [ $ring = 0 ]; then
		echo "ok - skipped: --clock $clock: perf events refused here"
		continue
	fi
	test_expect_success "--clock $clock: each thread's phases apart in time, every tick timed" '
		phases $clock 300 --clock $clock
	'
	test_expect_success "--clock $clock -g: the same with stacks" '
		phases $clock-g 300 --clock $clock -g
	'
done

# --wall samples at 100 Hz of wall time; the waiting main thread's samples are timed too.
test_expect_success '--clock timer --wall: the CPU samples apart, the waits timed' '
	phases wall 30 --clock timer --wall &&
	grep -q "^time " wall.dump && $CHECK wall.dump "$P" wall.sw 30 | grep "ticks timed"
'
if [ $ring = 1 ]; then
	test_expect_success '--clock ring --wall -g: the same' '
		phases ring-wall 30 --clock ring --wall -g
	'
fi

test_expect_success 'one thread: the main thread switches phases' '
	"$PROFIL" record -q --clock timer -o one -- "$P" 0.6 > one.sw &&
	grep -q "^switch main " one.sw &&
	"$PROFIL" dump one/phases.*.profil > one.dump && $CHECK one.dump "$P" one.sw 300
'

# width CLOCK: the slot width of a recording at -F 500 with CLOCK.
width() {
	"$PROFIL" record -q --clock $1 -F 500 -o f500$1 -- "$P" 0.2 > /dev/null &&
	"$PROFIL" dump f500$1/phases.*.profil | awk "\$1 == \"time\" { print \$2 }" | sort -u
}
# The timer clock's handler takes CLOCK_MONOTONIC_COARSE (the TSC is a SIGSEGV in seccomp strict
# mode), read up to two kernel ticks late: its slots are two ticks, exactly twice the clock's
# resolution.  A perf tick's handler makes a system call anyway (no strict mode there), so it
# reads CLOCK_MONOTONIC: one period.
# (CLOCK_MONOTONIC_COARSE is clock 6 on Linux; Python names no constant for it.)
tick=$(python3 -c "import time; print(round(time.clock_getres(6) * 1e9))")
test_expect_success 'slots start one sampling period wide (-F 500: 2 ms), or two kernel ticks' '
	w=$(width timer) && echo "timer: $w ns, kernel tick $tick ns" &&
	test "$w" = $((2 * tick > 2000000 ? 2 * tick : 2000000)) &&
	if [ $ring = 1 ]; then
		w=$(width ring) && echo "ring: $w ns" && test "$w" = 2000000 &&
		w=$(width perf) && echo "perf: $w ns" && test "$w" = 2000000
	fi
'

# A file as the recorder wrote it before TIME records, from this one: every text view the same.
test_expect_success 'the text views are unchanged, and a file without times reads' '
	f=$(ls timer-g/phases.*.profil) && $CHECK --strip "$f" old.profil &&
	! "$PROFIL" dump old.profil | grep -q "^time " &&
	"$PROFIL" report "$f" > new.txt && "$PROFIL" report old.profil > old.txt &&
	cmp new.txt old.txt && "$PROFIL" report --tsv "$f" > new.tsv &&
	"$PROFIL" report --tsv old.profil > old.tsv && cmp new.tsv old.tsv &&
	"$PROFIL" export -f folded "$f" > new.folded 2> /dev/null &&
	"$PROFIL" export -f folded old.profil > old.folded 2> /dev/null && cmp new.folded old.folded
'

test_done
