#!/bin/sh
# Under RLIMIT_AS the recorder takes little of the program's address space, and gives it all
# back when it gives up.  Issue 8: "Under RLIMIT_AS the recorder takes 37 MB of the program's
# address space with -g, and keeps its first table on failure."  The test program maps 1 MiB
# blocks until mmap fails; the recorder may cost it the tables (about 1 MiB flat, 5 MiB with
# stacks), its two threads' stacks and its own code: 12 blocks at most.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

LIMIT=200000	# KiB
alone=$( (ulimit -v $LIMIT && "$REC/asgrab") | sed -n "s/^blocks //p")
echo "# alone: $alone blocks under ulimit -v $LIMIT"

for run in timer:0 timer:1 ring:1; do
	clock=${run%:*} stacks=${run#*:}
	test_expect_success "--clock $clock, stacks $stacks: at most 12 blocks fewer than alone" '
		got=$( (ulimit -v $LIMIT && LD_PRELOAD=$B/libprofil-record.so \
			PROFIL_RECORD_DIR=$PWD/d PROFIL_RECORD_CLOCK=$clock \
			PROFIL_RECORD_STACKS=$stacks "$REC/asgrab") 2> g.err | sed -n "s/^blocks //p") &&
		cat g.err && echo "alone $alone, recorded $got" && ! test -s g.err &&
		test "$got" -ge $((alone - 12))
	'
done

# 2^22 entries: the first table (160 MiB) fits under the limit, the second does not.
test_expect_success 'tables that do not fit: one line, and every block back to the program' '
	got=$( (ulimit -v $LIMIT && LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/f \
		PROFIL_RECORD_CLOCK=timer PROFIL_RECORD_ENTRIES=4194304 "$REC/asgrab") 2> f.err |
		sed -n "s/^blocks //p") &&
	cat f.err && echo "alone $alone, recorded $got" &&
	grep "^profil: recorder disabled: cannot map memory" f.err && test "$got" -ge $((alone - 12))
'

test_done
