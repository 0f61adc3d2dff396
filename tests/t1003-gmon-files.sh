#!/bin/sh
# Where the profile goes and how the file is made: OpenBSD's rules.
. "$(dirname "$0")/lib.sh"
test_needs binutils:gprof util-linux:setpriv
. "$TEST_DIR/pg/gmon.sh"

# OpenBSD profil(2): "either at the starting directory, or the optional directory indicated by
# the environment variable PROFDIR".
mkdir pd && PROFDIR=pd "$PG/gmon-work" quick 2>err
test_expect_success 'PROFDIR: the profile goes there, not to the current directory' '
	test -z "$(gmon_file .)" && test -n "$(gmon_file pd)" &&
	test "$(gmon_calls "$PG/gmon-work" "$(gmon_file pd)" counted)" = 1000 && ! test -s err
'

test_expect_success 'PROFDIR that cannot be opened: one line on stderr, the program runs on' '
	PROFDIR=missing "$PG/gmon-work" quick 2>err &&
	test "$(cat err)" = "profil: gmon: cannot open the profile directory: '"'"'missing'"'"'" &&
	test -z "$(gmon_file .)"
'

# The directory is "fixed at start": a chdir afterwards changes nothing.
mkdir start && (cd start && "$PG/gmon-work" chdir)
test_expect_success 'a chdir("/") after start: the profile is in the starting directory' '
	f=$(gmon_file start) && test -n "$f" &&
	test "$(gmon_calls "$PG/gmon-work" "$f" counted)" = 1000 &&
	! ls /gmon.gmon-work.*.out 2>/dev/null
'

test_expect_success 'mode 0600 whatever the umask, also over an old file of ours' '
	mkdir m && cd m &&
	sh -c "umask 0; touch gmon.gmon-work.\$\$.out; chmod 644 gmon.gmon-work.\$\$.out;
	    exec \"$PG/gmon-work\" quick" &&
	test "$(stat -c %a gmon.gmon-work.*.out)" = 600 &&
	test "$(gmon_calls "$PG/gmon-work" gmon.gmon-work.*.out counted)" = 1000
'

# exec keeps the pid, so the shell can prepare the very name the program will use.
test_expect_success 'O_NOFOLLOW: a symbolic link at the name is not followed' '
	mkdir l && cd l && echo keep > target &&
	sh -c "ln -s target gmon.gmon-work.\$\$.out; exec \"$PG/gmon-work\" quick" 2>err &&
	test "$(cat target)" = keep && grep -q "^profil: gmon: .*gmon.gmon-work.[0-9]*.out" err
'

test_expect_success 'a file owned by someone else is not clobbered' '
	mkdir o && cd o &&
	sh -c "echo keep > gmon.gmon-work.\$\$.out; chown nobody gmon.gmon-work.\$\$.out;
	    exec \"$PG/gmon-work\" quick" 2>err &&
	test "$(cat gmon.gmon-work.*.out)" = keep && test -s err
'

# OpenBSD gmon.c refuses a profile file with more than one link: a set-user-ID program would
# otherwise truncate, through a hard link at the name, a file of its owner elsewhere.
test_expect_success 'a hard link at the name: the file behind it is not clobbered' '
	mkdir h && cd h && echo keep > ../precious &&
	sh -c "ln ../precious gmon.gmon-work.\$\$.out; exec \"$PG/gmon-work\" quick" 2>err &&
	test "$(cat ../precious)" = keep && test "$(wc -l < err)" = 1 &&
	grep -q "^profil: gmon: .*gmon.gmon-work.[0-9]*.out" err
'

# The file is the buffer, mapped shared: a page the filesystem cannot supply would be SIGBUS at
# the first store into it, in mcount or the tick handler.  Every block is allocated when the
# file is made or grown; where there is no room the program runs on, with one line on stderr.
full=$TRASH/full
mkdir "$full"
if mount -t tmpfs -o size=1m tmpfs "$full"; then
	trap 'umount "$full"; rm -rf "$TRASH"' EXIT
	dd if=/dev/zero of="$full/filler" bs=4096 2>/dev/null
	test_expect_success 'a full filesystem: no file, one line on stderr, the program runs on' '
		PROFDIR=$full "$PG/gmon-work" quick > out 2> err; rc=$?; echo "status $rc" &&
		cat err && test $rc -eq 0 && test "$(wc -l < err)" = 1 &&
		grep -q "^profil: gmon: No space left on device: .gmon.gmon-work.[0-9]*.out.$" \
			err &&
		test -z "$(gmon_file "$full")"
	'
	# Room for the histogram (text / 2 bytes), none for a thread's arc table (43 KiB).
	truncate -s -20k "$full/filler"
	test_expect_success 'room for the histogram only: a profile without arcs, one line' '
		PROFDIR=$full "$PG/gmon-work" quick > out 2> err; rc=$?; echo "status $rc" &&
		cat err && test $rc -eq 0 && test "$(wc -l < err)" = 1 &&
		grep -q "^profil: gmon: no room for a thread.s arcs" err &&
		f=$(gmon_file "$full") && test -n "$f" && gprof -b -p "$PG/gmon-work" "$f" &&
		test -z "$(gmon_calls "$PG/gmon-work" "$f" counted)"
	'
	rm -f "$full"/gmon.*.out
else
	echo "not ok - a full filesystem: cannot mount a tmpfs here (skipped)"
fi

# OpenBSD gmon.c ignores PROFDIR when issetugid(); here AT_SECURE says the same.
# nobody must reach the program and the library it loads: both go into the test directory
# (the build tree may be private, and a set-user-ID program ignores LD_LIBRARY_PATH).
chmod 755 "$TRASH"
mkdir suid suid/pd && chmod 777 suid suid/pd
cp "$B/libprofil.so.0" suid/ && ln -s libprofil.so.0 suid/libprofil.so
${CC:-cc} -O2 -pg -fno-inline -pthread -I"$ROOT/include" -o suid/gmon-work \
	"$ROOT/tests/pg/gmon-work.c" -L"$TRASH/suid" -Wl,-rpath,"$TRASH/suid" -lprofil
cp suid/gmon-work suid/plain
chmod 4755 suid/gmon-work
test_expect_success 'PROFDIR is ignored by a set-user-ID program' '
	cd suid && PROFDIR=$PWD/pd setpriv --reuid=65534 --regid=65534 --clear-groups \
	    ./gmon-work quick &&
	test -z "$(gmon_file pd)" && test -n "$(gmon_file .)"
'
test_expect_success '... and honoured by the same program without set-user-ID' '
	cd suid && rm -f gmon.*.out && PROFDIR=$PWD/pd setpriv --reuid=65534 --regid=65534 \
	    --clear-groups ./plain quick &&
	test -n "$(gmon_file pd)" && test -z "$(gmon_file .)"
'

test_done
