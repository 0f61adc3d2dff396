#!/bin/sh
# mcount runs on every function entry, also in signal handlers: a -pg SIGPROF handler that
# interrupts -pg code, often inside mcount itself, must neither deadlock nor corrupt a count.
# The program's own calls all count; a call made by the handler while its thread was inside
# mcount is turned away by the per-thread busy flag, as in OpenBSD's and glibc's mcount.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/pg/gmon.sh"

# The program's own ITIMER_PROF and SIGPROF stay its own: the engine ticks on another signal.
timeout 60 "$PG/gmon-work" signals > out
rc=$?
f=$(gmon_file)
handled=$(sed -n 's/^handled //p' out)
test_expect_success 'a -pg SIGPROF handler every ms of CPU time: the program ends normally' '
	test $rc -eq 0 && test -n "$f" && test "$handled" -gt 0
'
test_expect_success 'every call of the program itself counts: 20000000' '
	test "$(gmon_calls "$PG/gmon-work" "$f" counted)" = 20000000
'
test_expect_success 'the handler calls count at most once each' '
	n=$(gmon_calls "$PG/gmon-work" "$f" in_handler) && echo "$n of $handled" &&
	test "$n" -gt 0 && test "$n" -le "$handled"
'
test_done
