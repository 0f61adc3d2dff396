#!/bin/sh
# profil top: the hottest functions of running programs, redrawn in place on a terminal, from
# the outside recorder.  On a known split the interval's shares are right, by self and (-g) by
# total; --only keeps one process's rows; where perf events are refused, a command is watched
# from inside; on a real terminal
# (tmux) the table appears within seconds, t splits it by thread and q quits, leaving the
# terminal as it was; a command that ends first leaves the table of its whole run; the private
# recording is removed; bad arguments are said.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs tmux:tmux

if ! "$PROFIL" record -q --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (profil top records from outside)"
	test_done
fi
mkdir tmp
export TMPDIR="$TRASH/tmp"

# row_samples FILE FUNCTION: the interval's samples of FUNCTION's row (fourth field from the end).
row_samples() {
	awk -v fn="$2" 'NF >= 4 && $(NF - 1) == fn { s += $(NF - 3) } END { print s + 0 }' "$1"
}

test_expect_success '--once -p: the interval'"'"'s split 50/25/15/10, its samples said' '
	"$REC/split" 4 "$PLUGIN" > /dev/null & sp=$! &&
	sleep 0.3 &&
	"$PROFIL" top --once -d 1.5 -p $sp > once.txt; rc=$?; kill $sp; wait $sp
	cat once.txt && test $rc -eq 0 &&
	n=$(sed -n "s/^profil top: 1 process, \([0-9]*\) samples in the last .*/\1/p" once.txt) &&
	test "$n" -ge 100 &&
	share_ok "$(row_samples once.txt main_work50)" "$n" 0.50 4 &&
	share_ok "$(row_samples once.txt lib_work25)" "$n" 0.25 4 &&
	share_ok "$(row_samples once.txt plugin_work15)" "$n" 0.15 4 &&
	share_ok "$(row_samples once.txt main_work10)" "$n" 0.10 4 &&
	test -z "$(ls -A tmp)"
'

test_expect_success '-g --sort total: main on every stack, each worker its share' '
	"$REC/split" 4 "$PLUGIN" > /dev/null & sp=$! &&
	sleep 0.3 &&
	"$PROFIL" top --once -g --sort total -d 1.5 -p $sp > total.txt; rc=$?; kill $sp; wait $sp
	cat total.txt && test $rc -eq 0 &&
	grep -q "samples in the last .*, by total$" total.txt &&
	n=$(sed -n "s/^profil top: 1 process, \([0-9]*\) samples in the last .*/\1/p" total.txt) &&
	test "$n" -ge 100 &&
	test "$(row_samples total.txt main)" -ge $((n * 99 / 100)) &&
	share_ok "$(row_samples total.txt main_work50)" "$n" 0.50 4 &&
	share_ok "$(row_samples total.txt plugin_work15)" "$n" 0.15 4
'

test_expect_success '--only PID: the rows of one of two processes' '
	"$REC/split" 4 "$PLUGIN" > /dev/null & a=$!
	"$REC/threads" 4 > /dev/null & b=$!
	sleep 0.3
	"$PROFIL" top --once --only $b -d 1 -p $a,$b > only.txt; rc=$?
	"$PROFIL" top --once -d 1 -p $a,$b > both.txt; kill $a $b; wait $a $b
	cat only.txt && test $rc -eq 0 &&
	grep -q "^profil top: 1 process," only.txt &&
	test "$(row_samples only.txt main_work50)" -eq 0 &&
	test "$(row_samples only.txt thread_work40)" -gt 0 &&
	test "$(row_samples both.txt main_work50)" -gt 0 &&
	test "$(row_samples both.txt thread_work40)" -gt 0
'

