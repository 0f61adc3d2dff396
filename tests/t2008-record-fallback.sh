#!/bin/sh
# Where perf events are refused (seccomp here; perf_event_paranoid 3 or a container elsewhere)
# profil cannot record from outside: it says so in one line and records from inside, where the
# recorder falls back to per-thread CPU timers with a signal, and still gets the profile right.
# Issue 4: "fall back to per-thread CPU timers with a signal where they are not"; issue 8: "the
# fallback used and said when perf events are refused".
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

"$REC/noperf" "$PROFIL" record -q -o fb -- "$REC/split" 1.0 "$PLUGIN" > /dev/null 2> fb.err
"$PROFIL" dump fb/split.*.profil > fb.dump
"$PROFIL" report --tsv fb/split.*.profil > fb.tsv

test_expect_success 'perf events refused: said in one line, then the timer clock inside' '
	cat fb.err && test $(wc -l < fb.err) -eq 1 &&
	grep "^profil: perf events refused (.*kernel.perf_event_paranoid=.*): recording from inside the program: " fb.err &&
	test "$(dump_field fb.dump clock)" = timer
'

# Nothing preloads into a statically linked program: refused with a reason, not a silent run.
test_expect_success 'perf events refused and a static program: a clear error, exit 1' '
	printf "int main(void) { return 0; }\n" | cc -static -x c -o static - &&
	"$REC/noperf" "$PROFIL" record -o st -- ./static > st.out 2> st.err; rc=$?
	cat st.err && test $rc -eq 1 &&
	grep "^profil: a statically linked program cannot be recorded from inside" st.err &&
	! test -e st/static.*.profil
'

test_expect_success '--clock outside where refused: a clear error, exit 1' '
	"$REC/noperf" "$PROFIL" record --clock outside -o fo -- "$REC/exits" exit 0.05 \
		> /dev/null 2> fo.err; test $? -eq 1 && cat fo.err &&
	grep "^profil: perf events refused" fo.err
'

test_expect_success 'the timers'"'"' achieved rate is recorded (capped by the kernel tick)' '
	hz=$(dump_field fb.dump achieved_hz) && echo "achieved $hz Hz" &&
	awk -v hz="$hz" "BEGIN { exit !(hz >= 900 && hz <= 1100) }"
'

# The timers' expirations coalesce at the scheduler tick under load: the bound counts the
# signals (the header's samples), the independent draws, not their ticks.
test_expect_success 'and the split is still right' '
	n=0 && for f in main_work50 lib_work25 plugin_work15 main_work10; do
		n=$((n + $(report_samples fb.tsv $f)))
	done && e=$(dump_field fb.dump samples) &&
	share_ok $(report_samples fb.tsv main_work50) $n 0.50 2 $e &&
	share_ok $(report_samples fb.tsv lib_work25) $n 0.25 2 $e &&
	share_ok $(report_samples fb.tsv plugin_work15) $n 0.15 2 $e &&
	share_ok $(report_samples fb.tsv main_work10) $n 0.10 2 $e
'

test_expect_success '--clock ring where refused: one line, the program runs unprofiled' '
	"$REC/noperf" "$PROFIL" record -q --clock ring -o fr -- "$REC/exits" exit 0.05 \
		> /dev/null 2> fr.err; test $? -eq 7 && cat fr.err &&
	test $(wc -l < fr.err) -eq 1 &&
	grep "^profil: recorder disabled: perf ring buffers refused" fr.err
'

# profil(1): a filter added after profil record forked the command cannot be probed (the
# probe's own clone might be what it kills): the recorder stays off and says why.
test_expect_success 'a filter added after profil record: one line, the program runs unprofiled' '
	"$PROFIL" record -q --clock ring -o fl -- "$REC/noperf" "$REC/exits" exit 0.05 \
		> /dev/null 2> fl.err; test $? -eq 7 && cat fl.err &&
	test $(wc -l < fl.err) -eq 1 &&
	grep "^profil: recorder disabled: a seccomp filter is in force" fl.err
'

test_done
