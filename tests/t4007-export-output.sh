#!/bin/sh
# t4007-export-output: `profil export -o PATH` writes a regular file or refuses (issue 11).
# rename(2) replaces whatever directory entry PATH is: before, a device node or a symbolic link
# became a regular file, a 0600 file became 0644 and lost its hard link, and another user's
# file was taken over.  Now only a regular file of ours with one link is replaced, keeping its
# mode; everything else is refused with a sentence, and the thing at PATH is left as it was.
. "$(dirname "$0")/lib.sh"
test_needs nodejs:node python3:python3

P=$B/profil
python3 "$TEST_DIR/report/hostile.py" counts in.profil 5 ||
	echo "not ok - hostile.py wrote a profile"

# export OUT: the folded export of in.profil to OUT; its status in rc, messages in err.
export_to() {
	"$P" export --format=folded -o "$1" in.profil > out 2> err
	rc=$?
	cat err
}

test_expect_success 'a fresh output file: the umask decides its mode' '
	(umask 077 && "$P" export --format=folded -o fresh in.profil) &&
	test "$(stat -c %a fresh)" = 600 &&
	grep -q " 5$" fresh
'
test_expect_success 'an existing 0600 file stays 0600' '
	echo secret > private && chmod 600 private &&
	(umask 022 && "$P" export --format=folded -o private in.profil) &&
	test "$(stat -c %a private)" = 600 && grep -q " 5$" private
'
test_expect_success 'a symbolic link is refused, neither replaced nor followed' '
	echo keep > target && ln -s target link &&
	export_to link
	test $rc = 1 && test -L link && test "$(cat target)" = keep &&
	grep -q "^profil: is a symbolic link, not replaced: '\''link'\''$" err
'
test_expect_success 'a device node (or a FIFO) is refused and stays what it was' '
	{ mknod node c 1 3 2> /dev/null || mkfifo node; } &&
	kind=$(stat -c %F node) &&
	export_to node
	test $rc = 1 && test "$(stat -c %F node)" = "$kind" &&
	grep -q "exists and is not a regular file, not replaced" err
'
test_expect_success 'a file with another hard link is refused; the link stays intact' '
	echo both > one && ln one two &&
	export_to one
	test $rc = 1 && test "$(stat -c %h one)" = 2 && test "$(cat two)" = both &&
	grep -q "has other hard links, not replaced" err
'
if [ "$(id -u)" = 0 ]; then
	test_expect_success 'another user'\''s file is refused (as root)' '
		echo theirs > other && chown 65534 other &&
		export_to other
		test $rc = 1 && test "$(cat other)" = theirs &&
		grep -q "belongs to another user, not replaced" err
	'
	test_expect_success 'gmon: a directory symlink planted by another user is not followed' '
		mkdir elsewhere && ln -s elsewhere planted && chown -h 65534 planted &&
		"$P" export --format=gmon -o planted in.profil > out 2> err
		rc=$?
		cat err
		test $rc = 1 && test -z "$(ls elsewhere)" &&
		grep -q "a symbolic link of another user, not followed" err
	'
else
	echo "ok - # skip another user's files: needs root to make them"
fi
test_expect_success 'a failure to create says why, with the errno text' '
	export_to nodir/out
	test $rc = 1 && grep -q "^profil: No such file or directory: '\''nodir/out'\''$" err
'
test_done
