#!/bin/sh
# profil(3)'s errors and disable paths, and what it leaves behind: no timer, the program's own
# signal disposition.
. "$(dirname "$0")/lib.sh"
test_run_prog profil_api "$PROGS/profil_api"
test_done
