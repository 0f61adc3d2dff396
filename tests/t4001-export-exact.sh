#!/bin/sh
# t4001-export-exact: `profil export` of a profile with exact counts at known functions of a
# live process (tests/report/mkprofile), read back by the real readers: the folded stacks, GNU
# gprof on the per-object gmon files and `go tool pprof` on the pprof file all agree with
# `profil report`, to the sample.  Then usage errors (exit 2) and bad files (exit 1, one
# message naming the file, no output left behind).
. "$(dirname "$0")/lib.sh"
test_needs golang-go:go python3:python3

P=$B/profil
MK=$B/tests/report/mkprofile
cp "$B/tests/report/libplugin.so" gone.so
"$MK" one.profil "$B/tests/report/libplugin.so" gone.so > expect ||
	echo "not ok - mkprofile wrote a profile"
"$P" report --tsv one.profil > report.tsv 2> /dev/null
total=$(awk -F '\t' 'NR > 1 { s += $6 } END { print s }' report.tsv)

test_expect_success 'folded: exits 0, one line per stack, the counts sum to the report total' '
	"$P" export --format=folded one.profil > out.folded 2> err &&
	cat out.folded &&
	test "$(awk "{ s += \$NF } END { print s }" out.folded)" = "$total" &&
	test "$total" -gt 0 &&
	test "$(sort -u out.folded | sed "s/ [0-9]*\$//" | sort -u | wc -l)" = "$(wc -l < out.folded)"
'
# Every stack stands on its program (issue 21), here mkprofile's alone.
test_expect_success 'folded: the program, then the caller frame, leaf last, counts exact' '
	grep -qx "mkprofile;shared_call;pie_work 400" out.folded &&
	grep -qx "mkprofile;pie_work 100" out.folded &&
	grep -qx "mkprofile;shared_call 300" out.folded &&
	grep -qx "mkprofile;plugin_call 120" out.folded &&
	grep -qx "mkprofile;_*getpid 50" out.folded &&
	grep -qx "mkprofile;\[unmapped\] 10" out.folded &&
	want=$(awk "\$2 == \"gone.so\" { print \$1 }" expect) &&
	grep -qx "mkprofile;$want 20" out.folded &&
	test "$(grep -vc "^mkprofile;" out.folded)" = 0
'
test_expect_success 'folded: -o writes the same to a file' '
	"$P" export -f folded -o file.folded one.profil 2> /dev/null && cmp file.folded out.folded
'

# leaf_counts: "function count" of each folded line's leaf, summed, sorted.
leaf_counts() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
	    END { for (x in s) print x, s[x] }' "$1" | sort
}
test_expect_success 'folded: leaves sum to the flat view of profil report, function by function' '
	awk -F "\t" "NR > 1 { print \$7, \$6 }" report.tsv | sort > flat.want &&
	leaf_counts out.folded > flat.got &&
	diff flat.want flat.got
'

# pprof_flat TOP: "function flat" of go tool pprof -top output, rows with flat samples only.
pprof_flat() {
	awk '/^ *flat/ { on = 1; next } on && $1 > 0 { print $6, $1 }' "$1" | sort
}
test_expect_success 'pprof: go tool pprof -top agrees with profil report, function by function' '
	"$P" export --format=pprof -o one.pb.gz one.profil 2> /dev/null &&
	test "$(head -c 2 one.pb.gz | od -An -tx1 | tr -d " ")" = 1f8b &&
	go tool pprof -top -noinlines -nodefraction=0 -nodecount=100000 -sample_index=samples \
		one.pb.gz > top.txt 2>&1 &&
	cat top.txt &&
	pprof_flat top.txt > pprof.got &&
	diff flat.want pprof.got
'
test_expect_success 'pprof: cpu values are ticks over the achieved rate (500 at 800 Hz = 625 ms)' '
	go tool pprof -top -noinlines -nodefraction=0 -sample_index=cpu one.pb.gz > cpu.txt 2>&1 &&
	grep -q "^ *625ms .* pie_work$" cpu.txt &&
	grep -q "Type: cpu" cpu.txt
