#!/bin/sh
# pcsample(2): return values, stop when full, stop with nsamples 0, EINVAL, EFAULT, from a
# signal handler, every thread; across fork in t0004, across exec in t0005.
. "$(dirname "$0")/lib.sh"
test_run_prog pcsample "$PROGS/pcsample"
test_done
