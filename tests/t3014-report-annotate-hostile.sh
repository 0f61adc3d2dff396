#!/bin/sh
# t3014-report-annotate-hostile: `report --annotate` reads the source file its debug
# information names, and that name is input like any other (issue 11).  A symbolic link to
# /dev/zero there made it loop forever and a FIFO blocked it; now only a regular file of a
# sane size is shown, anything else gives the counted lines alone, quickly.
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time

P=$B/profil
R=$ROOT/tests/report
# mkstacks, built so that its debug information places its source in ./src/.
mkdir src &&
cc -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -I"$ROOT/include" -I"$ROOT/src" \
	-fdebug-prefix-map="$R=$TRASH/src" -o mk "$R/mkstacks.c" \
	"$B"/cli/src/format/*.o "$B"/cli/src/report/*.o "$B"/cli/src/cfi/*.o \
	"$B"/cli/src/sample/walk.o "$B"/cli/src/profile/profile.o \
	-L"$B/tests/report" -Wl,-rpath,"$B/tests/report" -lshared -ldl -ldw -lelf -lz -liberty -lm ||
	echo "not ok - mkstacks built with its source in ./src"
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
./mk st.profil nodebug.so > expect || echo "not ok - mkstacks wrote a profile"

test_expect_success 'the debug information names ./src/mkstacks.c' '
	cp "$R/mkstacks.c" src/ &&
	timeout 20 "$P" report --annotate leaf_a st.profil > a.txt 2> err &&
	grep -q "^$TRASH/src/mkstacks.c$" a.txt && grep -q "  leaf_a(int n)$" a.txt
'
test_expect_success 'a source that is a symbolic link to /dev/zero: no loop, lines alone' '
	rm src/mkstacks.c && ln -s /dev/zero src/mkstacks.c &&
	/usr/bin/time -f %M -o rss timeout 20 "$P" report --annotate leaf_a st.profil > a.txt 2> err
	rc=$?
	cat a.txt rss
	test $rc = 0 && grep -q "(not readable: lines with samples only)" a.txt &&
	test "$(tail -n 1 rss)" -lt 65536
'
test_expect_success 'a source that is a FIFO: no block, lines alone' '
	rm src/mkstacks.c && mkfifo src/mkstacks.c &&
	timeout 20 "$P" report --annotate leaf_a st.profil > a.txt 2> err
	rc=$?
	cat a.txt
	test $rc = 0 && grep -q "(not readable: lines with samples only)" a.txt
'
test_done
