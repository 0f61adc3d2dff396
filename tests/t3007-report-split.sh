#!/bin/sh
# t3007-report-split: `profil report --pid`, `--per-process` and `--threads` on two processes'
# profiles with exact counts (tests/report/mkstacks: thread 1 "main" has leaf_a 100, leaf_b B,
# caller_top 20; thread 2 "worker" has leaf_a 40, rec 30, hot_inline 50, plugin_call 10).
. "$(dirname "$0")/lib.sh"

P=$B/profil
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
mkdir two
"$B/tests/report/mkstacks" two/a.profil nodebug.so > a.expect &&
MKSTACKS_LEAF_B=260 "$B/tests/report/mkstacks" two/b.profil nodebug.so > b.expect ||
	echo "not ok - mkstacks wrote two profiles"
pa=$(sed -n 's/^pid //p' a.expect)
pb=$(sed -n 's/^pid //p' b.expect)

# rows TSV COLUMNS: the comma-separated COLUMNS of every data row, joined by spaces, one a line.
# Flat columns: 1 percent, 5 self_s, 6 samples, 7 function, 8 module, 11 pid, 12 progname,
# 13 tid, 14 thread.
rows() {
	awk -F '\t' -v c="$2" 'NR > 1 { n = split(c, k, ","); s = $k[1]
		for (i = 2; i <= n; i++)
			s = s " " $k[i]
		print s }' "$1"
}

test_expect_success '--pid: "Read only the files of process pid" (profil(1))' '
	"$P" report --tsv --pid "$pb" two > pid.tsv 2> /dev/null &&
	"$P" report --tsv two/b.profil > b.tsv 2> /dev/null &&
	cmp pid.tsv b.tsv &&
	test "$(rows pid.tsv 6,7 | head -n 1)" = "260 leaf_b"
'
test_expect_success '--pid with no such process exits 1 naming the pid' '
	"$P" report --pid 4294967295 two > out 2> err
	test $? = 1 && ! test -s out &&
	grep -qx "profil: no profile of process: '\''4294967295'\''" err
'
test_expect_success '--pid that is not a process ID exits 2' '
	"$P" report --pid 12x two > /dev/null 2> err
	test $? = 2 && grep -qx "profil: --pid wants a process ID: '\''12x'\''" err
'
test_expect_success '--per-process: one table per file, headed by progname[pid]' '
	"$P" report --per-process two > pp.txt 2> /dev/null &&
	cat pp.txt &&
	grep -qx "mkstacks\[$pa\]: 310 samples, 0.310 seconds of CPU (two/a.profil)" pp.txt &&
	grep -qx "mkstacks\[$pb\]: 510 samples, 0.510 seconds of CPU (two/b.profil)" pp.txt &&
	test "$(grep -c "^ %time" pp.txt)" = 2
'
test_expect_success '--per-process: shares are of each process, in file order' '
	"$P" report --per-process --tsv two > pp.tsv 2> /dev/null &&
	rows pp.tsv 11,6,7,1 > got &&
	cat > want <<-EOF &&
	$pa 140 leaf_a 45.1613
	$pa 60 leaf_b 19.3548
	$pa 50 hot_inline 16.1290
	$pa 30 rec 9.6774
	$pa 20 caller_top 6.4516
	$pa 10 plugin_call 3.2258
	$pb 260 leaf_b 50.9804
	$pb 140 leaf_a 27.4510
	$pb 50 hot_inline 9.8039
	$pb 30 rec 5.8824
	$pb 20 caller_top 3.9216
	$pb 10 plugin_call 1.9608
	EOF
	diff want got
'
test_expect_success '--per-process -n 2: the limit is per table' '
	"$P" report --per-process --tsv -n 2 two > pp2.tsv 2> /dev/null &&
	test "$(rows pp2.tsv 11,7 | tr "\n" " ")" = "$pa leaf_a $pa leaf_b $pb leaf_b $pb leaf_a "
'
test_expect_success '--threads: a row per function and thread, tid and name from the file' '
	"$P" report --threads --tsv two/a.profil > th.tsv 2> /dev/null &&
	rows th.tsv 6,7,13,14 > got &&
	cat > want <<-EOF &&
	100 leaf_a 1 main
	60 leaf_b 1 main
	50 hot_inline 2 worker
	40 leaf_a 2 worker
	30 rec 2 worker
	20 caller_top 1 main
	10 plugin_call 2 worker
	EOF
	diff want got &&
	test "$(head -n 1 th.tsv | cut -f 11-14 | tr "\t" " ")" = "pid progname tid thread"
'
test_expect_success '--threads: the table has tid and thread columns; shares of all samples' '
	"$P" report --threads two/a.profil > th.txt 2> /dev/null &&
	grep -q "^ %time .*  tid  thread  *function  *module$" th.txt &&
	grep -q "^ 12.90  .*  40  *2  worker  *leaf_a  *mkstacks$" th.txt
'
test_expect_success '--threads over two processes keeps their threads apart' '
	"$P" report --threads --tsv two > th2.tsv 2> /dev/null &&
	test "$(rows th2.tsv 11,13,7,6 | grep -c " 1 leaf_a 100$")" = 2
'
test_expect_success 'splits and views do not combine: exit 2' '
	"$P" report --threads --per-process two > /dev/null 2> err
	test $? = 2 && grep -q "^profil: options cannot be combined: " err &&
	"$P" report --graph --threads two > /dev/null 2> err
	test $? = 2 && grep -q "^usage: profil report" err
'
test_done