# Where perf events are refused (a seccomp filter: tests/record/noperf), a command is watched
# from inside it: the recorder there rewrites its profile about once a second.
test_expect_success 'perf events refused: a command from inside, said; -p refused' '
	"$REC/noperf" "$PROFIL" top --once -d 2.5 -- "$REC/split" 4 "$PLUGIN" > in.txt 2> in.err
	cat in.txt in.err &&
	grep -q "^profil: perf events refused (.*): recording from inside the program" in.err &&
	n=$(sed -n "s/^profil top: 1 process, \([0-9]*\) samples in the last .*/\1/p" in.txt) &&
	test "$n" -ge 100 &&
	share_ok "$(row_samples in.txt main_work50)" "$n" 0.50 4 &&
	share_ok "$(row_samples in.txt plugin_work15)" "$n" 0.15 4 &&
	"$REC/split" 2 "$PLUGIN" > /dev/null & sp=$!
	"$REC/noperf" "$PROFIL" top --once -p $sp > /dev/null 2> inp.err; rc=$?
	kill $sp; wait $sp; cat inp.err && test $rc -eq 1 &&
	grep -q "^profil: perf events refused (.*): -p records from outside" inp.err &&
	test -z "$(ls -A tmp)"
'

test_expect_success 'a command that ends first: the table of its whole run, its status' '
	"$PROFIL" top -d 60 -- sh -c "\"$REC/split\" 1 \"$PLUGIN\" > /dev/null; exit 5" > cmd.txt
	rc=$?; cat cmd.txt && test $rc -eq 5 &&
	grep -q "^profil top: .* samples in all" cmd.txt &&
	test "$(row_samples cmd.txt main_work50)" -gt 0 && test -z "$(ls -A tmp)"
'

# A real terminal: tmux runs top beside a program of four named threads, the pane is read back.
# tmux needs a pseudo-terminal: a chroot without /dev/pts has none, and says so.
if ! tmux -S "$TRASH/probe.sock" new-session -d -x 80 -y 24 "sleep 1" 2> tmux.err; then
	cat tmux.err
	echo "ok - skipped: tmux cannot open a pseudo-terminal here (/dev/pts)"
else
tmux -S "$TRASH/probe.sock" kill-server 2> /dev/null
test_expect_success 'on a terminal: drawn within seconds, t splits by thread, q quits' '
	"$REC/threads" 30 > /dev/null & tp=$! &&
	sock="$TRASH/tmux.sock" &&
	tmux -S "$sock" new-session -d -x 120 -y 30 \
		"\"$PROFIL\" top -d 0.5 -p $tp; echo top-exit=\$?; sleep 60" &&
	shown=0 && for i in $(seq 50); do
		sleep 0.2
		tmux -S "$sock" capture-pane -p > pane.txt
		grep -q "thread_work40 " pane.txt && shown=1 && break
	done
	cat pane.txt && test $shown -eq 1 && grep -q "q quits" pane.txt &&
	tmux -S "$sock" send-keys t && split=0 && for i in $(seq 30); do
		sleep 0.2
		tmux -S "$sock" capture-pane -p > pane2.txt
		grep -q "  tid  " pane2.txt && split=1 && break
	done
	cat pane2.txt && test $split -eq 1 &&
	tmux -S "$sock" send-keys q && quit=0 && for i in $(seq 30); do
		sleep 0.2
		tmux -S "$sock" capture-pane -p > pane3.txt
		grep -q "^top-exit=0" pane3.txt && quit=1 && break
	done
	tmux -S "$sock" kill-server; kill $tp; wait $tp
	cat pane3.txt && test $quit -eq 1 && ! grep -q "thread_work" pane3.txt &&
	test -z "$(ls -A tmp)"
'
fi

test_expect_success 'bad arguments: said, exit 2; a process that does not exist: exit 1' '
	test_code() { want=$1; shift; "$@" > /dev/null 2>> bad.err; test $? -eq $want; } &&
	test_code 2 "$PROFIL" top &&
	test_code 2 "$PROFIL" top -p 1 -a &&
	test_code 2 "$PROFIL" top -d 0 -p 1 &&
	test_code 2 "$PROFIL" top -n x -p 1 &&
	test_code 2 "$PROFIL" top --sort total -p 1 &&
	test_code 2 "$PROFIL" top --sort size -g -p 1 &&
	test_code 2 "$PROFIL" top --only 0 -p 1 &&
	test_code 2 "$PROFIL" top -g --sort total --tid 5 -p 1 &&
	grep -q "needs -g" bad.err &&
	test_code 1 "$PROFIL" top -p 4194303 && cat bad.err &&
	grep -q "cannot attach (no such process)" bad.err && test -z "$(ls -A tmp)"
'
test_done
