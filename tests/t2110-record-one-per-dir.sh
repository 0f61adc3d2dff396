#!/bin/sh
# t2110-record-one-per-dir: one recording per directory (issue 23, "never mix").  Two runs of
# `profil record` into ./profil.out read back as one ("2 processes") with no word said.  Now a
# new recording moves the previous one to DIR.old, as perf keeps perf.data.old, unless
# --append; a directory holding anything but profiles is refused and left as it is.  The end
# of a recording says what it wrote, in the report's numbers; -p says what it attached to; -q
# says neither.  With --append, the notes about profiles speak of this run's files alone.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

outside=1
if ! "$PROFIL" record -q --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	outside=0
fi

# progs DIR: the programs of DIR's profiles, sorted, one line.
progs() {
	ls "$1" | sed 's/\.[0-9]*\.profil$//' | sort | tr '\n' ' '
}

test_expect_success 'two recordings in a row: the report shows the second, .old the first' '
	"$PROFIL" record -- "$REC/exits" exit 0.1 > /dev/null; test $? -eq 7 &&
	"$PROFIL" record -- "$REC/threads" 0.2 > /dev/null &&
	echo "profil.out: $(progs profil.out); .old: $(progs profil.out.old)" &&
	test "$(progs profil.out)" = "threads " && test "$(progs profil.out.old)" = "exits " &&
	"$PROFIL" report > r.txt && head -n 2 r.txt &&
	grep -q "^Flat profile: 1 process," r.txt && grep -q "^  threads\[" r.txt
'

test_expect_success 'a third: the older .old is replaced, the second kept' '
	"$PROFIL" record -q -- "$REC/exits" exit 0.1 > /dev/null; test $? -eq 7 &&
	test "$(progs profil.out)" = "exits " && test "$(progs profil.out.old)" = "threads " &&
	! test -e profil.out.old.old
'

test_expect_success '--append adds to the recording there, as before' '
	"$PROFIL" record -q -o app -- "$REC/exits" exit 0.1 > /dev/null
	"$PROFIL" record -q -o app --append -- "$REC/threads" 0.2 > /dev/null &&
	test "$(progs app)" = "exits threads " && ! test -e app.old &&
	"$PROFIL" report app > a.txt && grep "^Flat profile: 2 processes," a.txt
'

