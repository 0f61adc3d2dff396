#!/bin/sh
# t2131-record-time-outside: every sample of the outside recorder knows when it was taken
# (issue 21, docs/FORMAT.md TIME): the kernel's time of each perf sample (CLOCK_MONOTONIC,
# use_clockid) from the image's start, and --wall's the time of its tick.  tests/progs/phases
# as in t2130: flat, -g (unwind tables), --call-graph fp and --wall; -p attached to a running
# phases; the text views unchanged without the TIME records.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 binutils:readelf

P=$PROGS/phases
CHECK="python3 $TEST_DIR/timecheck.py"
if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here"
	test_done
fi

phases() {
	name=$1 min=$2
	shift 2
	"$PROFIL" record -q --clock outside "$@" -o "$name" -- "$P" 0.6 2 > "$name.sw" &&
	"$PROFIL" dump "$name"/phases.*.profil > "$name.dump" &&
	$CHECK "$name.dump" "$P" "$name.sw" "$min"
}

test_expect_success 'flat: each thread'"'"'s phases apart in time, every tick timed' '
	phases flat 300
'
test_expect_success '-g: the same with stacks walked by unwind tables' '
	phases cfi 300 -g
'
test_expect_success '--call-graph fp: the same with the kernel'"'"'s call chains' '
	phases fp 300 --call-graph fp
'
test_expect_success '--wall: the CPU samples apart, the waits timed' '
	phases wall 30 --wall
'

# Attached after its start: the image is described from /proc, and starts at its first sample.
test_expect_success '-p: a running program attached to, its phases apart' '
	{ "$P" 1.5 > att.sw & } && pid=$! && sleep 0.2 &&
	"$PROFIL" record -q -o att -p "$pid" && wait "$pid" &&
	"$PROFIL" dump att/phases.*.profil > att.dump && $CHECK att.dump "$P" att.sw 300
'

test_expect_success 'the text views are unchanged, and a file without times reads' '
	f=$(ls cfi/phases.*.profil) && $CHECK --strip "$f" old.profil &&
	"$PROFIL" report "$f" > new.txt && "$PROFIL" report old.profil > old.txt &&
	cmp new.txt old.txt &&
	"$PROFIL" export -f folded "$f" > new.folded 2> /dev/null &&
	"$PROFIL" export -f folded old.profil > old.folded 2> /dev/null && cmp new.folded old.folded
'

test_done
