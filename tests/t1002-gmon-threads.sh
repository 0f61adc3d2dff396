#!/bin/sh
# Arcs from every thread: each thread counts into a table of its own, merged at exit, so no
# call is lost to contention (glibc's mcount drops the calls it finds another thread inside).
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof
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

# 600 threads one after the other, more than the 256 tables: a thread that ends leaves its
# table to the next one, and no call is lost.
mkdir churn && (cd churn && "$PG/gmon-work" churn 600) 2>churn.err
test_expect_success '600 threads in turn, 10 calls each: 6000 calls, no table ran out' '
	test "$(gmon_calls "$PG/gmon-work" "$(gmon_file churn)" tcount)" = 6000 &&
	! test -s churn.err
'

test_done
