#!/bin/sh
# t2102-outside-fuzz: the outside recorder's parser of the kernel's records (tests/fuzz/outside.c,
# built with ASan and UBSan) runs for 10 s on seeds written by tests/fuzz/outside-seeds.py: an
# exec'ed command with mappings, flat and deep samples, a thread, a fork and exec, exits and a
# lost record.  No crash, leak, out-of-bounds read or undefined behaviour, whatever the sizes,
# pids and lengths say.
. "$(dirname "$0")/lib.sh"

python3 "$ROOT/tests/fuzz/outside-seeds.py" corpus
test_expect_success 'the seeds run clean' '
	"$B/tests/fuzz/outside" corpus/* > seeds.log 2>&1 || { tail -n 30 seeds.log; false; }
'
test_expect_success "fuzzing the outside recorder's records: no crash in ${FUZZ_SECONDS_CHECK:-10} s" '
	"$B/tests/fuzz/outside" -max_total_time="${FUZZ_SECONDS_CHECK:-10}" -timeout=10 \
		-rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 -artifact_prefix="$TRASH/" \
		corpus > fuzz.log 2>&1 || { tail -n 40 fuzz.log; false; }
	sed -n "s/^stat::number_of_executed_units: *//p" fuzz.log
'
test_done
