#!/bin/sh
# t3002-report: `profil report` on files written by the project's writer with samples at known
# functions of a live process: exact shares and seconds, merging of files and directories, the
# one warning for a deleted binary, usage errors (exit 2) and bad files (exit 1, named).
. "$(dirname "$0")/lib.sh"

P=$B/profil
LIB=$B/tests/report
cp "$LIB/libplugin.so" gone.so
"$LIB/mkprofile" one.profil "$LIB/libplugin.so" gone.so > expect ||
	echo "not ok - mkprofile wrote a profile"

# cols FUNCTION-REGEX COLUMNS [TSV]: the comma-separated COLUMNS (numbers) of the rows of the
# `profil report --tsv` output (default out.tsv) whose function matches, joined by spaces.
# The columns: 1 percent, 2 ci_low, 3 ci_high, 4 cumulative_s, 5 self_s, 6 samples,
# 7 function, 8 module, 9 file, 10 path.
cols() {
	awk -F '\t' -v f="$1" -v c="$2" '$7 ~ ("^" f "$") {
		n = split(c, k, ","); s = $k[1]
		for (i = 2; i <= n; i++)
			s = s " " $k[i]
		print s
	}' "${3:-out.tsv}"
}

# expect_cols FUNCTION-REGEX COLUMNS WANT: cols prints exactly WANT.
expect_cols() {
	got=$(cols "$1" "$2")
	echo "$1: columns $2: got '$got', want '$3'"
	test "$got" = "$3"
}

test_expect_success 'report exits 0 and warns once about the deleted library' '
	"$P" report --tsv one.profil > out.tsv 2> err &&
	cat err &&
	test "$(grep -c "gone.so" err)" = 1 &&
	grep -q "^profil: cannot open binary, showing module+offset: '\''.*/gone.so'\''$" err
'
test_expect_success 'the header names the columns' '
	test "$(head -n 1 out.tsv | tr "\t" " ")" = \
		"percent ci_low ci_high cumulative_s self_s samples function module file path"
'
test_expect_success 'main PIE function: 500 of 1005 ticks, 0.625 s at 800 Hz achieved' '
	expect_cols pie_work 1,4,5,6,7,8 "49.7512 0.625000 0.625000 500 pie_work mkprofile" &&
	case "$(cols pie_work 9,10)" in */mkprofile.c\ /*/mkprofile) ;; *) false ;; esac
'
test_expect_success 'shared library: 300 ticks, the caller frame of 400 more not counted' '
	expect_cols shared_call 1,5,6,8 "29.8507 0.375000 300 libshared.so" &&
	case "$(cols shared_call 9,10)" in *shared.c\ /*/libshared.so) ;; *) false ;; esac
'
test_expect_success 'dlopen'\''ed library closed before the end: attributed' '
	expect_cols plugin_call 1,5,6,8 "11.9403 0.150000 120 libplugin.so" &&
	case "$(cols plugin_call 9,10)" in *plugin.c\ /*/libplugin.so) ;; *) false ;; esac
'
test_expect_success 'libc through its build-id and symbols' '
	expect_cols "_*getpid" 1,5,6,8 "4.9751 0.062500 50 libc.so.6"
'
test_expect_success 'deleted binary: module+0xoffset at the recorded file offset' '
	want=$(awk "\$2 == \"gone.so\" { print \$1 }" expect) &&
	expect_cols "gone.so.*" 1,6,7,8 "1.9900 20 $want gone.so" &&
	case "$(cols "gone.so.*" 9,10)" in " /"*/gone.so) ;; *) false ;; esac
'
test_expect_success 'a PC in no mapping is counted, not lost' '
	expect_cols "\[unmapped\]" 1,6,7,8,9,10 "0.9950 10 [unmapped] ?  "
'
test_expect_success 'the kernel'\''s [vdso]: an offset, no warning' '
	expect_cols "\[vdso\].*" 1,6,7,8,9,10 "0.4975 5 [vdso]+0x10 [vdso]  [vdso]" &&
	grep -q "^\[vdso\]+0x10 " expect && ! grep -q vdso err
'
test_expect_success 'rows are heaviest first and cumulative seconds add up to 1005 / 800 Hz' '
	awk -F "\t" "NR > 1 { print \$6 }" out.tsv > counts &&
	sort -rn counts | cmp - counts &&
	test "$(tail -n 1 out.tsv | cut -f 1,4)" = "0.4975	1.256250"
'
test_expect_success 'each interval holds its share and narrows with more samples' '
	awk -F "\t" "NR > 1 && !(\$2 <= \$1 && \$1 <= \$3) { exit 1 }" out.tsv &&
	cols pie_work 2,3 |
		awk "{ exit !(\$1 > 46.66 && \$1 < 46.67 && \$2 > 52.83 && \$2 < 52.84) }"
'
test_expect_success 'the human view prints the summary and the same rows' '
	"$P" report one.profil > out.txt 2> /dev/null &&
	grep -q "^Flat profile: 1 process, 1005 samples, 1.256 seconds of CPU$" out.txt &&
	grep -q "mkprofile\[[0-9]*\]: 1005 samples at 800.0 Hz achieved" out.txt &&
	grep -q " (1000 Hz requested, perf clock), exit 0$" out.txt &&
	grep -q "^ 49.75  .*  0.625  *500  pie_work  *mkprofile$" out.txt
