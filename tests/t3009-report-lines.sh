#!/bin/sh
# t3009-report-lines: `profil report --lines` and `--annotate FUNCTION` on a -g profile with
# exact counts (tests/report/mkstacks), and the warnings for modules without debug
# information.  mkstacks prints the line of inl_add's body (inlined into hot_inline, 50
# samples) and the line of hot_inline that calls it.
. "$(dirname "$0")/lib.sh"

P=$B/profil
SRC=$ROOT/tests/report/mkstacks.c
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
"$B/tests/report/mkstacks" st.profil nodebug.so > expect ||
	echo "not ok - mkstacks wrote a profile"
inl=$(sed -n 's/^inl_line //p' expect)
call=$(sed -n 's/^call_line //p' expect)
"$P" report --lines --tsv st.profil > l.tsv 2> l.err

# Lines columns: 1 percent, 4 self_s, 5 samples, 6 file, 7 line, 8 function, 9 inlined_into,
# 10 module.
test_expect_success '--lines: inlined code at its own line, attributed to the inlined function' '
	cat l.tsv &&
	awk -F "\t" "\$8 == \"inl_add\" { print \$5, \$6, \$7, \$9, \$10 }" l.tsv > got &&
	test "$(cat got)" = "50 $SRC $inl hot_inline mkstacks"
'
test_expect_success '--lines: every leaf sample on one line row, heaviest first, totals add up' '
	test "$(awk -F "\t" "NR > 1 { s += \$5 } END { print s }" l.tsv)" = 310 &&
	awk -F "\t" "NR > 1 { print \$5 }" l.tsv > counts && sort -rn counts | cmp - counts &&
	test "$(awk -F "\t" "\$8 == \"leaf_a\" { print \$5, \$10 }" l.tsv)" = "140 mkstacks"
'
test_expect_success '--lines: leaf_a'\''s line is a line of leaf_a in mkstacks.c' '
	line=$(awk -F "\t" "\$8 == \"leaf_a\" { print \$7 }" l.tsv) &&
	first=$(grep -n "^leaf_a(int n)" "$SRC" | cut -d: -f1) &&
	echo "line $line, leaf_a starts at $first" &&
	test "$line" -ge "$first" && test "$line" -le $((first + 5))
'
test_expect_success '--lines: code without debug information counts by function, no line' '
	test "$(awk -F "\t" "\$8 == \"plugin_call\" { print \$5, \$6, \$7, \$10 }" l.tsv)" = \
		"10  0 nodebug.so"
'
test_expect_success 'missing debug information: one warning for the module, never a failure' '
	cat l.err &&
	test "$(grep -c nodebug.so l.err)" = 1 &&
	msg="profil: no debug information, functions without file:line" &&
	grep -qx "$msg: '\''$PWD/nodebug.so'\''" l.err &&
	"$P" report st.profil > /dev/null 2> err && test "$(grep -c nodebug.so err)" = 1
'
test_expect_success '--lines table: file:line and "function (inlined into)"' '
	"$P" report --lines st.profil > l.txt 2> /dev/null &&
	grep -q "^ 16.13  .*  50  mkstacks.c:$inl  *inl_add (hot_inline)  mkstacks$" l.txt
'

test_expect_success '--annotate hot_inline: its samples at the line that calls the inlined code' '
	"$P" report --annotate hot_inline st.profil > a.txt 2> /dev/null &&
	cat a.txt &&
	grep -qx "hot_inline: 50 samples, 16.13% of all" a.txt &&
	want=$(sed -n "${call}p" "$SRC") &&
	grep -qxF "       50 100.00 $(printf "%6d" "$call")  $want" a.txt
'
test_expect_success '--annotate: the source around the counted lines, uncounted lines dotted' '
	prev=$(sed -n "$((call - 1))p" "$SRC") &&
	grep -qxF "        .        $(printf "%6d" $((call - 1)))  $prev" a.txt &&
	grep -qx "$SRC" a.txt
'
test_expect_success '--annotate inl_add: the inlined function at its own line' '
	"$P" report --annotate inl_add --tsv st.profil > ai.tsv 2> /dev/null &&
	grep -qx "line	$SRC	$inl	50	100.0000	0.050000" ai.tsv
'
test_expect_success '--annotate: by address, as module+0xoffset' '
	grep -q "^address	mkstacks+0x[0-9a-f]*		50	100.0000	0.050000$" \
		ai.tsv
'
test_expect_success '--annotate without debug information: per address only' '
	"$P" report --annotate plugin_call --tsv st.profil > ap.tsv 2> /dev/null &&
	cat ap.tsv &&
	test "$(grep -c "^line" ap.tsv)" = 0 &&
	grep -q "^address	nodebug.so+0x[0-9a-f]*		10	100.0000	0.010000$" \
		ap.tsv
'
test_expect_success '--annotate with an unreadable source: the counted lines without text' '
	cp "$ROOT/tests/report/lib/plugin.c" gone.c &&
	cc -g -O2 -fPIC -shared -o withdebug.so gone.c && rm gone.c &&
	"$B/tests/report/mkstacks" gone.profil withdebug.so > /dev/null &&
	"$P" report --annotate plugin_call gone.profil > ag.txt 2> err &&
	cat ag.txt && ! grep -q withdebug err &&
	grep -qx "$PWD/gone.c (not readable: lines with samples only)" ag.txt &&
	grep -q "^       10 100.00  *[0-9][0-9]*$" ag.txt
'
# A GNU C nested function: its code lies outside its parent's, where a walk of the unit by
# address does not look.
cat > nest.c <<'EOF'
#include <stdlib.h>
int
main(int argc, char **argv)
{
	volatile long x = 0;
	__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) x += i; }
	for (int r = 0; r < 10; r++)
		burn(argc > 1 ? atol(argv[1]) : 1);
	return 0;
}
EOF
test_expect_success '--lines: a nested function has its file:line' '
	cc -O1 -g -o nest nest.c && "$P" record -o nestp -- ./nest 30000000 &&
	"$P" report --lines --tsv nestp > n.tsv 2> /dev/null && cat n.tsv &&
	awk -F "\t" "\$8 ~ /^burn/ { print \$6, \$7 }" n.tsv > got &&
	test "$(head -n 1 got)" = "$PWD/nest.c $(grep -n "void burn" nest.c | cut -d: -f1)"
'
test_expect_success '--annotate of a function without samples exits 1 naming it' '
	"$P" report --annotate no_such_function st.profil > out 2> err
	test $? = 1 && grep -qx "profil: no samples in function: '\''no_such_function'\''" err
'
# A real program's modules from Debian, several without debug information (python3's
# libpython and its extension modules): one line for them all in the flat view, where a build's
# worth of them would bury the report, and one each for --lines.
test_expect_success 'several modules without debug information: one line, one each with --lines' '
	"$P" record -o py -- /usr/bin/python3 -c "import json
for i in range(20000): json.loads(json.dumps({\"a\": [1, 2, 3] * 20}))" &&
	"$P" report py > /dev/null 2> py.err && cat py.err &&
	test "$(grep -c "no debug information" py.err)" = 1 &&
	n=$(sed -n "s/^profil: no debug information in \([0-9]*\) modules, .*(--lines names each)\$/\1/p" \
		py.err) && test "$n" -ge 2 &&
	"$P" report --lines py > /dev/null 2> pyl.err &&
	test "$(grep -c "^profil: no debug information, functions without file:line: " pyl.err)" = "$n"
'
test_done
