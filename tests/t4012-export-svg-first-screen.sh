#!/bin/sh
# t4012-export-svg-first-screen: the flame graph of a deep recording opens at its roots (issue
# 21).  bash spins a moment and then runs python3 on its json module, with -g: python3 has
# most of the samples and stacks some 200 frames deep, bash's file comes first.  The graph
# used to stand on its root at the bottom, so a 1400x900 window showed the thin tips of the
# deepest stacks and the base, where the widths are, was 2,000 pixels further down; and the
# title said "bash and N more processes".  Now headless Chromium (tests/export/firstscreen.py)
# finds the title naming python3, the root and the 20 widest frames, by their boxes in the
# DOM, on the first screen, and a screenshot of it.  Screenshots stay in the test's temporary
# directory, or go to $PROFIL_TEST_SHOTS when that is set.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 chromium:chromium bash:bash golang-go:go

P=$B/profil
"$P" record -g -o deep -- bash -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
	python3 -c "import json; [json.dumps(list(range(300))) for _ in range(20000)]"' \
	> /dev/null 2>&1 || echo "not ok - profil record ran bash and python3"
"$P" export -f svg -o deep.svg deep 2> /dev/null || echo "not ok - profil export wrote the SVG"

# Files are read in name order: bash's before python3's (and pyenv's shims, where python3 is
# one, bring basename and others).  Programs are said as "  prog: N processes" in the header
# beyond 16 processes, as each table's "prog: 1 process" heading below that.
test_expect_success 'bash comes before python3 in the recording, python3 has the most samples' '
	"$P" report --per-program deep > programs.txt 2> /dev/null && head -n 12 programs.txt &&
	ls deep | head -n 1 | grep -v "^python3" &&
	grep "^ *\(bash\|python3\): [0-9]* process" programs.txt | head -n 1 | grep -q "^ *bash: " &&
	sed -n "s/^ *\([^: ]*\): [0-9]* process[^,]*, \([0-9]*\) samples,.*/\2 \1/p" \
		programs.txt | sort -n | tail -n 1 | grep -q " python3"
'
# Debian's python3 without pyenv's shims stacks shallower (about 1,600 px) than pyenv's (3,300).
test_expect_success 'the graph is deep: well past the first screen of 900 px' '
	h=$(sed -n "s/^<svg [^>]* height=\"\([0-9]*\)\".*/\1/p" deep.svg) && echo "$h px" &&
	test "$h" -gt 1350
'
test_expect_success 'the title and the SVG document title name python3, not bash' '
	grep -q "^<title>python3[^<]*</title>$" deep.svg &&
	grep -q "<text id=\"title\" [^>]*>python3[^<]*, [0-9.]*% of samples; [0-9]* more program" \
		deep.svg
'
test_run_prog firstscreen python3 "$TEST_DIR/export/firstscreen.py" "$PWD/deep.svg" \
	"${PROFIL_TEST_SHOTS:-$PWD}/first-screen.png" python3
test_expect_success 'pprof of the same recording is headed by python3 too' '
	"$P" export -f pprof -o deep.pb.gz deep 2> /dev/null &&
	go tool pprof -top deep.pb.gz 2> /dev/null | head -n 3 > head.txt && cat head.txt &&
	grep -q "^File: python3" head.txt && grep -q "^python3" head.txt
'
test_done
