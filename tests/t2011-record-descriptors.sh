#!/bin/sh
# Nothing the recorder does races the program's file descriptors.  Issue 8: "The flusher thread
# started in the fork child opens /proc/self/task on fd 1 right after sh's close(1); sh dup2s
# its redirection onto fd 1; the flusher then closes fd 1 and its temporary profile lands
# there.  The same race leaves 1-7 zero-byte .sh.PID.N.tmp files per run."  Every output of the
# loop must hold the hash of its input, and the output directory only finished profiles.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

N=300
loop='i=1; while [ $i -le '$N' ]; do echo $i | sha256sum > o/$i; i=$((i + 1)); done'

# check_outputs DIR: every o/$i is the hash of "$i\n", and DIR holds no temporary file.
check_outputs() {
	bad=0 i=1
	while [ $i -le $N ]; do
		test "$(cat o/$i)" = "$(echo $i | sha256sum)" || bad=$((bad + 1))
		i=$((i + 1))
	done
	tmp=$(ls -A "$1" | grep -c '\.tmp$')
	echo "$bad of $N outputs wrong, $tmp temporary files left"
	test $bad -eq 0 && test $tmp -eq 0
}

for clock in timer ring; do
	for run in 1 2 3; do
		test_expect_success "sh loop, --clock $clock, run $run: outputs intact, no tmp" '
			rm -rf o d && mkdir o &&
			PROFIL_RECORD_FLUSH_MS=1 LD_PRELOAD=$B/libprofil-record.so \
				PROFIL_RECORD_DIR=$PWD/d PROFIL_RECORD_CLOCK=$clock \
				sh -c "$loop" 2> err; rc=$?; cat err; test $rc -eq 0 &&
			check_outputs d
		'
	done
done

test_done