# Never delete or move what is not a recording: a directory of the user's (a file of another
# name, or one named .profil that is not a profile) is refused, exit 1, byte for byte as it was.
test_expect_success 'an -o directory holding other files: refused, left untouched' '
	mkdir mine && echo notes > mine/notes.txt && echo "not a profile" > mine/old.profil &&
	ls -lA --time-style=full-iso mine > before && cat mine/* > before.data &&
	"$PROFIL" record -o mine -- "$REC/exits" exit 0.1 > /dev/null 2> mine.err
	rc=$? && cat mine.err && test $rc -eq 1 &&
	grep "^profil: output directory holds other files than profiles, left as it is.*: .mine.$" \
		mine.err &&
	ls -lA --time-style=full-iso mine | diff before - && cat mine/* | cmp before.data - &&
	! test -e mine.old &&
	mkdir other && echo x > other/x &&
	"$PROFIL" record -o other/ -- "$REC/exits" exit 0.1 > /dev/null 2> other.err
	test $? -eq 1 && test "$(ls other)" = x && ! test -e other.old
'

test_expect_success 'a DIR.old that is not a recording: refused, both left as they are' '
	"$PROFIL" record -q -o keep -- "$REC/exits" exit 0.1 > /dev/null
	mkdir keep.old && echo mine > keep.old/data && ls keep > before &&
	"$PROFIL" record -o keep -- "$REC/exits" exit 0.1 > /dev/null 2> keep.err
	rc=$? && cat keep.err && test $rc -eq 1 && grep "^profil: .*: .keep\.old.$" keep.err &&
	ls keep | diff before - && test "$(cat keep.old/data)" = mine &&
	test "$(ls keep.old)" = data
'

test_expect_success 'an empty directory is used as it is; a missing one is made' '
	mkdir empty && "$PROFIL" record -q -o empty -- "$REC/exits" exit 0.1 > /dev/null
	test "$(progs empty)" = "exits " && ! test -e empty.old &&
	"$PROFIL" record -q -o new/ -- "$REC/exits" exit 0.1 > /dev/null
	test "$(progs new)" = "exits " && ! test -e new.old
'

# size_text BYTES: the end line's size, as it rounds it.
size_text() {
	awk -v b="$1" 'BEGIN {
		if (b < 1024) printf "%d bytes\n", b
		else if (b < 1048576) printf "%.0f KB\n", b / 1024
		else printf "%.1f MB\n", b / 1048576 }'
}

# The processes and samples of the end line are the report's first line's; the size is the
# files' (stat), and the directory is named.
test_expect_success 'the end line: processes, samples and size as the report and stat say' '
	"$PROFIL" record -o many -- sh -c "\"$REC/exits\" exit 0.2; \"$REC/threads\" 0.3" \
		> /dev/null 2> many.err; test $? -eq 0 &&
	cat many.err && end=$(grep "^profil: [0-9]* process" many.err) &&
	"$PROFIL" report many > m.txt && head -n 1 m.txt &&
	procs=$(sed -n "1s/^Flat profile: \([0-9]*\) process.*/\1/p" m.txt) &&
	samples=$(sed -n "1s/^Flat profile: .*, \([0-9]*\) samples,.*/\1/p" m.txt) &&
	bytes=$(stat -c %s many/*.profil | awk "{ s += \$1 } END { print s }") &&
	test "$procs" -ge 2 &&
	test "$end" = "profil: $procs processes, $samples samples, $(size_text $bytes) in many/"
'

test_expect_success '--append: the end line counts this run alone' '
	"$PROFIL" record -o many --append -- "$REC/exits" exit 0.2 > /dev/null 2> more.err
	test $? -eq 7 && cat more.err &&
	"$PROFIL" report "$(ls -t many/exits.*.profil | head -n 1)" > one.txt &&
	samples=$(sed -n "1s/^Flat profile: .*, \([0-9]*\) samples,.*/\1/p" one.txt) &&
	grep "^profil: 1 process, $samples samples, .* in many/$" more.err
'

test_expect_success '-q: nothing said of a recording that went well' '
	"$PROFIL" record -q -o quiet -- "$REC/exits" exit 0.1 > /dev/null 2> q.err
	test $? -eq 7 && cat q.err && ! grep "process" q.err &&
	if [ $outside = 1 ]; then ! test -s q.err; fi
'

if [ $outside = 1 ]; then
	test_expect_success '-p says what it attached to, once, and -q not' '
		"$REC/threads" 0.6 > /dev/null & a=$!
		sleep 1 & b=$!
		sleep 0.2 &&
		"$PROFIL" record -o att -p $a,$b 2> att.err; rc=$?
		wait $a; cat att.err && test $rc -eq 0 &&
		test "$(grep -c "^profil: attached to" att.err)" = 1 &&
		grep -E "^profil: attached to 2 processes \($a, $b\), [0-9]+ threads$" att.err &&
		t=$(sed -n "s/.*), \([0-9]*\) threads$/\1/p" att.err) && test "$t" -ge 2 &&
		grep "^profil: 1 process, [0-9]* samples, .* in att/$" att.err &&
		sleep 0.3 & c=$! &&
		"$PROFIL" record -q -o attq -p $c 2> attq.err && ! test -s attq.err
	'
fi

# Issue 23: "A second recording into the same -o directory repeats warnings about older
# files."  The recorder inside a program that has its own SIGPROF handler notes it; the second
# run, appended within the same second, notes its own file and not the first run's again.
test_expect_success '--append: the notes speak of this run'"'"'s profiles alone' '
	"$PROFIL" record -q --clock ring -o notes -- "$REC/sigprof" 0.1 > /dev/null 2> n1.err
	"$PROFIL" record -q --clock ring -o notes --append -- "$REC/sigprof" 0.1 > /dev/null \
		2> n2.err
	cat n1.err n2.err &&
	first=$(ls -tr notes | head -n 1) && second=$(ls -t notes | head -n 1) &&
	test "$first" != "$second" &&
	grep -c "own SIGPROF handler" n1.err | grep -qx 1 &&
	grep -c "own SIGPROF handler" n2.err | grep -qx 1 &&
	grep "own SIGPROF handler.*$second" n2.err && ! grep -q "$first" n2.err
'

# A review found a hidden .tmp of the user's counted as a recorder's temporary: the directory
# holding it was moved, and a second run deleted it.  A temporary is the writers' own name
# (.<prog>.<pid>.<serial>.tmp), empty or starting as a profile does; anything else is the user's.
test_expect_success 'a .tmp that is not a recorder'"'"'s: the directory is left as it is' '
	mkdir draft && echo precious > draft/.thesis-draft.tmp &&
	"$PROFIL" record -q -o draft -- "$REC/exits" exit 0.1 > /dev/null 2> draft.err
	rc=$? && cat draft.err && test $rc -eq 1 && grep "holds other files" draft.err &&
	! test -e draft.old && test "$(cat draft/.thesis-draft.tmp)" = precious &&
	mkdir named && echo precious > named/.exits.12.3.tmp &&
	"$PROFIL" record -q -o named -- "$REC/exits" exit 0.1 > /dev/null 2> named.err
	rc=$? && cat named.err && test $rc -eq 1 && grep "holds other files" named.err &&
	! test -e named.old && test "$(cat named/.exits.12.3.tmp)" = precious
'

test_expect_success 'a recorder'"'"'s temporaries (empty, or a profile'"'"'s start) still move' '
	"$PROFIL" record -q -o tmps -- "$REC/exits" exit 0.1 > /dev/null
	: > tmps/.exits.12.0.tmp && head -c 64 tmps/exits.*.profil > tmps/.exits.12.1.tmp &&
	"$PROFIL" record -q -o tmps -- "$REC/exits" exit 0.1 > /dev/null
	test $? -eq 7 && ls -A tmps.old | grep -c "tmp$" | grep -qx 2 &&
	"$PROFIL" record -q -o tmps -- "$REC/exits" exit 0.1 > /dev/null
	test $? -eq 7 && ! ls -A tmps.old | grep "tmp$"
'

# "-o ." worked once, then failed for ever with a subject of "..old".  The current or the
# parent directory cannot be renamed: refused at once, unless --append.
test_expect_success '-o . or dir/. or ..: refused, nothing written; --append works' '
	mkdir dot && (cd dot && "$PROFIL" record -o . -- "$REC/exits" exit 0.1) > /dev/null \
		2> dot.err
	rc=$? && cat dot.err && test $rc -eq 1 &&
	grep "^profil: output directory cannot be renamed to keep one recording per directory.*--append.*: .\..$" dot.err &&
	test -z "$(ls -A dot)" &&
	for d in dot/. dot/./ dot/sub/..; do
		mkdir -p dot/sub && "$PROFIL" record -q -o $d -- "$REC/exits" exit 0.1 \
			> /dev/null 2> d.err
		rc=$? && cat d.err && test $rc -eq 1 && grep -q "^profil: output directory" d.err ||
			exit 1
	done &&
	test "$(ls -A dot)" = sub && ! test -e dot.old && ! test -e ..old &&
	(cd dot && "$PROFIL" record -q -o . --append -- "$REC/exits" exit 0.1) > /dev/null
	test $? -eq 7 && test "$(progs dot)" = "exits sub "
'

# Moving a directory that is a mount point fails (EBUSY): an older DIR.old was deleted first,
# and nothing was moved.  A mount point is refused at once; where the rename still fails (a
# bind mount on the same filesystem), it fails before DIR.old is touched.
mkdir mnt bind
if mount -t tmpfs tmpfs mnt 2> mount.err && mount --bind bind bind 2>> mount.err; then
	trap 'umount mnt bind 2> /dev/null; rm -rf "$TRASH"' EXIT
	test_expect_success 'a mount point: refused at once, DIR.old kept' '
		"$PROFIL" record -q -o mnt -- "$REC/exits" exit 0.1 > /dev/null
		cp -a mnt mnt.old && ls mnt mnt.old > before &&
		"$PROFIL" record -q -o mnt -- "$REC/exits" exit 0.1 > /dev/null 2> mnt.err
		rc=$? && cat mnt.err && test $rc -eq 1 &&
		grep "^profil: output directory is a mount point.*: .mnt.$" mnt.err &&
		ls mnt mnt.old | diff before -
	'
	test_expect_success 'a move that fails: DIR.old kept' '
		"$PROFIL" record -q -o bind -- "$REC/exits" exit 0.1 > /dev/null
		cp -a bind bind.old && ls bind bind.old > before &&
		"$PROFIL" record -q -o bind -- "$REC/exits" exit 0.1 > /dev/null 2> bind.err
		rc=$? && cat bind.err && test $rc -eq 1 &&
		grep "^profil: cannot .*(Device or resource busy): .bind.$" bind.err &&
		ls bind bind.old | diff before - && ! ls | grep "^bind\.old\."
	'
else
	echo "ok - # skip a tmpfs or a bind mount cannot be mounted here: $(cat mount.err)"
fi

# wait_for_profile DIR: until DIR holds a profile (a running image's is written about once a
# second), for at most 10 s.
wait_for_profile() {
	i=0
	while ! ls "$1"/*.profil > /dev/null 2>&1; do
		[ $i -lt 100 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# A review found a later run deleting a recording still being written: the first moved the
# live DIR to DIR.old (where its end line did not say it was), the second deleted DIR.old file
# by file, snapshot and temporary, and the recording ended with "cannot write profile".  A
# recording holds a lock on its directory while it runs; another run into it, to move it, to
# remove it as DIR.old, or to add to it, is refused.
if [ $outside = 1 ]; then
	test_expect_success 'a recording being written is neither moved, removed nor added to' '
		"$PROFIL" record -o live -- "$REC/exits" exit 4 > /dev/null 2> live.err & rec=$!
		wait_for_profile live && ls live > before &&
		"$PROFIL" record -q -o live -- true 2> l1.err; rc1=$?
		"$PROFIL" record -q -o live -- true 2> l2.err; rc2=$?
		"$PROFIL" record -q -o live --append -- true 2> l3.err; rc3=$?
		mkdir other2 && "$PROFIL" record -q -o other2 -- true &&
		mv other2 live2 && "$PROFIL" record -q -o live2.old -- "$REC/exits" exit 4 \
			> /dev/null & rec2=$!
		wait_for_profile live2.old &&
		"$PROFIL" record -q -o live2 -- true 2> l4.err; rc4=$?
		wait $rec; rc=$?; wait $rec2
		cat l1.err l2.err l3.err l4.err live.err &&
		echo "status $rc1 $rc2 $rc3 $rc4, the recording $rc" &&
		test $rc1 -eq 1 && test $rc2 -eq 1 && test $rc3 -eq 1 && test $rc4 -eq 1 &&
		test $rc -eq 7 &&
		grep "^profil: output directory is in use by another recording: .live.$" l1.err &&
		grep "^profil: output directory is in use by another recording: .live2.old.$" l4.err &&
		ls live | diff before - && ! test -e live.old &&
		grep "^profil: 1 process, .* in live/$" live.err &&
		"$PROFIL" report live > /dev/null && "$PROFIL" report live2.old > /dev/null
	'
fi

test_expect_success 'the in-process recorder'"'"'s directory is in use while it runs' '
	"$PROFIL" record -q --clock ring -o ilive -- "$REC/exits" exit 2 > /dev/null & rec=$!
	sleep 0.5 &&
	"$PROFIL" record -q --clock ring -o ilive -- true 2> i1.err; rc1=$?
	wait $rec; rc=$?
	cat i1.err && test $rc1 -eq 1 && test $rc -eq 7 &&
	grep "^profil: output directory is in use by another recording: .ilive.$" i1.err &&
	test "$(progs ilive)" = "exits " && ! test -e ilive.old &&
	# The recorder in the program keeps an O_PATH descriptor of its own there (l---------).
	"$PROFIL" record -q --clock ring -o ilive -- sh -c "ls -l /proc/\$\$/fd" > fds &&
	cat fds && ! grep ilive fds | grep -v "^l---------"
'

# A typo cost a generation: the directory was rotated before anything could fail.  A command
# that cannot be run, or a process that cannot be attached to, leaves both as they were.
test_expect_success 'a command not found, a pid not attached: nothing rotated' '
	"$PROFIL" record -q -o gen -- "$REC/exits" exit 0.1 > /dev/null
	"$PROFIL" record -q -o gen -- "$REC/threads" 0.1 > /dev/null &&
	ls gen gen.old > before &&
	"$PROFIL" record -o gen -- /nonexistent 2> nx.err; rc=$?
	cat nx.err && test $rc -eq 127 && grep "^profil: cannot run command.*/nonexistent" nx.err &&
	ls gen gen.old | diff before - &&
	"$PROFIL" record -o gen -- no-such-command-here 2> nx.err; test $? -eq 127 &&
	ls gen gen.old | diff before - &&
	if [ $outside = 1 ]; then
		p=999999; while kill -0 $p 2> /dev/null; do p=$((p + 1)); done
		"$PROFIL" record -o gen -p $p 2> p.err; rc=$?
		cat p.err && test $rc -eq 1 && grep "^profil: cannot attach" p.err &&
		ls gen gen.old | diff before -
	fi
'

test_done
