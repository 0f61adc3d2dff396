#!/bin/sh
# No harm to the profiled program.  Linux profil(3): "profil() cannot be used on a program that
# also uses interval timers" -- ours can.  And no EINTR in blocking calls.
. "$(dirname "$0")/lib.sh"
test_run_prog "own timer first" "$PROGS/own_timer" first
test_run_prog "own timer last" "$PROGS/own_timer" last
test_run_prog "eintr 1 kHz" "$PROGS/eintr" 1000
test_run_prog "eintr 100 Hz" "$PROGS/eintr" 100
test_done
