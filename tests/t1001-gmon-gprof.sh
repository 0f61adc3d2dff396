#!/bin/sh
# The gmon runtime with a real -pg program read by the real GNU gprof: shares of the flat
# profile against the CPU time the program measured itself, exact call counts, the rate in the
# header, PIE and non-PIE executables.
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof
. "$TEST_DIR/pg/gmon.sh"

test_expect_success 'the test program is a PIE (gprof needs addresses relative to its base)' '
	readelf -h "$PG/gmon-work" | grep -q "Type:.*DYN" &&
	readelf -h "$PG/nopie-gmon-work" | grep -q "Type:.*EXEC"
'

mkdir hz100 && (cd hz100 && exec "$PG/gmon-work" flat 800) &
pid=$!
wait $pid
rc=$?
f=$(gmon_file hz100)

# OpenBSD profil(2): "The kernel then constructs a pathname gmon.progname.pid.out".
test_expect_success 'the profile is gmon.<progname>.<pid>.out, and glibc wrote no gmon.out' '
	test $rc -eq 0 && test "$f" = "hz100/gmon.gmon-work.$pid.out" && ! test -e hz100/gmon.out
'

test_expect_success 'the file is GNU gmon format version 1, mode 0600' '
	test "$(head -c 4 "$f")" = gmon &&
	test "$(od -An -tu4 -j4 -N4 "$f" | tr -d " ")" = 1 &&
	test "$(stat -c %a "$f")" = 600
'

# profil(2): "The frequency of the profiling clock is recorded in the header".
test_expect_success 'gprof reads the default rate of 100 Hz from the header' '
	gprof -b -p "$PG/gmon-work" "$f" | grep -q "Each sample counts as 0.01 seconds"
'

test_expect_success 'the call graph shows exact counts: counted 1000, thrice 3' '
	test "$(gmon_calls "$PG/gmon-work" "$f" counted)" = 1000 &&
	test "$(gmon_calls "$PG/gmon-work" "$f" thrice)" = 3 &&
	gprof -b -q "$PG/gmon-work" "$f" | grep -Eq "^ +0\.00 +0\.00 +1000/1000 +flat \[" &&
	gprof -b -q "$PG/gmon-work" "$f" | grep -Eq "^ +0\.00 +0\.00 +1000/1000 +counted \["
'

(cd hz100 && gmon_check_shares "$PG/gmon-work" "$(basename "$f")" 100)
(cd hz100 && gmon_check_rate "$PG/gmon-work" "$(basename "$f")" 100)

# The rate the user can raise: PROFIL_HZ.
mkdir hz1000 && (cd hz1000 && PROFIL_HZ=1000 "$PG/gmon-work" flat 1000)
f=$(gmon_file hz1000)
test_expect_success 'PROFIL_HZ=1000: gprof reads 1000 Hz from the header' '
	gprof -b -p "$PG/gmon-work" "$f" | grep -q "Each sample counts as 0.001 seconds"
'
(cd hz1000 && gmon_check_shares "$PG/gmon-work" "$(basename "$f")" 1000)
(cd hz1000 && gmon_check_rate "$PG/gmon-work" "$(basename "$f")" 1000)

mkdir nopie && (cd nopie && PROFIL_HZ=1000 "$PG/nopie-gmon-work" flat 600)
f=$(gmon_file nopie)
test_expect_success 'a non-PIE executable: exact counts' '
	test "$(gmon_calls "$PG/nopie-gmon-work" "$f" counted)" = 1000 &&
	test "$(gmon_calls "$PG/nopie-gmon-work" "$f" thrice)" = 3
'
(cd nopie && gmon_check_shares "$PG/nopie-gmon-work" "$(basename "$f")" 1000)

test_done
