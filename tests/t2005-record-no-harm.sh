#!/bin/sh
# No harm to the program: threads blocked in read, poll and nanosleep see no extra EINTR (only
# the thread that used the CPU is signalled); a program with its own SIGPROF handler and
# ITIMER_PROF keeps them, and the file reports it; fork of a large process does not livelock.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'the EINTR counter works: SIGUSR1 without SA_RESTART interrupts all three' '
	"$REC/eintr" 0.2 --control > control.out && cat control.out &&
	test "$(sed -n "s/^eintr //p" control.out)" -ge 10
'

for hz in 100 1000 10000; do
	test_expect_success "no EINTR in blocked threads while another burns the CPU at $hz Hz" '
		"$PROFIL" record -F $hz -o e$hz -- "$REC/eintr" 0.6 > e$hz.out && cat e$hz.out &&
		test "$(sed -n "s/^eintr //p" e$hz.out)" -eq 0 &&
		"$PROFIL" dump e$hz/eintr.*.profil > e$hz.dump && test "$(dump_total e$hz.dump)" -gt 0
	'
done

test_expect_success 'own SIGPROF handler and ITIMER_PROF: both keep working, file flags it' '
	"$REC/sigprof" 0.5 > alone.out &&
	"$PROFIL" record -o sp -- "$REC/sigprof" 0.5 > sp.out && cat alone.out sp.out &&
	test "$(sed -n "s/^sigprof //p" sp.out)" -ge 25 &&
	"$PROFIL" dump sp/sigprof.*.profil > sp.dump &&
	test "$(dump_total sp.dump)" -ge 300 &&
	test $(( $(dump_field sp.dump flags) & 2 )) -eq 2
'

test_expect_success 'a program without SIGPROF is not flagged' '
	"$PROFIL" dump e1000/eintr.*.profil > e.dump &&
	test $(( $(dump_field e.dump flags) & 2 )) -eq 0
'

# Task-clock perf events do not count kernel time, CPU timers do: try both clocks.
for clock in perf timer; do
	test_expect_success "fork of a 1 GiB process ($clock clock) completes: no restart livelock" '
		timeout 60 "$PROFIL" record --clock $clock -F 10000 -o big$clock -- \
			"$REC/bigfork" 1024 20 > big.out && cat big.out && grep "^forks 20$" big.out &&
		test $(ls big$clock | wc -l) -eq 21
	'
done

test_done
