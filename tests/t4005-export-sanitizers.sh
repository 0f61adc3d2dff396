#!/bin/sh
# t4005-export-sanitizers: profil(1) built with -fsanitize=address,undefined in a build directory
# of its own exports a profile with exact counts and a real -g recording in every format, and
# reads the bad files of t4001: any sanitizer report (leak included) is a failure, even when
# the command then exits as it should.
. "$(dirname "$0")/lib.sh"
sanitizers_setup
P=$S/profil

test_expect_success 'profil(1) and mkprofile build under ASan and UBSan' '
	make -C "$ROOT" -s -j2 B="$S" CC="cc $SAN" -o "$S/signal-safe.ok" "$P" \
		"$S/tests/report/mkprofile" "$S/tests/report/mktimed"
'
cp "$B/tests/report/libplugin.so" gone.so
"$S/tests/report/mkprofile" one.profil "$B/tests/report/libplugin.so" gone.so > /dev/null 2>&1 ||
	echo "not ok - mkprofile wrote a profile"
"$B/profil" record -F 1000 -g -o rec -- "$B/tests/progs/callers" 0.3 > /dev/null 2>&1 ||
	echo "not ok - profil record ran the program"
size=$(wc -c < one.profil)
head -c $((size - 9)) one.profil > truncated.profil
cp one.profil flipped.profil
printf '\377' | dd of=flipped.profil bs=1 seek=300 conv=notrunc 2> /dev/null

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
for fmt in folded pprof svg gmon firefox html; do
	test_expect_success "$fmt export of exact counts and of a recording, clean" '
		clean 0 "$P" export -f $fmt -o one.$fmt one.profil &&
		clean 0 "$P" export -f $fmt -o rec.$fmt rec
	'
	test_expect_success "$fmt export of a truncated and a corrupt file: exit 1, clean" '
		clean 1 "$P" export -f $fmt -o bad.$fmt truncated.profil &&
		clean 1 "$P" export -f $fmt -o bad.$fmt flipped.profil
	'
done
# Stacks on their process and thread too (issue 21): names from the files, made per sample.
for fmt in folded svg; do
	test_expect_success "$fmt --per-process and --threads of a recording, clean" '
		clean 0 "$P" export -f $fmt --per-process -o proc.$fmt rec &&
		clean 0 "$P" export -f $fmt --threads -o thr.$fmt one.profil rec
	'
done
test_expect_success 'firefox export of samples with times (TIME records), clean' '
	"$S/tests/report/mktimed" timed.profil &&
	clean 0 "$P" export -f firefox -o timed.json.gz timed.profil
'
test_done
