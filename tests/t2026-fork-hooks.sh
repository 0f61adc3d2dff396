#!/bin/sh
# t2026-fork-hooks: one registry of lifecycle hooks (src/engine/hooks.c).  Each library that
# holds the engine calls pthread_atfork once (src/engine/fork.c); the recorder and the gmon
# runtime do their part at the registry's fork places, inside the engine lock, in the order
# engine.h gives (tests/unit/hooks.c checks that order and the exit hooks).  Then the whole:
# a -pg program forking from 8 threads at once while `profil record -g` records it, so two
# engines, the recorder and the gmon runtime all act at every fork: nothing hangs, and parent
# and children all keep profiling.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
. "$TEST_DIR/pg/gmon.sh"
test_needs binutils:objdump binutils:gprof coreutils:timeout

# Calls and tail calls of pthread_atfork (libc_nonshared's __pthread_atfork is linked in).
atfork_calls() {
	objdump -d "$1" | grep -cE '(call|jmp) +[0-9a-f]+ <(__)?pthread_atfork(@plt)?>'
}

test_expect_success 'libprofil.so calls pthread_atfork once: the engine' '
	test "$(atfork_calls "$B/libprofil.so")" = 1
'
test_expect_success 'libprofil-record.so calls pthread_atfork once: the engine' '
	test "$(atfork_calls "$B/libprofil-record.so")" = 1
'

test_run_prog hooks "$B/tests/unit/hooks"

# 8 threads fork 4 children each; every child runs child_work() 3 times, 45 ms of CPU time.
# Recorded inside the program (the default records from outside where perf events are
# allowed, and loads nothing): with the timer clock the recorder's engine ticks by signals as
# the gmon runtime's does, with the ring clock the kernel samples into perf rings.
for clock in timer ring; do
timeout -k 5 120 "$PROFIL" record --clock $clock -F 1000 -g -o rec -- "$PG/forks" 8 4 > out 2> err
echo "status $?" >> out
cat out err
parent=$(sed -n 's/^parent //p' out)

test_expect_success "$clock: no fork hangs, every child exits 0: status 0 within the timeout" '
	grep -qx "status 0" out
'

test_expect_success "$clock: a gmon profile per process, 1 + 32" '
	test "$(ls gmon.forks.*.out | wc -l)" -eq 33 && test -f "gmon.forks.$parent.out"
'

test_expect_success "$clock: gmon: the parent counts 32 parent_work(), 10 after_forks() and ticks" '
	f=gmon.forks.$parent.out &&
	test "$(gmon_calls "$PG/forks" "$f" parent_work)" = 32 &&
	test "$(gmon_calls "$PG/forks" "$f" after_forks)" = 10 &&
	test -z "$(gmon_calls "$PG/forks" "$f" child_work)" &&
	gprof -b -p "$PG/forks" "$f" | awk "\$NF == \"after_forks\" && \$3 > 0 { ok = 1 }
	    END { exit !ok }"
'

# Each child's file began as a copy of the parent's at the fork (parent_work() calls of other
# threads included); child_work() is the child's alone.  A fork while another thread claimed
# its arc table left the child's exit waiting for that claim, and the file unmerged (gprof
# refused it): about one child in 30 here before mcount.c forgot it in the child.
test_expect_success "$clock: gmon: each child counts its own 3 child_work(), no after_forks()" '
	for f in gmon.forks.*.out; do
		test "$f" = "gmon.forks.$parent.out" && continue
		test "$(gmon_calls "$PG/forks" "$f" child_work)" = 3 &&
		test -z "$(gmon_calls "$PG/forks" "$f" after_forks)" || { echo "$f"; exit 1; }
	done
'

test_expect_success "$clock: a recording per process, the parent's with after_forks() only" '
	test "$(ls rec/forks.*.profil | wc -l)" -eq 33 &&
	"$PROFIL" report --tsv "rec/forks.$parent.profil" > parent.tsv &&
	test "$(report_samples parent.tsv after_forks)" -gt 0 &&
	test "$(report_samples parent.tsv child_work)" -eq 0
'

# 45 ms of CPU time at 1000 Hz: about 45 samples; none at all would be a child that stopped.
test_expect_success "$clock: each child's recording has child_work() and no after_forks()" '
	for f in rec/forks.*.profil; do
		test "$f" = "rec/forks.$parent.profil" && continue
		"$PROFIL" report --tsv "$f" > child.tsv &&
		test "$(report_samples child.tsv child_work)" -gt 0 &&
		test "$(report_samples child.tsv after_forks)" -eq 0 || { echo "$f"; exit 1; }
	done
'
rm -rf rec gmon.forks.*.out
done

test_done
