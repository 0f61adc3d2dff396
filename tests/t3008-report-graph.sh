#!/bin/sh
# t3008-report-graph: `profil report --graph` on a -g profile with exact stacks
# (tests/report/mkstacks): self and total samples and seconds per function, callers and callees
# with the samples whose stack held the call, recursion counted once per sample, and the
# header that says these are sampled stack counts, not call counts.
. "$(dirname "$0")/lib.sh"

P=$B/profil
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
"$B/tests/report/mkstacks" st.profil nodebug.so > expect ||
	echo "not ok - mkstacks wrote a profile"
"$P" report --graph --tsv st.profil > g.tsv 2> /dev/null
"$P" report --graph st.profil > g.txt 2> g.err
cat g.txt

# graph KIND: "index peer total self function" of the TSV rows of KIND (function, caller,
# callee), in output order.
graph() {
	awk -F '\t' -v k="$1" '$1 == k { print $2, $3, $4, $5, $8 }' g.tsv
}

test_expect_success 'the header says: sampled stack counts, not call counts' '
	grep -q "^Counts are sampled stack counts, not call counts" g.txt &&
	test "$(head -n 1 g.tsv | tr "\t" " ")" = \
		"kind index peer total self total_s self_s function module"
'
test_expect_success 'functions by total: index, total, self' '
	graph function > got &&
	cat > want <<-EOF &&
	1 1 300 20 caller_top
	2 2 140 140 leaf_a
	3 3 70 30 rec
	4 4 60 60 leaf_b
	5 5 50 50 hot_inline
	6 6 10 10 plugin_call
	EOF
	diff want got
'
test_expect_success 'recursion: rec is on 40 + 30 stacks up to three times, total 70 not 160' '
	awk -F "\t" "\$1 == \"function\" && \$8 == \"rec\" { print \$4, \$6, \$7 }" g.tsv > got &&
	test "$(cat got)" = "70 0.070000 0.030000"
'
test_expect_success 'callers: leaf_a from caller_top 100 and from rec 40; no rec -> rec arc' '
	graph caller | awk "\$1 == 2" > got &&
	printf "2 1 100  caller_top\n2 3 40  rec\n" > want &&
	diff want got &&
	! graph caller | grep -q "^3 3 "
'
test_expect_success 'callees of caller_top: each child once per sample, heaviest first' '
	graph callee | awk "\$1 == 1 { print \$2, \$3, \$4 }" > got &&
	printf "2 100 leaf_a\n3 70 rec\n4 60 leaf_b\n5 50 hot_inline\n" > want &&
	diff want got
'
test_expect_success 'arcs add up: what caller_top calls plus its self is its total' '
	test $(graph callee | awk "\$1 == 1 { s += \$3 } END { print s + 20 }") = 300
'
test_expect_success 'a function without a caller (leaf-only sample) has no caller line' '
	test "$(graph caller | awk "\$1 == 6" | wc -l)" = 0
'
test_expect_success 'the table: primary line with index, %total, seconds and samples' '
	grep -q "^\[3\]  *22.58  *0.070  *0.030  *70  *30  rec \[3\]  mkstacks$" g.txt &&
	grep -q "^  *0.040  *40  *rec \[3\]$" g.txt
'
test_expect_success '-n 2 prints the two heaviest functions' '
	"$P" report --graph --tsv -n 2 st.profil 2> /dev/null |
		awk -F "\t" "\$1 == \"function\"" | wc -l > n &&
	test "$(cat n)" = 2
'
test_done
