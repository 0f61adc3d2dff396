#!/bin/sh
# Arcs from every thread: each thread counts into a table of its own, merged at exit, so no
# call is lost to contention (glibc's mcount drops the calls it finds another thread inside).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/pg/gmon.sh"

for n in 1 8 40; do
	mkdir t$n && (cd t$n && "$PG/gmon-work" threads $n)
	f=$(gmon_file t$n)
	test_expect_success "$n threads calling tcount() 1000 times each: gprof counts $((n * 1000))" '
		test "$(gmon_calls "$PG/gmon-work" "$f" tcount)" = $((n * 1000))
	'
done

test_expect_success 'the per-thread tables are merged at exit: each arc is one record' '
	gprof -b -q "$PG/gmon-work" t40/gmon.*.out | grep -Eq "40000/40000 +thread_main \[" &&
	n=$(( ($(stat -c %s t40/gmon.*.out) - 82 - $(od -An -tu4 -j58 -N4 t40/gmon.*.out)*2) / 21 )) &&
	test $n -eq 2	# main -> threads, thread_main -> tcount
'

test_done
