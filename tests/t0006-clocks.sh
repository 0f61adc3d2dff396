#!/bin/sh
# The engine's clocks: per-thread CPU timers up to 100 Hz, perf events above, the achieved rate
# reported, and a clean fall back when perf events are refused.
. "$(dirname "$0")/lib.sh"
test_run_prog clocks "$PROGS/clocks"
test_run_prog "clocks without perf events" "$PROGS/clocks" noperf
test_done
