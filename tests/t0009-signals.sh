#!/bin/sh
# The program keeps its signals, its descriptors and its children: what the engine takes it
# hides behind the program's own view (an interposed sigaction and signal), gives back when the
# program claims it, and never leaves a fork child waiting on a handler of another thread.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3
test_run_prog signals "$PROGS/signals" "$B/libprofil.so"
test_run_prog "fork+exec under ticks" "$PROGS/forkexec" "$PROGS/spin" 300
# CPython installs its KeyboardInterrupt handler only where it finds SIGINT at SIG_DFL; the
# recorder's exit path catches SIGINT, and must still show SIG_DFL so Ctrl-C stays Python's.
test_expect_success 'under profil record, python3 still owns SIGINT' '
	"$B/profil" record -o out -- python3 -c "import signal; print(signal.getsignal(signal.SIGINT))" > py.txt &&
	cat py.txt && grep -q default_int_handler py.txt
'
test_expect_success 'and Ctrl-C raises KeyboardInterrupt, which the program catches' '
	timeout -s KILL 60 "$B/profil" record -o out -- python3 -c "
import os, signal
try:
    os.kill(os.getpid(), signal.SIGINT)
    signal.pause()
except KeyboardInterrupt:
    print(\"caught\")
" > py2.txt && grep -q caught py2.txt
'
test_done
