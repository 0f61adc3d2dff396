#!/bin/sh
# t4031-view: `profil view [PATH]` writes the viewer page to a private temporary file and opens
# it with $BROWSER (the first command of the list, "%s" standing for the file), else xdg-open,
# or prints the path where there is none (profil(1)).  The browser here is a script that keeps
# what it was given; the page it got is the one export --format=html writes.
. "$(dirname "$0")/lib.sh"

P=$B/profil
"$B/tests/report/mkphases" now.profil || echo "not ok - mkphases wrote a profile"
mkdir bin tmp
cat > bin/browse <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/../opened"
SH
chmod +x bin/browse

test_expect_success 'view: opens the page with $BROWSER and prints its path' '
	TMPDIR=$TRASH/tmp BROWSER="$TRASH/bin/browse" "$P" view now.profil > out 2> err &&
	cat out err && test ! -s err && test "$(cat opened)" = "$(cat out)" &&
	page=$(cat out) &&
	case $page in "$TRASH"/tmp/profil-view.*/profile.html) ;; *) false ;; esac &&
	head -c 15 "$page" | grep -q "^<!DOCTYPE html>" &&
	grep -q "id=\"profil-data\"" "$page"
'
test_expect_success 'view: the page is in a directory only the user can enter' '
	page=$(cat out) && test "$(stat -c %a "$(dirname "$page")")" = 700 &&
	test "$(stat -c %u "$page")" = "$(id -u)"
'
test_expect_success 'view: "%s" in $BROWSER stands for the file; a list takes its first' '
	rm -f opened &&
	TMPDIR=$TRASH/tmp BROWSER="$TRASH/bin/browse %s:/nonexistent/other" "$P" view now.profil \
		> out 2> err && test "$(cat opened)" = "$(cat out)"
'
test_expect_success 'view: without a browser, the path alone and a line saying so' '
	rm -f opened &&
	env -u BROWSER PATH=/nonexistent TMPDIR=$TRASH/tmp "$P" view now.profil > out 2> err;
	rc=$?; cat out err; test $rc = 0 && test ! -e opened && test -s "$(cat out)" &&
	grep -q "no browser" err
'
test_expect_success 'view: --diff BASE puts the comparison in the page' '
	"$B/tests/report/mkphases" base.profil 500 &&
	TMPDIR=$TRASH/tmp BROWSER="$TRASH/bin/browse" "$P" view --diff base.profil now.profil \
		> out 2> err && grep -q "\"diff\":{\"z\":1.96,\"base_total\":1500," "$(cat out)" &&
	! TMPDIR=$TRASH/tmp "$P" view --diff /nonexistent now.profil > out 2> err &&
	grep -q "nonexistent" err
'
test_expect_success 'view: a profile without samples is an error, and leaves nothing behind' '
	rm -f opened && python3 "$TEST_DIR/export/synth.py" empty empty.profil && mkdir tmp2 &&
	! TMPDIR=$TRASH/tmp2 BROWSER="$TRASH/bin/browse" "$P" view empty.profil > out 2> err &&
	grep -q "no samples to draw" err && test -z "$(ls tmp2)" && test ! -e opened
'
test_done
