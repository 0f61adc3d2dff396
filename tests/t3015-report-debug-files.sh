#!/bin/sh
# t3015-report-debug-files: separate debug files are found by profil's own search, which opens
# only regular files and never blocks (issue 11).  libdwfl's standard search opened
# <bin>.debug, .debug/<bin>.debug and the .gnu_debuglink target blocking, so a FIFO there hung
# the report; and with DEBUGINFOD_URLS set each module without debug information waited on
# the network.  debuginfod is now used only when PROFIL_DEBUGINFOD is set.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3

P=$B/profil
mkdir bin
cp "$B/tests/report/mkstacks" mk &&
objcopy --only-keep-debug mk mk.debug &&
objcopy --strip-debug --add-gnu-debuglink=mk.debug mk bin/mk ||
	echo "not ok - a stripped binary with a debug link"
leaf=$(nm bin/mk | awk '$3 == "leaf_a" { print $1 }')
python3 "$TEST_DIR/report/hostile.py" hit d.profil "$TRASH/bin/mk" 0x$leaf 7 ||
	echo "not ok - hostile.py wrote a profile"

# lines: the file and line report --lines gives leaf_a.
lines() {
	timeout 10 "$P" report --lines --tsv d.profil > l.tsv 2> err
	rc=$?
	cat l.tsv err
	awk -F "\t" "\$8 == \"leaf_a\" { print \$6 }" l.tsv > file
	test $rc = 0
}

test_expect_success 'the debug link next to the binary gives file:line' '
	cp mk.debug bin/mk.debug && lines && grep -q "/mkstacks.c$" file
'
test_expect_success 'and in the .debug directory beside it' '
	rm bin/mk.debug && mkdir bin/.debug && cp mk.debug bin/.debug/mk.debug &&
	lines && grep -q "/mkstacks.c$" file
'
test_expect_success 'a debug file of another binary is not used' '
	cp "$B/tests/report/libplugin.so" bin/.debug/mk.debug &&
	lines && test -z "$(cat file)" &&
	grep -q "no debug information" err
'
test_expect_success 'FIFOs where the debug files go: no block, the names without lines' '
	rm bin/.debug/mk.debug && mkfifo bin/mk.debug bin/.debug/mk.debug &&
	lines && test -z "$(cat file)" &&
	grep -q "no debug information, functions without file:line: '\''$TRASH/bin/mk'\''" err
'
test_expect_success 'DEBUGINFOD_URLS alone does not make the report wait on the network' '
	start=$(date +%s) &&
	DEBUGINFOD_URLS=http://192.0.2.1:1 DEBUGINFOD_TIMEOUT=30 lines &&
	end=$(date +%s) && echo "$((end - start)) s" && test $((end - start)) -le 5
'
test_done
