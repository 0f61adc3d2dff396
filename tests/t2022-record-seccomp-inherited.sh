#!/bin/sh
# A seccomp filter in force from exec, as systemd's SystemCallFilter= installs it, never kills
# the program for a call of the recorder's.  Issue 23: "Started under a seccomp filter installed
# before exec ... that kills unshare, clone3, timer_create (timer clock) or perf_event_open
# (ring clock), the program dies of SIGSYS at start-up: exit status 3 alone, 159 under profil".
# profil(1): the recorder probes each call it needs in a child process first; where a call
# would be killed it does without it, or records nothing, and says so in one line.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

"$REC/seclaunch" timer_create process "$REC/exit3" 0.1 > probe.out 2>&1
if [ $? -ne 3 ]; then
	cat probe.out
	echo "ok - inherited seccomp filters # SKIP no seccomp filters here"
	test_done
fi

# SYSCALL:CLOCK:what the recorder does (works: a profile and a line; off: the line alone).
for run in unshare:timer:works unshare:perf:works unshare:ring:works \
    clone3:timer:works clone3:perf:works clone3:ring:off \
    timer_create:timer:off perf_event_open:perf:off perf_event_open:ring:off; do
	call=${run%%:*} rest=${run#*:} clock=${rest%%:*} does=${rest#*:}
	for kill in process thread; do
		test_expect_success "kill $kill on $call, --clock $clock: status 3, one line" '
			d=$PWD/$call$clock$kill &&
			"$REC/seclaunch" $call $kill "$PROFIL" record -q --clock $clock -o $d -- \
				"$REC/exit3" 0.3 > s.out 2> s.err
			rc=$? && echo "status $rc" && cat s.out s.err && test $rc -eq 3 &&
			grep -x done s.out && test "$(wc -l < s.err)" -eq 1 &&
			grep "^profil: .*a seccomp filter kills $call" s.err &&
			if [ $does = works ]; then
				"$PROFIL" dump $d/exit3.*.profil > s.dump &&
				test "$(dump_field s.dump clock)" = $clock &&
				test "$(dump_total s.dump)" -gt 0
			else
				grep "recorder disabled" s.err && test -z "$(ls $d)"
			fi
		'
	done
done

# The calls a clock does not use are no concern of it: nothing said, the profile written.
for run in timer_create:perf timer_create:ring perf_event_open:timer; do
	call=${run%%:*} clock=${run#*:}
	test_expect_success "kill on $call, --clock $clock: status 3, nothing said" '
		d=$PWD/n$call$clock &&
		"$REC/seclaunch" $call process "$PROFIL" record -q --clock $clock -o $d -- \
			"$REC/exit3" 0.3 > n.out 2> n.err
		rc=$? && echo "status $rc" && cat n.err && test $rc -eq 3 && ! test -s n.err &&
		"$PROFIL" dump $d/exit3.*.profil > n.dump && test "$(dump_total n.dump)" -gt 0
	'
done

# A filter that allows only thread clones (minijail's "clone: arg0 & CLONE_THREAD", clone3
# answered ENOSYS) added after profil record forked: a probe's clone would be killed, so the
# recorder stays off, says so in one line, and the program runs as it does alone.
test_expect_success 'clones of threads alone, filter added under profil record: status 0' '
	"$REC/seclaunch" clone threadonly "$REC/threads" 0.3 > /dev/null 2> a.err &&
	! test -s a.err &&
	"$PROFIL" record -q --clock timer -o $PWD/thr -- "$REC/seclaunch" clone threadonly \
		"$REC/threads" 0.3 > t.out 2> t.err
	rc=$? && echo "status $rc" && cat t.err && test $rc -eq 0 &&
	test "$(wc -l < t.err)" -eq 1 &&
	grep "^profil: recorder disabled: a seccomp filter is in force" t.err
'

# With a bare LD_PRELOAD nothing vouches that a clone survives the filter (the probe's own
# clone may be what it kills): the recorder stays off and says so in one line.
test_expect_success 'bare LD_PRELOAD under a filter: status 3, recorder off, one line' '
	"$REC/seclaunch" perf_event_open process env LD_PRELOAD=$B/libprofil-record.so \
		PROFIL_RECORD_CLOCK=ring PROFIL_RECORD_DIR=$PWD/bare "$REC/exit3" 0.2 \
		> b.out 2> b.err
	rc=$? && echo "status $rc" && cat b.err && test $rc -eq 3 &&
	test "$(wc -l < b.err)" -eq 1 &&
	grep "^profil: recorder disabled: a seccomp filter is in force" b.err && ! test -e bare
'

test_done
