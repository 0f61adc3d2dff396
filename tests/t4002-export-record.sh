#!/bin/sh
# t4002-export-record: a real recording (`profil record -g`) of tests/progs/callers, whose stacks
# and CPU split are known by construction, exported and read back by the real readers.  What the
# exports say about the same data must agree exactly with `profil report`; what they say about
# the program is a sampling estimate, checked against the construction with a binomial bound
# from the sample count (5 standard deviations, plus a few ticks for the clock's granularity at
# each of the three segment boundaries).
. "$(dirname "$0")/lib.sh"
test_needs golang-go:go

P=$B/profil
PROG=$B/tests/progs/callers
"$P" record -F 1000 -g -o rec -- "$PROG" 0.8 > /dev/null 2>&1 ||
	echo "not ok - profil record ran the program"
"$P" report --tsv rec > report.tsv 2> /dev/null
"$P" export -f folded -o out.folded rec 2> /dev/null

# share NAME HITS N P QUANTUM: ok when HITS/N is within the bound of P.
share() {
	awk -v name="$1" -v k="$2" -v n="$3" -v p="$4" -v q="$5" 'BEGIN {
		b = 5 * sqrt(p * (1 - p) / n) + q / n; got = n > 0 ? k / n : 0
		printf "# %s: %d of %d = %.4f, expected %.4f +- %.4f\n", name, k, n, got, p, b
		exit !(n > 0 && got - p <= b && p - got <= b) }'
}
# count PATTERN: the ticks of folded stacks matching an awk regex (on the frames).
count() {
	awk -v re="$1" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) t += n }
	    END { print t + 0 }' out.folded
}

test_expect_success 'folded: the stacks sum to the samples profil report counts' '
	total=$(awk -F "\t" "NR > 1 { s += \$6 } END { print s }" report.tsv) &&
	test "$(awk "{ s += \$NF } END { print s }" out.folded)" = "$total" &&
	test "$total" -ge 400
'
test_expect_success 'folded: the three constructed stacks with their shares of the samples in main' '
	n=$(count "(^|;)main;") &&
	share "main;left;hot_a" "$(count "(^|;)main;left;hot_a(;|$)")" "$n" 0.1875 3 &&
	share "main;right;hot_a" "$(count "(^|;)main;right;hot_a(;|$)")" "$n" 0.1875 3 &&
	share "main;right;right_inner;hot_b" \
		"$(count "(^|;)main;right;right_inner;hot_b(;|$)")" "$n" 0.625 3
'

test_expect_success 'pprof: go tool pprof -top -noinlines agrees with profil report exactly' '
	"$P" export -f pprof -o rec.pb.gz rec 2> /dev/null &&
	go tool pprof -top -noinlines -nodefraction=0 -nodecount=100000 -sample_index=samples \
		rec.pb.gz > top.txt 2>&1 &&
	awk "/^ *flat/ { on = 1; next } on && \$1 > 0 { print \$6, \$1 }" top.txt |
		sort > pprof.got &&
	awk -F "\t" "NR > 1 { print \$7, \$6 }" report.tsv | sort > report.want &&
	diff report.want pprof.got
'
test_expect_success 'pprof: mapping 0 is the main binary (pprof names it in its heading)' '
	grep -q "^File: callers$" top.txt
'
test_expect_success 'pprof: the inlined right_inner is a frame, on exactly the folded hot_b stacks' '
	go tool pprof -top -cum -nodefraction=0 -nodecount=100000 -sample_index=samples \
		rec.pb.gz > cum.txt 2>&1 &&
	cat cum.txt &&
	got=$(awk "\$6 == \"right_inner\" && \$7 == \"(inline)\" { print \$4 }" cum.txt) &&
	test "$got" = "$(count ";right_inner;")"
'

