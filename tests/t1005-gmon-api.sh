#!/bin/sh
# profil_gmon(), OpenBSD's profil(2) as our API, each error in OpenBSD's order; moncontrol(3);
# and a full arc table, which is reported once and never silently.
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof
. "$TEST_DIR/pg/gmon.sh"

test_run_prog gmon-eperm "$PROGS/gmon-eperm"
test_expect_success 'a program without -pg leaves no profile' 'test -z "$(gmon_file .)"'

mkdir api && cd api && test_run_prog gmon-work-api "$PG/gmon-work" api && cd ..
f=$(gmon_file api/moved)
# moncontrol(3): profiling "can be selectively stopped and restarted"; stopped means no
# samples and no calls.
test_expect_success 'what ran while profiling was stopped has no samples and no calls' '
	test -n "$f" && test -z "$(gmon_file api)" && gprof -b -p "$PG/gmon-work" "$f" > flat &&
	! grep -q "stopped_work" flat && test "$(gmon_calls "$PG/gmon-work" "$f" counted)" = 2
'

test_expect_success 'without a limit, 64 call sites give leaf() 64 calls' '
	mkdir all && cd all && "$PG/gmon-work" arcs 2>err && ! test -s err &&
	test "$(gmon_calls "$PG/gmon-work" gmon.*.out leaf)" = 64
'

# PROFIL_ARCS=16: main -> arcs and 15 of the 64 leaf() call sites fit, the rest are dropped.
test_expect_success 'a full arc table is reported once on stderr, and only its arcs count' '
	mkdir full && cd full && PROFIL_ARCS=16 "$PG/gmon-work" arcs 2>err &&
	test $(grep -c "^profil: gmon: arc table full" err) = 1 && test $(wc -l < err) = 1 &&
	test "$(gmon_calls "$PG/gmon-work" gmon.*.out leaf)" = 15
'

test_expect_success 'a PROFIL_HZ that is no rate: one line on stderr, and the default 100 Hz' '
	mkdir badhz && cd badhz && PROFIL_HZ=20001 "$PG/gmon-work" quick 2>err &&
	test "$(cat err)" = "profil: gmon: ignoring a bad value: '"'"'PROFIL_HZ'"'"'" &&
	gprof -b -p "$PG/gmon-work" gmon.*.out | grep -q "Each sample counts as 0.01 seconds"
'

test_done
