#!/bin/sh
# profil(3) under a seccomp filter in a program with threads: no child of profiling's is made,
# for a thread of the program's that reaps every child (waitpid(-1)) could take it and leave
# the probe's verdict wrong.  profil(3): "Where no child may be made (the program run directly
# under a filter, or with threads), the clock is not armed and profil() fails with EPERM."
. "$(dirname "$0")/lib.sh"
REC=$B/tests/record

"$REC/seclaunch" timer_create process "$REC/exit3" 0.1 > probe.out 2>&1
if [ $? -ne 3 ]; then
	cat probe.out
	echo "ok - profil(3) under seccomp filters # SKIP no seccomp filters here"
	test_done
fi
n=$("$REC/seclaunch" membarrier process sed -n 's/^Seccomp_filters:[[:space:]]*//p' \
	/proc/self/status)

# Twenty runs: the probe child of before was reaped by the program in about two runs of five.
test_expect_success 'a program with threads under a filter: no child made, EPERM' '
	: > r.all &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		"$REC/seclaunch" membarrier process "$PROGS/reaper" >> r.all 2>&1 ||
			echo "status $?" >> r.all
	done
	sort r.all | uniq -c &&
	test "$(grep -c "^reaped 0$" r.all)" -eq 20 &&
	test "$(grep -c "^profil -1 Operation not permitted$" r.all)" -eq 20
'

# Vouched for as profil record would, but with a second thread: still no child.
test_expect_success 'vouched for, but with threads: no child made, EPERM' '
	: > v.all &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		"$REC/seclaunch" membarrier process env PROFIL_RECORD_CLONE_OK=$n \
			"$PROGS/reaper" >> v.all 2>&1 || echo "status $?" >> v.all
	done
	sort v.all | uniq -c &&
	test "$(grep -c "^reaped 0$" v.all)" -eq 20 &&
	test "$(grep -c "^profil -1 Operation not permitted$" v.all)" -eq 20
'

test_done
