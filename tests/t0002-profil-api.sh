#!/bin/sh
# profil(3)'s errors and disable paths, and what it leaves behind: no timer, the program's own
# signal disposition; and a disable that returns after a tick faulted for good.
. "$(dirname "$0")/lib.sh"
test_run_prog profil_api "$PROGS/profil_api"
# A tick that faults and is left by the program's siglongjmp: disabling still returns.
test_run_prog tick_fault timeout -s KILL 60 "$PROGS/tick_fault"
test_done
