#!/bin/sh
# t4032-export-html-recording: the viewer page (profil export --format=html) of a real recording,
# with the times it took (TIME records, docs/FORMAT.md).  tests/progs/phases runs two named
# threads, "a-then-b" burning phase_a for 0.6 s of CPU and then phase_b, "b-then-a" the other way
# round, and prints when each switched; `profil record` records it (from outside where perf
# events are allowed, else from inside).  In headless Chromium at 1400x900, driven by real
# clicks and drags (tests/export/viewer.py recording): the hottest functions are phase_a and
# phase_b with the report's shares; a track per thread, named as the threads were; per thread,
# dragging over the timeline before its switch makes its first phase dominate the opening table
# and after it its second, the other phase within the slots around the switch (their width and
# the thread's busiest slot from `profil dump`) and the 95% interval of the page's counts.  The
# same page with every time late by half the time to the first switch fails those checks, and
# one without times has no tracks.
# Screenshots go to $PROFIL_TEST_SHOTS when set, else stay in the test's directory.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 chromium:chromium

P=$B/profil
SHOTS=${PROFIL_TEST_SHOTS:-$TRASH}
VIEWER="python3 $TEST_DIR/export/viewer.py recording"

# page NAME PROFILE: the page, report and dump of PROFILE as NAME.html, NAME.json, NAME.dump.
page() {
	# Without libc6-dbg (a fresh machine) export warns of code without debug information.
	"$P" export --format=html -o "$1.html" "$2" 2> "$1.err" &&
	! grep -v "^profil: no debug information" "$1.err" | grep -q . &&
	"$P" report --json "$2" > "$1.json" && "$P" dump "$2" > "$1.dump"
}

test_expect_success 'a real recording of two threads in phases, every tick timed' '
	"$P" record -q -o rec -- "$PROGS/phases" 0.6 2 > sw && cat sw &&
	test "$(grep -c "^switch " sw)" = 2 && f=$(ls rec/phases.*.profil) && page rec "$f" &&
	python3 "$TEST_DIR/timecheck.py" rec.dump "$PROGS/phases" sw 300
'
test_run_prog viewer $VIEWER rec.html rec.json rec.dump sw "$SHOTS"

# Wrong times: the checks above must see them.  Late by half the time to the first switch, so
# that about half a phase's ticks cross it however slowly a busy machine ran the threads.
test_expect_success 'every time late by half a phase: the selections no longer follow them' '
	start=$(sed -n "s/^header .* start_ns=\([0-9]*\).*/\1/p" rec.dump) &&
	late=$(sort -n -k3 sw | awk -v s="$start" "NR == 1 { print (\$3 - s) / 2e9 }") &&
	echo "late by $late s" &&
	python3 "$TEST_DIR/timecheck.py" --shift "$late" rec/phases.*.profil late.profil &&
	page late late.profil && ! $VIEWER late.html late.json late.dump sw "$TRASH" > late.out;
	cat late.out && grep -q "^ok - a track per thread" late.out &&
	test "$(grep -c "^not ok - [ab]-then-[ab], .* ms (switch at" late.out)" -ge 2
'
test_expect_success 'without times: no track to select' '
	python3 "$TEST_DIR/timecheck.py" --strip rec/phases.*.profil old.profil &&
	page old old.profil && ! $VIEWER old.html old.json old.dump sw "$TRASH" > old.out;
	cat old.out && grep -q "^not ok - a track per thread" old.out
'
test_done