'
test_expect_success 'pprof: the stack of 400 keeps the caller, with its mapping and build-id' '
	go tool pprof -traces one.pb.gz > traces.txt 2>&1 &&
	awk "/-----/ { if (s ~ /pie_work  *shared_call/) n++; s = \"\"; next } { s = s \" \" \$NF }
	    END { exit n != 1 }" traces.txt &&
	grep -q "^Build ID: [0-9a-f]\{40\}$" traces.txt
'

test_expect_success 'gmon: one file per object, named, for each object that gprof can read' '
	"$P" export --format=gmon -o gm one.profil > written 2> err &&
	cat written err &&
	test -f gm/gmon.mkprofile.out && test -f gm/gmon.libshared.so.out &&
	test -f gm/gmon.libplugin.so.out &&
	grep -q "^gm/gmon.mkprofile.out	$MK	500$" written &&
	grep -q "(20 samples not exported): '\''.*gone.so'\''$" err &&
	grep -q "(10 samples not exported): '\''\[unmapped\]'\''$" err &&
	! ls gm | grep -v "^gmon\..*\.out$"
'
test_expect_success 'gmon: GNU gprof gives pie_work all of its file at the achieved 800 Hz' '
	gprof -b -p "$MK" gm/gmon.mkprofile.out > gprof.txt &&
	cat gprof.txt &&
	grep -q "Each sample counts as 0.00125 seconds" gprof.txt &&
	grep -q "^100.00 *0.62 *0.62  *pie_work$" gprof.txt
'
test_expect_success 'gmon: a shared library analysed on its own: 300 ticks = 0.375 s' '
	gprof -b -p "$B/tests/report/libshared.so" gm/gmon.libshared.so.out > gprof.txt &&
	cat gprof.txt &&
	grep -q "^100.00 *0.38 *0.38  *shared_call$" gprof.txt
'
test_expect_success 'gmon: no call arcs (no invented call counts): header plus one histogram' '
	nbins=$(od -An -j 37 -N 4 -tu4 gm/gmon.mkprofile.out | tr -d " ") &&
	test "$(wc -c < gm/gmon.mkprofile.out)" = $((20 + 1 + 40 + 2 * nbins)) &&
	gprof -b -q "$MK" gm/gmon.mkprofile.out > graph.txt 2>&1; cat graph.txt;
	! grep -q "pie_work \[" graph.txt
'
test_expect_success 'gmon: a bin over 65535 ticks is split into identical records that gprof adds' '
	mkdir many && i=0 &&
	while [ $i -lt 140 ]; do cp one.profil many/p.$i.profil; i=$((i + 1)); done &&
	"$P" export -f gmon -o gm2 many > /dev/null 2>&1 &&
	gprof -b -p "$MK" gm2/gmon.mkprofile.out > gprof.txt &&
	cat gprof.txt &&
	grep -q "^100.00 *87.50 *87.50  *pie_work$" gprof.txt
'
test_expect_success 'two processes: folded counts double, pprof still agrees with profil report' '
	mkdir two && cp one.profil two/a.1.profil && cp one.profil two/b.2.profil &&
	"$P" export -f folded two > two.folded 2> /dev/null &&
	awk "{ \$NF = 2 * \$NF; print }" out.folded | cmp - two.folded &&
	"$P" report --tsv two 2> /dev/null |
		awk -F "\t" "NR > 1 { print \$7, \$6 }" | sort > two.want &&
	"$P" export -f pprof -o two.pb.gz two 2> /dev/null &&
	go tool pprof -top -noinlines -nodefraction=0 -nodecount=100000 -sample_index=samples \
		two.pb.gz > top2.txt 2>&1 &&
	pprof_flat top2.txt > two.got &&
	diff two.want two.got
'

# Hostile counts at one PC of a real binary: 2^63 ticks would take 2^47 records of 65535.
python3 "$TEST_DIR/export/synth.py" mapping huge.profil /bin/true 9223372036854775808
python3 "$TEST_DIR/export/synth.py" mapping big.profil /bin/true 70000
# The PC is at ELF address 0x500, the first of the 8 bins of the aligned range: the heavy bin
# is a record of one bin twice, the 7 bins after it one record.
test_expect_success 'gmon: 70000 ticks in one bin make two records of that bin alone' '
	"$P" export -f gmon -o gm-big big.profil > /dev/null 2>&1 &&
	test "$(wc -c < gm-big/gmon.true.out)" = $((20 + 2 * (1 + 40 + 2) + (1 + 40 + 2 * 7)))
