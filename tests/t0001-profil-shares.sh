#!/bin/sh
# profil(3): "Each bin counts the number of times the program counter was in a particular
# address range ... For a given program counter address, the number of the corresponding bin
# is given by the relation [(pc - offset) / 2] * scale / 65536."  Four functions burn 10, 20, 30
# and 40% of the CPU; the bins of each function's range hold its share within a binomial bound.
. "$(dirname "$0")/lib.sh"

# "A scale of 65536 maps each bin to 2 bytes of address range; a scale of 32768 gives 4 bytes,
# 16384 gives 8 bytes and so on.  Intermediate values provide approximate intermediate ranges."
for scale in 65536 32768 16384 1000; do
	test_run_prog "scale $scale" "$PROGS/split" $scale 1000 auto
done
# "Every virtual 10 milliseconds" on the timer clock: fewer samples, so a longer run.
test_run_prog "100 Hz timer" "$PROGS/split" 65536 100 timer single 0.25
# Every thread on its own CPU clock: four threads, each in its own function, at once.
test_run_prog "threads, perf clock" "$PROGS/split" 65536 1000 perf threads
test_run_prog "threads, timer clock" "$PROGS/split" 32768 1000 timer threads
test_done
