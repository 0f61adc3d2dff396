#!/bin/sh
# Errors a script can see, from inside.  Issue 23: "on a full disk the in-process recorder says
# 'cannot write profile' and exits 0 (the outside recorder exits 1)", and "the fallback says
# perf_event_paranoid refused perf events when a seccomp filter did".  profil(1): a profile
# that cannot be written makes the status 1 where the command's is 0, with the error; with a
# bare LD_PRELOAD the program's status stays its own.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 util-linux:setpriv

full=$PWD/full
mkdir "$full"
if ! mount -t tmpfs -o size=64k tmpfs "$full" 2> mount.err; then
	cat mount.err
	echo "ok - full disk # SKIP cannot mount a tmpfs here (not root?)"
else
	trap 'umount "$full" 2>/dev/null; rm -rf "$TRASH"' EXIT
	# Every block taken: the profile's first write fails, whatever its size.
	dd if=/dev/zero of="$full/fill" bs=4k 2> /dev/null
	for clock in timer perf ring; do
		test_expect_success "full disk, --clock $clock: status 1, No space left on device" '
			"$PROFIL" record -q --append --clock $clock -o "$full" -- \
				"$REC/smallalt" 65536 0.2 \
				> f.out 2>> f$clock.err
			rc=$? && echo "status $rc" && cat f.out f$clock.err && test $rc -eq 1 &&
			grep -x done f.out &&
			grep "^profil: cannot write profile (No space left on device): .*smallalt" \
				f$clock.err
		'
	done
	test_expect_success 'full disk, a command that exits 3: its status, the error said' '
		"$PROFIL" record -q --append --clock timer -o "$full" -- "$REC/exit3" 0.2 \
			> /dev/null 2>> t.err
		rc=$? && echo "status $rc" && cat t.err && test $rc -eq 3 &&
		grep "No space left on device" t.err
	'
	test_expect_success 'full disk, bare LD_PRELOAD: status 0 as alone, the line said' '
		LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$full PROFIL_RECORD_CLOCK=timer \
			"$REC/smallalt" 65536 0.2 > /dev/null 2>> b.err
		rc=$? && echo "status $rc" && cat b.err && test $rc -eq 0 &&
		grep "^profil: cannot write profile: .*: No space left on device" b.err
	'
	test_expect_success 'room again: status 0, nothing said' '
		rm "$full/fill" &&
		"$PROFIL" record -q --append --clock timer -o "$full" -- \
			"$REC/smallalt" 65536 0.2 \
			> /dev/null 2> r.err
		rc=$? && echo "status $rc" && cat r.err && test $rc -eq 0 && ! test -s r.err
	'
fi

# The report socket's abstract name is in /proc/net/unix for every user to see: a datagram
# from another user, saying a profile could not be written, is not believed.
test_expect_success 'another user cannot make profil record fail: its reports are not believed' '
	{ "$PROFIL" record -q --clock timer -o spoof -- sleep 1.5 2> s.err; echo $? > s.rc; } &
	sleep 0.7 && name=$(sed -n "s/.* @\(profil-record\.[0-9]*\.[0-9a-f]*\)$/\1/p" \
		/proc/net/unix | head -n 1) && echo "socket $name" && test -n "$name" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b\"28 /spoofed/by/nobody\", \"\\0\" + sys.argv[1])" "$name" &&
	wait && cat s.err && test "$(cat s.rc)" -eq 0 && ! grep -q spoofed s.err
'

# A seccomp filter that refuses perf events is named as the cause, not perf_event_paranoid.
"$REC/seclaunch" perf_event_open errno "$REC/exit3" 0.1 > probe.out 2>&1
if [ $? -ne 3 ]; then
	cat probe.out
	echo "ok - seccomp filters # SKIP no seccomp filters here"
	test_done
fi
test_expect_success 'perf_event_open refused by a filter (EPERM): the filter is the cause' '
	"$REC/seclaunch" perf_event_open errno "$PROFIL" record -o eperm -- "$REC/exit3" 0.2 \
		> /dev/null 2> e.err
	rc=$? && echo "status $rc" && cat e.err && test $rc -eq 3 &&
	grep "^profil: perf events refused by a seccomp filter (Operation not permitted)" e.err &&
	! grep perf_event_paranoid e.err && "$PROFIL" dump eperm/exit3.*.profil > e.dump &&
	test "$(dump_total e.dump)" -gt 0
'
test_expect_success 'perf_event_open killed by a filter: profil lives, the filter is the cause' '
	"$REC/seclaunch" perf_event_open process "$PROFIL" record -o kill -- "$REC/exit3" 0.2 \
		> /dev/null 2> k.err
	rc=$? && echo "status $rc" && cat k.err && test $rc -eq 3 &&
	grep "^profil: perf events refused (a seccomp filter kills perf_event_open)" k.err &&
	! grep perf_event_paranoid k.err && "$PROFIL" dump kill/exit3.*.profil > k.dump &&
	test "$(dump_field k.dump clock)" = timer && test "$(dump_total k.dump)" -gt 0
'

test_done
