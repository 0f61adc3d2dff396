#!/bin/sh
# t4030-export-html: the viewer page (profil export --format=html) of a known program,
# tests/report/mkphases: threads "main" and "worker", phase A in the first second and phase B in
# the next (TIME records), exact counts.  Opened from file:// in headless Chromium at 1400x900
# and driven with real clicks, drags and typing (tests/export/viewer.py): the opening table
# gives the report's shares and 95% intervals, click zoom, search, the inverted tree, the
# sandwich, the timeline's halves, a thread's track, hide and focus; a --diff page marks what
# the report's test finds beyond the noise and nothing else; names holding markup stay text
# and the page's policy runs its own script alone; two processes get a track each.
# Screenshots go to $PROFIL_TEST_SHOTS when set, else stay in the test's directory.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 chromium:chromium

P=$B/profil
SHOTS=${PROFIL_TEST_SHOTS:-$TRASH}
"$B/tests/report/mkphases" now.profil || echo "not ok - mkphases wrote a profile"
"$B/tests/report/mkphases" base.profil 500 || echo "not ok - mkphases wrote the base"
"$B/tests/report/mkphases" hostile.profil 600 hostile || echo "not ok - mkphases wrote names"

test_expect_success 'html: one self-contained page: its data, style and script, nothing fetched' '
	"$P" export --format=html -o now.html now.profil 2> err && test ! -s err &&
	head -c 15 now.html | grep -q "^<!DOCTYPE html>" &&
	test "$(grep -c "<script type=\"application/json\" id=\"profil-data\">" now.html)" = 1 &&
	grep -q "<style>" now.html &&
	! grep -Eq "(src|href)=|https?:|url\(|@import|fetch\(|XMLHttpRequest" now.html
'
test_expect_success 'html: refuses a profile without samples, and --diff with another format' '
	python3 "$TEST_DIR/export/synth.py" empty empty.profil &&
	! "$P" export -f html -o empty.html empty.profil 2> err && test ! -e empty.html &&
	grep -q "^profil: no samples to draw: '\''empty.html'\''$" err &&
	"$P" export -f svg --diff base.profil -o x.svg now.profil 2> err; test $? = 2 &&
	grep -q "diff is for --format=html" err
'
"$P" report --json now.profil > report.json 2> /dev/null
test_run_prog viewer python3 "$TEST_DIR/export/viewer.py" main now.html report.json "$SHOTS"

"$P" export -f html --diff base.profil -o diff.html now.profil 2> /dev/null ||
	echo "not ok - export --diff wrote a page"
"$P" report --json --diff base.profil now.profil > diff.json 2> /dev/null
test_run_prog "viewer diff" python3 "$TEST_DIR/export/viewer.py" diff diff.html diff.json "$SHOTS"

"$P" export -f html -o hostile.html hostile.profil 2> /dev/null ||
	echo "not ok - export wrote the page of hostile names"
test_run_prog "viewer names" python3 "$TEST_DIR/export/viewer.py" hostile hostile.html
mkdir two && cp now.profil two/a.profil && "$B/tests/report/mkphases" two/b.profil ||
	echo "not ok - mkphases wrote a second process"
"$P" export -f html -o two.html two 2> /dev/null || echo "not ok - export of two processes"
test_run_prog "viewer processes" python3 "$TEST_DIR/export/viewer.py" multi two.html
test_done
