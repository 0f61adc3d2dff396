#!/bin/sh
# A mapping whose file was deleted shows as "<path> (deleted)" in /proc/self/maps; the recorder
# never opens that name as a file (a FIFO planted there would block the program at exit), and
# opens what it reads for build-ids without blocking, regular files only.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

for clock in timer ring; do
	test_expect_success "a FIFO named after a deleted library ($clock clock): no hang" '
		cp "$PLUGIN" "$PWD/plugin.so" &&
		timeout -s KILL 20 env LD_PRELOAD=$B/libprofil-record.so \
			PROFIL_RECORD_DIR=$PWD/d$clock PROFIL_RECORD_CLOCK=$clock \
			"$REC/deleted" "$PWD/plugin.so" > f.out 2> f.err
		rc=$? && echo "status $rc" && cat f.out f.err && test $rc -eq 0 &&
		rm -f "$PWD/plugin.so (deleted)" &&
		"$PROFIL" dump d$clock/deleted.*.profil > f.dump &&
		test "$(dump_field f.dump exit)" = exit
	'
done

test_done
