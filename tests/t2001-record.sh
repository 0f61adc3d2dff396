#!/bin/sh
# profil record: runs a command with the recorder preloaded, passes its exit status through,
# and writes <progname>.<pid>.profil into the output directory; the recorder also works
# without the CLI, from its environment alone.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3

test_expect_success 'exit status is the command'"'"'s, profile named <progname>.<pid>.profil' '
	"$PROFIL" record -o out -- "$REC/exits" exit 0.1 > stdout; test $? -eq 7 &&
	ls out > names && test $(wc -l < names) -eq 1 &&
	grep -E "^exits\.[0-9]+\.profil$" names &&
	"$PROFIL" dump out/*.profil > dump &&
	pid=$(dump_field dump pid) && test -f "out/exits.$pid.profil"
'

test_expect_success 'no temporary file is left behind' '
	test -z "$(ls -A out | grep -v "\.profil$")"
'

test_expect_success 'header: requested 1000 Hz by default, achieved rate and exit recorded' '
	test "$(dump_field dump requested_hz)" = 1000 &&
	test "$(dump_field dump exit)" = exit &&
	test "$(dump_field dump progname)" = exits &&
	test "$(dump_field dump exe)" = "$REC/exits" &&
	hz=$(dump_field dump achieved_hz) && awk -v hz="$hz" "BEGIN { exit !(hz > 0) }"
'

test_expect_success 'default output directory is ./profil.out' '
	"$PROFIL" record -- "$REC/exits" return 0.05 > /dev/null; test $? -eq 9 &&
	ls profil.out/exits.*.profil
'

test_expect_success 'default clock: from outside where perf events are allowed' '
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) &&
	if [ "$paranoid" -le 2 ] || [ "$(id -u)" -eq 0 ]; then
		test "$(dump_field dump clock)" = outside
	else test "$(dump_field dump clock)" != outside; fi
'

test_expect_success '--clock timer -F 100: per-thread CPU timers, 100 Hz recorded' '
	"$PROFIL" record --clock timer -F 100 -o f100 -- "$REC/exits" exit 0.3 > /dev/null
	test $? -eq 7 &&
	"$PROFIL" dump f100/*.profil > d100 &&
	test "$(dump_field d100 requested_hz)" = 100 && test "$(dump_field d100 clock)" = timer &&
	n=$(dump_total d100) && test "$n" -ge 20 && test "$n" -le 45
'

test_expect_success '--clock perf: perf events with a signal per sample' '
	"$PROFIL" record --clock perf -o fperf -- "$REC/exits" exit 0.3 > /dev/null
	test $? -eq 7 &&
	"$PROFIL" dump fperf/*.profil > dperf && test "$(dump_field dperf clock)" = perf &&
	n=$(dump_total dperf) && test "$n" -ge 250
'

test_expect_success '-F 5000 samples at 5 kHz' '
	"$PROFIL" record -F 5000 -o f5k -- "$REC/exits" exit 0.3 > /dev/null; test $? -eq 7 &&
	"$PROFIL" dump f5k/*.profil > d5k &&
	test "$(dump_field d5k requested_hz)" = 5000 &&
	n=$(dump_total d5k) && test "$n" -ge 1000
'

test_expect_success 'a rate outside 1..20000 Hz is a usage error' '
	"$PROFIL" record -F 20001 -- true 2> err; test $? -eq 2 &&
	grep "profil: rate must be 1 to 20000 Hz: '"'"'20001'"'"'" err &&
	"$PROFIL" record -F 0 -- true 2> /dev/null; test $? -eq 2
'

test_expect_success 'no command, unknown option: usage errors' '
	"$PROFIL" record 2> /dev/null; test $? -eq 2 &&
	"$PROFIL" record --bogus -- true 2> /dev/null; test $? -eq 2 &&
	"$PROFIL" record --clock sundial -- true 2> /dev/null; test $? -eq 2
'

test_expect_success 'a command that cannot be run: 127 and a message' '
	"$PROFIL" record -o nx -- ./no-such-program 2> err; test $? -eq 127 &&
	grep "cannot run command" err
'

test_expect_success 'a command killed by a signal: reported, exit 128+N' '
	"$PROFIL" record -o killed -- "$REC/exits" term 0.05 > /dev/null 2> err; test $? -eq 143 &&
	grep "profil: command killed by signal 15 (SIGTERM): '"'"'$REC/exits'"'"'" err
'

test_expect_success 'the recorder alone: LD_PRELOAD and PROFIL_RECORD_* without the CLI' '
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/env PROFIL_RECORD_HZ=200 \
		"$REC/exits" exit 0.2 > /dev/null; test $? -eq 7 &&
	"$PROFIL" dump env/exits.*.profil > denv &&
	test "$(dump_field denv requested_hz)" = 200 && test "$(dump_total denv)" -ge 20
'

test_expect_success 'an output directory that cannot be created: one line, the program runs on' '
	: > notadir &&
	LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/notadir/sub \
		"$REC/exits" exit 0.01 > /dev/null 2> err; test $? -eq 7 &&
	test $(wc -l < err) -eq 1 && grep "^profil: recorder disabled" err
'

test_expect_success 'a truncated profile is refused by name, never half-read' '
	f=$(ls out/*.profil) && size=$(wc -c < "$f") &&
	head -c $((size - 3)) "$f" > cut.profil &&
	"$PROFIL" dump cut.profil > /dev/null 2> err; test $? -eq 1 &&
	grep "truncated" err && grep "cut.profil" err
'

# User space alone: the kernel's pcs (interrupts landing anywhere in it) keep adding keys.  The
# TIME records grow with time, by 16 bytes a tick at most, to a bound (t2132): left out here.
test_expect_success 'the file grows with distinct stacks, not with time (but for its times)' '
	"$PROFIL" record --user-only -o short -- "$REC/exits" exit 0.2 > /dev/null
	"$PROFIL" record --user-only -o long -- "$REC/exits" exit 1.6 > /dev/null
	python3 "$TEST_DIR/timecheck.py" --strip short/*.profil short.untimed &&
	python3 "$TEST_DIR/timecheck.py" --strip long/*.profil long.untimed &&
	s=$(wc -c < short.untimed) && l=$(wc -c < long.untimed) &&
	t=$(cat long/*.profil | wc -c) && "$PROFIL" dump long/*.profil > long.dump &&
	n=$(dump_total long.dump) &&
	echo "0.2 s: $s bytes, 1.6 s: $l bytes, $t with the times of $n ticks" &&
	test $((l * 10)) -le $((s * 15)) && test $((t - l)) -le $((16 * n + 1024))
'

# accounted DUMP: every tick is in a sample record or counted as dropped, exactly.
accounted() {
	n=$(dump_total "$1") && d=$(dump_field "$1" dropped) && t=$(dump_field "$1" ticks) &&
	r=$(grep -c "^sample" "$1") &&
	echo "$r records: $n counted + $d dropped of $t ticks" && test $((n + d)) -eq "$t"
}

# More distinct stacks than the table holds prove it spilled.  The timer clock's signals come
# at most at the kernel's tick, fewer still on a busy machine: its loop runs three times longer.
test_expect_success 'memory stays bounded: a 64-entry table spills, and no tick is lost' '
	for clock in ring perf timer; do
		n=300000 && test $clock = timer && n=900000
		PROFIL_RECORD_ENTRIES=64 "$PROFIL" record -g --clock $clock -o small$clock -- \
			sh -c "i=0; while [ \$i -lt $n ]; do i=\$((i + 1)); done" &&
		"$PROFIL" dump small$clock/*.profil > small.dump && accounted small.dump &&
		test "$(grep -c "^sample" small.dump)" -gt 64 || return 1
	done
'

test_expect_success 'spilling while four threads add at 10 kHz loses nothing' '
	PROFIL_RECORD_ENTRIES=64 "$PROFIL" record -g --clock perf -F 10000 -o spill4 -- \
		"$REC/threads" 0.8 > /dev/null &&
	"$PROFIL" dump spill4/*.profil > spill4.dump && accounted spill4.dump &&
	test "$(dump_field spill4.dump dropped)" -eq 0 &&
	test -z "$(ls -A spill4 | grep -v "\.profil$")"
'

# The perf clock keeps a descriptor per thread (the tick re-enables its event through it); the
# ring clock keeps none, so a low RLIMIT_NOFILE refuses it nothing.
test_expect_success 'threads whose clock is refused (RLIMIT_NOFILE) are counted and reported' '
	sh -c "ulimit -n 6 && exec \"\$0\" \"\$@\"" \
		"$PROFIL" record --clock perf -o nofile -- "$REC/threads" 0.1 > /dev/null \
		2> nofile.err
	cat nofile.err && grep "^profil: threads left unsampled" nofile.err &&
	"$PROFIL" dump nofile/*.profil > nofile.dump &&
	test "$(dump_field nofile.dump thread_failures)" -gt 0
'

# From outside, profil needs descriptors of its own (one per CPU) but the command gets the limit
# it was given: the program sees a soft RLIMIT_NOFILE of 6 and every thread is sampled.
test_expect_success 'outside: a low RLIMIT_NOFILE is the command'"'"'s, not a limit on profil' '
	sh -c "ulimit -Sn 6 && exec \"\$0\" \"\$@\"" \
		"$PROFIL" record -o nofile2 -- sh -c "ulimit -n; exec \"\$0\" 0.2" \
		"$REC/threads" > nofile2.out 2> nofile2.err
	cat nofile2.err && test "$(head -n 1 nofile2.out)" = 6 &&
	"$PROFIL" dump nofile2/threads.*.profil > nofile2.dump &&
	test "$(grep -c "^thread " nofile2.dump)" -ge 5
'

test_expect_success 'the README'"'"'s first command: the bundled demo, recorded, 60/30/10' '
	"$PROFIL" record -o demo -- "$B/demo" 1 > /dev/null &&
	"$PROFIL" report --tsv demo > demo.tsv &&
	n=$(awk -F "\t" "NR > 1 && \$7 ~ /^(compute_model|parse_input|write_output)\$/ { s += \$6 }
		END { print s }" demo.tsv) &&
	share_ok $(report_samples demo.tsv compute_model) $n 0.60 2 &&
	share_ok $(report_samples demo.tsv parse_input) $n 0.30 2 &&
	share_ok $(report_samples demo.tsv write_output) $n 0.10 2
'

test_done
