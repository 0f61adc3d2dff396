#!/bin/sh
# A waiting thread is sampled once per period of wall time at the requested rate, whatever rate
# its process's CPU clock achieved (the in-process timers fall behind under load): a wait's
# ticks are seconds at the requested rate, CPU ticks at the achieved one.  A --wall file whose
# clock achieved 500 Hz of 1000 (tests/export/synth.py wall): 500 CPU ticks are 1 s on a CPU,
# 1000 wait ticks 1 s waiting, in every view that says seconds and in pprof's wall values.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 golang-go:go
PROFIL=$B/profil

python3 "$TEST_DIR/export/synth.py" wall w.profil /bin/true
"$PROFIL" report w.profil > flat.txt 2> /dev/null
"$PROFIL" report --graph w.profil > graph.txt 2> /dev/null

test_expect_success 'flat: 1 s on a CPU and 1 s waiting, the wait row 1 s' '
	cat flat.txt &&
	grep -q "1500 samples, 2.000 seconds of threads.* time: 1.000 on a CPU, 1.000 waiting" flat.txt &&
	grep -q " 1.000 *1000  \[wait: read, sleeping\]" flat.txt
'
test_expect_success 'graph: the wait 1 s of total and of waiting' '
	grep -q "^\[1\] *66.67 *1.000 *1.000 *1.000 *1000 *1000  \[wait: read, sleeping\]" graph.txt
'
test_expect_success 'pprof: wall values of 1 s each, CPU 1 s' '
	"$PROFIL" export -f pprof -o w.pb.gz w.profil 2> /dev/null &&
	go tool pprof -raw w.pb.gz > raw.txt 2> /dev/null && cat raw.txt &&
	grep -q "^ *500 *1000000000 *1000000000:" raw.txt &&
	grep -q "^ *1000 *0 *1000000000:" raw.txt
'
test_done
