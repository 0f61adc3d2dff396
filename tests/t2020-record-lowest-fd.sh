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

for clock in timer ring; do
	test_expect_success "dlopen loop beside it ($clock clock): still the lowest every time" '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/d$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/lowestfd" "$PLUGIN" 20000 > r.out &&
		cat r.out && grep -x "moved 0" r.out
	'
done

test_done