test_expect_success 'pprof: each caller frame has the line of its call (return address - 1)' '
	go tool pprof -traces -lines rec.pb.gz > traces.txt 2>&1 &&
	awk "\$1 ~ /^(left|right|right_inner|main)\$/ && \$2 ~ /callers\\.c:/ {
	    sub(/.*callers\\.c:/, \"\", \$2); print \$1 \":\" \$2 }" traces.txt | sort -u > calls.got &&
	src="$ROOT/tests/progs/callers.c" &&
	line() { grep -n "$1" "$src" | sed -n "${2}p" | cut -d: -f1; } &&
	{
		echo "left:$(line "hot_a(total" 1)"
		echo "right:$(line "hot_a(total" 2)"
		echo "right:$(line "r = right_inner();" 1)"
		echo "right_inner:$(line "hot_b(total" 1)"
		echo "main:$(line "r = left();" 1)"
		echo "main:$(line "r += right();" 1)"
	} | sort > calls.want &&
	cat calls.got && diff calls.want calls.got
'
test_expect_success 'svg: the inlined right_inner is marked inlined, its callers and callees not' '
	"$P" export -f svg -o rec.svg rec 2> /dev/null &&
	grep -q "<g class=\"f inl\" [^>]*data-name=\"right_inner\" data-module=\"callers\" data-inline=\"1\"" rec.svg &&
	! grep -q "data-name=\"\(right\|hot_b\|main\)\"[^>]*data-inline" rec.svg
'

test_expect_success 'gmon: GNU gprof sees hot_a and hot_b in the constructed proportion' '
	"$P" export -f gmon -o gm rec > written 2> /dev/null &&
	gprof -b -p "$PROG" gm/gmon.callers.out > gprof.txt &&
	cat gprof.txt &&
	a=$(awk "\$NF == \"hot_a\" { print \$1 }" gprof.txt) &&
	b=$(awk "\$NF == \"hot_b\" { print \$1 }" gprof.txt) &&
	na=$(awk -F "\t" "\$7 == \"hot_a\" { print \$6 }" report.tsv) &&
	nb=$(awk -F "\t" "\$7 == \"hot_b\" { print \$6 }" report.tsv) &&
	n=$((na + nb)) &&
	k=$(awk -v a="$a" -v b="$b" -v n="$n" "BEGIN { printf \"%.0f\", n * a / (a + b) }") &&
	share "gprof hot_a of hot_a+hot_b" "$k" "$n" 0.375 3 &&
	test "$k" = "$na"
'
# The achieved rate in millihertz is the header's u64 at payload offset 16 (docs/FORMAT.md), after
# the 16-byte preamble and the 8-byte frame.  A rate of exactly n.5 Hz may round either way.
test_expect_success 'gmon: each sample counts as 1 / the achieved rate, rounded' '
	mhz=$(od -An -j 40 -N 8 -tu8 rec/*.profil | tr -d " ") &&
	hz=$(awk -v m="$mhz" "BEGIN { printf \"%.3f\", m / 1000 }") &&
	lo=$(awk -v hz="$hz" "BEGIN { printf \"%g\", 1 / int(hz - 0.001 + 0.5) }") &&
	hi=$(awk -v hz="$hz" "BEGIN { printf \"%g\", 1 / int(hz + 0.001 + 0.5) }") &&
	grep -q -e "Each sample counts as $lo seconds" -e "Each sample counts as $hi seconds" gprof.txt
'
# The same program linked at a fixed address (no PIE): the ELF addresses gprof looks up are the
# run-time ones, and the export must not shift them.
cc -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -fno-pie -no-pie -o callers-nopie \
	"$ROOT/tests/progs/callers.c" 2> /dev/null || echo "not ok - callers built without PIE"
"$P" record -F 1000 -o rec-nopie -- ./callers-nopie 0.4 > /dev/null 2>&1 ||
	echo "not ok - profil record ran the program without PIE"
test_expect_success 'gmon: a non-PIE executable, hot_a and hot_b in the constructed proportion' '
	"$P" report --tsv rec-nopie > nopie.tsv 2> /dev/null &&
	"$P" export -f gmon -o gm-nopie rec-nopie > /dev/null 2>&1 &&
	od -An -j 21 -N 8 -tx8 gm-nopie/gmon.callers-nopie.out | grep -q " 0*4[0-9a-f]\{5\}$" &&
	gprof -b -p callers-nopie gm-nopie/gmon.callers-nopie.out > gprof-nopie.txt &&
	cat gprof-nopie.txt &&
	a=$(awk "\$NF == \"hot_a\" { print \$1 }" gprof-nopie.txt) &&
	b=$(awk "\$NF == \"hot_b\" { print \$1 }" gprof-nopie.txt) &&
	na=$(awk -F "\t" "\$7 == \"hot_a\" { print \$6 }" nopie.tsv) &&
	nb=$(awk -F "\t" "\$7 == \"hot_b\" { print \$6 }" nopie.tsv) &&
	n=$((na + nb)) &&
	k=$(awk -v a="$a" -v b="$b" -v n="$n" "BEGIN { printf \"%.0f\", n * a / (a + b) }") &&
	share "gprof hot_a of hot_a+hot_b, no PIE" "$k" "$n" 0.375 3 &&
	test "$k" = "$na"
'
test_done
