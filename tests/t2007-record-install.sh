#!/bin/sh
# An installed profil record finds its recorder in $PREFIX/lib (next to the binary in the build
# tree), and says so clearly when it is missing.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
P=$TRASH/prefix

test_expect_success 'make install puts libprofil-record.so in $PREFIX/lib' '
	make -C "$ROOT" -s B="$B" install PREFIX="$P" > log 2>&1 || { cat log; false; } &&
	test -f "$P/lib/libprofil-record.so" && test -x "$P/bin/profil"
'

test_expect_success 'the installed command records with the installed recorder' '
	"$P/bin/profil" record --clock ring -o inst -- "$REC/exits" exit 0.1 > /dev/null
	test $? -eq 7 &&
	"$P/bin/profil" dump inst/*.profil > d &&
	grep "^mapping .* $P/lib/libprofil-record.so$" d
'

test_expect_success 'no recorder library: a clear error, exit 1' '
	mkdir bin && cp "$P/bin/profil" bin/ &&
	./bin/profil record --clock ring -- true 2> err; test $? -eq 1 &&
	grep "^profil: recorder library not found: '"'"'.*libprofil-record.so'"'"'$" err
'

test_done
