#!/bin/sh
# chroot(2) and chdir(2) after start change nothing: the output directory is held open from
# the start and files are made relative to it.  Issue 8: "chroot after start loses everything,
# even the samples before it."
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

mkdir root
# As root the program calls chroot itself; elsewhere a user namespace makes it root.
run=""
"$REC/chroot" root 0 > probe.out 2>&1
if [ $? -eq 77 ]; then
	if unshare -r true 2> /dev/null; then
		run="unshare -r"
	else
		echo "ok - chroot after start # SKIP neither root nor user namespaces"
		test_done
	fi
fi

for clock in timer ring; do
	test_expect_success "chroot after start ($clock clock): the whole profile, exit kind exit" '
		$run env LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$PWD/d$clock \
			PROFIL_RECORD_CLOCK=$clock "$REC/chroot" "$PWD/root" 0.4 \
			> c.out 2> c.err
		rc=$? && echo "status $rc" && cat c.out c.err && test $rc -eq 0 &&
		! test -s c.err && ! ls -A root | grep . &&
		"$PROFIL" dump d$clock/chroot.*.profil > c.dump &&
		test "$(dump_field c.dump exit)" = exit &&
		cpu=$(sed -n "s/^cpu //p" c.out) && n=$(dump_total c.dump) &&
		hz=$(dump_field c.dump achieved_hz) && echo "cpu $cpu s, $n samples at $hz Hz" &&
		awk -v c="$cpu" -v n="$n" -v hz="$hz" "BEGIN { exit !(n >= 0.9 * c * hz - 2) }"
	'
done

test_done
