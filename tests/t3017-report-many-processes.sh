#!/bin/sh
# t3017-report-many-processes: a report over hundreds of processes (a `make -j2` build records
# 433 files) opens each binary once, not once per file, takes about as long as a report of
# one file, and stays readable: the summary and --per-program give a line or a table per
# program, not one per process (issue 8, item 3).
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time strace:strace python3:python3

P=$B/profil
BIN=$B/tests/report/mkstacks
leaf=$(nm "$BIN" | awk '$3 == "leaf_a" { print $1 }')
H="python3 $TEST_DIR/report/hostile.py"
mkdir many
$H procs many 433 "$BIN" 0x$leaf || echo "not ok - hostile.py wrote the profiles"

test_expect_success '433 processes of one binary: the binary is opened once' '
	strace -f -e trace=open,openat -o trace "$P" report many > out 2> err &&
	grep -F "\"$BIN\"" trace > opens; cat opens &&
	test "$(wc -l < opens)" = 1
'
test_expect_success '433 processes take at most a few times one process (plus reading them)' '
	/usr/bin/time -f %e -o one "$P" report many/p1.profil > /dev/null 2>&1 &&
	/usr/bin/time -f %e -o all "$P" report many > /dev/null 2>&1 &&
	cat one all &&
	awk -v one="$(tail -n 1 one)" -v all="$(tail -n 1 all)" \
		"BEGIN { exit !(all <= 10 * one + 2) }"
'
test_expect_success 'the summary has a line per program, not per process' '
	"$P" report many > out 2> err &&
	cat out &&
	grep -qx "Flat profile: 433 processes, 866 samples, 0.866 seconds of CPU" out &&
	grep -qx "  make: 145 processes with samples, 290 samples, 0.290 seconds of CPU" out &&
	grep -qx "  sh: 144 processes with samples, 288 samples, 0.288 seconds of CPU" out &&
	grep -qx "  cc1: 144 processes with samples, 288 samples, 0.288 seconds of CPU" out &&
	test "$(wc -l < out)" -lt 12
'
test_expect_success '--per-program: one table per program, its processes merged' '
	"$P" report --per-program many > out 2> err &&
	cat out &&
	test "$(grep -c "^ %time" out)" = 3 &&
	grep -qx "make: 145 processes, 290 samples, 0.290 seconds of CPU" out &&
	grep -qx "cc1: 144 processes, 288 samples, 0.288 seconds of CPU" out &&
	"$P" report --per-program --tsv many > out.tsv &&
	test "$(awk -F "\t" "NR > 1 { print \$12, \$6, \$7 }" out.tsv | tr "\n" " ")" = \
		"make 290 leaf_a sh 288 leaf_a cc1 288 leaf_a "
'
test_done
