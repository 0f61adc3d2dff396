#!/bin/sh
# Nothing lost: the profile is complete after normal exit, return from main, _exit, and death
# by a fatal signal, and the exit status is the program's.  From outside, the recorder learns
# the status from waitpid(2), SIGKILL included.  Inside (--clock ring/perf/timer), the fatal
# signal is flushed and then given its original disposition, exit(3)'s status is not known
# (-1), and after SIGKILL at most the last second of samples is missing (periodic flush).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

# exit_case MODE STATUS KIND CODE: records `exits MODE 0.3`, checks status, exit kind and code,
# and that the samples cover the CPU time the program reported (one tick of slack per 10), less
# one per preemption the program reported: the clocks sample user time only, and a period that
# ends while the thread is back in the kernel after being switched in is not sampled (beside
# two CPU burners, 268 samples of 0.301 s at 1000 Hz).
exit_case() {
	# SIGKILL after 30 s: a process that cannot end fails the check instead of hanging it.
	rm -rf "$1"
	timeout -s KILL 30 "$PROFIL" record $CLOCK -o "$1" -- "$REC/exits" "$1" 0.3 > "$1.out" \
		2> "$1.err"
	rc=$?
	echo "status $rc"
	test "$rc" -eq "$2" || return 1
	"$PROFIL" dump "$1"/exits.*.profil > "$1.dump" || return 1
	test "$(dump_field "$1.dump" exit)" = "$3" || return 1
	test "$(dump_field "$1.dump" code)" = "$4" || return 1
	cpu=$(sed -n "s/^cpu //p" "$1.out")
	pre=$(sed -n "s/^preemptions //p" "$1.out")
	n=$(dump_total "$1.dump")
	hz=$(dump_field "$1.dump" achieved_hz)
	echo "cpu $cpu s, $pre preemptions, $n samples at $hz Hz"
	awk -v c="$cpu" -v n="$n" -v hz="$hz" -v pre="${pre:-0}" \
		"BEGIN { exit !(n >= 0.9 * c * hz - 2 - pre) }"
}

CLOCK=
test_expect_success 'outside: exit(3), status and code kept' 'exit_case exit 7 exit 7'
test_expect_success 'outside: return from main' 'exit_case return 9 exit 9'
test_expect_success 'outside: _exit(2)' 'exit_case _exit 8 exit 8'
test_expect_success 'outside: SIGABRT' 'exit_case abort 134 signal 6'
test_expect_success 'outside: SIGSEGV' 'exit_case segv 139 signal 11'
test_expect_success 'outside: SIGTERM' 'exit_case term 143 signal 15'
test_expect_success 'outside: pthread_exit from main ends, status 0' '
	rm -rf pthread_exit && exit_case pthread_exit 0 exit 0 &&
	grep -x "worker done" pthread_exit.out
'
test_expect_success 'outside: SIGKILL, every sample kept' '
	rm -rf kill && exit_case kill 137 signal 9
'

CLOCK="--clock ring"
test_expect_success 'exit(3): complete profile, status kept' 'exit_case exit 7 exit -1'
test_expect_success 'return from main: complete profile' 'exit_case return 9 exit -1'
test_expect_success '_exit(2): complete profile' 'exit_case _exit 8 exit -1'
test_expect_success 'SIGABRT: flushed, then dies of SIGABRT' 'exit_case abort 134 signal 6'
test_expect_success 'SIGSEGV: flushed, then dies of SIGSEGV' 'exit_case segv 139 signal 11'
test_expect_success 'SIGBUS: flushed, then dies of SIGBUS' 'exit_case bus 135 signal 7'
test_expect_success 'SIGINT: flushed, then dies of SIGINT' 'exit_case int 130 signal 2'
test_expect_success 'SIGTERM: flushed, then dies of SIGTERM' 'exit_case term 143 signal 15'

