#!/bin/sh
# pcsample(2): "Like profil(), sampling continues across a call to fork(2)"; the child keeps its
# own copy.  And the profiling signal is blocked in the forking thread across fork.
. "$(dirname "$0")/lib.sh"
test_run_prog "fork profil" "$PROGS/fork" profil
test_run_prog "fork pcsample" "$PROGS/fork" pcsample
test_run_prog "fork blocks the signal" "$PROGS/bigfork" 256 "$B/libprofil.so"
test_done
