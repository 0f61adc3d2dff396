#!/bin/sh
# profil record -a: every process of the machine, from one cpu-clock event per CPU, while a
# command runs or until SIGINT.  A program profil did not start is recorded with its split;
# profil itself is not; the command's status is kept; where the kernel refuses (an ordinary
# user under perf_event_paranoid 1 or more) it says what to change and records nothing.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs util-linux:setpriv linux-perf:perf xz-utils:xz

if ! "$PROFIL" record -q -a -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: system-wide perf events refused here (not root, no CAP_PERFMON)"
	test_done
fi

# The split started by the test, not by profil: found by its first sample, named from /proc.
test_expect_success 'a program profil did not start: its split 50/25/15/10' '
	"$REC/split" 5 "$PLUGIN" > split.out & sp=$! &&
	sleep 0.5 &&
	"$PROFIL" record -a -o all -- sleep 3; rc=$?; wait $sp && test $rc -eq 0 &&
	ls all/split.$sp.profil &&
	"$PROFIL" report --tsv --pid $sp all > split.tsv &&
	n=$(awk -F "\t" "\$6 ~ /^[0-9]+\$/ { s += \$6 } END { print s + 0 }" split.tsv) &&
	echo "$n samples of split" && test "$n" -ge 100 &&
	share_ok "$(report_samples split.tsv main_work50)" "$n" 0.50 4 &&
	share_ok "$(report_samples split.tsv lib_work25)" "$n" 0.25 4 &&
	share_ok "$(report_samples split.tsv plugin_work15)" "$n" 0.15 4 &&
	share_ok "$(report_samples split.tsv main_work10)" "$n" 0.10 4
'

# The command runs inside the window: its status is the recording's, its file says it.  The
# recorder, its parent, is in no file.
test_expect_success 'the command: its status kept, and profil itself not recorded' '
	"$PROFIL" record -q -a -o st -- sh -c "echo \$PPID > ppid; echo \$\$ > self; i=0;
		while [ \$i -lt 100000 ]; do i=\$((i + 1)); done; exit 3"; rc=$? &&
	echo "status $rc" && test $rc -eq 3 &&
	p=$(cat ppid) && echo "profil $p, sh $(cat self)" && ls st &&
	! ls st/*.$p.profil 2> /dev/null && test "$(ls st | grep -c "\.$(cat self)\.")" = 1 &&
	"$PROFIL" dump "st/sh.$(cat self).profil" > sh.dump && head -n 2 sh.dump &&
	test "$(dump_field sh.dump code)" = 3
'

test_expect_success 'without a command: until SIGINT' '
	"$PROFIL" record -a -o int > int.out 2> int.err & pid=$! &&
	sleep 1 && kill -INT $pid && wait $pid && cat int.err &&
	grep -q "process\(es\)\?, [0-9]* samples" int.err && ls int/*.profil > /dev/null
'

# --wall: a process that only sleeps, started before, makes no record: it is known from /proc
# alone, and sampled in its wait.  (Of 200 ticks at 100 Hz, fewer on a busy machine: every
# program's unwind tables are built at the first ticks, and a late tick counts ten at most.)
test_expect_success '--wall: a sleeping process started before is sampled in its wait' '
	sleep 30 & sl=$! &&
	sleep 0.3 &&
	"$PROFIL" record -q -a --wall -o wall -- sleep 2; rc=$?; kill $sl; test $rc -eq 0 &&
	"$PROFIL" report --tsv --pid $sl wall > wall.tsv && cat wall.tsv &&
	w=$(report_samples wall.tsv "[wait: clock_nanosleep, sleeping]") && echo "$w waits" &&
	test "$w" -ge 1
'

# The kernel's CPU-wide mmap records with build-ids made Debian's perf 6.1, recording anything
# beside, abort in its build-id code: profil's -a must not break the peer.
test_expect_success 'perf record beside profil record -a runs through' '
	"$PROFIL" record -q -a -o beside -- sleep 3 & rec=$! &&
	sleep 0.5 &&
	perf record -q -e cpu-clock:u -o beside.data -- xz -6 -c "$PROFIL" > /dev/null 2> perf.err
	prc=$?; wait $rec; cat perf.err; echo "perf $prc" && test $prc -eq 0
'

test_expect_success 'usage errors: with -p, with an inside clock' '
	test_expect_code() { "$@"; test $? -eq 2; } &&
	test_expect_code "$PROFIL" record -a -p 1 2> p.err && cat p.err &&
	grep -q "one or the other" p.err &&
	test_expect_code "$PROFIL" record -a --clock timer -- true 2> c.err && cat c.err &&
	grep -q "from outside" c.err
'

# An ordinary user may sample its own processes (paranoid 2), never the whole machine: said,
# with the sysctl and the capability, and nothing is recorded from inside instead.
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	chmod 755 "$TRASH"
	mkdir u && chmod 777 u
	cp "$PROFIL" u/
	test_expect_success 'an ordinary user: refused, naming the sysctl and CAP_PERFMON' '
		setpriv --reuid=65534 --regid=65534 --clear-groups u/profil record -a \
			-o "$TRASH/u/out" -- true 2> nobody.err; rc=$?; cat nobody.err &&
		test $rc -eq 1 && grep -q "perf_event_paranoid" nobody.err &&
		grep -q "CAP_PERFMON" nobody.err && ! test -e u/out
	'
fi
test_done