# POSIX lets main end with pthread_exit(3); the process ends with its last thread, status 0.  The
# recorder's own thread must not keep it alive (it blocks every signal: only SIGKILL would end
# it), nor end it without exit(3)'s stdio flush and the final write of the profile.
for clock in ring timer; do
	test_expect_success "pthread_exit from main ($clock clock): ends, status 0, complete" '
		rm -rf pthread_exit && CLOCK="--clock $clock" &&
		exit_case pthread_exit 0 exit -1 &&
		grep -x "worker done" pthread_exit.out &&
		test "$(dump_field pthread_exit.dump clock)" = $clock
	'
done
CLOCK="--clock ring"

# The fatal-signal flush runs on the dying thread's own stack (no sigaltstack): its buffers are
# static, so a thread on a 16 KiB stack still gets its flush and its death by SIGTERM.
test_expect_success 'SIGTERM on a 16 KiB thread stack: flushed, then dies of SIGTERM' '
	timeout -s KILL 30 "$PROFIL" record --clock ring -o small -- "$REC/smallstack" 16 0.3 \
		> small.out 2> small.err
	rc=$? && echo "status $rc" && test $rc -eq 143 &&
	"$PROFIL" dump small/smallstack.*.profil > small.dump &&
	test "$(dump_field small.dump exit)" = signal &&
	test "$(dump_field small.dump code)" = 15 &&
	cpu=$(sed -n "s/^cpu //p" small.out) && n=$(dump_total small.dump) &&
	hz=$(dump_field small.dump achieved_hz) && echo "cpu $cpu s, $n samples at $hz Hz" &&
	awk -v c="$cpu" -v n="$n" -v hz="$hz" "BEGIN { exit !(n >= 0.9 * c * hz - 2) }"
'

# profil(1): "A fatal signal that lands while its thread is updating the recorder's tables ...
# leaves the file of the last periodic flush".  A thread that only dlopens and dlcloses spends
# most of its time there; SIGTERM to it must not flush half-updated tables (which the
# re-entered lock used to do: the file always said signal).  The signal lands in the lock by
# chance, in about 3 runs of 4 on an idle machine and as few as 1 in 2 beside two CPU burners
# (measured); three tries missed all three about once in 64 runs under load.  Twenty tries miss
# with a chance below 1e-6 at 1 in 2, and stop at the first hit (usually the first run).
test_expect_success 'SIGTERM inside the recorder lock: no flush, the periodic file stays' '
	for i in $(seq 1 20); do
		rm -rf dl && timeout -s KILL 30 "$PROFIL" record --clock ring -o dl -- "$REC/dlsignal" \
			"$PLUGIN" 0.3; rc=$?; echo "status $rc"; test $rc -eq 143 || return 1
		"$PROFIL" dump dl/dlsignal.*.profil > dl.dump || return 1
		kind=$(dump_field dl.dump exit) && echo "exit kind $kind"
		test "$kind" = running && return 0
	done
	return 1
'

# The same through the signal clocks: the flush runs beside a live profiling signal.
test_expect_success 'SIGSEGV with --clock perf: flushed, dies of SIGSEGV' '
	rm -rf segv && CLOCK="--clock perf" && exit_case segv 139 signal 11 &&
	test "$(dump_field segv.dump clock)" = perf
'
test_expect_success 'SIGTERM with --clock timer: flushed, dies of SIGTERM' '
	rm -rf term && CLOCK="--clock timer" && exit_case term 143 signal 15 &&
	test "$(dump_field term.dump clock)" = timer
'

test_expect_success 'SIGKILL: the periodic flush keeps all but at most the last second' '
	rm -rf kill && "$PROFIL" record --clock ring -o kill -- "$REC/exits" kill 2.5 > kill.out 2> kill.err
	test $? -eq 137 &&
	"$PROFIL" dump kill/exits.*.profil > kill.dump &&
	test "$(dump_field kill.dump exit)" = running &&
	cpu=$(sed -n "s/^cpu //p" kill.out) && n=$(dump_total kill.dump) &&
	hz=$(dump_field kill.dump achieved_hz) && echo "cpu $cpu s, $n samples at $hz Hz" &&
	awk -v c="$cpu" -v n="$n" -v hz="$hz" "BEGIN { exit !(n >= 0.95 * (c - 1.0) * hz - 2) }"
'

test_done
