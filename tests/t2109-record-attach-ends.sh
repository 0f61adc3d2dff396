#!/bin/sh
# t2109-record-attach-ends: `profil record -p A,B` once A has exited (issue 23, "never hang").
# A process that ended leaves its pidfd, and the ring its first thread's events opened,
# polling ready for ever: profil spun at 70-100% of a CPU with SIGINT and SIGTERM pending,
# which only the wait let in, until SIGKILL.  Now the processes that ended are dropped from the
# wait, it idles until B ends or a signal comes, and SIGINT or SIGTERM end it at once.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - # skip perf events refused here: -p needs them"
	test_done
fi

HZ=$(getconf CLK_TCK)

# cpu_ticks PID: the user and system time PID used so far, in clock ticks (proc(5) fields 14, 15,
# counted after the command name, which may hold spaces).
cpu_ticks() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# ends_within TENTHS PID: PID is gone (exited or a zombie) within TENTHS tenths of a second.
ends_within() {
	i=0
	while [ $i -lt "$1" ]; do
		state=$(sed 's/^.*) //' "/proc/$2/stat" 2> /dev/null | cut -d " " -f 1)
		case $state in "" | Z) echo "ended in about $i tenths of a second"; return 0;; esac
		sleep 0.1
		i=$((i + 1))
	done
	echo "still running after $1 tenths of a second"
	return 1
}

# attach_then SIGNAL: -p over a process that burns 0.3 s of CPU and exits 7, and one that waits;
# after the first has ended, 2 s of waiting, then SIGNAL.  A busy loop would use most of the
# 2 s; a wait woken ten times a second uses a few ticks.  Half a second is a generous bound
# for a machine busy with other work, and the end within 2 s likewise (it takes milliseconds).
attach_then() {
	"$REC/exits" exit 0.3 > /dev/null & a=$!
	sleep 30 & b=$!
	"$PROFIL" record -o "att-$1" -p $a,$b 2> "att-$1.err" & rec=$!
	wait $a
	echo "first process exited with $?"
	sleep 0.5
	t0=$(cpu_ticks $rec) && sleep 2 && t1=$(cpu_ticks $rec) &&
	echo "profil used $((t1 - t0)) ticks of $HZ a second while waiting 2 s" &&
	kill -"$1" $rec && ends_within 20 $rec
	ok=$?
	kill $b 2> /dev/null
	if [ $ok -ne 0 ]; then
		kill -KILL $rec
		return 1
	fi
	wait $rec
	rc=$?
	echo "profil exited with $rc"
	cat "att-$1.err"
	test $rc -eq 0 && test $((t1 - t0)) -le $((HZ / 2)) &&
	"$PROFIL" dump "att-$1/exits.$a.profil" > "$1.dump" &&
	test "$(dump_field "$1.dump" exit)" = exit
}

test_expect_success '-p, one process exited: idle while waiting, ends on SIGINT at once' '
	attach_then INT
'

test_expect_success '-p, one process exited: idle while waiting, ends on SIGTERM at once' '
	attach_then TERM
'

# The last process's exit still ends the recording by itself.
test_expect_success '-p ends by itself when the last of its processes exits' '
	"$REC/exits" exit 0.2 > /dev/null & a=$!
	sleep 1 & b=$!
	"$PROFIL" record -o last -p $a,$b & rec=$!
	ends_within 100 $rec && wait $rec && ls last/exits.$a.profil
'

# A review found the rings of the first process attached to drained only every 100 ms once it
# exited: a CPU's ring belongs to the first thread's events there, and polls POLLHUP, never
# POLLIN, from then on, while the other threads' samples still fill it.  At 20 kHz with stack
# copies a ring fills in about 50 ms: on a loaded 2-CPU machine 9628 to 14635 samples were lost
# for some 40000 recorded (23-36%), where with the first process living on a few hundred are
# (up to 1%: the watermark path too waits for profil to be scheduled).  Now such a ring is read
# every quarter of its filling time: 0 to 402 lost of 60000.  The bound, 5% of the samples
# recorded, stays well below what was lost.  What is checked is how often profil reads, not
# whether it gets a CPU: beside two CPU burners 11204 of 80122 were lost with profil at the
# burners' priority.  So profil runs at nice -10 and the busy processes at +19.
test_expect_success '-p at 20 kHz with stacks, the first process exiting: rings still read' '
	sleep 100 & a=$!
	busy="while :; do :; done"
	nice -n 19 sh -c "$busy" & b1=$!; nice -n 19 sh -c "$busy" & b2=$!
	nice -n 19 sh -c "$busy" & b3=$!; nice -n 19 sh -c "$busy" & b4=$!
	nice -n -10 "$PROFIL" record -g -F 20000 -o fast -p $a,$b1,$b2,$b3,$b4 2> fast.err &
	rec=$!
	sleep 0.5; kill $a; sleep 4; kill -INT $rec; wait $rec; rc=$?
	kill $b1 $b2 $b3 $b4; cat fast.err; test $rc -eq 0 &&
	lost=$(sed -n "s/^profil: \([0-9]*\) samples lost.*/\1/p" fast.err) &&
	samples=$(sed -n "s/^profil: [0-9]* process.*, \([0-9]*\) samples, .*/\1/p" fast.err) &&
	echo "${lost:-0} lost, $samples recorded" &&
	test "$samples" -gt 0 && test $((${lost:-0} * 20)) -le "$samples"
'

test_done
