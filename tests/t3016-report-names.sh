#!/bin/sh
# t3016-report-names: program, thread, path and symbol names come from the profiled program
# and are printed escaped (issue 11).  Before, an escape sequence in one reached the terminal
# (ESC ] 0 ; retitles it, ESC [ 2 J clears it), tabs and newlines forged --tsv columns and
# rows, and U+FFFE or U+FFFF made the whole SVG invalid XML.  Control characters now show as
# `ls -b` shows them ("\033"), and every export stays valid for its reader.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3

P=$B/profil
python3 "$TEST_DIR/report/hostile.py" names n.profil || echo "not ok - hostile.py wrote a profile"

# raw FILE: FILE holds an ESC, a BEL or a carriage return.
raw() {
	LC_ALL=C grep -q "$(printf '[\033\007\r]')" "$1"
}

for view in "" --threads --graph --lines "--annotate nothing" --per-process; do
	test_expect_success "report $view: no control character reaches the terminal" "
		\"\$P\" report $view n.profil > out 2> err
		cat out err
		! raw out && ! raw err
	"
done
test_expect_success 'the names show escaped, as ls -b shows them' '
	"$P" report n.profil > out 2> err &&
	grep -qF "prog\\033]0;pwned\\007\\033[2J\\tTAB\\nNL" out &&
	grep -qF "/nonexistent/\\033]0;pwned" err
'
test_expect_success '--tsv --threads: tabs and newlines in names forge no column or row' '
	"$P" report --tsv --threads n.profil > out 2> err &&
	cat out &&
	test "$(wc -l < out)" = 2 &&
	test "$(awk -F "\t" "{ print NF }" out | sort -u)" = 14
'
test_expect_success 'dump: no control character reaches the terminal' '
	"$P" dump n.profil > out 2> err &&
	cat out &&
	! raw out && test "$(grep -c "^thread " out)" = 1
'
test_expect_success 'svg: valid XML whatever the names hold (U+FFFE, U+FFFF, stray bytes)' '
	"$P" export -f svg -o n.svg n.profil 2> err &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" n.svg
'
test_done
