#!/bin/sh
# t4033-export-html-inline: the viewer's opening table gives inlined code to the function it was
# inlined into, as `profil report` does (the machine code is that function's symbol), and has
# no row for a function that is only ever inlined.  tests/report/mkstacks: inl_add inlined into
# hot_inline, 50 exact samples among others, with the binary's DWARF.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 chromium:chromium

P=$B/profil
objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
"$B/tests/report/mkstacks" st.profil nodebug.so > /dev/null ||
	echo "not ok - mkstacks wrote a profile"

test_expect_success 'the flame graph keeps the inlined frame' '
	"$P" export -f folded st.profil 2> /dev/null | grep -q ";hot_inline;inl_add " &&
	"$P" export --format=html -o st.html st.profil 2> /dev/null &&
	"$P" report --json st.profil > st.json 2> /dev/null
'
test_run_prog "viewer inline" python3 "$TEST_DIR/export/viewer.py" inline st.html st.json

test_done
