#!/bin/sh
# t3010-report-diff: `profil report --diff BASE` on two profiles with exact counts
# (tests/report/mkstacks; the second has leaf_b at 260 samples instead of 60): per function
# the share in BASE and now, the difference in points, the two-proportion z statistic computed
# here independently, "beyond the noise" at |z| >= 1.96, largest |difference| first.
. "$(dirname "$0")/lib.sh"

P=$B/profil
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
"$B/tests/report/mkstacks" base.profil nodebug.so > /dev/null &&
MKSTACKS_LEAF_B=260 "$B/tests/report/mkstacks" now.profil nodebug.so > /dev/null ||
	echo "not ok - mkstacks wrote two profiles"

test_expect_success '--diff: shares, points, z and the verdict, largest change first' '
	"$P" report --diff base.profil --tsv now.profil > d.tsv 2> /dev/null &&
	cat d.tsv &&
	test "$(head -n 1 d.tsv | tr "\t" " ")" = \
		"base_percent percent diff z beyond_noise base_samples samples function module" &&
	awk "BEGIN { n0 = 310; n1 = 510
		split(\"leaf_b 60 260 leaf_a 140 140 hot_inline 50 50 rec 30 30 \" \
		    \"caller_top 20 20 plugin_call 10 10\", w, \" \")
		for (i = 1; i < 18; i += 3) {
			k0 = w[i + 1]; k1 = w[i + 2]; p0 = k0 / n0; p1 = k1 / n1
			p = (k0 + k1) / (n0 + n1)
			z = (p1 - p0) / sqrt(p * (1 - p) * (1 / n0 + 1 / n1))
			m = w[i] == \"plugin_call\" ? \"nodebug.so\" : \"mkstacks\"
			v = (z >= 1.96 || z <= -1.96) ? \"yes\" : \"no\"
			printf \"%.4f\t%.4f\t%+.4f\t%+.3f\t%s\t%d\t%d\t%s\t%s\n\",
			    100 * p0, 100 * p1, 100 * (p1 - p0), z, v, k0, k1, w[i], m
		} }" > want &&
	tail -n +2 d.tsv > got &&
	diff want got
'
test_expect_success '--diff: the verdicts differ across the rows (rec beyond, caller_top not)' '
	test "$(awk -F "\t" "\$8 == \"rec\" { print \$5 }" d.tsv)" = yes &&
	test "$(awk -F "\t" "\$8 == \"caller_top\" { print \$5 }" d.tsv)" = no
'
test_expect_success '--diff against itself: every difference 0, none beyond the noise' '
	"$P" report --diff base.profil --tsv base.profil > same.tsv 2> /dev/null &&
	awk -F "\t" "NR > 1 && (\$3 != \"+0.0000\" || \$5 != \"no\")" same.tsv > moved &&
	! test -s moved &&
	test "$(wc -l < same.tsv)" = 7
'
test_expect_success '--diff: a function in one profile only has 0 in the other' '
	cp "$B/tests/report/libplugin.so" gone.so &&
	"$B/tests/report/mkprofile" flat.profil "$B/tests/report/libplugin.so" gone.so \
		> /dev/null &&
	"$P" report --diff flat.profil --tsv base.profil > x.tsv 2> /dev/null &&
	test "$(awk -F "\t" "\$8 == \"pie_work\" { print \$1, \$2, \$6, \$7 }" x.tsv)" = \
		"49.7512 0.0000 500 0" &&
	test "$(awk -F "\t" "\$8 == \"leaf_a\" { print \$1, \$2, \$6, \$7 }" x.tsv)" = \
		"0.0000 45.1613 0 140"
'
test_expect_success '--diff table: header and a star beyond the noise' '
	"$P" report --diff base.profil now.profil > d.txt 2> /dev/null &&
	cat d.txt &&
	grep -q "^Base: 1 process, 310 samples" d.txt &&
	grep -q "^ 19.35    50.98   +31.63\* .* leaf_b  mkstacks$" d.txt &&
	grep -q "^  6.45     3.92    -2.53  .* caller_top  mkstacks$" d.txt
'
test_expect_success '--diff with a BASE that cannot be read exits 1 naming it' '
	"$P" report --diff nothing.profil now.profil > out 2> err
	test $? = 1 && grep -q "^profil: .*: '\''nothing.profil'\''$" err
'
test_done
