#!/bin/sh
# t3011-report-record: the views on real recordings of programs whose CPU split is known by
# construction (tests/record/split: main calls main_work50, lib_work25 in a linked library,
# plugin_work15 in a dlopen'ed one and main_work10, 50/25/15/10; tests/record/threads: four
# named threads at 40/30/20/10).  Shares are checked within the binomial bound of
# tests/lib-record.sh (z = 5) from the sample counts.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

"$PROFIL" record -g -o g -- "$REC/split" 1.0 "$PLUGIN" > /dev/null
"$PROFIL" report --graph --tsv g > g.tsv 2> g.err
"$PROFIL" report --tsv g > flat.tsv 2> /dev/null

# total FUNCTION: the total samples --graph gives FUNCTION; arc KIND FUNCTION PEER: the samples
# of FUNCTION's caller or callee line naming PEER.
total() {
	awk -F '\t' -v f="$1" '$1 == "function" && $8 == f { print $4 }' g.tsv
}
arc() {
	awk -F '\t' -v k="$1" -v f="$2" -v p="$3" '$1 == "function" && $8 == f { i = $2 }
	    $1 == k { row[$2, $8] = $4 } END { print row[i, p] }' g.tsv
}

test_expect_success '--graph on -g: each burner'\''s total share, callees included, in bound' '
	n=0 && for f in main_work50 lib_work25 plugin_work15 main_work10; do
		n=$((n + $(total $f))) || return 1
	done &&
	for fp in main_work50:0.50 lib_work25:0.25 plugin_work15:0.15 main_work10:0.10; do
		printf "%s: " "${fp%:*}" && share_ok "$(total ${fp%:*})" "$n" "${fp#*:}" 2 ||
			return 1
	done
'
test_expect_success '--graph: main is the caller of each burner (>= 95% of its total)' '
	for f in main_work50 lib_work25 plugin_work15 main_work10; do
		t=$(total $f) && c=$(arc caller $f main) &&
		echo "$f: $c of $t from main" && test $((c * 100)) -ge $((t * 95)) || return 1
	done
'
test_expect_success '--graph: main'\''s total holds its callees'\'' (inclusive time)' '
	m=$(total main) && s=0 &&
	for f in main_work50 lib_work25 plugin_work15 main_work10; do
		s=$((s + $(arc callee main $f))) || return 1
	done &&
	echo "main $m, its four callees $s" && test "$m" -ge "$s" && test "$s" -gt 0
'

# lines_of FUNCTION: "samples file module" of the --lines rows of FUNCTION's own code (its
# lines, and lines of code inlined into it).
"$PROFIL" report --lines --tsv g > l.tsv 2> /dev/null
lines_of() {
	awk -F '\t' -v f="$1" 'NR > 1 && ($8 == f || $9 == f) { print $5, $6, $10 }' l.tsv
}
for fm in lib_work25:libsplit.so:lib/split.c plugin_work15:libsplitplugin.so:lib/splitplugin.c \
	main_work50:split:record/split.c; do
	f=${fm%%:*} m=${fm#*:} src=${m#*:} m=${m%%:*}
	test_expect_success "--lines: $f in $m at file:line of $src (or burn.h)" '
		lines_of $f > rows && cat rows && test -s rows &&
		! awk -v m=$m -v s="$src" "\$3 != m ||
			!(substr(\$2, length(\$2) - length(s)) == \"/\" s || \$2 ~ /\/burn\.h\$/)" \
			rows | grep . &&
		test "$(awk "{ s += \$1 } END { print s }" rows)" = "$(report_samples flat.tsv $f)"
	'
done

test_expect_success '--annotate main_work50: by line and by address, each adding up' '
	"$PROFIL" report --annotate main_work50 --tsv g > a.tsv 2> /dev/null &&
	n=$(report_samples flat.tsv main_work50) &&
	test "$(awk -F "\t" "\$1 == \"line\" { s += \$4 } END { print s }" a.tsv)" = "$n" &&
	test "$(awk -F "\t" "\$1 == \"address\" { s += \$4 } END { print s }" a.tsv)" = "$n" &&
	awk -F "\t" "\$1 == \"address\" { print \$2 }" a.tsv | sort | uniq -d > dup &&
	! test -s dup
'
test_expect_success '--annotate: the loop'\''s addresses on one line stay apart' '
	lines=$(grep -c "^line" a.tsv) && addrs=$(grep -c "^address" a.tsv) &&
	echo "$lines lines, $addrs addresses" && test "$addrs" -gt "$lines"
'

"$PROFIL" record -o th -- "$REC/threads" 1.0 > /dev/null
"$PROFIL" report --threads --tsv th > th.tsv 2> /dev/null
test_expect_success '--threads: each worker'\''s function under its thread'\''s name, in bound' '
	n=0 && for f in thread_work40 thread_work30 thread_work20 thread_work10; do
		n=$((n + $(report_samples th.tsv $f))) || return 1
	done &&
	for ftp in thread_work40:worker-a:0.40 thread_work30:worker-b:0.30 \
		thread_work20:worker-c:0.20 thread_work10:worker-d:0.10; do
		f=${ftp%%:*} t=${ftp#*:} p=${t#*:} t=${t%%:*}
		test "$(awk -F "\t" -v f=$f "\$7 == f { print \$14 }" th.tsv)" = "$t" &&
		printf "%s in %s: " $f $t && share_ok "$(report_samples th.tsv $f)" "$n" "$p" 2 ||
			return 1
	done
'
test_expect_success '--graph on a recording without -g: one warning, leaf functions only' '
	"$PROFIL" report --graph th > /dev/null 2> err && cat err &&
	test "$(grep -c "no call stacks (record with -g)" err)" = 1
'
test_done
