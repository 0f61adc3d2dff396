#!/bin/sh
# t3022-report-stripped-functions: unnamed code by function (issue 20, item 5).  In a stripped
# binary (no .symtab), code no symbol names was one row per address: ~25 rows like
# postgres+0x4724ba, postgres+0x47259c, all inside one function.  Stripping keeps the unwind
# tables, whose entries (FDEs) begin and end where the functions do: such code is now one
# function per entry, named module+0xSTART with START the file offset where the entry begins,
# in every view and export.  A program with two hot static functions, hot_a (2/3 of its CPU
# time) and hot_b (1/3), is recorded unstripped; the same recording read against the stripped
# file gives each function one row with the same samples, named at its start; and a recording
# of the stripped binary gives each the share the unstripped one has, within the binomial
# bound of the two sample counts.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs binutils:strip binutils:readelf binutils:nm golang-go:go

cat > hot.c <<'EOF'
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
hot_a(double s)
{
	for (double end = cpu() + s; cpu() < end;)
		for (unsigned long i = 0; i < 20000; i++)
			sink += i * i;
}

__attribute__((noinline)) static void
hot_b(double s)
{
	for (double end = cpu() + s; cpu() < end;)
		for (unsigned long i = 0; i < 20000; i++)
			sink ^= i + (i >> 3);
}

int
main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 1;

	for (int k = 0; k < 20; k++) {
		hot_a(s / 30);
		hot_b(s / 60);
	}
	return 0;
}
EOF

# offset FUNCTION: the file offset of FUNCTION in hot.full, in hex: its ELF address through the
# executable segment, as module+0xoffset names count.
offset() {
	a=$(nm hot.full | awk -v f="$1" '$3 == f { print $1 }') &&
	readelf -lW hot.full | awk -v a="$a" 'function hex(s,  i, v) { v = 0; s = tolower(s)
			sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$1 == "LOAD" && / R E / { x = hex(a); if (x >= hex($3) && x < hex($3) + hex($5))
			printf "%x\n", x - hex($3) + hex($2) }'
}

# rows TSV: "function samples" of module hot, from profil report --tsv.
rows() {
	awk -F '\t' 'NR > 1 && $8 == "hot" { print $7, $6 }' "$1"
}

test_expect_success 'a program with two hot static functions, recorded with its symbols' '
	cc -O2 -fno-ipa-icf -fno-inline -o hot hot.c && cp hot hot.full &&
	"$PROFIL" record -q -F 1000 -o un -- ./hot 1.5 &&
	"$PROFIL" report --tsv un > un.tsv 2> /dev/null && rows un.tsv > un.rows && cat un.rows &&
	grep -q "^hot_a [1-9]" un.rows && grep -q "^hot_b [1-9]" un.rows &&
	a=$(offset hot_a) && b=$(offset hot_b) && echo "hot_a at 0x$a, hot_b at 0x$b" &&
	test -n "$a" && test -n "$b" && echo "$a $b" > offsets
'

test_expect_success 'stripped: no symbol table left, the unwind tables kept' '
	strip hot && ! readelf -SW hot | grep -q "\\.symtab" && readelf -SW hot | grep -q "\\.eh_frame "
'

test_expect_success 'the same recording, stripped: each function one row, named at its start' '
	read -r a b < offsets &&
	"$PROFIL" report --tsv un > st.tsv 2> /dev/null && rows st.tsv > st.rows && cat st.rows &&
	test "$(grep -c "^hot+0x$a " st.rows)" = 1 && test "$(grep -c "^hot+0x$b " st.rows)" = 1 &&
	test "$(grep "^hot+0x$a " st.rows | cut -d " " -f 2)" = \
		"$(grep "^hot_a " un.rows | cut -d " " -f 2)" &&
	test "$(grep "^hot+0x$b " st.rows | cut -d " " -f 2)" = \
		"$(grep "^hot_b " un.rows | cut -d " " -f 2)" &&
	test "$(wc -l < st.rows)" -le "$(wc -l < un.rows)"
'

test_expect_success 'the call graph, folded stacks, SVG and pprof: one function each too' '
	read -r a b < offsets &&
	"$PROFIL" report --graph --tsv un 2> /dev/null > graph.tsv &&
	test "$(awk -F "\t" -v f="hot+0x$a" "\$1 == \"function\" && \$8 == f" graph.tsv | wc -l)" = 1 &&
	"$PROFIL" export -f folded -o - un 2> /dev/null > st.folded &&
	grep -o "hot+0x[0-9a-f]*" st.folded | sort -u > names &&
	cat names && test "$(wc -l < names)" -le "$(wc -l < un.rows)" && grep -qx "hot+0x$a" names &&
	"$PROFIL" export -f svg -o st.svg un 2> /dev/null && grep -q "hot+0x$a" st.svg &&
	"$PROFIL" export -f pprof -o st.pb.gz un 2> /dev/null &&
	go tool pprof -top st.pb.gz 2> /dev/null > top.txt &&
	test "$(grep -c " hot+0x$a\$" top.txt)" = 1 && test "$(grep -c " hot+0x$b\$" top.txt)" = 1
'

test_expect_success '--annotate keeps the addresses inside the function' '
	read -r a b < offsets &&
	"$PROFIL" report --annotate "hot+0x$a" --tsv un 2> /dev/null > ann.tsv &&
	test "$(grep -c "^address	hot+0x" ann.tsv)" -gt 1
'

# share_same K1 N1 K2 N2: the two shares agree within 5 standard deviations of their difference
# (two binomial draws, pooled share), plus one sample of rounding each.
share_same() {
	awk -v k1="$1" -v n1="$2" -v k2="$3" -v n2="$4" 'BEGIN {
		p = (k1 + k2) / (n1 + n2); d = k1 / n1 - k2 / n2; if (d < 0) d = -d
		bound = 5 * sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 1 / n1 + 1 / n2
		printf "shares %.4f of %d and %.4f of %d, bound %.4f\n", k1 / n1, n1, k2 / n2, n2, bound
		exit d <= bound ? 0 : 1 }'
}

test_expect_success 'the stripped binary recorded: each share as unstripped, within the bound' '
	read -r a b < offsets &&
	"$PROFIL" record -q -F 1000 -o strec -- ./hot 1.5 &&
	"$PROFIL" report --tsv strec > strec.tsv 2> /dev/null && rows strec.tsv > strec.rows &&
	cat strec.rows &&
	n1=$(awk -F "\t" "NR > 1 { n += \$6 } END { print n }" un.tsv) &&
	n2=$(awk -F "\t" "NR > 1 { n += \$6 } END { print n }" strec.tsv) &&
	share_same "$(grep "^hot_a " un.rows | cut -d " " -f 2)" "$n1" \
		"$(grep "^hot+0x$a " strec.rows | cut -d " " -f 2)" "$n2" &&
	share_same "$(grep "^hot_b " un.rows | cut -d " " -f 2)" "$n1" \
		"$(grep "^hot+0x$b " strec.rows | cut -d " " -f 2)" "$n2"
'
test_done