'
test_expect_success '--limit keeps the heaviest rows' '
	"$P" report --tsv -n 2 one.profil > two.tsv 2> /dev/null &&
	test "$(wc -l < two.tsv)" = 3 && test "$(cols pie_work 6 two.tsv)" = 500
'
test_expect_success 'default ./profil.out/: two processes merge by function' '
	mkdir profil.out &&
	cp one.profil profil.out/a.1.profil && cp one.profil profil.out/b.2.profil &&
	: > profil.out/.b.2.profil.x.tmp &&
	"$P" report --tsv > out.tsv 2> err &&
	test "$(grep -c gone.so err)" = 1 &&
	expect_cols pie_work 5,6 "1.250000 1000" &&
	test "$(tail -n 1 out.tsv | cut -f 1,4)" = "0.4975	2.512500"
'
test_expect_success 'two processes at different load addresses merge by function' '
	mkdir aslr && cp "$LIB/libplugin.so" gone.so &&
	"$LIB/mkprofile" aslr/a.profil "$LIB/libplugin.so" gone.so > a.expect &&
	cp "$LIB/libplugin.so" gone.so &&
	"$LIB/mkprofile" aslr/b.profil "$LIB/libplugin.so" gone.so > b.expect &&
	a=$(sed -n "s/^# pie_work at //p" a.expect) &&
	b=$(sed -n "s/^# pie_work at //p" b.expect) &&
	echo "pie_work at $a and $b" && test "$a" != "$b" &&
	"$P" report --tsv aslr > out.tsv 2> /dev/null &&
	expect_cols pie_work 6 1000 && expect_cols shared_call 6 600 &&
	expect_cols plugin_call 6 240
'
test_expect_success 'a library at a closed one'\''s addresses later: samples go by epoch' '
	cp "$LIB/libplugin.so" gone.so &&
	MKPROFILE_REUSE=1 "$LIB/mkprofile" reuse.profil "$LIB/libplugin.so" gone.so \
		> reuse.expect &&
	"$P" report --tsv reuse.profil > out.tsv 2> err &&
	expect_cols plugin_call 6,8 "120 libplugin.so" &&
	want=$(awk "\$2 == \"libreused.so\" { print \$1 }" reuse.expect) &&
	expect_cols "libreused.so.*" 6,7,8 "7 $want libreused.so" &&
	grep -q "^profil: cannot open binary, .*: '\''/nonexistent/libreused.so'\''$" err
'
test_expect_success 'no measured rate: "counts at the requested rate" (profil(1))' '
	cp "$LIB/libplugin.so" gone.so &&
	MKPROFILE_NO_RATE=1 "$LIB/mkprofile" norate.profil "$LIB/libplugin.so" gone.so > /dev/null &&
	"$P" report --tsv norate.profil > out.tsv 2> /dev/null &&
	expect_cols pie_work 5,6 "0.500000 500"
'

# Usage errors: exit 2 and a message naming what was wrong.
usage_error() {
	"$P" report "$@" > /dev/null 2> err
	rc=$?
	cat err
	test $rc = 2 && grep -q "^usage: profil report" err
}
test_expect_success 'unknown option exits 2' '
	usage_error --bogus one.profil && grep -q "^profil: unknown option: '\''--bogus'\''$" err
'
test_expect_success 'a limit that is not a positive number exits 2' '
	usage_error -n many one.profil &&
	grep -q "^profil: --limit wants a positive number: '\''many'\''$" err &&
	usage_error --limit=0 one.profil
'
test_expect_success 'an option without its value exits 2' '
	usage_error one.profil -n && grep -q "^profil: option needs a value: '\''-n'\''$" err
'
test_expect_success 'an unknown command exits 2' '
	"$P" rpeort > /dev/null 2> err
	test $? = 2 && grep -q "^profil: unknown command: '\''rpeort'\''$" err
'

# Bad input: exit 1 and a message that names the file.
bad_file() {
	"$P" report "$1" > out 2> err
	rc=$?
	cat err
	test $rc = 1 && grep -q "^profil: .*: '$1'\$" err && test ! -s out
}
test_expect_success 'a truncated file exits 1 naming it' '
	size=$(wc -c < one.profil) &&
	head -c $((size - 9)) one.profil > truncated.profil &&
	bad_file truncated.profil && grep -q trunc err
'
test_expect_success 'a flipped byte exits 1 naming it' '
	cp one.profil flipped.profil &&
	printf "\377" | dd of=flipped.profil bs=1 seek=200 conv=notrunc 2> /dev/null &&
	! cmp -s one.profil flipped.profil &&
	bad_file flipped.profil
'
test_expect_success 'a file that is no profile exits 1 naming it' '
	printf "hello, world\n" > text.profil && bad_file text.profil
'
test_expect_success 'a missing file exits 1 naming it' '
	bad_file nothing.profil && grep -q "No such file" err
'
test_expect_success 'a directory without profiles exits 1 naming it' '
	mkdir empty && bad_file empty
'
test_expect_success 'one bad file among good ones still fails' '
	cp truncated.profil profil.out/c.3.profil && bad_file profil.out/c.3.profil &&
	"$P" report profil.out > /dev/null 2> err
	test $? = 1 && grep -q "c.3.profil" err
'
test_done
