#!/bin/sh
# t3006-report-sanitizers: the symbolizer test and `profil report` built with
# -fsanitize=address,undefined in a build directory of their own, on exact profiles, a real
# recording, bad files and bad arguments: any sanitizer report (leak included) is a failure,
# even when the command then exits as it should.
. "$(dirname "$0")/lib.sh"
sanitizers_setup
P=$S/profil

test_expect_success 'profil(1) and the report tests build under ASan and UBSan' '
	make -C "$ROOT" -s -j2 B="$S" CC="cc $SAN" -o "$S/signal-safe.ok" "$P" \
		"$S/tests/report/mkprofile" "$S/tests/report/mkstacks" "$S/tests/report/symbolize" \
		"$S/tests/report/libplugin.so"
'

# clean RC CMD...: CMD exits RC and no sanitizer says anything.
clean() {
	want=$1
	shift
	"$@" > out 2> err
	rc=$?
	cat err
	test "$rc" = "$want" && ! grep -q -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" \
		-e "runtime error:" err
}

cp "$S/tests/report/libplugin.so" gone.so
test_expect_success 'the symbolizer on a live process: every check passes, clean' '
	clean 0 "$S/tests/report/symbolize" "$S/tests/report/libplugin.so" "$PWD/gone.so" &&
	! grep "^not ok" out
'
cp "$S/tests/report/libplugin.so" gone.so
"$S/tests/report/mkprofile" one.profil "$S/tests/report/libplugin.so" gone.so > /dev/null 2>&1 ||
	echo "not ok - mkprofile wrote a profile"
"$B/profil" record -g -F 1000 -o rec -- sqlite3 :memory: "WITH RECURSIVE c(x) AS (SELECT 1
	UNION ALL SELECT x + 1 FROM c LIMIT 200000) SELECT sum(x % 7) FROM c;" > /dev/null 2>&1 ||
	echo "not ok - profil record ran sqlite3"
size=$(wc -c < one.profil)
head -c $((size - 9)) one.profil > truncated.profil

test_expect_success 'report of exact counts, as a table and as TSV: clean' '
	clean 0 "$P" report one.profil && grep -q pie_work out &&
	clean 0 "$P" report --tsv -n 3 one.profil one.profil && test "$(wc -l < out)" = 4
'
test_expect_success 'report of a real recording: clean' '
	clean 0 "$P" report rec && grep -q sqlite3VdbeExec out
'
objcopy --strip-debug "$S/tests/report/libplugin.so" nodebug.so
"$S/tests/report/mkstacks" st.profil nodebug.so > st.expect 2>&1 ||
	echo "not ok - mkstacks wrote a profile"
test_expect_success 'every view and split, on exact stacks and a -g recording: clean' '
	for v in --graph --lines "--annotate hot_inline" "--annotate plugin_call" --threads \
		--per-process "--pid $(sed -n "s/^pid //p" st.expect)" "--diff one.profil"; do
		clean 0 "$P" report $v st.profil st.profil || return 1
	done
'
test_expect_success 'views of a real -g recording: clean' '
	clean 0 "$P" report --graph -n 20 rec && grep -q sqlite3VdbeExec out &&
	clean 0 "$P" report --lines rec && clean 0 "$P" report --annotate sqlite3VdbeExec rec &&
	clean 0 "$P" report --diff one.profil --tsv rec
'
test_expect_success 'a truncated file and bad arguments: exit 1 and 2, clean' '
	clean 1 "$P" report truncated.profil &&
	clean 2 "$P" report --limit=x one.profil &&
	clean 2 "$P" report --bogus &&
	clean 1 "$P" report --annotate no_such_function st.profil &&
	clean 2 "$P" report --graph --lines st.profil
'
test_done
