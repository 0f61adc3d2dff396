#!/bin/sh
# t4009-export-svg-prune: the flame graph leaves out frames narrower than a pixel, and what
# stands on them, as flamegraph.pl's --minwidth does (issue 11).  Deep distinct stacks made a
# file of invisible frames: 4 MB of 2,000 stacks 250 deep exported a 156 MB SVG (64 MB of
# them, 2.5 GB).
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time python3:python3

P=$B/profil
python3 "$TEST_DIR/report/hostile.py" deep deep.profil 2000 250 ||
	echo "not ok - hostile.py wrote a profile"
python3 "$TEST_DIR/report/hostile.py" deep wide.profil 100 5 ||
	echo "not ok - hostile.py wrote a profile"

test_expect_success '2,000 deep stacks, each 0.6 pixel wide: a small SVG, quickly' '
	/usr/bin/time -f %M -o rss timeout 30 "$P" export -f svg -o deep.svg deep.profil 2> err
	rc=$?
	cat err rss
	size=$(wc -c < deep.svg) && echo "$size bytes" &&
	test $rc = 0 && test "$size" -lt 100000 &&
	grep -q "<!-- 2000 frames narrower than 1.0 pixel not drawn, nor what" deep.svg &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" deep.svg
'
# The root, the program every stack stands on, and 100 stacks of 5 frames.
test_expect_success '100 stacks 11 pixels wide: every frame drawn' '
	"$P" export -f svg -o wide.svg wide.profil 2> err &&
	test "$(grep -c "<g class=\"f" wide.svg)" = 502 &&
	! grep -q "not drawn" wide.svg
'
test_done
