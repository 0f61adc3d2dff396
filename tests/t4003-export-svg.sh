#!/bin/sh
# t4003-export-svg: the flame graph of a profile with exact counts (tests/report/mkprofile),
# opened in headless Chromium and driven through the DevTools protocol (tests/export/flame.py):
# it renders, a screenshot shows the frames, hovering names a frame with its samples and share,
# a real click zooms it to the full width, the search box highlights matches with their share,
# and "Reset zoom" undoes the zoom.  Screenshots stay in the test's temporary directory, or go
# to $PROFIL_TEST_SHOTS when that is set (never into the repository).
. "$(dirname "$0")/lib.sh"
test_needs golang-go:go python3:python3 chromium:chromium

P=$B/profil
cp "$B/tests/report/libplugin.so" gone.so
"$B/tests/report/mkprofile" one.profil "$B/tests/report/libplugin.so" gone.so > /dev/null ||
	echo "not ok - mkprofile wrote a profile"
"$P" export -f folded -o out.folded one.profil 2> /dev/null
# under FRAME-REGEX: ticks of the folded stacks with a frame matching it.
under() {
	awk -v re="$1" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
	    for (i = 1; i <= k; i++) if (f[i] ~ re) { t += n; break } } END { print t + 0 }' out.folded
}
total=$(under .)

test_expect_success 'svg: exits 0 and writes one well-formed, self-contained SVG' '
	"$P" export --format=svg -o flame.svg one.profil 2> /dev/null &&
	python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" flame.svg &&
	head -c 200 flame.svg | grep -q "<svg " &&
	grep -q "<script" flame.svg && grep -q "<style" flame.svg &&
	! grep -q "href=" flame.svg && ! grep -q "src=" flame.svg
'
test_expect_success 'svg: one frame per distinct stack prefix, and the root with every sample' '
	nodes=$(awk "{ sub(/ [0-9]+\$/, \"\"); k = split(\$0, f, \";\"); p = \"\"
	    for (i = 1; i <= k; i++) { p = p \";\" f[i]; seen[p] = 1 } }
	    END { n = 1; for (x in seen) n++; print n }" out.folded) &&
	test "$(grep -c "<g class=\"f\"" flame.svg)" = "$nodes" &&
	grep -q "data-x=\"0\" data-w=\"$total\" data-d=\"0\" data-name=\"all\"" flame.svg
'
test_run_prog flame python3 "$TEST_DIR/export/flame.py" flame.svg "${PROFIL_TEST_SHOTS:-.}/flame.png" \
	shared_call libshared.so "$(under "^shared_call$")" pie_work "$(under "^pie_work$")" "$total"
# Names are data: a module whose path holds markup, UTF-8 and a byte that is no UTF-8.
python3 "$TEST_DIR/export/synth.py" mapping odd.profil '/nowhere/a<b&c>\xc3\xa9\xff.so'
test_expect_success 'svg: markup in names is escaped, UTF-8 kept, stray bytes replaced' '
	"$P" export -f svg -o odd.svg odd.profil 2> /dev/null &&
	python3 - odd.svg <<-PY
	import sys, xml.etree.ElementTree as E
	names = [g.get("data-name") for g in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}g")]
	print(names)
	sys.exit(0 if "a<b&c>\u00e9?.so+0x500" in names else 1)
	PY
'
# A complete profile without samples (docs/FORMAT.md): preamble, HEADER, END.
python3 "$TEST_DIR/export/synth.py" empty empty.profil
test_expect_success 'svg: a profile without samples is an error naming the output, not a graph' '
	"$P" export -f svg -o empty.svg empty.profil > /dev/null 2> err
	rc=$?; cat err; test $rc = 1 && test ! -e empty.svg &&
	grep -q "^profil: no samples to draw: '\''empty.svg'\''$" err
'
test_expect_success 'the other formats of no samples: empty folded, a valid pprof, no gmon file' '
	"$P" export -f folded empty.profil > e.folded && test ! -s e.folded &&
	"$P" export -f pprof -o e.pb.gz empty.profil &&
	go tool pprof -top e.pb.gz > e.top 2>&1 && cat e.top && grep -q "Total samples = 0" e.top &&
	"$P" export -f gmon -o e.gmon empty.profil > e.written && test ! -s e.written &&
	test -z "$(ls e.gmon)"
'
test_done
