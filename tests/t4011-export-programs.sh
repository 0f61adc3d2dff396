#!/bin/sh
# t4011-export-programs: pictures of a whole recording keep programs apart (issue 21).  A shell
# that spins a moment and runs two programs, tests/progs/callers and then tests/progs/spin, is
# recorded with -g: the three stacks start at _start;__libc_start_main, and were merged there
# in folded, SVG and pprof output, the pprof file headed by the first file's program.  Now
# every folded stack and every SVG frame stands on its program, with the samples `profil
# report --per-program` gives it; pprof labels each sample with comm, pid, tid and thread_comm
# (the keys of perf's perf_data_converter) and its heading names the program with the most
# samples, spin, whose file is read after callers'.  --per-process and --threads add the
# process and the thread.
. "$(dirname "$0")/lib.sh"
test_needs golang-go:go python3:python3

P=$B/profil
"$P" record -F 1000 -g -o two -- sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done
	'$B/tests/progs/callers' 0.2; '$B/tests/progs/spin' 0.6" \
	> /dev/null 2>&1 || echo "not ok - profil record ran the shell and the two programs"
"$P" report --per-program --tsv two 2> /dev/null |
	awk -F '\t' 'NR > 1 { n[$12] += $6 } END { for (p in n) print p, n[p] }' | sort > want
cat want
"$P" export -f folded -o two.folded two 2> /dev/null

# per_root FOLDED: "root samples" for the first frame of each stack.
per_root() {
	awk '{ n = $NF; split($0, f, ";"); s[f[1]] += n } END { for (p in s) print p, s[p] }' "$1" |
		sort
}
test_expect_success 'three programs recorded, spin with the most samples, callers first' '
	grep -q "^callers [0-9]" want && grep -q "^sh [0-9]" want && grep -q "^spin [0-9]" want &&
	test "$(awk "\$1 == \"spin\" { print \$2 }" want)" -gt \
		"$(awk "\$1 == \"callers\" { print \$2 }" want)" &&
	ls two | head -n 1 | grep -q "^callers\."
'
test_expect_success 'folded: every stack starts with its program, with the report'"'"'s samples' '
	per_root two.folded > got && diff want got
'
test_expect_success 'folded: each program reaches its own main, never the other'"'"'s' '
	grep -q "^callers;_start;.*;main;right;right_inner;hot_b [0-9]*$" two.folded &&
	grep -q "^spin;_start;.*;main;burn [0-9]*$" two.folded &&
	! grep -q "^callers;.*;burn [0-9]*$" two.folded && ! grep -q "^spin;.*;hot_[ab] " two.folded
'
test_expect_success 'svg: the programs hang from the root, as wide as their samples' '
	"$P" export -f svg -o two.svg two 2> /dev/null &&
	python3 - two.svg > svg.got <<-PY &&
	import sys, xml.etree.ElementTree as E
	for g in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}g"):
	    if g.get("data-d") == "1":
	        print(g.get("data-name"), g.get("data-w"))
	PY
	sort svg.got | diff want - &&
	title="spin \[[0-9]*\], [0-9.]*% of samples; 2 more programs, [0-9]* processes in all" &&
	grep -q "<text id=\"title\" [^>]*>$title<" two.svg
'

test_expect_success 'pprof: the heading names spin, the program with the most samples' '
	"$P" export -f pprof -o two.pb.gz two 2> /dev/null &&
	go tool pprof -top -sample_index=samples two.pb.gz > top.txt 2>&1 && head -n 5 top.txt &&
	grep -q "^File: spin$" top.txt &&
	grep -q "^spin \[[0-9]*\], [0-9.]*% of samples; 2 more programs, [0-9]* processes in all$" \
		top.txt
'
test_expect_success 'pprof: -tags counts each program'"'"'s samples under comm' '
	go tool pprof -tags -sample_index=samples two.pb.gz > tags.txt 2>&1 && cat tags.txt &&
	awk "/^ *comm:/ { on = 1; next } /^ *[a-z_]+:/ { on = 0 }
	    on && /%\\): / { printf \"%s %d\\n\", \$NF, \$1 }" tags.txt | sort > tags.got &&
	diff want tags.got
'
test_expect_success 'pprof: -tagfocus=comm=callers keeps exactly callers'"'"' samples' '
	go tool pprof -top -sample_index=samples -tagfocus=comm=callers two.pb.gz > focus.txt 2>&1 &&
	grep "^Showing nodes accounting for" focus.txt &&
	grep -q "^Showing nodes accounting for $(awk "\$1 == \"callers\" { print \$2 }" want), " \
		focus.txt &&
	! grep -q " burn$" focus.txt
'
test_expect_success 'pprof: -traces shows the labels of each stack, -tagroot puts comm at its root' '
	go tool pprof -traces -tagroot=comm two.pb.gz > traces.txt 2>&1 &&
	grep -q "^ *comm: *spin$" traces.txt && grep -q "^ *comm: *callers$" traces.txt &&
	grep -q "^ *thread_comm: *spin$" traces.txt &&
	awk "/-----/ { if (last != \"\") roots[last] = 1; last = \"\"; on = 1; next }
	    on && NF > 0 && \$1 !~ /:\$/ { last = \$NF }
	    END { if (last != \"\") roots[last] = 1; for (r in roots) print r }" traces.txt |
		sort > roots && cat roots && printf "callers\nsh\nspin\n" | diff - roots
'

pid_of() {
	ls two | sed -n "s/^$1\.\([0-9]*\)\.profil$/\1/p"
}
test_expect_success 'folded --per-process: the program, then program[pid], then the code' '
	"$P" export -f folded --per-process -o proc.folded two 2> /dev/null &&
	c=$(pid_of callers) && s=$(pid_of spin) &&
	test "$(grep -c "^callers;callers\[$c\];_start;" proc.folded)" -gt 0 &&
	test "$(grep -c "^spin;spin\[$s\];_start;" proc.folded)" -gt 0 &&
	test "$(grep -vc "^\(callers;callers\[$c\]\|spin;spin\[$s\]\|sh;sh\[[0-9]*\]\);" \
		proc.folded)" = 0 &&
	per_root proc.folded | diff want -
'
test_expect_success 'folded --threads: and the thread, named as recorded, with its tid' '
	"$P" export -f folded --threads -o thr.folded two 2> /dev/null &&
	s=$(pid_of spin) &&
	test "$(grep -c "^spin;spin\[$s\];spin\[$s\];_start;" thr.folded)" -gt 0 &&
	per_root thr.folded | diff want -
'
test_expect_success 'svg --per-process: processes hang from their programs' '
	"$P" export -f svg --per-process -o proc.svg two 2> /dev/null &&
	grep -q "data-d=\"2\" data-name=\"spin\[$(pid_of spin)\]\"" proc.svg
'
# usage_error ARGS: exit 2, the usage, and a message.
usage_error() {
	"$P" export "$@" two > /dev/null 2> err
	rc=$?
	cat err
	test $rc = 2 && grep -q "^usage: profil export" err
}
test_expect_success '--per-process or --threads with pprof or gmon, or both at once: exit 2' '
	usage_error -f pprof --per-process &&
	grep -q "^profil: --per-process and --threads are for folded and svg, not: '\''pprof'\''$" err &&
	usage_error -f gmon --threads &&
	usage_error -f folded --per-process --threads
'
test_done
