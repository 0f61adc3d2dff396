#!/bin/sh
# t3018-report-count-sums: every per-view sum of sample counts saturates, never wraps (issue
# 11).  One file's counts always fit (the reader refuses a file whose sum overflows), but two
# files of 2^63 ticks each made --lines and --graph show 0 samples and gmon export name
# 2^63 - 1 ticks where there were 2^64 and more.  The flat view saturated already; now every
# view sums through the same helper.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3

P=$B/profil
BIN=$B/tests/report/mkstacks
H="python3 $TEST_DIR/report/hostile.py"
MAX=18446744073709551615
leaf_a=0x$(nm "$BIN" | awk '$3 == "leaf_a" { print $1 }')
leaf_b=0x$(nm "$BIN" | awk '$3 == "leaf_b" { print $1 }')
$H counts a.profil 9223372036854775808 && $H counts b.profil 9223372036854775808 ||
	echo "not ok - hostile.py wrote the profiles"
$H hit c.profil "$BIN" $leaf_a 9223372036854775808 $leaf_b 9223372036854775807 &&
	$H hit d.profil "$BIN" $leaf_a 9223372036854775808 ||
	echo "not ok - hostile.py wrote the profiles"

test_expect_success '--lines: two files of 2^63 at one place show 2^64 - 1 samples' '
	"$P" report --lines --tsv a.profil b.profil > out 2> err &&
	cat out &&
	test "$(awk -F "\t" "NR == 2 { print \$5, \$1 }" out)" = "$MAX 100.0000"
'
test_expect_success '--lines: a line with 2^64 - 1 and one with 2^63 - 1, heaviest first' '
	"$P" report --lines --tsv c.profil d.profil > out 2> err &&
	cat out &&
	test "$(awk -F "\t" "NR > 1 { print \$8, \$5 }" out | tr "\n" " ")" = \
		"leaf_a $MAX leaf_b 9223372036854775807 "
'
test_expect_success '--graph: self and total saturate' '
	"$P" report --graph --tsv a.profil b.profil > out 2> err &&
	cat out &&
	test "$(awk -F "\t" "\$1 == \"function\" { print \$4, \$5 }" out)" = "$MAX $MAX"
'
# Both files are of one program, "counts" (hostile.py), that the stack stands on (issue 21).
test_expect_success 'folded stacks: the sum of two files saturates' '
	"$P" export -f folded -o - a.profil b.profil > out 2> err &&
	cat out &&
	test "$(cat out)" = "counts;[unmapped] $MAX"
'
test_expect_success 'gmon: the ticks it names saturate (here, too many for one bin)' '
	"$P" export -f gmon -o g c.profil d.profil > out 2> err
	rc=$?
	cat err
	test $rc = 0 &&
	grep -q "too many ticks in one bin for gmon ($MAX samples not exported)" err
'
test_done
