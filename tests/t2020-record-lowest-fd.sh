#!/bin/sh
# POSIX open(2): "the file descriptor returned ... shall be the lowest file descriptor not
# currently open for that process".  A program's thread that closes and reopens relies on it
# (a daemon's close(0); open("/dev/null")); the recorder, which re-reads /proc/self/maps after
# every dlopen and dlclose in another thread, must never take that number meanwhile.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'alone: the lowest number every time' '
	"$REC/lowestfd" "$PLUGIN" 20000 > alone.out && grep -x "moved 0" alone.out
'

# Issue 23: "The ring clock takes the program's lowest descriptors, one per thread: with two
# threads the program's first open() returns 4 to 6 instead of 3; under ulimit -n 16 it opens
# 10 files instead of 12."  profil(1): the recorder holds no descriptor in the program's table
# while its thread has a table of its own; the perf clock's own stay, numbered from 100.
test_expect_success 'alone: the first open gets 3, and under ulimit -n 16 so many files' '
	"$REC/firstfd" 3 > alone.out && grep -x "first 3" alone.out &&
	(ulimit -n 16 && "$REC/firstfd" 3 > alone16.out) && cat alone16.out &&
	grep -x "first 3" alone16.out
'
for clock in timer ring perf; do
	for threads in 1 3; do
		test_expect_success "--clock $clock, $threads threads: the first open gets 3" '
			LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/f$clock$threads \
				PROFIL_RECORD_CLOCK=$clock "$REC/firstfd" $threads > f.out &&
			cat f.out && grep -x "first 3" f.out &&
			"$PROFIL" dump f$clock$threads/firstfd.*.profil > f.dump &&
			test "$(dump_total f.dump)" -gt 0
		'
	done
done
for clock in timer ring; do
	test_expect_success "--clock $clock, 3 threads, ulimit -n 16: as many files as alone" '
		(ulimit -n 16 && LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/u$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/firstfd" 3 > u.out) &&
		cat u.out && cmp alone16.out u.out &&
		"$PROFIL" dump u$clock/firstfd.*.profil > u.dump && test "$(dump_total u.dump)" -gt 0
	'
done

for clock in timer ring; do
	test_expect_success "dlopen loop beside it ($clock clock): still the lowest every time" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/d$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/lowestfd" "$PLUGIN" 20000 > r.out &&
		cat r.out && grep -x "moved 0" r.out
	'
done

test_done
