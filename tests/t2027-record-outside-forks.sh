#!/bin/sh
# t2027-record-outside-forks: the outside recorder (the default where perf events are allowed)
# loses no process when many fork at once under -g.  8 threads fork 4 children each, every
# child runs child_work() for 45 ms of CPU time and exits.  With -g each sample carries a copy
# of the stack, so a ring of 4 MiB holds a quarter of a second of one CPU's samples: reading
# /proc/kallsyms for the first profile written (up to 0.6 s on a busy machine) left the rings
# unread that long, and the children that ran meanwhile lost every record, fork to exit, and
# had no file (25 to 33 of the 33 here).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs coreutils:timeout
PG=$B/tests/pg

if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (the inside recorder's is t2026)"
	test_done
fi

for run in 1 2 3; do
timeout -k 5 120 "$PROFIL" record -q -F 1000 -g -o rec -- "$PG/forks" 8 4 > out 2> err
echo "status $?" >> out
cat out err
parent=$(sed -n 's/^parent //p' out)

test_expect_success "run $run: every child exits 0" '
	grep -qx "status 0" out
'

test_expect_success "run $run: a recording per process, 1 + 32" '
	ls rec && test "$(ls rec/forks.*.profil | wc -l)" -eq 33 &&
	test -f "rec/forks.$parent.profil"
'

# 45 ms of CPU time at 1000 Hz: about 45 samples each; a busy machine may cost some to full
# rings (counted in the header's dropped), none at all would be a child lost.
test_expect_success "run $run: each child's recording has child_work(), no after_forks()" '
	n=0 && for f in rec/forks.*.profil; do
		test "$f" = "rec/forks.$parent.profil" && continue
		"$PROFIL" report --tsv "$f" > child.tsv &&
		test "$(report_samples child.tsv child_work)" -gt 0 &&
		test "$(report_samples child.tsv after_forks)" -eq 0 || { echo "$f"; exit 1; }
		n=$((n + 1))
	done && test $n -eq 32
'
rm -rf rec
done

test_done