'
test_expect_success 'gmon: 2^63 ticks in one bin are refused, quickly, with a message' '
	timeout 20 "$P" export -f gmon -o gm-huge huge.profil > out 2> err; rc=$?; cat err;
	test $rc = 0 && test ! -e gm-huge/gmon.true.out &&
	grep -q "^profil: too many ticks in one bin for gmon (9223372036854775808 samples not exported): '\''/bin/true'\''$" err
'
# Usage errors: exit 2 and a message.
usage_error() {
	"$P" export "$@" > /dev/null 2> err
	rc=$?
	cat err
	test $rc = 2 && grep -q "^usage: profil export" err
}
test_expect_success 'no --format, an unknown format or gmon to stdout exit 2' '
	usage_error one.profil && grep -q "^profil: --format is required$" err &&
	usage_error -f xml one.profil && grep -q "^profil: unknown format: '\''xml'\''$" err &&
	usage_error -f gmon -o - one.profil &&
	usage_error --bogus one.profil && grep -q "unknown option: '\''--bogus'\''" err
'
test_expect_success '-h prints the usage with every format on standard output and exits 0' '
	"$P" export -h > help && grep -q "^usage: profil export --format=FMT" help &&
	for f in gmon pprof folded svg; do grep -q "^      $f " help || exit 1; done &&
	"$P" --help | grep -q "^  export "
'

# Bad input: exit 1, exactly one message, naming the file, and nothing written.
bad_file() {
	rm -rf o && mkdir o
	"$P" export -f "$2" -o "o/x" "$1" > out 2> err
	rc=$?
	cat err
	test $rc = 1 && test "$(wc -l < err)" = 1 && grep -q "^profil: .*: '$1'\$" err &&
	test ! -s out && test -z "$(ls o)"
}
size=$(wc -c < one.profil)
head -c $((size - 9)) one.profil > truncated.profil
cp one.profil flipped.profil
printf '\377' | dd of=flipped.profil bs=1 seek=300 conv=notrunc 2> /dev/null
cp one.profil version.profil
printf '\002' | dd of=version.profil bs=1 seek=8 conv=notrunc 2> /dev/null
printf 'hello\n' > text.profil
for fmt in folded pprof svg gmon; do
	test_expect_success "$fmt: a truncated file exits 1 naming it" '
		bad_file truncated.profil $fmt && grep -q trunc err
	'
	test_expect_success "$fmt: a corrupt byte exits 1 naming it" '
		bad_file flipped.profil $fmt
	'
	test_expect_success "$fmt: another version exits 1 naming it" '
		bad_file version.profil $fmt && grep -q "version 2" err
	'
	test_expect_success "$fmt: a file that is no profile exits 1 naming it" '
		bad_file text.profil $fmt
	'
done
# A well-formed profile whose mapping names a FIFO: opening it for symbols or program headers
# would wait for a writer forever.
mkfifo fifo
python3 "$TEST_DIR/export/synth.py" mapping fifo.profil "$PWD/fifo"
for fmt in folded pprof svg gmon; do
	test_expect_success "$fmt: a mapping that names a FIFO is a missing binary, not a hang" '
		timeout 20 "$P" export -f $fmt -o fifo.$fmt fifo.profil > /dev/null 2> err; rc=$?
		cat err; test $rc = 0 &&
		grep -q "^profil: cannot open binary.*: '\''$PWD/fifo'\''$" err
	'
done
test_expect_success 'an output that cannot be created exits 1 naming it' '
	"$P" export -f svg -o nodir/x.svg one.profil > /dev/null 2> err; rc=$?; cat err;
	test $rc = 1 && grep -q "^profil: No such file or directory: '\''nodir/x.svg'\''$" err
'
test_done
